"""A modder's day of work on real files (issue 25), measured by scripts/measure_edits.py:
resizing a unit three ways, kitbashing, a new n-gon part, one animation key edited, new
actions, and a folder given as the output. Each function returns a dict of figures.

Needs bpy and the add-on registered (measure_edits.py does both)."""

import math
import sys
import tempfile
from pathlib import Path

import bpy
import numpy as np

from io_alamo.formats.alamo import read_ala, read_alo, write_chunks
from io_alamo.formats.alamo.chunk_types import ChunkType
from io_alamo.formats.alamo.chunks import read_chunks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from posing import mesh_positions, posed_positions  # noqa: E402  (the tests' own measure)

FACTOR = 1.5
WAYS = ("unapplied", "apply_scale", "operator")


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def import_unit(alo, ala=None):
    from io_alamo.blender.alamo.importer.ala import import_ala
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    result = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False))
    action = import_ala(bpy.context, result.armature, str(ala)).action if ala else None
    if action is not None:
        result.armature.animation_data.action = None
    return result, action


def select_only(obj):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def export(arm, model_path, action=None, anim_path=None):
    from io_alamo.blender.alamo.exporter.ala import export_ala
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    select_only(arm)
    result = export_alo(bpy.context, str(model_path), AloExportOptions())
    if action is not None:
        export_ala(bpy.context, arm, action, str(anim_path))
    return result


def model_of(anim_path, folder):
    stem = anim_path.stem.lower()
    models = [p for p in folder.iterdir() if p.suffix.lower() == ".alo"
              and stem.startswith(p.stem.lower() + "_")]
    return max(models, key=lambda p: len(p.stem)) if models else None


# --- resize ------------------------------------------------------------------------------------

def _mesh_centres(model):
    """Per mesh: its model-space positions' min and max, as six numbers."""
    out = [np.concatenate([p.min(axis=0), p.max(axis=0)]) for _, p in mesh_positions(model)]
    return np.array(out).reshape(-1, 6)


def resize(alo, ala, way, tmp):
    """Worst error (relative to the unit's reach) of bones, meshes and animated bone
    positions against 1.5x the original, after one way of resizing."""
    fresh()
    result, action = import_unit(alo, ala)
    arm = result.armature
    select_only(arm)
    if way == "operator":
        bpy.ops.alamo.scale_model(factor=FACTOR)
    else:
        arm.scale = (FACTOR,) * 3
        if way == "apply_scale":
            for o in arm.children_recursive:
                o.select_set(True)
            bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    export(arm, tmp / "r.alo", action, tmp / "r.ala")
    a, b = read_alo(alo.read_bytes()), read_alo((tmp / "r.alo").read_bytes())
    reach = max(1.0, float(np.abs(a.skeleton.world_matrices()[:, :3, 3]).max()))
    bones = np.abs(b.skeleton.world_matrices()[:, :3, 3]
                   - FACTOR * a.skeleton.world_matrices()[:, :3, 3]).max()
    meshes = np.abs(_mesh_centres(b) - FACTOR * _mesh_centres(a)).max(initial=0.0)
    pa = posed_positions(a, read_ala(ala.read_bytes()))
    pb = posed_positions(b, read_ala((tmp / "r.ala").read_bytes()))
    frames = np.abs(pb - FACTOR * pa).max()
    return {"bones": bones / reach, "meshes": meshes / reach, "animation": frames / reach}


# --- kitbash -----------------------------------------------------------------------------------

def kitbash(first, second, tmp):
    """(first unit's objects kept in order and unchanged, the new part last)."""
    fresh()
    a, _ = import_unit(first)
    b, _ = import_unit(second)
    parts = [o for o in b.objects if o.type == "MESH"
             and not any(m.type == "ARMATURE" for m in o.modifiers)]
    if not parts:
        return None
    part = min(parts, key=lambda o: o.alamo.file_index)
    world = part.matrix_world.copy()
    part.parent, part.parent_type = a.armature, "OBJECT"
    part.matrix_world = world
    export(a.armature, tmp / "k.alo")
    old, new = read_alo(first.read_bytes()), read_alo((tmp / "k.alo").read_bytes())
    n = len(old.objects)
    kept = len(new.objects) == n + 1 and all(
        x.name == y.name and type(x) is type(y) and all(
            np.array_equal(s.vertices, t.vertices)
            for s, t in zip(getattr(x, "submeshes", []), getattr(y, "submeshes", [])))
        for x, y in zip(old.objects, new.objects))
    return kept, new.objects[-1].name == part.name.split(".")[0] if new.objects else False


