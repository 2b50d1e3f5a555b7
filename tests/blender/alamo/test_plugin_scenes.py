"""Scenes made with the older ALAMO plugin: small scenes built here with that plugin's ID
properties (so the feature is tested without ../shared), then its real anchor scenes."""

import numpy as np
import pytest

from io_alamo.formats.alamo import shaders
from io_alamo.blender import compat
from io_alamo.blender.alamo.exporter.alo import ExportError, AloExportOptions, build_model, export_alo
from io_alamo.blender.alamo.exporter.plugin import ON_THE_FLY
from io_alamo.blender.alamo.legacy import plugin
from io_alamo.blender.alamo.legacy.convert import convert_scene, scene_has_plugin_data

bpy = pytest.importorskip("bpy")
mathutils = pytest.importorskip("mathutils")

CUBE = [(x, y, z) for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)]
CUBE_FACES = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
GUN_OFFSET = (0.0, 0.5, 0.0)


def link(obj):
    bpy.context.scene.collection.objects.link(obj)
    return obj


def cube(name, scale=1.0):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(scale * c for c in v) for v in CUBE], [], CUBE_FACES)
    me.uv_layers.new(name="UVMap")
    return link(bpy.data.objects.new(name, me))


def hang_by_child_of(obj, arm, bone):
    con = obj.constraints.new("CHILD_OF")
    con.target, con.subtarget = arm, bone
    con.inverse_matrix = mathutils.Matrix.Identity(4)
    return con


def plugin_material(name, shader_index, **values):
    mat = bpy.data.materials.new(name)
    mat["shaderList"] = {"shaderList": shader_index}
    for key, value in values.items():
        mat[key] = value
    return mat


def build_armature(bones):
    """bones: (name, parent or None, head); the plugin's armatures have no Root bone."""
    data = bpy.data.armatures.new("ShipArmature")
    arm = link(bpy.data.objects.new("ShipRig", data))
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    for name, parent, head in bones:
        eb = data.edit_bones.new(name)
        eb.head, eb.tail = head, (head[0], head[1] + 1.0, head[2])
        if parent:
            eb.parent = data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    return arm


def plugin_scene():
    """An armature, two meshes on bones by Child Of, materials and an action, all stored
    the way the plugin stores them."""
    arm = build_armature([("b_body", None, (0.0, 0.0, 0.0)),
                          ("HP_Gun", "b_body", (2.0, 0.0, 1.0)),
                          ("p_smoke", None, (0.0, 0.0, 3.0)),
                          ("p_smoke.001", None, (1.0, 0.0, 3.0))])
    bones = arm.data.bones
    for b in bones:
        b["Visible"], b["billboardMode"] = 1, {"billboardMode": 0}
    bones["HP_Gun"]["Visible"], bones["HP_Gun"]["billboardMode"] = 0, {"billboardMode": 3}
    for name, hidden, alt in (("p_smoke", 1, 0), ("p_smoke.001", 0, 1)):
        b = bones[name]
        b["EnableProxy"], b["ProxyName"] = 1, "P_SMOKE"
        b["proxyIsHidden"], b["altDecreaseStayHidden"] = hidden, alt
    gun = cube("Gun", 0.25)
    hang_by_child_of(gun, arm, "HP_Gun")
    gun.matrix_basis = mathutils.Matrix.Translation(GUN_OFFSET)
    gun["Hidden"], gun["HasCollision"] = 1, 1
    gun.data.materials.append(plugin_material(
        "Gun Material", 12, BaseTexture="gun.dds", Diffuse=[0.5, 0.25, 0.125, 1.0],
        Shininess=16.0, NormalTexture="None", Colorization=[1.0, 0.0, 0.0, 1.0]))
    hull = cube("Hull", 2.0)
    hang_by_child_of(hull, arm, "b_body")
    hull.data.materials.append(plugin_material(
        "Hull Material", 7, BaseTexture="hull.dds", NormalTexture="None"))
    action = bpy.data.actions.new("Idle")
    action["AnimationEndFrame"] = 40
    writer = compat.ActionWriter(action, arm)         # the plugin's animated proxy hiding
    fc = writer.fcurve('pose.bones["p_smoke"].proxyIsHiddenAnimation', 0, "p_smoke")
    compat.set_keys(fc, [0.0, 20.0], [1.0, 0.0], [compat.INTERPOLATION["CONSTANT"]] * 2)
    writer.assign()
    bpy.context.scene["ActiveSkeleton"] = {"skeletonEnum": 1}
    return arm


def param(material, name):
    p = material.param(name)
    assert p is not None, f"{material.shader} has no {name}"
    return p.value


