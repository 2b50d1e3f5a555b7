"""Issue 31: what io_alamo writes, the game loads; an edit changes only what was edited.

Each test writes through the Blender operators' code paths and checks the result with the
game's loader rules (io_alamo.formats.alamo.game_rules) and, where a compiler is present, with
the alo-viewer's loaders themselves (tests/alo_viewer.py; every file written under tmp_path is
also checked by the autouse fixture in conftest.py)."""

import numpy as np
import pytest
from corpus import corpus_params
from test_animation_edits import edit_one_key
from test_export_ala import export, key, make_rig
from test_import_ala import import_anim, import_model, model_for

import alo_viewer
from io_alamo.formats.alamo import AlamoFormatError, read_ala, read_alo, save
from io_alamo.formats.alamo.chunks import read_chunks, read_minis
from io_alamo.formats.alamo.game_rules import game_problem, model_bones
from io_alamo.formats.alamo.sample import sample_animation, sample_model

bpy = pytest.importorskip("bpy")


def bone_header_minis(data):
    """Per bone of an .ala: the mini-chunk types of its 0x1003 header."""
    out = []
    for bone in read_chunks(data)[0].children:
        if bone.type == 0x1002:
            head = next(c for c in bone.children if c.type == 0x1003)
            out.append([m.type for m in read_minis(head)])
    return out


def game_loads(ala, model_path):
    """The Python rules and (when built) the viewer agree that the game loads ``ala``."""
    refusal = game_problem(ala.read_bytes(), model_bones(model_path.read_bytes()))
    assert refusal is None, refusal.line(ala)
    if alo_viewer.viewer() is not None:
        ok, line = alo_viewer.check([ala], model=model_path)[str(ala)]
        assert ok, line


# --- point 1: format #2 bone headers are always complete --------------------------------

@pytest.mark.parametrize("path", corpus_params(".ala"))
def test_one_key_edited_writes_headers_the_game_loads(blender, tmp_path, path):
    from test_export_ala import setup_animation
    model = model_for(path)
    if model is None:
        pytest.skip("no model of this animation in the corpus")
    arm, action, anim = setup_animation(path, tmp_path)
    if edit_one_key(arm, action, anim) is None:
        pytest.skip("no bone with a track of more than two keys")
    out = tmp_path / "edited.ala"
    export(arm, action, out, format=anim.format)
    assert read_ala(out.read_bytes()).format == anim.format
    if anim.format == 2:
        assert all(m[-4:] == [14, 15, 16, 17] for m in bone_header_minis(out.read_bytes()))
    game_loads(out, model)


def sample_unit(tmp_path, fmt=1):
    folder = tmp_path / "unit"
    folder.mkdir()
    model = sample_model()
    save(model, folder / "Tank.alo")
    from io_alamo.formats.alamo import convert_animation
    anim = convert_animation(sample_animation(model), fmt)
    save(anim, folder / "Tank_Turn_00.ala")
    arm = import_model(folder / "Tank.alo", import_animations=False)
    action = import_anim(arm, folder / "Tank_Turn_00.ala").action
    return folder, arm, action, read_ala((folder / "Tank_Turn_00.ala").read_bytes())


@pytest.mark.parametrize("source_format", [1, 2])
def test_edited_animation_written_as_format_2_loads(blender, tmp_path, source_format):
    folder, arm, action, anim = sample_unit(tmp_path, source_format)
    assert edit_one_key(arm, action, anim) is not None
    out = tmp_path / "edited.ala"
    export(arm, action, out, format=2)
    assert all(m[-4:] == [14, 15, 16, 17] for m in bone_header_minis(out.read_bytes()))
    game_loads(out, folder / "Tank.alo")


@pytest.mark.parametrize("fmt", [1, 2])
def test_animation_after_scale_model_loads(blender, tmp_path, fmt):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    folder, arm, action, anim = sample_unit(tmp_path, fmt)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    assert bpy.ops.alamo.scale_model(factor=1.5) == {"FINISHED"}
    out = tmp_path / "out"
    out.mkdir()
    result = export_alo(bpy.context, str(out / "Tank.alo"), AloExportOptions(animations=True))
    written = [p for p in result.animations]
    assert written and all(read_ala(open(p, "rb").read()).format == fmt for p in written)
    for p in written:
        from pathlib import Path
        game_loads(Path(p), out / "Tank.alo")