# --- a new n-gon cylinder ------------------------------------------------------------------------

def ngon_cylinder(alo, tmp):
    """Worst angle (degrees) between the cylinder's side tangents and the direction around
    it, and whether a tangent warning was given."""
    fresh()
    result, _ = import_unit(alo)
    bpy.ops.mesh.primitive_cylinder_add(vertices=16, radius=1.0, depth=4.0)
    cyl = bpy.context.active_object
    mat = bpy.data.materials.new("Bump")
    mat.alamo.shader = "MeshBumpColorize.fx"
    cyl.data.materials.append(mat)
    cyl.parent = result.armature
    r = export(result.armature, tmp / "c.alo")
    model = read_alo((tmp / "c.alo").read_bytes())
    mesh = next(m for m in model.meshes if m.name == cyl.name)
    v = np.concatenate([s.vertices for s in mesh.submeshes])
    side = np.abs(v["normal"][:, 2]) < 0.1
    p = v["position"][side].astype(np.float64)
    around = np.stack([-p[:, 1], p[:, 0], np.zeros(len(p))], 1)
    around /= np.linalg.norm(around, axis=1, keepdims=True)
    cos = np.abs(np.einsum("ij,ij->i", v["tangent"][side].astype(np.float64), around))
    worst = math.degrees(math.acos(min(1.0, float(cos.min()))))
    return worst, any("tangent" in w for w in r.warnings)


# --- one key edited --------------------------------------------------------------------------------

def _bone_chunks(data):
    root = read_chunks(data)[0]
    return [write_chunks([c], (ChunkType.BONE_ANIMATION_HEADER,)) for c in root.children
            if c.type == ChunkType.BONE_ANIMATION]


