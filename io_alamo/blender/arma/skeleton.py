"""The skeleton of a binarized P3D as a Blender armature, and its bone weights as vertex groups.

The file stores bone names and parents only, no rest positions. Each bone is placed at the
weighted centre of the vertices it moves (in the most detailed LOD that weights any), else at
the centre of the named selection of the same name (Memory LODs often hold one), else at its
parent's place; every bone points along +Y with no roll, so its rest is a translation only.
A bone ``Root`` at the origin is the parent of the skeleton's top bones and holds the vertices
no bone moves (as the Alamo export's bone 0). A model without a skeleton gets only ``Root``.
"""

import bpy
import numpy as np

from ...formats.arma.placement import used_vertices

from ..mesh_data import add_vertex_groups
from ..names import to_blender
from .mesh import file_points, mesh_points, to_blender_axes

ROOT = "Root"
MIN_LENGTH = 0.01


def _weights(lod, n_bones):
    """(vertex, skeleton bone, weight) int64/int64/float32 arrays of a LOD's bone weights,
    each (vertex, bone) once; entries naming bones the skeleton lacks are dropped."""
    bw, counts = lod.bone_weights, lod.bone_counts
    empty = np.zeros(0, np.int64)
    if (bw is None or counts is None or not len(bw) or lod.bone_map is None
            or n_bones == 0):
        return empty, empty, np.zeros(0, np.float32)
    vs, bs, ws = [], [], []
    for k in range(4):
        at = np.flatnonzero(counts > k)
        vs.append(at)
        bs.append(bw[at, k, 0].astype(np.int64))
        ws.append(bw[at, k, 1].astype(np.float64) / 255.0)
    v, b, w = np.concatenate(vs), np.concatenate(bs), np.concatenate(ws)
    ok = b < len(lod.bone_map)
    v, b, w = v[ok], lod.bone_map[b[ok]], w[ok]
    ok = (b >= 0) & (b < n_bones) & (w > 0)
    v, b, w = v[ok], b[ok], w[ok]
    keys, inverse = np.unique(v * n_bones + b, return_inverse=True)
    total = np.bincount(inverse.ravel(), w, len(keys))
    return keys // n_bones, keys % n_bones, np.clip(total, 0.0, 1.0).astype(np.float32)


def bone_heads(model, lods_by_detail):
    """(bones, 3) Blender-space heads of the skeleton's bones (see the module text)."""
    bones = model.info.skeleton.bones
    n = len(bones)
    heads = np.zeros((n, 3))
    placed = np.zeros(n, bool)
    for lod in lods_by_detail:
        if placed.all() or lod.vertices is None or not len(lod.vertices):
            continue
        v, b, w = _weights(lod, n)
        if lod.faces is not None and len(lod.faces):     # stray points and markers not
            used = used_vertices(lod)
            keep = used[np.minimum(v, len(used) - 1)] & (v < len(used))
            v, b, w = v[keep], b[keep], w[keep]
        pts = to_blender_axes(lod.vertices).astype(np.float64)
        mass = np.bincount(b, w, n)
        fresh = (mass > 0) & ~placed
        for axis in range(3):
            sums = np.bincount(b, w * pts[v, axis], n)
            heads[fresh, axis] = sums[fresh] / mass[fresh]
        placed |= fresh
    names = {to_blender(name).lower(): i for i, (name, _) in enumerate(bones)}
    for lod in lods_by_detail:
        if lod.vertices is None or not len(lod.vertices):
            continue
        pts = to_blender_axes(lod.vertices).astype(np.float64)
        for sel in lod.selections:
            i = names.get(to_blender(sel.name).lower())
            if i is None or placed[i]:
                continue
            verts = sel.vertices[(sel.vertices >= 0) & (sel.vertices < len(pts))]
            if len(verts):
                heads[i] = pts[verts].mean(axis=0)
                placed[i] = True
    parents = parent_indices(bones)
    for i in _parents_first(parents):
        if not placed[i] and parents[i] >= 0:
            heads[i] = heads[parents[i]]
    heads[~np.isfinite(heads)] = 0.0
    return heads