def check_plugin_model(model):
    """What plugin_scene() must export as."""
    names = [b.name for b in model.bones]
    assert names == ["Root", "b_body", "HP_Gun", "p_smoke", "p_smoke"]
    assert [b.parent for b in model.bones] == [-1, 0, 1, 0, 0]
    assert np.allclose(model.bones[0].matrix, np.eye(3, 4))
    gun_bone = model.bones[2]
    assert (gun_bone.visible, gun_bone.billboard) == (0, 3)
    assert all((b.visible, b.billboard) == (1, 0) for k, b in enumerate(model.bones) if k != 2)
    meshes = {m.name: (k, m) for k, m in enumerate(model.objects)}
    k, gun = meshes["Gun"]
    assert model.object_bone(k) == 2
    assert (gun.hidden, gun.collision) == (1, 1)
    assert all(s.collision_tree is not None for s in gun.submeshes)
    mat = gun.submeshes[0].material
    assert mat.shader == "MeshGloss.fx"
    spec = shaders.find("MeshGloss.fx")
    assert [p.name for p in mat.params] == [p.name for p in spec.params]
    assert param(mat, "BaseTexture") == "gun.dds"
    assert np.allclose(param(mat, "Diffuse"), [0.5, 0.25, 0.125, 1.0])
    assert param(mat, "Shininess") == pytest.approx(16.0)
    assert mat.param("Colorization") is None          # not a MeshGloss parameter
    # Child Of: the mesh sits in its bone's space at the constraint's rest placement
    pos = np.concatenate([s.vertices["position"] for s in gun.submeshes])
    assert np.allclose(pos.min(axis=0), np.array(GUN_OFFSET) - 0.25, atol=1e-5)
    assert np.allclose(pos.max(axis=0), np.array(GUN_OFFSET) + 0.25, atol=1e-5)
    k, hull = meshes["Hull"]
    assert model.object_bone(k) == 1 and (hull.hidden, hull.collision) == (0, 0)
    hmat = hull.submeshes[0].material
    assert hmat.shader == "MeshBumpColorize.fx"
    normal_default = next(p.default for p in shaders.find(hmat.shader).params
                          if p.name == "NormalTexture")
    assert param(hmat, "NormalTexture") == normal_default        # "None": unset
    assert param(hmat, "BaseTexture") == "hull.dds"
    assert hull.submeshes[0].vertex_format == shaders.vertex_format("MeshBumpColorize.fx")
    proxies = [(p.name, p.bone, p.hidden, p.alt_decrease_stay_hidden)
               for p in model.connections.proxies]
    assert proxies == [("P_SMOKE", 3, 1, 0), ("P_SMOKE", 4, 0, 1)]


def pose_gun_away(arm):
    """A pose that must not move the export (it uses the rest placement)."""
    pb = arm.pose.bones["HP_Gun"]
    pb.rotation_mode = "XYZ"
    pb.rotation_euler = (0.4, 0.0, 1.1)
    pb.location = (3.0, 0.0, 0.0)
    bpy.context.view_layer.update()


def scene_state(arm):
    return ([b.name for b in arm.data.bones], sorted(o.name for o in bpy.data.objects),
            [(m.name, m.alamo.shader, len(m.alamo.params)) for m in bpy.data.materials],
            [(o.name, o.alamo.role, o.alamo.hidden) for o in bpy.data.objects])


def test_plugin_scene_exports_without_converting(blender):
    arm = plugin_scene()
    pose_gun_away(arm)
    assert scene_has_plugin_data(bpy.context.scene)
    before = scene_state(arm)
    result = build_model(bpy.context, AloExportOptions())       # default scope: Armature
    check_plugin_model(result.model)
    assert ON_THE_FLY in result.warnings
    assert "taken from the ALAMO plugin's data: 4 bones, 2 materials, 1 mesh flags, " \
        "2 proxies" in result.warnings
    assert any("'Root'" in w for w in result.warnings)
    assert any("NormalTexture" in w and "defaults" in w for w in result.warnings)
    assert scene_state(arm) == before                        # the scene is not changed
    assert scene_has_plugin_data(bpy.context.scene)


