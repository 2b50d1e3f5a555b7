"""Issue 39 (units): what the modder does in Blender is what gets written, or the export says
why. Each test makes the edit through the operators on a spec-built unit (and, where the
corpus has one, a real unit), reads the written files back with the format layer, finds the
edit there and checks that nothing else changed. Every file written under tmp_path also goes
through the viewer's loaders (the autouse fixture in conftest.py)."""

import copy

import numpy as np
import pytest
from corpus import corpus_files

from io_alamo.formats.alamo import convert_animation, read_ala, read_alo, save
from io_alamo.formats.alamo.game_rules import game_problem, model_bones
from io_alamo.formats.alamo.sample import sample_animation, sample_model

bpy = pytest.importorskip("bpy")

ANIM = "Tank_Turn_00"


def with_spare_bone(model):
    """``model`` with a leaf bone 'B_Spare' inserted as bone 1 (nothing hangs on it): deleting
    it in Blender moves every later bone's index down by one."""
    from io_alamo.formats.alamo import Bone
    m = copy.deepcopy(model)
    bones = m.skeleton.bones
    for b in bones:
        if b.parent >= 1:
            b.parent += 1
    spare = np.eye(3, 4, dtype="<f4")
    spare[:, 3] = (0.0, 2.0, 0.25)
    bones.insert(1, Bone("B_Spare", 0, spare))
    c = m.connections
    for rec in c.objects + c.proxies + c.dazzles:
        if rec.bone >= 1:
            rec.bone += 1
    for o in m.objects:
        for s in getattr(o, "submeshes", []):
            if s.bone_map is not None:
                s.bone_map = np.where(s.bone_map >= 1, s.bone_map + 1, s.bone_map).astype(
                    s.bone_map.dtype)
    return m


def unit(tmp_path, fmt, spare=False, anim_edit=None):
    """A unit (Tank.alo and Tank_Turn_00.ala in format ``fmt``) built from the spec's sample,
    imported with its animations through the operator; ``anim_edit(anim)`` changes the
    animation before it is saved."""
    folder = tmp_path / f"unit{fmt}"
    folder.mkdir()
    model = sample_model()
    anim = convert_animation(sample_animation(model), fmt)
    if spare:
        model = with_spare_bone(model)
        for b in anim.bones:
            b.index += 1
    save(model, folder / "Tank.alo")
    if anim_edit is not None:
        anim_edit(anim)
    save(anim, folder / f"{ANIM}.ala", game_check=anim_edit is None)
    assert bpy.ops.import_scene.alo(filepath=str(folder / "Tank.alo"),
                                    import_animations=True) == {"FINISHED"}
    arm = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    return folder, arm


