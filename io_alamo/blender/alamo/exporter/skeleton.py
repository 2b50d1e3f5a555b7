"""The exported skeleton, built once from the armature (and the imported file it came from):
bone order, names, parents and matrices exactly as the .alo export writes them, which the
.ala export follows too."""

from dataclasses import dataclass, field

import numpy as np

from ....formats.alamo import AlamoFormatError, Bone, Skeleton, read_alo
from ...matrices import inverse, nearest_rotation
from ...names import export_name, from_blender
from ..props import BILLBOARD_ITEMS
from ...source import get_source
from ..bone_rest import rest_unedited
from .bake import bake_of
from .bone_zero import ROOT_NAME, plan_bone_zero

BILLBOARD_VALUES = {ident: value for ident, _, _, value in BILLBOARD_ITEMS}


@dataclass(slots=True)
class BuiltSkeleton:
    """The skeleton record and what the rest of the export needs to place things on it."""
    skeleton: Skeleton
    bone_index: dict                  # Blender bone name -> export index
    worlds: list                      # (4, 4) model-space matrix of each exported bone
    root_added: bool                  # an identity Root bone 0 was added
    as_file: list = field(default_factory=list)   # bones written with the file's own matrix
    source_index: list = field(default_factory=list)  # each bone's index in the imported
    #                                                   file, -1 for a bone new to it

    def export_of_source(self):
        """(n,) int64: for each bone of the imported file its export index, -1 if deleted."""
        n = max(self.source_index, default=-1) + 1
        out = np.full(n, -1, np.int64)
        for k, s in enumerate(self.source_index):
            if s >= 0:
                out[s] = k
        return out


def parse_source(arm):
    """The model the armature was imported from (parsed from the bytes kept on it), or None.
    Parse it once per export and hand it to build_skeleton and the animation export."""
    data = get_source(arm) if arm is not None else None
    if data is None:
        return None
    try:
        model = read_alo(bytes(data))
    except AlamoFormatError:
        return None
    return model if model.kind == "model" else None


def build_skeleton(arm, source, report):
    """The skeleton of ``arm`` (None: a lone Root bone) as the export writes it: the file's
    records where the bones are as imported. Names are checked into ``report``."""
    if arm is None:
        report.warn("no armature: a root bone was added")
        return BuiltSkeleton(Skeleton([Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]), {},
                             [np.eye(4)], True)
    src = source
    bones = list(arm.data.bones)
    n_src = len(src.bones) if src else 0
    old = sorted((b for b in bones if 0 <= b.alamo.index < max(n_src, 1 << 30)
                  and b.alamo.blender_name),
                 key=lambda b: b.alamo.index)
    seen = {b.name for b in old}
    new = [b for b in bones if b.name not in seen]       # hierarchy order, parents first
    order = _parents_first(old + new)
    zero = plan_bone_zero(order, src is not None)
    bake = bake_of(arm)          # the object's rotation and scale, written as shown
    bake = None if bake.identity else bake
    first = int(zero.added)
    bone_index = {b.name: k + first for k, b in enumerate(order)}
    out, worlds = ([Bone(ROOT_NAME, -1, np.eye(3, 4, dtype="<f4"))], [np.eye(4)]) \
        if zero.added else ([], [])
    as_file = [False] * first
    source_index = [-1] * first
    for b in order:
        parent = bone_index[b.parent.name] if b.parent else first - 1
        p = b.alamo
        name = from_blender(export_name(b.name, p.name, p.blender_name))
        report.check_name("bone", name, [arm])
        if b.name == zero.own:
            matrix = np.eye(3, 4, dtype="<f4")
            as_file.append(False)
        else:
            matrix = _bone_matrix(b, p, parent, worlds, as_file, bake)
        record = _bone_record(src, n_src, p, name, parent, matrix)
        from_file = src.bones[p.index] if src and 0 <= p.index < n_src else None
        source_index.append(p.index if from_file is not None and p.blender_name else -1)
        if record is not from_file:
            report.check_finite(f"bone {name!r}", record.matrix, [arm],
                                " (its rest matrix)")
        out.append(record)
        w = np.eye(4)
        w[:3, :] = np.asarray(record.matrix, np.float64)
        worlds.append(worlds[parent] @ w if parent >= 0 else w)
    if src and len(out) == len(src.bones) and all(a is b for a, b in zip(out, src.bones)):
        skeleton = src.skeleton
    else:
        skeleton = Skeleton(out, layout=src.skeleton.layout if src and src.skeleton else None)
    return BuiltSkeleton(skeleton, bone_index, worlds, zero.added, as_file, source_index)


def _bone_record(src, n_src, p, name, parent, matrix):
    """The file's own record when nothing changed, else a new one (keeping what Blender
    cannot show)."""
    visible = int(p.visible)
    billboard = BILLBOARD_VALUES.get(p.billboard, 0)
    if src and 0 <= p.index < n_src and p.blender_name:
        s = src.bones[p.index]
        if s.billboard not in BILLBOARD_VALUES.values() and p.billboard == "DISABLE":
            billboard = s.billboard          # a value Blender's enum cannot show
        same = (s.name == name and s.parent == parent and s.visible == visible
                and s.billboard == billboard and np.array_equal(s.matrix, matrix))
        if same:
            return s
        return Bone(name, parent, matrix, visible, billboard, s.chunk_type, s.layout)
    return Bone(name, parent, matrix, visible, billboard)


def _parents_first(bones):
    placed, out = set(), []
    pending = list(bones)
    while pending:
        rest = []
        for b in pending:
            if b.parent is None or b.parent.name in placed:
                out.append(b)
                placed.add(b.name)
            else:
                rest.append(b)
        if len(rest) == len(pending):        # cannot happen in a valid armature
            out += rest
            break
        pending = rest
    return out


def _bone_matrix(bone, props, parent, worlds, as_file, bake=None):
    """The file's matrix when the Blender rest still matches it, else from Blender (with
    the armature object's rotation and scale baked in: ``bake``)."""
    rest = np.array(bone.matrix_local, np.float64)
    if bake is not None:
        as_file.append(False)
        rest = bake.rigid(rest)
        local = inverse(worlds[parent]) @ rest if parent >= 0 else rest
        return local[:3, :].astype("<f4")
    stored = np.array(props.matrix, np.float32).reshape(3, 4)
    keep = props.blender_name and np.any(stored) and rest_unedited(bone)
    if keep and (parent < 0 or as_file[parent]):
        as_file.append(True)         # exactly as imported, near Blender's roll
        return stored                # singularity too
    as_file.append(False)
    if props.blender_name and np.any(stored):
        local = np.eye(4)
        local[:3, :] = stored
        world = worlds[parent] @ local if parent >= 0 else local
        scale = max(1.0, float(np.abs(world[:3, 3]).max()))
        if (np.allclose(rest[:3, 3], world[:3, 3], atol=1e-4 * scale)
                and np.allclose(rest[:3, :3], nearest_rotation(world[:3, :3]), atol=1e-4)):
            return stored
    # relative to the parent as exported (its file matrix may carry a scale)
    local = inverse(worlds[parent]) @ rest if parent >= 0 else rest
    return local[:3, :].astype("<f4")
