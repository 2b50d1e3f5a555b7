"""What the game loads after a modder's edits (issue 31), measured by scripts/measure_edits.py
(``--only game``): each written file is checked with io_alamo's game-loader rules and, when
it can be built (tests/alo_viewer.py), with the alo-viewer's loaders themselves.

Needs bpy and the add-on registered (measure_edits.py does both)."""

import sys
import tempfile
from pathlib import Path

import bpy
import numpy as np

from io_alamo.formats.alamo import shaders
from io_alamo.formats.alamo import read_ala, read_alo
from io_alamo.formats.alamo.game_rules import game_problem, model_bones

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import alo_viewer  # noqa: E402  (the tests' own viewer build)
from measure_workflows import fresh, import_unit, model_of, select_only  # noqa: E402
from posing import mesh_positions  # noqa: E402


def loads(ala, model):
    """(the Python rules take it, the viewer takes it or None when it is not built)."""
    ok = game_problem(Path(ala).read_bytes(), model_bones(Path(model).read_bytes())) is None
    if alo_viewer.viewer() is None:
        return ok, None
    return ok, alo_viewer.check([ala], model=model)[str(ala)][0]


def _edit_key(action):
    from io_alamo.blender import compat
    from io_alamo.blender.alamo.fingerprint import bone_of_path
    for fc in compat.action_fcurves(action):
        _, prop = bone_of_path(fc.data_path)
        if prop in ("location", "rotation_quaternion") and len(fc.keyframe_points) > 2 \
                and fc.array_index == (prop != "location"):
            fc.keyframe_points[len(fc.keyframe_points) // 2].co[1] += 0.1
            fc.update()
            return True
    return False


def edited(ala, alo, tmp, fmt=None):
    """One key edited, written in ``fmt`` (None: the file's): (format, Python ok, viewer ok,
    every format #2 header complete)."""
    from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
    from io_alamo.formats.alamo.chunks import read_chunks, read_minis
    fresh()
    result, action = import_unit(alo, ala)
    if not _edit_key(action):
        return None
    fmt = fmt or read_ala(ala.read_bytes()).format
    out = tmp / "e.ala"
    export_ala(bpy.context, result.armature, action, str(out), AlaExportOptions(format=fmt))
    complete = True
    if fmt == 2:
        for bone in read_chunks(out.read_bytes())[0].children:
            if bone.type == 0x1002:
                head = next(c for c in bone.children if c.type == 0x1003)
                complete &= [m.type for m in read_minis(head)][-4:] == [14, 15, 16, 17]
    return (fmt, *loads(out, alo), complete)


def scaled_unit(alo, anims, tmp):
    """scale_model, then Export with Animations: (files, Python ok, viewer ok)."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.alamo.importer.ala import import_ala
    fresh()
    result, _ = import_unit(alo)
    for p in anims:
        import_ala(bpy.context, result.armature, str(p))
    select_only(result.armature)
    bpy.ops.alamo.scale_model(factor=1.5)
    out = tmp / "scaled"
    out.mkdir(exist_ok=True)
    res = export_alo(bpy.context, str(out / alo.name), AloExportOptions(animations=True))
    checks = [loads(p, out / alo.name) for p in res.animations]
    return (len(checks), sum(c[0] for c in checks),
            None if alo_viewer.viewer() is None else sum(bool(c[1]) for c in checks))


def two_units(a, b, anims_a, anims_b, tmp):
    """Both units with their animations in one scene, the first exported with animations:
    (files written, files that are the first unit's own)."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    fresh()
    first = import_alo(bpy.context, str(a), AloImportOptions()).armature
    import_alo(bpy.context, str(b), AloImportOptions())
    select_only(first)
    out = tmp / "two"
    out.mkdir(exist_ok=True)
    for p in out.iterdir():
        p.unlink()
    res = export_alo(bpy.context, str(out / a.name), AloExportOptions(animations=True))
    own = {p.name.lower() for p in anims_a}
    return len(res.animations), sum(Path(p).name.lower() in own for p in res.animations)


def rest_pose(alo, ala, tmp):
    """Worst mesh vertex offset (relative to the unit's reach) of a rebuilt unit exported
    mid-animation against the same unit exported at rest."""
    from io_alamo.blender.alamo.actions import set_active_action
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    fresh()
    result, action = import_unit(alo, ala)
    arm = result.armature
    del arm["alamo_source"]
    for o in bpy.data.objects:
        o.pop("alamo_fingerprint", None)
    select_only(arm)
    export_alo(bpy.context, str(tmp / "rest.alo"), AloExportOptions())
    set_active_action(arm, action)
    start, end = action.frame_range
    bpy.context.scene.frame_set(int((start + end) // 2))
    export_alo(bpy.context, str(tmp / "posed.alo"), AloExportOptions())
    a, b = (read_alo((tmp / n).read_bytes()) for n in ("rest.alo", "posed.alo"))
    reach = max(1.0, float(np.abs(a.skeleton.world_matrices()[:, :3, 3]).max()))
    worst = max((float(np.abs(p - q).max(initial=0.0)) for (_, p), (_, q)
                 in zip(mesh_positions(a), mesh_positions(b)) if p.shape == q.shape),
                default=0.0)
    return worst / reach


def shadow_after_scale(alo, tmp):
    """(shadow triangles in the file, after scale_model) or None without a shadow mesh."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    model = read_alo(alo.read_bytes())
    tris = sum(len(s.indices) for m in model.meshes for s in m.submeshes
               if shaders.is_shadow(s.material.shader))
    if not tris:
        return None
    fresh()
    result, _ = import_unit(alo)
    select_only(result.armature)
    bpy.ops.alamo.scale_model(factor=1.5)
    export_alo(bpy.context, str(tmp / "s.alo"), AloExportOptions())
    new = read_alo((tmp / "s.alo").read_bytes())
    return tris, sum(len(s.indices) for m in new.meshes for s in m.submeshes
                     if shaders.is_shadow(s.material.shader))


def weight_colours(alo, tmp):
    """(skinned meshes, whose colours are the file's after one weight edit each)."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    model = read_alo(alo.read_bytes())
    fresh()
    import_unit(alo)
    skinned = [o for o in bpy.data.objects if o.type == "MESH" and o.vertex_groups]
    for o in skinned:
        g = o.vertex_groups[0]
        v = next((v.index for v in o.data.vertices if any(x.group == g.index
                                                          for x in v.groups)), None)
        if v is not None:
            g.add([v], 0.5, "REPLACE")
    export_alo(bpy.context, str(tmp / "w.alo"), AloExportOptions())
    new = read_alo((tmp / "w.alo").read_bytes())

    def colours(m, name):
        mesh = next(x for x in m.meshes if x.name == name)
        return np.unique(np.concatenate([s.vertices["color"] for s in mesh.submeshes]), axis=0)
    same = sum(np.array_equal(colours(model, o.alamo.name or o.name),
                              colours(new, o.alamo.name or o.name)) for o in skinned)
    return len(skinned), same


def frames_round_trip(tmp):
    """(first, last) key frame of an action keyed on 0-40 after export and import."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    fresh()
    arm_data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", arm_data)
    bpy.context.scene.collection.objects.link(arm)
    select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    for name, head, tail, parent in (("Root", (0, 0, 0), (0, 0, 1), None),
                                     ("Arm", (0, 0, 1), (0, 1, 1), "Root")):
        eb = arm_data.edit_bones.new(name)
        eb.head, eb.tail = head, tail
        if parent:
            eb.parent = arm_data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    arm.animation_data_create()
    arm.animation_data.action = bpy.data.actions.new("Swing")
    pb = arm.pose.bones["Arm"]
    for frame, z in ((0, 0.0), (40, 0.5)):
        pb.location = (0.0, 0.0, z)
        pb.keyframe_insert("location", frame=frame)
    export_alo(bpy.context, str(tmp / "Rig.alo"), AloExportOptions(animations=True))
    fresh()
    import_alo(bpy.context, str(tmp / "Rig.alo"), AloImportOptions())
    return tuple(bpy.data.actions["Rig_Swing"].frame_range)


def run(folder):
    tmp = Path(tempfile.mkdtemp())
    if alo_viewer.viewer() is None:
        print(f"game: viewer not built ({alo_viewer.reason()}); Python rules only")
    alos = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".alo"
                  and read_alo(p.read_bytes()).kind == "model")
    alas = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".ala")
    pairs = [(a, model_of(a, folder)) for a in alas]
    pairs = [(a, m) for a, m in pairs if m is not None]
    units = {}
    for a, m in pairs:
        units.setdefault(m, []).append(a)
    for fmt in (None, 2):
        rows = [edited(a, m, tmp, fmt) for a, m in pairs
                if fmt is None or read_ala(a.read_bytes()).format == 1]
        rows = [r for r in rows if r is not None]
        what = "in its own format" if fmt is None else "format #1 written as #2"
        print(f"game: one key edited, {what}: {len(rows)} files, Python rules take "
              f"{sum(r[1] for r in rows)}, viewer takes "
              f"{sum(bool(r[2]) for r in rows) if alo_viewer.viewer() else '-'}, format #2 "
              f"headers complete {sum(r[3] for r in rows if r[0] == 2)} of "
              f"{sum(r[0] == 2 for r in rows)}")
    scaled = [scaled_unit(m, anims, tmp) for m, anims in units.items()]
    print(f"game: scale_model + Export with Animations on {len(scaled)} units: "
          f"{sum(s[0] for s in scaled)} animations, Python rules take "
          f"{sum(s[1] for s in scaled)}, viewer takes "
          f"{sum(s[2] or 0 for s in scaled) if alo_viewer.viewer() else '-'}")
    keys = list(units)
    two = [two_units(a, b, units[a], units[b], tmp) for a, b in zip(keys, keys[1:] + keys[:1])
           if a != b]
    print(f"game: two units in a scene, {len(two)} pairs: {sum(t[0] for t in two)} animations "
          f"written, {sum(t[1] for t in two)} of them the exported unit's own")
    rest = [rest_pose(m, a, tmp) for a, m in pairs if read_ala(a.read_bytes()).num_frames <= 400]
    print(f"game: rebuilt unit exported mid-animation, {len(rest)} units: worst mesh offset / "
          f"reach {max(rest, default=0.0):.2e}")
    shadows = [s for s in (shadow_after_scale(p, tmp) for p in alos) if s is not None]
    print(f"game: shadow triangles after scale_model, {len(shadows)} units: "
          f"{sum(a == b for a, b in shadows)} kept; " +
          ", ".join(f"{a}->{b}" for a, b in shadows))
    colours = [weight_colours(p, tmp) for p in alos]
    print(f"game: one weight edited per skinned mesh: {sum(c[1] for c in colours)} of "
          f"{sum(c[0] for c in colours)} meshes keep the file's colours")
    print(f"game: an action keyed on 0-40, exported and imported: frames {frames_round_trip(tmp)}")
    print(f"game: {alo_viewer.summary_line()}")