def export_unit(arm, out, name="Tank.alo"):
    """Export with Animations the way the operator does (the result keeps the warnings)."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    select_only(arm)
    out.mkdir(exist_ok=True)
    return export_alo(bpy.context, str(out / name), AloExportOptions(animations=True))


def select_only(obj):
    if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def delete_bones(arm, names):
    """Select ``names`` in Edit Mode and delete them with the operator."""
    select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    for b in arm.data.edit_bones:
        b.select = b.select_head = b.select_tail = b.name in names
    assert bpy.ops.armature.delete() == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")


def loads(ala_path, model_path):
    refusal = game_problem(ala_path.read_bytes(), model_bones(model_path.read_bytes()))
    assert refusal is None, refusal.line(ala_path)


def same_bone_data(a, b):
    """Two BoneAnimation records hold the same data (their indices aside)."""
    for f in ("name", "unknown", "translation_offset", "translation_scale", "scale_offset",
              "scale_scale", "translation", "scale", "rotation", "default_rotation",
              "visibility", "step"):
        x, y = getattr(a, f), getattr(b, f)
        if (x is None) != (y is None) or (x is not None and not np.array_equal(x, y)):
            return False
    return True


def use_action(arm, action):
    ad = arm.animation_data or arm.animation_data_create()
    ad.action = action
    if hasattr(ad, "action_slot") and ad.action_slot is None and len(action.slots):
        ad.action_slot = action.slots[0]


# --- point 1: keys on a bone added in Blender reach the imported action's file -----------

def key_new_bone(arm, name, action):
    """Key ``name`` (a bone just added, in Edit Mode) at frames 0 and 4 of ``action``: 0.4
    along its X."""
    bpy.ops.object.mode_set(mode="POSE")
    use_action(arm, action)
    pb = arm.pose.bones[name]
    for frame, x in ((0, 0.0), (4, 0.4)):
        pb.location = (x, 0.0, 0.0)
        pb.keyframe_insert("location", frame=frame)
    bpy.ops.object.mode_set(mode="OBJECT")


@pytest.mark.parametrize("fmt", [1, 2])
def test_new_bone_keyed_in_imported_action_is_written(blender, tmp_path, fmt):
    folder, arm = unit(tmp_path, fmt)
    select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    for b in arm.data.edit_bones:
        b.select = b.select_head = b.select_tail = False
    assert bpy.ops.armature.bone_primitive_add(name="B_Antenna") == {"FINISHED"}
    new = arm.data.edit_bones["B_Antenna"]
    barrel = arm.data.edit_bones["B_Barrel"]
    new.head, new.tail = barrel.tail, barrel.tail + barrel.vector * 0.5
    new.parent = barrel
    key_new_bone(arm, "B_Antenna", bpy.data.actions[ANIM])
    out = tmp_path / "out"
    export_unit(arm, out)
    model = read_alo((out / "Tank.alo").read_bytes())
    names = [b.name for b in model.bones]
    written = read_ala((out / f"{ANIM}.ala").read_bytes())
    before = read_ala((folder / f"{ANIM}.ala").read_bytes())
    assert written.format == fmt
    got = {b.name: b for b in written.bones}
    assert got["B_Antenna"].index == names.index("B_Antenna")
    assert got["B_Antenna"].translation is not None       # the keys moved it
    from io_alamo.formats.alamo import decode_bone
    t = decode_bone(got["B_Antenna"], int(written.num_frames))[0]
    assert np.ptp(t[:, 0]) == pytest.approx(0.4, abs=0.01)
    for b in before.bones:                 # the file's bones: exactly as they were
        assert same_bone_data(got[b.name], b) and got[b.name].index == b.index
    loads(out / f"{ANIM}.ala", out / "Tank.alo")


# --- points 2 and 6: deleting a bone re-indexes animations, leaves other data exact ------

@pytest.mark.parametrize("fmt", [1, 2])
def test_deleted_bone_reindexes_animations_and_keeps_meshes_exact(blender, tmp_path, fmt):
    folder, arm = unit(tmp_path, fmt, spare=True)
    delete_bones(arm, {"B_Spare"})
    out = tmp_path / "out"
    result = export_unit(arm, out)
    assert not result.warnings
    before = read_alo((folder / "Tank.alo").read_bytes())
    after = read_alo((out / "Tank.alo").read_bytes())
    assert [b.name for b in after.bones] == [b.name for b in before.bones if b.name != "B_Spare"]
    shift = {k: k - 1 if k > 1 else k for k in range(len(before.bones))}
    for a, b in zip(after.objects, before.objects):
        assert a.name == b.name
        for sa, sb in zip(getattr(a, "submeshes", []), getattr(b, "submeshes", [])):
            assert np.array_equal(sa.vertices, sb.vertices)          # same order, same data
            assert np.array_equal(sa.indices, sb.indices)
            if sb.bone_map is not None:
                assert list(sa.bone_map) == [shift[k] for k in sb.bone_map]
    for i in range(len(before.objects)):
        assert after.object_bone(i) == shift[before.object_bone(i)]
    assert [(p.name, p.bone) for p in after.connections.proxies] == \
        [(p.name, shift[p.bone]) for p in before.connections.proxies]
    written = read_ala((out / f"{ANIM}.ala").read_bytes())
    source = read_ala((folder / f"{ANIM}.ala").read_bytes())
    names = [b.name for b in after.bones]
    assert [b.name for b in written.bones] == [b.name for b in source.bones]
    for w, s in zip(written.bones, source.bones):
        assert w.index == names.index(s.name) == s.index - 1
        assert same_bone_data(w, s)
    loads(out / f"{ANIM}.ala", out / "Tank.alo")


@pytest.mark.parametrize("fmt", [1, 2])
def test_deleted_animated_bone_is_left_out_and_named(blender, tmp_path, fmt):
    folder, arm = unit(tmp_path, fmt)
    delete_bones(arm, {"B_Beacon"})
    out = tmp_path / "out"
    result = export_unit(arm, out)
    assert any("'B_Beacon'" in w and ANIM in w for w in result.warnings)
    written = read_ala((out / f"{ANIM}.ala").read_bytes())
    assert "B_Beacon" not in [b.name for b in written.bones]
    loads(out / f"{ANIM}.ala", out / "Tank.alo")


def test_light_on_a_deleted_bone_is_named(blender, tmp_path):
    """The light hangs on B_Headlight; deleting that bone leaves the light in the scene: it is
    written (on the root bone) and the export names it, never silently."""
    folder, arm = unit(tmp_path, 2)
    light = next(o for o in bpy.data.objects if o.type == "LIGHT")
    assert light.parent_bone == "B_Headlight"
    delete_bones(arm, {"B_Headlight"})
    result = export_unit(arm, tmp_path / "out")
    said = [w for w in result.warnings if repr(light.name) in w and "'B_Headlight'" in w]
    assert len(said) == 1 and "no longer in the armature" in said[0]
    model = read_alo((tmp_path / "out" / "Tank.alo").read_bytes())
    assert [m.name for m in model.lights] == ["Headlight"]
    assert "B_Headlight" not in [b.name for b in model.bones]


# --- points 2 and 7: an imported file the game refuses is named and repaired --------------

def wrong_index(anim):
    """B_Beacon (bone 6) stored with index 5 (P_Smoke's): the game refuses the file."""
    for b in anim.bones:
        if b.name == "B_Beacon":
            b.index = 5


@pytest.mark.parametrize("fmt", [1, 2])
def test_animation_the_game_refuses_is_named_and_repaired(blender, tmp_path, tmp_path_factory,
                                                         fmt):
    # the broken input lies outside tmp_path: the autouse fixture checks what was written
    folder, arm = unit(tmp_path_factory.mktemp("input"), fmt, anim_edit=wrong_index)
    assert game_problem((folder / f"{ANIM}.ala").read_bytes(),
                        model_bones((folder / "Tank.alo").read_bytes())) is not None
    out = tmp_path / "out"
    result = export_unit(arm, out)
    said = [w for w in result.warnings if "refuses" in w]
    assert len(said) == 1 and f"{ANIM}.ala" in said[0] and "'B_Beacon'" in said[0]
    written = read_ala((out / f"{ANIM}.ala").read_bytes())
    source = read_ala((folder / f"{ANIM}.ala").read_bytes())
    for w, s in zip(written.bones, source.bones):
        assert w.index == (6 if s.name == "B_Beacon" else s.index)
        assert same_bone_data(w, s)
    loads(out / f"{ANIM}.ala", out / "Tank.alo")


# --- the same on the corpus's units -----------------------------------------------------

def corpus_units():
    """(model, its animations) of the corpus units that have animations."""
    from test_import_ala import model_for
    units = {}
    for ala in corpus_files(".ala"):
        model = model_for(ala)
        if model is not None:
            units.setdefault(model, []).append(ala)
    return sorted(units.items())


EACH_CORPUS_UNIT = pytest.mark.parametrize(
    "model", [m for m, _ in corpus_units()] or
    [pytest.param(None, marks=pytest.mark.skip("no corpus"))],
    ids=lambda p: getattr(p, "name", "none"))


def import_unit(model):
    """Import ``model`` with its animations (File > Import); its armature."""
    assert bpy.ops.import_scene.alo(filepath=str(model), import_animations=True) == \
        {"FINISHED"}
    return next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")


def free_leaf(arm):
    """A leaf bone nothing hangs on (no object, vertex group or proxy), one no animation of
    the unit keys if there is one, whose deletion moves other bones' indices; None if there
    is none."""
    used = {o.parent_bone for o in bpy.data.objects if o.parent == arm}
    used |= {g.name for o in bpy.data.objects if o.type == "MESH" for g in o.vertex_groups}
    from io_alamo.blender.alamo.fingerprint import bone_of_path
    from io_alamo.blender import compat
    keyed = {bone_of_path(fc.data_path)[0] for a in bpy.data.actions
             for fc in compat.action_fcurves(a)}
    free = [b.name for b in list(arm.data.bones)[1:-1]
            if not b.children and b.name not in used]
    return next((n for n in free if n not in keyed), free[0] if free else None)


@EACH_CORPUS_UNIT
def test_corpus_bone_deleted_reindexes_animations_and_keeps_meshes(blender, tmp_path, model):
    anims = dict(corpus_units())[model]
    arm = import_unit(model)
    leaf = free_leaf(arm)
    if leaf is None:
        pytest.skip("no free leaf bone")
    gone = arm.data.bones[leaf].alamo.index          # its index in the file
    delete_bones(arm, {leaf})
    out = tmp_path / "out"
    result = export_unit(arm, out, model.name)
    written_model = out / model.name
    before = read_alo(model.read_bytes())
    after = read_alo(written_model.read_bytes())
    for a, b in zip(after.objects, before.objects):
        for sa, sb in zip(getattr(a, "submeshes", []), getattr(b, "submeshes", [])):
            assert np.array_equal(sa.vertices, sb.vertices), a.name
            assert np.array_equal(sa.indices, sb.indices), a.name
    by_name = {p.name.lower(): p for p in anims}
    for path in map(type(out), result.animations):
        loads(path, written_model)
        source = read_ala(by_name[path.name.lower()].read_bytes())
        written = read_ala(path.read_bytes())
        kept = [b for b in source.bones if b.index != gone]      # names may repeat
        assert [b.name for b in written.bones] == [b.name for b in kept]
        for w, s in zip(written.bones, kept):
            assert w.index == s.index - (s.index > gone)
            assert same_bone_data(w, s)


# --- point 5: resizing a posed unit acts on the rest pose ---------------------------------

def posed(arm, frame_of=0.5):
    """Show the unit's first action at a frame inside it (the pose import leaves a modder)."""
    from io_alamo.blender.alamo.unit_actions import unit_actions
    if not unit_actions(arm):
        pytest.skip("no animation of this unit was imported")
    action = unit_actions(arm)[0]
    use_action(arm, action)
    start, end = action.frame_range
    bpy.context.scene.frame_set(int(start + frame_of * (end - start)))
    return action


def resized_is_scaled(tmp_path, source, arm, way):
    from test_resize import FACTOR, dazzle_points, mesh_points
    select_only(arm)
    if way == "operator":
        assert bpy.ops.alamo.scale_model(factor=FACTOR) == {"FINISHED"}
    else:
        arm.scale = (FACTOR,) * 3
    out = tmp_path / "out"
    export_unit(arm, out, source.name)
    model, new = read_alo(source.read_bytes()), read_alo((out / source.name).read_bytes())
    reach = max(1.0, float(np.abs(model.skeleton.world_matrices()[:, :3, 3]).max()))
    tol = 2e-4 * reach * FACTOR
    a, b = model.skeleton.world_matrices(), new.skeleton.world_matrices()
    assert np.allclose(b[:, :3, 3], FACTOR * a[:, :3, 3], atol=tol)
    # each mesh's bounds (a rebuilt shadow mesh adds vertices: its mean moves)
    for (name, lo, hi, _), (_, lo2, hi2, _) in zip(mesh_points(model), mesh_points(new)):
        for x, y in ((lo, lo2), (hi, hi2)):
            assert np.allclose(y, FACTOR * x, atol=tol), name
    assert np.allclose(dazzle_points(new), FACTOR * dazzle_points(model), atol=tol)
    for path in (out / source.name).parent.glob("*.ala"):
        loads(path, out / source.name)


@pytest.mark.parametrize("way", ["operator", "unapplied"])
def test_resize_of_a_posed_unit_scales_its_rest(blender, tmp_path, way):
    folder, arm = unit(tmp_path, 2)
    action = posed(arm)
    moved = max((pb.matrix.translation - pb.bone.matrix_local.translation).length
                for pb in arm.pose.bones)
    assert moved > 0.01, "the sample's pose moves no bone: the test would prove nothing"
    resized_is_scaled(tmp_path, folder / "Tank.alo", arm, way)
    assert arm.animation_data.action == action


@EACH_CORPUS_UNIT
def test_corpus_resize_of_a_posed_unit_scales_its_rest(blender, tmp_path, model):
    arm = import_unit(model)
    posed(arm)
    resized_is_scaled(tmp_path, model, arm, "operator")


# --- point 3: a proxy empty moved in Object Mode is written where it is -------------------

def empty_of(role, name=None):
    return next(o for o in bpy.data.objects if o.alamo.role == role
                and (name is None or o.alamo.name == name))


def model_space(arm, obj):
    return np.linalg.inv(np.array(arm.matrix_world)) @ np.array(obj.matrix_world)


def test_moved_proxy_empty_is_written_on_a_bone_of_its_own(blender, tmp_path):
    folder, arm = unit(tmp_path, 2)
    proxy = empty_of("PROXY")
    select_only(proxy)
    assert bpy.ops.transform.translate(value=(0.5, -0.25, 0.75)) == {"FINISHED"}
    bpy.context.view_layer.update()
    out = tmp_path / "out"
    result = export_unit(arm, out)
    assert any(repr(proxy.name) in w and "new bone" in w for w in result.warnings)
    before = read_alo((folder / "Tank.alo").read_bytes())
    after = read_alo((out / "Tank.alo").read_bytes())
    n = len(before.bones)
    assert len(after.bones) == n + 1                 # one bone added, at the end
    for a, b in zip(after.bones[:n], before.bones):  # the others exactly as they were
        assert (a.name, a.parent) == (b.name, b.parent) and np.array_equal(a.matrix, b.matrix)
    (p,), (old,) = after.connections.proxies, before.connections.proxies
    assert p.name == old.name and p.bone == n and after.bones[n].parent == old.bone
    at = after.skeleton.world_matrices()[p.bone][:3, 3]
    assert np.allclose(at, model_space(arm, proxy)[:3, 3], atol=1e-4)
    assert not np.allclose(at, before.skeleton.world_matrices()[old.bone][:3, 3], atol=0.1)
    for a, b in zip(after.objects, before.objects):          # meshes and lights untouched
        for sa, sb in zip(getattr(a, "submeshes", []), getattr(b, "submeshes", [])):
            assert np.array_equal(sa.vertices, sb.vertices)
    assert (out / f"{ANIM}.ala").read_bytes() == (folder / f"{ANIM}.ala").read_bytes()
    loads(out / f"{ANIM}.ala", out / "Tank.alo")


def test_proxy_empty_left_on_its_bone_adds_no_bone(blender, tmp_path):
    folder, arm = unit(tmp_path, 2)
    out = tmp_path / "out"
    result = export_unit(arm, out)
    assert not any("new bone" in w for w in result.warnings)
    assert (out / "Tank.alo").read_bytes() == (folder / "Tank.alo").read_bytes()


# --- point 4: proxies, dazzles and lights follow their bone moved in Edit Mode -------------

def move_bone(arm, name, offset):
    select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    for b in arm.data.edit_bones:
        b.select = b.select_head = b.select_tail = b.name == name
    assert bpy.ops.transform.translate(value=offset) == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()


@pytest.mark.parametrize("role, bone", [("PROXY", "P_Smoke"), ("DAZZLE", "B_Beacon"),
                                        ("LIGHT", "B_Headlight")])
def test_empty_follows_its_bone_moved_in_edit_mode(blender, tmp_path, role, bone):
    folder, arm = unit(tmp_path, 2)
    obj = empty_of(role)
    was = model_space(arm, obj)[:3, 3].copy()
    move_bone(arm, bone, (0.0, 1.5, 0.25))
    now = model_space(arm, obj)[:3, 3]
    assert np.allclose(now, was + (0.0, 1.5, 0.25), atol=1e-5)        # Blender shows it
    out = tmp_path / "out"
    result = export_unit(arm, out)
    assert not any("new bone" in w for w in result.warnings)
    before = read_alo((folder / "Tank.alo").read_bytes())
    after = read_alo((out / "Tank.alo").read_bytes())
    assert len(after.bones) == len(before.bones)
    worlds = after.skeleton.world_matrices()
    k = [b.name for b in after.bones].index(bone)
    if role == "DAZZLE":
        d = after.connections.dazzles[0]
        assert d.bone == k
        written = worlds[k][:3, :3] @ d.position + worlds[k][:3, 3]
    else:
        written = worlds[k][:3, 3]           # the game puts it at its bone
    assert np.allclose(written, now, atol=1e-4)                       # the file agrees
    loads(out / f"{ANIM}.ala", out / "Tank.alo")


def units_with_proxies():
    units = [m for m, _ in corpus_units()]
    return units or [pytest.param(None, marks=pytest.mark.skip("no corpus"))]


@pytest.mark.parametrize("model", units_with_proxies(), ids=lambda p: getattr(p, "name", "none"))
def test_corpus_proxy_follows_its_bone_moved_in_edit_mode(blender, tmp_path, model):
    arm = import_unit(model)
    proxies = [o for o in bpy.data.objects if o.alamo.role == "PROXY" and o.parent == arm]
    if not proxies:
        pytest.skip("no proxy")
    proxy = proxies[0]
    move_bone(arm, proxy.parent_bone, (3.0, 0.0, 0.0))
    out = tmp_path / "out"
    result = export_unit(arm, out, model.name)
    assert not any("new bone" in w for w in result.warnings)
    after = read_alo((out / model.name).read_bytes())
    assert len(after.bones) == len(read_alo(model.read_bytes()).bones)
    p = next(p for p in after.connections.proxies
             if p.name.lower() == proxy.alamo.name.lower())
    at = after.skeleton.world_matrices()[p.bone][:3, 3]
    reach = max(1.0, float(np.abs(at).max()))
    assert np.allclose(at, model_space(arm, proxy)[:3, 3], atol=1e-5 * reach)


def test_turned_proxy_empty_is_written_on_a_bone_of_its_own(blender, tmp_path):
    folder, arm = unit(tmp_path, 2)
    proxy = empty_of("PROXY")
    select_only(proxy)
    assert bpy.ops.transform.rotate(value=0.5, orient_axis="Z") == {"FINISHED"}
    bpy.context.view_layer.update()
    out = tmp_path / "out"
    result = export_unit(arm, out)
    assert any(repr(proxy.name) in w and "new bone" in w for w in result.warnings)
    after = read_alo((out / "Tank.alo").read_bytes())
    (p,) = after.connections.proxies
    assert p.bone == len(after.bones) - 1
    written = after.skeleton.world_matrices()[p.bone][:3, :3]
    assert np.allclose(written, model_space(arm, proxy)[:3, :3], atol=1e-4)


def test_proxy_built_away_from_its_bone_is_named(blender, tmp_path):
    """A proxy empty parented to a bone in a model built in Blender, away from the bone: the
    game puts it at the bone, and the export says so, naming the empty."""
    from test_export_scratch import build_scene
    scene = build_scene()
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    select_only(scene["arm"])
    result = export_alo(bpy.context, str(tmp_path / "Scratch.alo"), AloExportOptions())
    said = [w for w in result.warnings if "'Engine_Flame'" in w]
    assert len(said) == 1 and "'B07'" in said[0] and "where the game puts it" in said[0]


@EACH_CORPUS_UNIT
def test_corpus_new_bone_keyed_in_imported_action_is_written(blender, tmp_path, model):
    from io_alamo.blender.alamo.unit_actions import unit_actions
    from io_alamo.blender.source import SOURCE_NAME_KEY
    arm = import_unit(model)
    if not unit_actions(arm):
        pytest.skip("no animation of this unit was imported")
    action = unit_actions(arm)[0]
    file = action[SOURCE_NAME_KEY]
    source = read_ala((model.parent / file).read_bytes())
    select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    under = arm.data.edit_bones[-1]
    new = arm.data.edit_bones.new("B_Added")
    new.head, new.tail, new.parent = under.head, under.head + under.vector, under
    key_new_bone(arm, "B_Added", action)
    out = tmp_path / "out"
    export_unit(arm, out, model.name)
    names = [b.name for b in read_alo((out / model.name).read_bytes()).bones]
    written = read_ala((out / file).read_bytes())
    assert written.format == source.format
    assert [b.name for b in written.bones] == [b.name for b in source.bones] + ["B_Added"]
    assert written.bones[-1].index == names.index("B_Added")
    for w, s in zip(written.bones, source.bones):
        assert w.index == s.index and same_bone_data(w, s)
    loads(out / file, out / model.name)