# --- point 2: actions belong to their unit ------------------------------------------------

def two_units(tmp_path):
    """The sample tank and a second unit with bones of the same names, each with its own
    imported animation, in one scene."""
    folder = tmp_path / "units"
    folder.mkdir()
    model = sample_model()
    for name in ("Tank", "Jeep"):
        save(model, folder / f"{name}.alo")
        save(sample_animation(model, frames=20 if name == "Jeep" else 60),
             folder / f"{name}_{'Drive' if name == 'Jeep' else 'Turn'}_00.ala")
    tank = import_model(folder / "Tank.alo")
    jeep = import_model(folder / "Jeep.alo")
    return folder, tank, jeep


def test_a_units_export_writes_only_its_own_actions(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.ala import armature_actions
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    folder, tank, jeep = two_units(tmp_path)
    assert [a.name for a in armature_actions(tank)] == ["Tank_Turn_00"]
    assert [a.name for a in armature_actions(jeep)] == ["Jeep_Drive_00"]
    # a new action the jeep plays is the jeep's, though the tank has bones of those names
    from test_animation_edits import new_action
    new_action(jeep, "Bounce")
    assert "Bounce" not in [a.name for a in armature_actions(tank)]
    assert "Bounce" in [a.name for a in armature_actions(jeep)]
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = tank
    tank.select_set(True)
    out = tmp_path / "out"
    out.mkdir()
    result = export_alo(bpy.context, str(out / "Tank.alo"), AloExportOptions(animations=True))
    names = sorted(p.name for p in out.iterdir())
    assert names == ["Tank.alo", "Tank_Turn_00.ala"], names
    assert len(result.animations) == 1


def test_the_action_list_offers_only_the_units_actions(blender, tmp_path):
    from io_alamo.blender.alamo.operators import _action_items
    folder, tank, jeep = two_units(tmp_path)
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = tank
    tank.select_set(True)
    items = [i[0] for i in _action_items(None, bpy.context)]
    assert "Tank_Turn_00" in items and "Jeep_Drive_00" not in items


# --- point 7: frame numbers survive a round trip ------------------------------------------

def keyed_rig(first, last):
    import mathutils
    arm = make_rig()
    for pb in arm.pose.bones:
        pb.rotation_mode = "QUATERNION"
    arm.animation_data_create()
    action = bpy.data.actions.new("Swing")
    arm.animation_data.action = action
    key(arm.pose.bones["Arm"], first, rotation_quaternion=(1, 0, 0, 0), location=(0, 0, 0))
    key(arm.pose.bones["Arm"], last, rotation_quaternion=mathutils.Quaternion((0, 0, 1), 0.8),
        location=(0.2, 0, 0))
    return arm, action


def arm_track(arm, frames):
    out = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        out.append(np.array(arm.pose.bones["Arm"].matrix))
    return np.array(out)


@pytest.mark.parametrize("first, last", [(0, 40), (1, 20), (5, 30)])
def test_frame_numbers_survive_export_and_import(blender, tmp_path, first, last):
    from io_alamo.blender.alamo.actions import set_active_action
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm, action = keyed_rig(first, last)
    want = arm_track(arm, range(first, last + 1))
    export_alo(bpy.context, str(tmp_path / "Rig.alo"), AloExportOptions(animations=True))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    got_arm = import_alo(bpy.context, str(tmp_path / "Rig.alo"), AloImportOptions()).armature
    swing = bpy.data.actions["Rig_Swing"]
    assert swing.frame_range[1] == last                      # the last key stays on its frame
    set_active_action(got_arm, swing)
    got = arm_track(got_arm, range(first, last + 1))
    assert np.allclose(got, want, atol=2e-4)
    if first == 0:
        assert tuple(swing.frame_range) == (0, last)


# --- point 8 (end): an animation of another model imports nothing -------------------------

def test_an_animation_with_no_bone_of_the_armature_imports_nothing(blender, tmp_path):
    from io_alamo.formats.alamo import Bone, Connections, Model, Skeleton
    model = sample_model()
    save(model, tmp_path / "Tank.alo")
    save(sample_animation(model), tmp_path / "Tank_Turn_00.ala")
    other = Model(Skeleton([Bone("Root", -1, np.eye(3, 4, dtype="<f4")),
                            Bone("Wing", 0, np.eye(3, 4, dtype="<f4"))]), [], Connections())
    save(other, tmp_path / "Bird.alo")
    bird = import_model(tmp_path / "Bird.alo", import_animations=False)
    actions = set(bpy.data.actions)
    with pytest.raises(AlamoFormatError, match="none of its .* animated bones is in the "
                                               "armature 'Bird'.*nothing was imported"):
        import_anim(bird, tmp_path / "Tank_Turn_00.ala")
    assert set(bpy.data.actions) == actions
    assert bird.animation_data is None or bird.animation_data.action is None


# --- point 3: meshes are written in the rest pose, whatever the frame ---------------------

def turret_unit():
    """A unit built from nothing: a turret mesh on a bone, an action turning the bone."""
    import mathutils
    arm = make_rig()
    me = bpy.data.meshes.new("Turret")
    me.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], [],
                   [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])
    obj = bpy.data.objects.new("Turret", me)
    bpy.context.scene.collection.objects.link(obj)
    obj.parent, obj.parent_type, obj.parent_bone = arm, "BONE", "Arm"
    bpy.context.view_layer.update()
    obj.matrix_world = mathutils.Matrix.Translation((0, 0.5, 1))
    pb = arm.pose.bones["Arm"]
    pb.rotation_mode = "QUATERNION"
    arm.animation_data_create()
    arm.animation_data.action = bpy.data.actions.new("Turn")
    key(pb, 0, rotation_quaternion=(1, 0, 0, 0))
    key(pb, 40, rotation_quaternion=mathutils.Quaternion((0, 0, 1), 1.5))
    return arm, obj


