"""The modder-facing UI: every operator behind it (adding proxies, dazzles and lights at a
bone, LOD/ALT switching, validation and selecting problems, switching shaders, texture and
colour fields, keying visibility, choosing the active animation), and every panel, list and
menu drawn against a layout stand-in that checks each property, operator and icon it names."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from io_alamo.formats.alamo import shaders
from io_alamo.formats.alamo import decode_animation, read_ala, read_alo

bpy = pytest.importorskip("bpy")

ROOT = Path(__file__).resolve().parents[3]


# --- scenes ---------------------------------------------------------------------------------

def armature(bones=("Root", "Arm", "Hand")):
    """An armature whose bones chain away from the origin (each 1 long, along +Z)."""
    arm = bpy.data.armatures.new("Rig")
    obj = bpy.data.objects.new("Rig", arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for k, name in enumerate(bones):
        b = arm.edit_bones.new(name)
        b.head, b.tail = (k, 0, k), (k, 0, k + 1)
        if k:
            b.parent = arm.edit_bones[bones[k - 1]]
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def cube(name, shader="alDefault.fx", parent=None, bone=None):
    import bmesh
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bm.to_mesh(me)
    bm.free()
    me.uv_layers.new(name="UVMap")
    obj = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(obj)
    if shader is not None:
        mat = bpy.data.materials.new(name)
        mat.alamo.shader = shader
        me.materials.append(mat)
    if parent is not None:
        obj.parent = parent
        if bone:
            obj.parent_type = "BONE"
            obj.parent_bone = bone
    return obj


def empty(name, role, parent=None):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    obj.alamo.role = role
    obj.parent = parent
    return obj


def activate_bone(arm, name):
    bpy.context.view_layer.objects.active = arm
    arm.data.bones.active = arm.data.bones[name]


def export(tmp_path, **kw):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    out = tmp_path / "x.alo"
    export_alo(bpy.context, str(out), AloExportOptions(**kw))
    return read_alo(out.read_bytes())


def bone_index(model, name):
    return [b.name for b in model.bones].index(name)


# --- registration ---------------------------------------------------------------------------

REGISTER_SCRIPT = """
import atexit, os, shutil, sys, tempfile
os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp()
atexit.register(shutil.rmtree, os.environ["BLENDER_USER_RESOURCES"], True)
sys.path.insert(0, {root!r})
import bpy, io_alamo
from io_alamo.blender.alamo import ui
WM = [n for n, _ in ui.WINDOW_MANAGER_PROPERTIES]
for round in range(2):
    io_alamo.register()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    for cls in ui.CLASSES:
        assert cls.is_registered, cls.__name__
        if issubclass(cls, bpy.types.Operator):
            assert hasattr(bpy.ops.alamo, cls.bl_idname.split(".")[1]), cls.bl_idname
    assert ui.add.menu_add in bpy.types.VIEW3D_MT_add._dyn_ui_initialize()
    assert all(hasattr(bpy.types.WindowManager, n) for n in WM)
    assert "color4" in ui.material.AlamoShaderParam.bl_rna.properties
    assert hasattr(bpy.types, "VIEW3D_PT_alamo_object") and hasattr(bpy.types, "MATERIAL_PT_alamo")
    io_alamo.unregister()
    for cls in ui.CLASSES:
        assert not cls.is_registered, cls.__name__
    assert ui.add.menu_add not in bpy.types.VIEW3D_MT_add._dyn_ui_initialize()
    assert not any(hasattr(bpy.types.WindowManager, n) for n in WM)
    assert not hasattr(bpy.types, "ALAMO_OT_add_proxy")