def one_key(ala, alo, tmp):
    """(bones whose stored data is exact, bones, the edited one changed)."""
    from io_alamo.blender import compat
    from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
    from io_alamo.blender.alamo.fingerprint import bone_of_path
    fresh()
    result, action = import_unit(alo, ala)
    anim = read_ala(ala.read_bytes())
    curve = None
    for fc in compat.action_fcurves(action):
        _, prop = bone_of_path(fc.data_path)
        if prop in ("location", "rotation_quaternion") and len(fc.keyframe_points) > 2 \
                and fc.array_index == (prop != "location"):
            curve = fc
            break
    if curve is None:
        return None
    curve.keyframe_points[len(curve.keyframe_points) // 2].co[1] += 0.1
    curve.update()
    out = tmp / "e.ala"
    export_ala(bpy.context, result.armature, action, str(out),
               AlaExportOptions(format=anim.format))
    new = read_ala(out.read_bytes())
    if anim.format == 1:
        same = [x == y for x, y in zip(_bone_chunks(ala.read_bytes()),
                                       _bone_chunks(out.read_bytes()))]
    else:
        fields = ("translation", "rotation", "scale", "translation_offset",
                  "translation_scale", "scale_offset", "scale_scale", "default_rotation")
        same = [all((getattr(x, f) is None) == (getattr(y, f) is None) and
                    (getattr(x, f) is None or np.array_equal(getattr(x, f), getattr(y, f)))
                    for f in fields) for x, y in zip(anim.bones, new.bones)]
    return sum(same), len(anim.bones), anim.format


# --- new actions, folders -------------------------------------------------------------------------

def new_action(alo, anims, tmp):
    """(format written, fps written, the unit's formats, the unit's rates) of a new action."""
    from io_alamo.blender.alamo.actions import set_active_action
    from io_alamo.blender.alamo.exporter.ala import export_ala
    from io_alamo.blender.alamo.importer.ala import import_ala
    fresh()
    result, _ = import_unit(alo)
    arm = result.armature
    for p in anims:
        import_ala(bpy.context, arm, str(p))
    action = bpy.data.actions.new("Wave")
    set_active_action(arm, action)
    bone = arm.pose.bones[1]
    for frame, z in ((1, 0.0), (10, 0.5)):
        bone.location = (0.0, 0.0, z)
        bone.keyframe_insert("location", frame=frame)
    export_ala(bpy.context, arm, action, str(tmp / "n.ala"))
    new = read_ala((tmp / "n.ala").read_bytes())
    files = [read_ala(p.read_bytes()) for p in anims]
    return (new.format, float(new.fps), sorted({a.format for a in files}),
            sorted({float(a.fps) for a in files}))


def folder_target(alo, tmp):
    """Whether exporting onto an existing folder is refused and the folder survives."""
    fresh()
    result, _ = import_unit(alo)
    folder = tmp / "MyMod"
    folder.mkdir(exist_ok=True)
    (folder / "keep.txt").write_bytes(b"x")
    select_only(result.armature)
    try:
        bpy.ops.export_scene.alo(filepath=str(folder))
        refused = False
    except RuntimeError as e:
        refused = "folder" in str(e)
    return refused and (folder / "keep.txt").read_bytes() == b"x"


def run(folder):
    """Print the figures of every workflow on the corpus ``folder``."""
    tmp = Path(tempfile.mkdtemp())
    alos = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".alo"
                  and read_alo(p.read_bytes()).kind == "model")
    alas = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".ala")
    pairs = [(p, model_of(p, folder)) for p in alas]
    pairs = [(a, m) for a, m in pairs if m is not None]
    worst = {w: {"bones": 0.0, "meshes": 0.0, "animation": 0.0} for w in WAYS}
    for ala, alo in pairs:
        if read_ala(ala.read_bytes()).num_frames > 400:
            continue                                   # the 601-frame one: slow, no news
        for way in WAYS:
            e = resize(alo, ala, way, tmp)
            print(f"resize {way:12s} {alo.name} + {ala.name}: " +
                  ", ".join(f"{k} {v:.2e}" for k, v in e.items()))
            for k, v in e.items():
                worst[way][k] = max(worst[way][k], v)
    for way, e in worst.items():
        print(f"resize {way}: worst error / reach: " +
              ", ".join(f"{k} {v:.2e}" for k, v in e.items()))
    kit = [kitbash(a, b, tmp) for a, b in zip(alos, alos[1:] + alos[:1])]
    kit = [k for k in kit if k is not None]
    print(f"kitbash: {sum(k[0] for k in kit)} of {len(kit)} pairs keep the first unit's "
          f"objects in order and unchanged, {sum(k[1] for k in kit)} with the new part last")
    cyl = [ngon_cylinder(p, tmp) for p in alos[:6]]
    print(f"n-gon cylinder on {len(cyl)} units: worst tangent angle from 'around' "
          f"{max(c[0] for c in cyl):.3f} deg, tangent warnings {sum(c[1] for c in cyl)}")
    for fmt in (1, 2):
        keys = [one_key(a, m, tmp) for a, m in pairs if read_ala(a.read_bytes()).format == fmt]
        keys = [k for k in keys if k is not None]
        print(f"one key edited, format #{fmt}: {len(keys)} files, bones kept exactly "
              f"{sum(k[0] for k in keys)} of {sum(k[1] for k in keys)} (the edited one is "
              f"each file's 1)")
    units = {}
    for a, m in pairs:
        units.setdefault(m, []).append(a)
    for m, anims in units.items():
        print(f"new action on {m.name}: format, fps, the unit's formats, rates = "
              f"{new_action(m, anims, tmp)}")
    ok = sum(folder_target(p, tmp) for p in alos[:4])
    print(f"a folder as the export target: refused and intact {ok} of 4")