def model_space_vertices(model, name):
    from posing import mesh_positions
    return dict(mesh_positions(model))[name]


def test_a_new_unit_exported_mid_animation_holds_the_rest_pose(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    arm, turret = turret_unit()
    bpy.context.scene.frame_set(0)
    export_alo(bpy.context, str(tmp_path / "rest.alo"), AloExportOptions())
    bpy.context.scene.frame_set(20)
    moved = np.array(turret.matrix_world)
    export_alo(bpy.context, str(tmp_path / "posed.alo"), AloExportOptions())
    assert bpy.context.scene.frame_current == 20                       # nothing else changed
    assert np.allclose(np.array(turret.matrix_world), moved)
    assert arm.data.pose_position == "POSE"
    rest = model_space_vertices(read_alo((tmp_path / "rest.alo").read_bytes()), "Turret")
    posed = model_space_vertices(read_alo((tmp_path / "posed.alo").read_bytes()), "Turret")
    assert np.allclose(posed, rest, atol=1e-5)
    assert np.isclose(rest[:, 0].min(), 0, atol=1e-5) and np.isclose(rest[:, 0].max(), 1,
                                                                       atol=1e-5)


@pytest.mark.parametrize("path", corpus_params(".ala"))
def test_a_rebuilt_corpus_unit_exported_mid_animation_holds_the_rest_pose(blender, tmp_path,
                                                                         path):
    from io_alamo.blender.alamo.actions import set_active_action
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    alo = model_for(path)
    if alo is None:
        pytest.skip("no model of this animation in the corpus")
    arm = import_model(alo, import_animations=False)
    action = import_anim(arm, path).action
    del arm["alamo_source"]                     # rebuilt from Blender's data alone
    for o in bpy.data.objects:
        o.pop("alamo_fingerprint", None)
    export_alo(bpy.context, str(tmp_path / "rest.alo"), AloExportOptions())
    set_active_action(arm, action)
    start, end = action.frame_range
    bpy.context.scene.frame_set(int((start + end) // 2))
    export_alo(bpy.context, str(tmp_path / "posed.alo"), AloExportOptions())
    a = read_alo((tmp_path / "rest.alo").read_bytes())
    b = read_alo((tmp_path / "posed.alo").read_bytes())
    for (name, pa), (_, pb) in zip(__import__("posing").mesh_positions(a),
                                   __import__("posing").mesh_positions(b)):
        assert np.allclose(pa, pb, atol=1e-4), name


# --- point 3 with resize: three ways, exported while the action poses the unit ------------

# test_resize's rigid units, and skinned, many-boned and both-format ones
MORE_UNITS = [("EI_VADER.ALO", "EI_VADER_IDLE_00.ALA"),
              ("NV_SwampSpeeder_U.alo", "NV_SwampSpeeder_U_Move_00.ala"),
              ("j1_proton_cannon.alo", "j1_proton_cannon_Idle_00.ALA"),
              ("W_Grenade.alo", "W_Grenade_Idle_00.ala")]


def _resize_cases():
    from corpus import CORPUS
    from test_resize import UNITS, WAYS
    cases = [pytest.param(None, None, way, id=f"sample-{way}") for way in WAYS]
    for a, b in UNITS + MORE_UNITS:
        for way in WAYS:
            if not CORPUS.is_dir():
                cases.append(pytest.param(None, None, way, id=f"{a}-{way}", marks=pytest.mark.skip(
                    reason=f"no shared corpus at {CORPUS}: real-file tests skipped")))
            else:
                cases.append(pytest.param(CORPUS / a, CORPUS / b, way, id=f"{a[:-4]}-{way}"))
    return cases


@pytest.mark.parametrize("alo, ala, way", _resize_cases())
def test_resized_unit_exported_mid_animation_is_at_the_new_size(blender, tmp_path, alo, ala,
                                                                 way):
    from test_resize import check_scaled, exported, import_unit, resize

    from io_alamo.blender.alamo.actions import set_active_action
    if alo is None:
        alo, ala = tmp_path / "Tank.alo", tmp_path / "Tank_Turn_00.ala"
        model = sample_model()
        save(model, alo)
        save(sample_animation(model), ala)
    model, anim = read_alo(alo.read_bytes()), read_ala(ala.read_bytes())
    arm, action = import_unit(alo, ala)
    resize(way, arm)
    set_active_action(arm, action)
    start, end = action.frame_range
    bpy.context.scene.frame_set(int((start + end) // 2))
    _, new, new_anim = exported(tmp_path, arm, action)
    check_scaled(model, anim, new, new_anim)


# --- point 6: resize keeps the shadow mesh's topology -------------------------------------

@pytest.mark.parametrize("path", corpus_params(".alo"))
def test_scale_model_keeps_shadow_topology(blender, tmp_path, path):
    from io_alamo.formats.alamo import shaders
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    model = read_alo(path.read_bytes())
    if model.kind != "model":
        pytest.skip("particle effect")
    shadows = [(m.name, k) for m in model.meshes for k, s in enumerate(m.submeshes)
               if shaders.is_shadow(s.material.shader)]
    if not shadows:
        pytest.skip("no shadow mesh")
    arm = import_model(path, import_animations=False)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    assert bpy.ops.alamo.scale_model(factor=1.5) == {"FINISHED"}
    export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    new = read_alo((tmp_path / "out.alo").read_bytes())
    old_meshes, new_meshes = {m.name: m for m in model.meshes}, {m.name: m for m in new.meshes}
    for name, k in shadows:
        a, b = old_meshes[name].submeshes[k], new_meshes[name].submeshes[k]
        assert np.array_equal(a.indices, b.indices), name
        assert np.allclose(b.vertices["position"], 1.5 * a.vertices["position"], atol=1e-3)


def test_scale_model_keeps_a_spec_built_shadow_topology(blender, tmp_path):
    """A shadow volume whose quads are not the ones a fresh extrusion makes (a closed
    tetrahedron whose file has two more degenerate triangles, as game files have extra
    quads) keeps them after a resize."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.alamo.exporter.shadow import shadow_volume
    from io_alamo.formats.alamo import (VERTEX_DTYPE, Bone, Connections, Material, Mesh, Model,
                                        ObjectConnection, Skeleton, SubMesh)
    pos = np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], np.float32)
    faces = np.array([(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)])
    tri = np.zeros((4, 3), VERTEX_DTYPE)
    tri["position"] = pos[faces]
    vol = shadow_volume(tri)
    indices = np.concatenate([vol.indices, vol.indices[4:6]]).astype(np.uint16)
    sub = SubMesh(Material("MeshShadowVolume.fx", []), "alD3dVertN", vol.vertices, indices)
    mesh = Mesh("Shadow", [sub], pos.min(0), pos.max(0))
    model = Model(Skeleton([Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]), [mesh],
                  Connections([ObjectConnection(0, 0)]))
    save(model, tmp_path / "S.alo")
    arm = import_model(tmp_path / "S.alo", import_animations=False)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    assert bpy.ops.alamo.scale_model(factor=2.0) == {"FINISHED"}
    export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    got = read_alo((tmp_path / "out.alo").read_bytes()).meshes[0].submeshes[0]
    assert np.array_equal(got.indices, indices)
    assert np.allclose(got.vertices["position"], 2.0 * vol.vertices["position"], atol=1e-6)


# --- point 4: unedited bones keep their stored data exactly --------------------------------

def test_unedited_bones_of_a_far_turned_unit_keep_their_data(blender, tmp_path):
    """A format #1 unit whose bones sit far out (x1000) and turned by 3 radians: evaluating
    an unedited bone in Blender differs from its stored motion by more than float noise, and
    re-quantising it used to move it by one quantum. Its keys are as imported: it is kept."""
    from test_animation_edits import same_stored

    from io_alamo.formats.alamo import convert_animation
    model = sample_model()
    c, s = np.cos(3.0), np.sin(3.0)
    turn = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    for b in model.bones[1:]:
        m = np.array(b.matrix, np.float64)
        m[:, :3] = turn @ m[:, :3]
        m[:, 3] *= 1000
        b.matrix = m.astype("<f4")
    save(model, tmp_path / "Tank.alo")
    save(convert_animation(sample_animation(model), 1), tmp_path / "Tank_Turn_00.ala")
    arm = import_model(tmp_path / "Tank.alo", import_animations=False)
    action = import_anim(arm, tmp_path / "Tank_Turn_00.ala").action
    anim = read_ala((tmp_path / "Tank_Turn_00.ala").read_bytes())
    edited = edit_one_key(arm, action, anim)
    out = tmp_path / "Tank_Edited_00.ala"
    result = export(arm, action, out, format=1)
    new = read_ala(out.read_bytes())
    assert result.kept_bones == len(anim.bones) - 1
    for a, b in zip(anim.bones, new.bones):
        assert same_stored(a, b) == (a.name.lower() != edited), a.name


# --- point 5: a weight edit keeps the vertex colours ---------------------------------------

def _skinned_with_dark_colours():
    import copy
    model = sample_model()
    mesh = model.meshes[0]
    sub = copy.copy(mesh.submeshes[0])
    v = sub.vertices.copy()
    v["color"] = np.float32(1 / 255)
    v["bone_indices"] = 0
    v["bone_weights"] = 0
    v["bone_weights"][:, 0] = 1.0
    sub.vertices, sub.vertex_format = v, "alD3dVertRSkinNU2"
    sub.bone_map = np.array([1], np.uint32)
    mesh.submeshes = [sub] + mesh.submeshes[1:]
    return model


def _colours(model, name):
    mesh = next(m for m in model.meshes if m.name == name)
    return np.unique(np.concatenate([s.vertices["color"] for s in mesh.submeshes]), axis=0)


def _edit_one_weight(obj):
    g = obj.vertex_groups[0]
    first = next(v.index for v in obj.data.vertices if any(x.group == g.index for x in v.groups))
    g.add([first], 0.5, "REPLACE")


def test_a_weight_edit_keeps_a_spec_built_meshs_colours(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    model = _skinned_with_dark_colours()
    save(model, tmp_path / "Trooper.alo")
    import_model(tmp_path / "Trooper.alo", import_animations=False)
    name = model.meshes[0].name
    obj = next(o for o in bpy.data.objects if o.type == "MESH" and o.vertex_groups
               and o.alamo.name == name)
    _edit_one_weight(obj)
    result = export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    assert not result.reused.get(obj.name)                         # rebuilt from Blender
    new = read_alo((tmp_path / "out.alo").read_bytes())
    assert np.array_equal(_colours(new, name), _colours(model, name))


@pytest.mark.parametrize("path", corpus_params(".alo"))
def test_a_weight_edit_keeps_corpus_colours(blender, tmp_path, path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    model = read_alo(path.read_bytes())
    if model.kind != "model":
        pytest.skip("particle effect")
    import_model(path, import_animations=False)
    skinned = [o for o in bpy.data.objects if o.type == "MESH" and o.vertex_groups]
    if not skinned:
        pytest.skip("no skinned mesh")
    for obj in skinned:
        _edit_one_weight(obj)
    result = export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    assert not any(result.reused.get(o.name) for o in skinned)
    new = read_alo((tmp_path / "out.alo").read_bytes())
    for obj in skinned:
        name = obj.alamo.name or obj.name
        assert np.array_equal(_colours(new, name), _colours(model, name)), name