print("clean")
"""


def test_every_panel_menu_and_operator_registers_and_unregisters_cleanly():
    r = subprocess.run([sys.executable, "-c", REGISTER_SCRIPT.format(root=str(ROOT))],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"exit code {r.returncode}: {r.stderr[-2000:]}"
    assert "clean" in r.stdout


# --- adding proxies, dazzles and lights -----------------------------------------------------

def test_add_proxy_dazzle_and_light_at_the_active_bone(blender, tmp_path):
    arm = armature()
    activate_bone(arm, "Arm")
    assert bpy.ops.alamo.add_proxy(name="p_smoke_small") == {"FINISHED"}
    proxy = bpy.context.object
    assert (proxy.alamo.role, proxy.parent, proxy.parent_bone) == ("PROXY", arm, "Arm")
    assert proxy.select_get() and not arm.select_get()
    bpy.context.view_layer.update()
    head = arm.matrix_world @ arm.data.bones["Arm"].head_local
    assert np.allclose(proxy.matrix_world.translation, head, atol=1e-6)

    activate_bone(arm, "Hand")
    arm.location = (5, 0, 0)                                 # an armature away from the origin
    assert bpy.ops.alamo.add_dazzle(name="FC_Beacon") == {"FINISHED"}
    dazzle = bpy.context.object
    assert (dazzle.alamo.role, dazzle.parent_bone, dazzle.empty_display_type) == \
        ("DAZZLE", "Hand", "SPHERE")
    activate_bone(arm, "Root")
    assert bpy.ops.alamo.add_light(name="Headlight") == {"FINISHED"}
    light = bpy.context.object
    assert (light.type, light.alamo.role, light.parent_bone) == ("LIGHT", "LIGHT", "Root")

    bpy.context.view_layer.objects.active = arm
    model = export(tmp_path)
    [p] = model.connections.proxies
    assert (p.name, p.bone) == ("p_smoke_small", bone_index(model, "Arm"))
    [d] = model.connections.dazzles
    assert (d.name, d.bone) == ("FC_Beacon", bone_index(model, "Hand"))
    assert np.allclose(d.position, 0, atol=1e-5)                 # at the bone itself
    [lt] = model.lights
    assert lt.name == "Headlight" and lt.intensity == 1.0
    assert model.object_bone(model.objects.index(lt)) == bone_index(model, "Root")


def test_add_works_from_pose_mode_and_from_an_object_on_a_bone(blender):
    arm = armature()
    activate_bone(arm, "Hand")
    bpy.ops.object.mode_set(mode="POSE")
    assert bpy.ops.alamo.add_proxy() == {"FINISHED"}
    assert arm.mode == "POSE" and bpy.context.object == arm      # still posing
    [proxy] = [o for o in bpy.data.objects if o.alamo.role == "PROXY"]
    assert proxy.parent_bone == "Hand"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.objects.active = proxy                 # an object on a bone
    assert bpy.ops.alamo.add_dazzle() == {"FINISHED"}
    assert bpy.context.object.parent_bone == "Hand"


def test_add_needs_a_bone(blender):
    cube("Lonely")
    bpy.context.view_layer.objects.active = bpy.data.objects["Lonely"]
    assert not bpy.ops.alamo.add_proxy.poll()
    with pytest.raises(RuntimeError):
        bpy.ops.alamo.add_proxy()
    assert not any(o.alamo.role == "PROXY" for o in bpy.data.objects)


# --- LOD and ALT ----------------------------------------------------------------------------

def shown(*names):
    return {n: not bpy.data.objects[n].hide_get() for n in names}


def test_lod_alt_switch_shows_one_level_as_the_game_does(blender):
    arm = armature()
    names = ["Body_LOD0", "Body_LOD1", "Gun_ALT0", "Gun_ALT1", "Plain", "Secret_LOD1"]
    for n in names:
        cube(n, parent=arm, bone="Arm")
    bpy.data.objects["Secret_LOD1"].alamo.hidden = True          # hidden in the file
    fire = empty("p_fire_ALT1", "PROXY", arm)
    everything = names + [fire.name]
    bpy.context.view_layer.objects.active = arm

    assert bpy.ops.alamo.lod_alt_show(lod=0, alt=1) == {"FINISHED"}
    expect = {"Body_LOD0": True, "Body_LOD1": False, "Gun_ALT0": False, "Gun_ALT1": True,
              "Plain": True, "Secret_LOD1": False, "p_fire_ALT1": True}
    assert shown(*everything) == expect
    assert all(bpy.data.objects[n].hide_render == (not v) for n, v in expect.items())

    bpy.ops.alamo.lod_alt_show(alt=0)                            # the LOD shown stays
    assert shown("Body_LOD0", "Body_LOD1", "Gun_ALT0", "Gun_ALT1", "p_fire_ALT1") == {
        "Body_LOD0": True, "Body_LOD1": False, "Gun_ALT0": True, "Gun_ALT1": False,
        "p_fire_ALT1": False}

    bpy.ops.alamo.lod_alt_show(show_all=True)                    # reversible: show everything
    assert all(shown(*everything).values())
    assert not any(bpy.data.objects[n].hide_render for n in everything)

    bpy.ops.alamo.lod_alt_show()                # nothing clear: the most detailed LOD, ALT0
    assert shown("Body_LOD0", "Body_LOD1", "Gun_ALT0", "Gun_ALT1") == {
        "Body_LOD0": False, "Body_LOD1": True, "Gun_ALT0": True, "Gun_ALT1": False}
    bpy.ops.alamo.lod_alt_show(lod=7, alt=9)                     # clamped to the model's
    assert shown("Body_LOD1", "Gun_ALT1") == {"Body_LOD1": True, "Gun_ALT1": True}
    from io_alamo.blender.alamo.lod_alt import lod_alt_objects, shown_lod_alt
    assert shown_lod_alt(lod_alt_objects(bpy.context)) == (1, 1)


def test_lod_alt_switch_without_tagged_names_changes_nothing(blender):
    obj = cube("Hull")
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.alamo.lod_alt_show(lod=0) == {"CANCELLED"}
    assert not obj.hide_get() and not obj.hide_render


# --- validation -----------------------------------------------------------------------------

def test_validate_lists_errors_then_warnings_and_a_click_selects(blender):
    armature()
    bad = cube("Hull \u2713")                          # not storable in Windows-1252
    plain = cube("Plain", shader=None)
    plain.data.materials.append(bpy.data.materials.new("NoShader"))
    other = cube("Other")
    other.select_set(True)
    assert bpy.ops.alamo.validate(scope="SCENE") == {"FINISHED"}
    wm = bpy.context.window_manager
    problems = [(p.level, [o.name for o in p.objects]) for p in wm.alamo_problems]
    assert problems[0] == ("ERROR", ["Hull \u2713"])
    assert ("WARNING", ["Plain"]) in problems
    assert "Windows-1252" in wm.alamo_problems[0].text
    assert wm.alamo_validation == "1 error, 1 warning"
    assert wm.alamo_problem_index == -1

    assert bpy.ops.alamo.select_problem(index=0) == {"FINISHED"}
    assert bad.select_get() and not other.select_get() and not plain.select_get()
    assert bpy.context.view_layer.objects.active == bad

    warning = next(i for i, p in enumerate(wm.alamo_problems) if "no Alamo shader" in p.text)
    wm.alamo_problem_index = warning                 # clicking the row in the list
    assert plain.select_get() and not bad.select_get()
    assert bpy.context.view_layer.objects.active == plain

    bad.name = "Hull"
    plain.data.materials[0].alamo.shader = "MeshGloss.fx"
    bpy.ops.alamo.validate(scope="SCENE")
    assert len(wm.alamo_problems) == 0 and wm.alamo_validation.startswith("No problems")


def test_select_problem_shows_the_faulty_vertices_in_edit_mode(blender):
    arm = armature()
    body = cube("Body", "RSkinGloss.fx", parent=arm)
    group = body.vertex_groups.new(name="Arm")
    group.add([0, 1, 2, 3, 4, 5], 1.0, "REPLACE")                 # vertices 6 and 7 have none
    body.modifiers.new("Armature", "ARMATURE").object = arm
    bpy.context.view_layer.objects.active = arm
    bpy.ops.alamo.validate()
    wm = bpy.context.window_manager
    [k] = [i for i, p in enumerate(wm.alamo_problems) if "no bone weights" in p.text]
    assert bpy.ops.alamo.select_problem(index=k) == {"FINISHED"}
    assert bpy.context.object == body and body.mode == "EDIT"
    bpy.ops.object.mode_set(mode="OBJECT")
    assert [v.select for v in body.data.vertices] == [False] * 6 + [True] * 2


# --- shaders, colours, textures -------------------------------------------------------------

def params(mat):
    from io_alamo.blender.alamo.props import param_value
    return {p.name: (p.type, param_value(p)) for p in mat.alamo.params}


def defaults(shader):
    return {p.name: (p.type, p.default) for p in shaders.find(shader).params}


def close(a, b):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), atol=1e-6)


def test_shader_switch_keeps_the_values_of_shared_parameters(blender):
    mat = bpy.data.materials.new("Hull")
    assert bpy.ops.alamo.set_shader(shader="MeshGloss.fx", material="Hull") == {"FINISHED"}
    assert mat.alamo.shader == "MeshGloss.fx"
    assert list(params(mat)) == list(defaults("MeshGloss.fx"))
    p = {q.name: q for q in mat.alamo.params}
    p["Diffuse"].float4_value = (0.1, 0.2, 0.3, 0.4)
    p["Shininess"].float_value = 12.0
    p["BaseTexture"].texture = "Hull.dds"
    mat.alamo.vertex_format = "alD3dVertNU2"

    bpy.ops.alamo.set_shader(shader="MeshBumpColorize.fx", material="Hull")
    got = params(mat)
    assert list(got) == list(defaults("MeshBumpColorize.fx"))        # the new shader's order
    assert close(got["Diffuse"][1], (0.1, 0.2, 0.3, 0.4))
    assert got["Shininess"][1] == 12.0 and got["BaseTexture"][1] == "Hull.dds"
    assert close(got["Colorization"][1], defaults("MeshBumpColorize.fx")["Colorization"][1])
    assert got["NormalTexture"][1] == "default_b.tga"
    assert mat.alamo.vertex_format == ""            # export picks the format the shader needs

    # a shader the catalogue does not know (typed by the modder) keeps everything
    bpy.ops.alamo.set_shader(shader_name="MyModGlow.fx", material="Hull")
    assert mat.alamo.shader == "MyModGlow.fx" and params(mat).keys() == got.keys()
    bpy.ops.alamo.param_add(material="Hull", param_name="GlowPower", type="FLOAT")
    assert params(mat)["GlowPower"] == ("FLOAT", 0.0)
    bpy.ops.alamo.param_remove(material="Hull", index=len(mat.alamo.params) - 1)
    assert "GlowPower" not in params(mat)

    # back to a catalogue shader: shared values kept, the rest dropped
    bpy.ops.alamo.set_shader(shader="MeshAdditive.fx", material="Hull")
    got = params(mat)
    assert list(got) == ["BaseTexture", "UVScrollRate", "Color"]
    assert got["BaseTexture"][1] == "Hull.dds"


def test_resync_with_the_same_shader_adds_missing_and_keeps_extra_parameters(blender):
    from io_alamo.blender.alamo.shading import missing_params
    mat = bpy.data.materials.new("Imported")
    mat.alamo.shader = "MeshGloss.fx"
    mat.alamo.vertex_format = "alD3dVertNU2C"                  # as an imported file had it
    extra = mat.alamo.params.add()
    extra.name, extra.type, extra.int_value = "FileOnly", "INT", 7
    assert missing_params(mat) == [p.name for p in shaders.find("MeshGloss.fx").params]
    bpy.ops.alamo.set_shader(shader_name="meshgloss", material="Imported")
    got = params(mat)
    assert list(got)[:5] == list(defaults("MeshGloss.fx")) and got["FileOnly"] == ("INT", 7)
    assert missing_params(mat) == [] and mat.alamo.vertex_format == "alD3dVertNU2C"


def preview(mat):
    nodes = mat.node_tree.nodes
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    return nodes.get("Alamo Base Texture"), nodes.get("Alamo Normal Texture"), bsdf


def test_colour_and_texture_fields_edit_what_export_reads_and_the_preview_follows(
        blender, tmp_path):
    from io_alamo.formats.alamo.sample import write_sample
    write_sample(tmp_path)                                   # Sample_Tank.tga, Sample_Tank_B.tga
    mat = bpy.data.materials.new("Hull")
    bpy.ops.alamo.set_shader(shader="MeshAdditive.fx", material="Hull")
    base, normal, bsdf = preview(mat)
    assert base.image.name == "default.tga" and normal is None     # a placeholder
    p = {q.name: q for q in mat.alamo.params}

    p["Color"].color4 = (0.25, 0.5, 0.75, 1.0)               # the colour picker
    assert close(p["Color"].float4_value, (0.25, 0.5, 0.75, 1.0))
    assert mat.bl_rna and p["Color"].bl_rna.properties["color4"].subtype == "COLOR_GAMMA"

    path = tmp_path / "Sample_Tank.tga"
    assert bpy.ops.alamo.texture_browse(filepath=str(path), material="Hull", index=0) == \
        {"FINISHED"}
    assert p["BaseTexture"].texture == "Sample_Tank.tga"
    assert preview(mat)[0].image.filepath == str(path)

    bpy.data.images.load(str(tmp_path / "Sample_Tank_B.tga"))
    bpy.ops.alamo.set_shader(shader="MeshBumpColorize.fx", material="Hull")
    p = {q.name: q for q in mat.alamo.params}
    assert bpy.ops.alamo.texture_pick_image(image="Sample_Tank_B.tga", material="Hull",
                                            index=7) == {"FINISHED"}
    assert p["NormalTexture"].texture == "Sample_Tank_B.tga"
    normal = preview(mat)[1]
    assert normal.image.name == "Sample_Tank_B.tga"
    assert normal.image.colorspace_settings.name == "Non-Color"

    p["BaseTexture"].texture_file = ""                       # typed: no base texture
    assert p["BaseTexture"].texture == ""
    base, _, bsdf = preview(mat)
    assert base is None
    p["Diffuse"].color4 = (0.5, 0.25, 0.0, 1.0)              # the base colour shows instead
    assert close(bsdf.inputs["Base Color"].default_value, (0.5, 0.25, 0.0, 1.0))
    p["BaseTexture"].texture_file = "sample_tank.DDS"        # case and .dds/.tga do not matter
    assert preview(mat)[0].image.filepath == str(path)


def test_dazzle_texture_can_be_picked_from_the_file_images(blender):
    arm = armature()
    activate_bone(arm, "Arm")
    bpy.ops.alamo.add_dazzle()
    dazzle = bpy.context.object
    img = bpy.data.images.new("W_Dazzle.tga", 4, 4)
    assert bpy.ops.alamo.texture_pick_image(image=img.name) == {"FINISHED"}
    assert dazzle.alamo.texture == "W_Dazzle.tga"


# --- animation ------------------------------------------------------------------------------

def visibility_keys(arm, bone):
    from io_alamo.blender import compat
    path = f'pose.bones["{bone}"].alamo.visible'
    [fc] = [f for f in compat.action_fcurves(arm.animation_data.action) if f.data_path == path]
    return [(k.co[0], k.co[1], k.interpolation) for k in fc.keyframe_points]


def test_key_visibility_of_a_bone_and_of_a_proxy_is_exported(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.ala import export_ala
    arm = armature()
    proxy = empty("p_smoke", "PROXY", arm)
    proxy.parent_type, proxy.parent_bone = "BONE", "Hand"
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 30
    activate_bone(arm, "Arm")
    scene.frame_set(1)
    assert bpy.ops.alamo.key_visibility() == {"FINISHED"}        # as is: visible
    scene.frame_set(10)
    assert bpy.ops.alamo.key_visibility(state="HIDE") == {"FINISHED"}
    scene.frame_set(20)
    bpy.ops.alamo.key_visibility(state="SHOW")
    assert visibility_keys(arm, "Arm") == [(1, 1, "CONSTANT"), (10, 0, "CONSTANT"),
                                           (20, 1, "CONSTANT")]

    bpy.context.view_layer.objects.active = proxy                # keys the proxy's bone
    scene.frame_set(5)
    bpy.ops.alamo.key_visibility(state="HIDE")
    assert visibility_keys(arm, "Hand") == [(5, 0, "CONSTANT")]

    out = tmp_path / "x.ala"
    export_ala(bpy.context, arm, arm.animation_data.action, str(out))
    anim = read_ala(out.read_bytes())
    dec = decode_animation(anim)
    names = [b.name for b in anim.bones]
    vis = dec.visible[names.index("Arm")]
    # the file's frame k is Blender's frame k (issue 31): frames 1, 9, 10, 19, 20
    assert list(vis[[1, 9, 10, 19, 20]]) == [1, 1, 0, 0, 1]
    assert not dec.visible[names.index("Hand")][4:].any()


def keyed_action(arm, name, end):
    action = bpy.data.actions.new(name)
    ad = arm.animation_data or arm.animation_data_create()
    ad.action = action
    pb = arm.pose.bones["Arm"]
    for frame in (1, end):
        pb.location = (0, 0, frame)
        pb.keyframe_insert("location", frame=frame)
    return action


def test_actions_list_and_set_active(blender):
    from io_alamo.blender.alamo.exporter.ala import armature_actions
    arm = armature()
    walk = keyed_action(arm, "Walk", 20)
    idle = keyed_action(arm, "Idle", 50)
    bpy.data.actions.new("Unrelated")
    assert {a.name for a in armature_actions(arm)} == {"Walk", "Idle"}
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.alamo.set_action(action="Walk") == {"FINISHED"}
    ad = arm.animation_data
    assert ad.action == walk
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end) == (1, 20)
    if hasattr(ad, "action_slot"):                                  # Blender 4.4+
        assert ad.action_slot is not None and ad.action_slot in list(walk.slots)
    wm = bpy.context.window_manager
    assert wm.alamo_action_index == bpy.data.actions.find("Walk")
    wm.alamo_action_index = bpy.data.actions.find("Idle")         # clicking the row
    assert ad.action == idle and scene.frame_end == 50
    bpy.context.scene.frame_set(50)
    assert arm.pose.bones["Arm"].location.z == pytest.approx(50)


# --- drawing --------------------------------------------------------------------------------

FILTER_ITEM = 1 << 30          # UIList.bitflag_filter_item of a real list
ICONS = set(bpy.types.UILayout.bl_rna.functions["label"].parameters["icon"].enum_items.keys())


class OperatorCall:
    """What ``layout.operator`` returns: only the operator's own properties can be set."""

    def __init__(self, idname):
        module, name = idname.split(".")
        op = getattr(getattr(bpy.ops, module), name)
        object.__setattr__(self, "_props", op.get_rna_type().properties)

    def __setattr__(self, name, value):
        assert name in self._props, f"operator has no property {name!r}"