def test_convert_operator_then_export(blender):
    arm = plugin_scene()
    panel = bpy.types.VIEW3D_PT_alamo_legacy
    assert panel.bl_category == "Alamo" and panel.poll(bpy.context)
    assert bpy.ops.alamo.convert_legacy_scene.get_rna_type().name == \
        "Convert Scene from the ALAMO Plugin"
    assert bpy.ops.alamo.convert_legacy_scene() == {"FINISHED"}
    assert not panel.poll(bpy.context)
    bones = arm.data.bones
    assert bones[0].name == "Root" or "Root" in bones
    root = bones["Root"]
    assert root.parent is None and np.allclose(np.array(root.matrix_local), np.eye(4))
    assert bones["b_body"].parent == root and bones["p_smoke"].parent == root
    assert [bones[n].alamo.index for n in ("Root", "b_body", "HP_Gun", "p_smoke",
                                           "p_smoke.001")] == [0, 1, 2, 3, 4]
    assert bones["p_smoke.001"].alamo.name == "p_smoke"
    assert (bones["HP_Gun"].alamo.visible, bones["HP_Gun"].alamo.billboard) == \
        (False, "Z_AXIS_VIEW")
    proxies = sorted((o for o in bpy.data.objects if o.alamo.role == "PROXY"),
                     key=lambda o: o.alamo.file_index)
    assert [(o.alamo.name, o.parent_bone, o.alamo.hidden, o.alamo.alt_decrease_stay_hidden)
            for o in proxies] == [("P_SMOKE", "p_smoke", True, False),
                                  ("P_SMOKE", "p_smoke.001", False, True)]
    gun = bpy.data.objects["Gun"]
    assert (gun.alamo.role, gun.alamo.hidden, gun.alamo.collision) == ("MESH", True, True)
    mat = bpy.data.materials["Gun Material"]
    assert mat.alamo.shader == "MeshGloss.fx"
    assert [p.name for p in mat.alamo.params] == \
        [p.name for p in shaders.find("MeshGloss.fx").params]
    action = bpy.data.actions["Idle"]
    assert (action.alamo.frames, tuple(action.frame_range)) == (41, (0.0, 40.0))
    visible = next(fc for fc in compat.action_fcurves(action)
                   if fc.data_path == 'pose.bones["p_smoke"].alamo.visible')
    assert [tuple(k.co) for k in visible.keyframe_points] == [(0.0, 0.0), (20.0, 1.0)]
    assert not scene_has_plugin_data(bpy.context.scene)
    assert not bpy.ops.alamo.convert_legacy_scene.poll()      # nothing left to convert
    pose_gun_away(arm)
    result = build_model(bpy.context, AloExportOptions())
    check_plugin_model(result.model)
    assert ON_THE_FLY not in result.warnings


def test_convert_report(blender):
    plugin_scene()
    report = convert_scene(bpy.context)
    assert report.mapped["armatures"] == 1 and report.mapped["proxies"] == 2
    assert report.mapped["Root bones restored"] == 1
    assert report.mapped["duplicate bone names restored"] == 1
    assert report.mapped["materials"] == 2 and report.mapped["actions"] == 1
    assert report.mapped["animated proxy visibilities"] == 1
    assert report.mapped["parameters at catalogue defaults"] > 0
    assert plugin.PLUGIN_LOSSES in report.problems
    assert convert_scene(bpy.context).mapped == {}            # twice changes nothing


def test_plugin_material_mapping(blender):
    unknown = plugin_material("Odd", 99, BaseTexture="x.dds")
    m = plugin.read_material(unknown)
    assert m.shader == "alDefault.fx" and m.params == [] and "99" in m.problems[0]
    by_name = plugin_material("ByName", "MeshGloss", Shininess=8.0)
    assert plugin.read_material(by_name).shader == "MeshGloss.fx"
    glow = plugin_material("Glow", plugin.SHADERS.index("MeshGlow.fx"), BaseTexture="g.dds",
                           Color=[1.0, 0.5, 0.0, 1.0], GlossTexture="None")
    m = plugin.read_material(glow)
    assert shaders.find("MeshGlow.fx") is None          # not in the catalogue: kept as stored
    assert [(p.name, p.type) for p in m.params] == [("Color", "FLOAT4"),
                                                    ("BaseTexture", "TEXTURE")]
    assert "not in io_alamo's catalogue" in m.problems[0]
    assert plugin.file_names(["a", "a.001", "b.002", "c.1"]) == ["a", "a", "b.002", "c.1"]