def parent_indices(bones):
    """Each bone's parent index (-1: none or unknown), by name, ignoring case."""
    index = {}
    for i, (name, _) in enumerate(bones):
        index.setdefault(name.lower(), i)
    out = np.full(len(bones), -1, np.int64)
    for i, (_, parent) in enumerate(bones):
        p = index.get(parent.lower(), -1) if parent else -1
        out[i] = p if p != i else -1
    # a parent loop (damaged file): cut it where it closes
    for i in range(len(bones)):
        seen, j = {i}, out[i]
        while j >= 0:
            if j in seen:
                out[i] = -1
                break
            seen.add(j)
            j = out[j]
    return out


def _parents_first(parents):
    depth = np.zeros(len(parents), np.int64)
    for i in range(len(parents)):
        j = parents[i]
        while j >= 0:
            depth[i] += 1
            j = parents[j]
    return np.argsort(depth, kind="stable").tolist()


def build_armature(context, tx, collection, name, model, lods_by_detail, size):
    """The armature object ``name`` with ``Root`` and the skeleton's bones; returns (object,
    Blender bone name per skeleton bone)."""
    arm = tx.add(bpy.data.armatures.new(name))
    arm.display_type = "STICK"
    obj = tx.add(bpy.data.objects.new(name, arm))
    collection.objects.link(obj)
    obj.show_in_front = True
    obj.alamo.role, obj.alamo.name = "SKELETON", name
    bones = model.info.skeleton.bones
    heads = bone_heads(model, lods_by_detail) if bones else np.zeros((0, 3))
    parents = parent_indices(bones)
    length = max(MIN_LENGTH, 0.02 * float(size))
    view_layer = context.view_layer
    previous = view_layer.objects.active
    view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        root = arm.edit_bones.new(ROOT)
        root.head, root.tail = (0.0, 0.0, 0.0), (0.0, length, 0.0)
        edit = []
        for i, (bone_name, _) in enumerate(bones):
            eb = arm.edit_bones.new(to_blender(bone_name) or f"Bone {i}")
            eb.head = heads[i].tolist()
            eb.tail = (heads[i] + (0.0, length, 0.0)).tolist()
            eb.roll = 0.0
            edit.append(eb)
        for i, eb in enumerate(edit):
            eb.parent = edit[parents[i]] if parents[i] >= 0 else root
        names = [eb.name for eb in edit]
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
        view_layer.objects.active = previous
    for k, bone_name in enumerate([ROOT] + names):
        b = arm.bones[bone_name].alamo
        b.name, b.blender_name, b.index = bone_name, bone_name, k
    return obj, names


def skin(obj, lod, bone_names, held=None):
    """Vertex groups of the LOD's bone weights (vertices no bone moves go to ``Root``);
    returns whether the LOD has any bone weights. The mesh holds the file points ``held``
    (None: all, one to one); the groups are those of every file point all the same (a
    bone that moves only left-out points keeps its empty group, in its place)."""
    n_bones = len(bone_names)
    v, b, w = _weights(lod, n_bones)
    if not len(v):
        return False
    v, b, w = _with_root(v, b, w, n_bones, len(file_points(lod)))
    bones = np.unique(b)
    if held is not None:
        v, ok = mesh_points(v, held, len(file_points(lod)))
        b, w = b[ok], w[ok]
    add_vertex_groups(obj, list(bone_names) + [ROOT], v, b, w, bones)
    return True


def _with_root(v, b, w, n_bones, n):
    """The weights of points below ``n``, and ``Root`` (bone ``n_bones``) at full weight for
    the points no bone moves."""
    weighted = np.zeros(n, bool)
    weighted[v[v < n]] = True
    rest = np.flatnonzero(~weighted)
    v = np.concatenate([v, rest])
    b = np.concatenate([b, np.full(len(rest), n_bones, np.int64)])
    w = np.concatenate([w, np.ones(len(rest), np.float32)])
    ok = v < n
    return v[ok], b[ok], w[ok]