class Layout:
    """A UILayout stand-in that checks what is drawn: every property, operator, list, menu
    and icon must exist. Labels are collected in ``texts``."""

    def __init__(self, texts=None):
        object.__setattr__(self, "texts", [] if texts is None else texts)

    def _sub(self, *args, **kw):
        return Layout(self.texts)

    row = column = box = split = column_flow = grid_flow = _sub

    def _icon(self, kw):
        assert kw.get("icon", "NONE") in ICONS, kw["icon"]

    def label(self, text="", **kw):
        self._icon(kw)
        self.texts.append(text)

    def prop(self, data, prop, **kw):
        self._icon(kw)
        assert prop in data.bl_rna.properties, f"{data!r} has no property {prop!r}"
        getattr(data, prop)

    def prop_search(self, data, prop, search_data, search_prop, **kw):
        self.prop(data, prop, **kw)
        assert search_prop in search_data.bl_rna.properties

    def operator(self, idname, **kw):
        self._icon(kw)
        return OperatorCall(idname)

    def operator_menu_enum(self, idname, prop, **kw):
        call = self.operator(idname, **kw)
        assert prop in call._props
        return call

    def template_list(self, list_type, list_id, data, prop, active_data, active_prop, **kw):
        assert hasattr(bpy.types, list_type), list_type
        assert prop in data.bl_rna.properties and active_prop in active_data.bl_rna.properties

    def menu(self, name, **kw):
        self._icon(kw)
        assert hasattr(bpy.types, name), name

    def separator(self, **kw):
        pass

    def context_pointer_set(self, name, data):
        pass