def test_child_of_mesh_in_default_scope(blender):
    """Not only for the plugin: any mesh hung on a bone by Child Of is part of the armature."""
    arm = build_armature([("Root", None, (0.0, 0.0, 0.0)), ("Turret", "Root", (0.0, 2.0, 1.0))])
    turret = cube("Turret", 0.5)
    turret.data.materials.append(bpy.data.materials.new("T"))
    turret.data.materials[0].alamo.shader = "MeshGloss.fx"
    hang_by_child_of(turret, arm, "Turret")
    turret.matrix_basis = mathutils.Matrix.Translation((0.0, 0.0, 1.0))
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    result = build_model(bpy.context, AloExportOptions())
    model = result.model
    assert [m.name for m in model.meshes] == ["Turret"]
    assert model.object_bone(0) == 1
    pos = np.concatenate([s.vertices["position"] for s in model.meshes[0].submeshes])
    assert np.allclose(pos.min(axis=0), [-0.5, -0.5, 0.5], atol=1e-5)
    assert np.allclose(pos.max(axis=0), [0.5, 0.5, 1.5], atol=1e-5)
    assert not any("no meshes" in w for w in result.warnings)


def test_warning_for_alamo_meshes_left_out(blender):
    arm = build_armature([("Root", None, (0.0, 0.0, 0.0))])
    kept = cube("Kept")
    kept.parent = arm
    kept.alamo.role = "MESH"
    loose = cube("Loose")
    loose.alamo.role = "MESH"
    plain = cube("Plain")                                  # no Alamo data: no warning
    other = build_armature([("Root", None, (0.0, 0.0, 0.0))])
    theirs = cube("Theirs")                                 # another model's mesh
    theirs.parent = other
    theirs.alamo.role = "MESH"
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    result = build_model(bpy.context, AloExportOptions())
    left = [p for p in result.problems if "not in the export scope" in p.text]
    assert len(left) == 1 and left[0].objects == ["Loose"]
    assert "Plain" not in left[0].text and "Theirs" not in left[0].text
    assert [m.name for m in result.model.meshes] == ["Kept"]


def test_warning_for_a_model_without_meshes(blender):
    arm = build_armature([("Root", None, (0.0, 0.0, 0.0))])
    bpy.context.view_layer.objects.active = arm
    result = build_model(bpy.context, AloExportOptions())
    assert result.counts["meshes"] == 0
    assert "the model has no meshes" in result.warnings


def test_animations_of_an_unconverted_scene_ask_for_conversion(blender, tmp_path):
    plugin_scene()
    path = tmp_path / "ship.alo"
    with pytest.raises(ExportError, match="Convert Scene from the ALAMO Plugin"):
        export_alo(bpy.context, str(path), AloExportOptions(animations=True))
    assert not path.exists()
    convert_scene(bpy.context)
    result = export_alo(bpy.context, str(path), AloExportOptions(animations=True))
    assert path.exists() and len(result.animations) == 1


def test_plugin_armature_without_bone_properties(blender):
    """Bones made in a plugin scene by hand carry none of its properties; the scene's
    ActiveSkeleton choice still tells the plugin made it (its export added Root too)."""
    arm = build_armature([("Hull", None, (0.0, 0.0, 0.0))])
    bpy.context.view_layer.objects.active = arm
    # any new skeleton gets an identity Root bone 0 (issue 14), plugin-made or not
    assert [b.name for b in build_model(bpy.context, AloExportOptions()).model.bones] == \
        ["Root", "Hull"]
    bpy.context.scene["ActiveSkeleton"] = {"skeletonEnum": 1}
    assert plugin.is_plugin_armature(arm)
    assert [b.name for b in build_model(bpy.context, AloExportOptions()).model.bones] == \
        ["Root", "Hull"]
    convert_scene(bpy.context)
    assert not plugin.is_plugin_armature(arm) and "Root" in arm.data.bones


def test_the_plugins_data_is_read_once_before_the_export_pass(blender, monkeypatch):
    """Issue 24: the plugin's bones, materials and flags are converted once, up front, into
    what the exporter writes; the pass looks them up and reads nothing of the plugin's."""
    arm = plugin_scene()
    second = cube("Gun2", 0.25)                        # a second user of the same material
    hang_by_child_of(second, arm, "HP_Gun")
    second.data.materials.append(bpy.data.materials["Gun Material"])
    calls = {}
    for name in ("read_bones", "read_material", "object_flags"):
        real = getattr(plugin, name)

        def counted(*args, _real=real, _name=name):
            calls[_name] = calls.get(_name, 0) + 1
            return _real(*args)
        monkeypatch.setattr(plugin, name, counted)
    bpy.context.view_layer.objects.active = arm
    result = build_model(bpy.context, AloExportOptions())
    assert calls["read_bones"] == 1                    # was: once for names, once for proxies
    assert calls["read_material"] == 2                 # one per material, not per user
    model = result.model
    gun = [m for m in model.meshes if m.name in ("Gun", "Gun2")]
    assert len(gun) == 2 and all(m.submeshes[0].material.shader == "MeshGloss.fx" for m in gun)
    assert len(model.connections.proxies) == 2