class Context:
    """bpy.context with some members replaced (as the Properties editor provides them)."""

    def __init__(self, **members):
        self.__dict__.update(members)

    def __getattr__(self, name):
        return getattr(bpy.context, name)


def draw(cls, context=None, method="draw", *args):
    """Run a panel's, menu's or list's drawing code; returns the label texts."""
    layout = Layout()
    fake = type("Drawn", (), {k: v for k, v in vars(cls).items() if callable(v)})()
    fake.layout = layout
    fake.filter_name, fake.use_filter_invert, fake.use_filter_sort_alpha = "", False, False
    fake.bitflag_filter_item = FILTER_ITEM
    result = getattr(cls, method)(fake, context or Context(region=None), *args)
    return result if method == "filter_items" else layout.texts


def test_panels_lists_and_menus_draw(blender, tmp_path):
    from io_alamo.blender.alamo import ui
    arm = armature()
    hull = cube("Hull_LOD1", "MeshBumpColorize.fx", arm, "Arm")
    cube("Hull_LOD0", parent=arm, bone="Arm")
    activate_bone(arm, "Arm")
    bpy.ops.alamo.add_proxy()
    activate_bone(arm, "Arm")
    bpy.ops.alamo.add_dazzle()
    activate_bone(arm, "Arm")
    bpy.ops.alamo.add_light()
    light = bpy.context.object
    light.data.type = "SPOT"
    loose = empty("Loose", "NONE")
    plain_light = bpy.data.objects.new("Lamp", bpy.data.lights.new("Lamp", "SPOT"))
    bpy.context.scene.collection.objects.link(plain_light)
    panels = [ui.objects.VIEW3D_PT_alamo_object, ui.bones.VIEW3D_PT_alamo_bone,
              ui.lod_alt.VIEW3D_PT_alamo_lod_alt, ui.animations.VIEW3D_PT_alamo_animation,
              ui.checks.VIEW3D_PT_alamo_validate]
    for cls in panels + [ui.material.MATERIAL_PT_alamo]:
        assert cls.bl_space_type in ("VIEW_3D", "PROPERTIES")
    assert all(cls.bl_category == "Alamo" and cls.bl_region_type == "UI" for cls in panels)

    for obj in [o for o in bpy.data.objects] + [loose]:
        bpy.context.view_layer.objects.active = obj
        assert ui.objects.VIEW3D_PT_alamo_object.poll(bpy.context)
        texts = draw(ui.objects.VIEW3D_PT_alamo_object)
        if obj == hull:
            assert "Only at LOD 1" in texts
        if obj == loose:
            assert any("Proxy or Dazzle" in t for t in texts)
    activate_bone(arm, "Arm")
    assert ui.bones.VIEW3D_PT_alamo_bone.poll(bpy.context)
    assert "Visibility of bone Arm" in draw(ui.bones.VIEW3D_PT_alamo_bone)
    bpy.ops.object.mode_set(mode="EDIT")
    assert any("Leave Edit Mode" in t for t in draw(ui.bones.VIEW3D_PT_alamo_bone))
    bpy.ops.object.mode_set(mode="OBJECT")
    assert "LOD" in draw(ui.lod_alt.VIEW3D_PT_alamo_lod_alt)
    keyed_action(arm, "Walk", 10)
    assert ui.animations.VIEW3D_PT_alamo_animation.poll(bpy.context)
    draw(ui.animations.VIEW3D_PT_alamo_animation)
    flags, _ = draw(ui.animations.ALAMO_UL_actions, None, "filter_items", bpy.data, "actions")
    assert flags == [FILTER_ITEM]
    walk = bpy.data.actions["Walk"]
    texts = Layout()
    ui.animations.ALAMO_UL_actions.draw_item(None, bpy.context, texts, bpy.data, walk, 0, None,
                                             "", 0)
    assert f"1-10  {bpy.context.scene.render.fps:g} fps" in texts.texts

    wm = bpy.context.window_manager
    assert draw(ui.checks.VIEW3D_PT_alamo_validate) == []        # not run yet
    bpy.ops.alamo.validate()
    assert draw(ui.checks.VIEW3D_PT_alamo_validate) == [wm.alamo_validation]     # all fine
    cube("Bad \u2713", parent=arm)
    bpy.ops.alamo.validate()
    wm.alamo_problem_index = 0
    texts = draw(ui.checks.VIEW3D_PT_alamo_validate)
    assert wm.alamo_validation in texts
    problem = Layout()
    ui.checks.ALAMO_UL_problems.draw_item(None, bpy.context, problem, wm,
                                          wm.alamo_problems[0], 0, wm, "alamo_problem_index", 0)
    assert problem.texts == [wm.alamo_problems[0].text]

    mat = hull.data.materials[0]
    bpy.ops.alamo.set_shader(shader="MeshBumpColorize.fx", material=mat.name)
    assert ui.material.MATERIAL_PT_alamo.poll(Context(material=mat))
    assert not ui.material.MATERIAL_PT_alamo.poll(Context(material=None))
    assert "BaseTexture" in draw(ui.material.MATERIAL_PT_alamo, Context(material=mat, region=None))
    mat.alamo.shader = "MyModGlow.fx"
    assert any("does not know" in t for t in draw(ui.material.MATERIAL_PT_alamo,
                                                    Context(material=mat, region=None)))
    mat.alamo.shader = ""
    assert any("alDefault.fx" in t for t in draw(ui.material.MATERIAL_PT_alamo,
                                                  Context(material=mat, region=None)))
    draw(ui.add.VIEW3D_MT_alamo_add)
    ui.add.menu_add(type("Menu", (), {"layout": Layout()})(), bpy.context)


def test_ui_texts_are_written_for_modders():
    """No debugging leftovers: every UI class and operator property explains itself."""
    from io_alamo.blender.alamo import ui
    for cls in ui.CLASSES:
        if issubclass(cls, bpy.types.Operator):
            assert cls.__doc__ and cls.bl_label, cls.__name__
            rna = getattr(bpy.ops.alamo, cls.bl_idname.split(".")[1]).get_rna_type()
            for prop in rna.properties:
                if prop.identifier != "rna_type" and not prop.is_hidden:
                    assert prop.name != prop.identifier, f"{cls.__name__}.{prop.identifier}"
    blender_layer = ROOT / "io_alamo" / "blender"
    sources = sorted((blender_layer / "alamo" / "ui").glob("*.py")) + [
        blender_layer / f"{name}.py"
        for name in ("alamo/actions", "alamo/add", "alamo/checks", "alamo/lod_alt",
                     "alamo/shading", "tool_targets", "alamo/visibility")]
    assert len(sources) > 10
    for path in sources:
        source = path.read_text()
        assert "print(" not in source and "breakpoint(" not in source, path.name
