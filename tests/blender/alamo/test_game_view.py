"""After import Blender shows what the game shows: each model's own animations, the bind pose,
no shadow volumes, whole textures on opaque shaders, and glTF files of the drawn meshes only."""

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import specbuild as sb
from corpus import corpus_params
from scene import deformed_corners_world, load_model, reaches

from io_alamo.formats.alamo.files import save
from io_alamo.formats.alamo.sample import sample_animation, sample_model, write_tga

bpy = pytest.importorskip("bpy")
ROOT = Path(__file__).resolve().parents[3]


def do_import(path, **kw):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    return import_alo(bpy.context, str(path), AloImportOptions(**kw))


# --- animations belong to the model with the longest name -----------------------------------

@pytest.fixture
def two_models(tmp_path):
    """A.alo and A_Blue.alo side by side, each with one animation."""
    model = sample_model()
    for name in ("A.alo", "A_Blue.alo"):
        save(model, tmp_path / name)
    for name in ("A_IDLE_00.ala", "A_Blue_IDLE_00.ala"):
        save(sample_animation(model), tmp_path / name)
    return tmp_path


def test_each_model_gets_only_its_own_animations(blender, two_models):
    result = do_import(two_models / "A.alo")
    assert sorted(a.name for a in bpy.data.actions) == ["A_IDLE_00"]
    assert result.counts["animations"] == 1
    assert result.left_animations == {"A_Blue_IDLE_00.ala": "A_Blue.alo"}
    assert "1 more .ala files left for A_Blue.alo" in result.summary()
    assert result.left_notes() == ["left for A_Blue.alo: A_Blue_IDLE_00.ala"]

    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = do_import(two_models / "A_Blue.alo")
    assert sorted(a.name for a in bpy.data.actions) == ["A_Blue_IDLE_00"]
    assert result.left_animations == {}


def test_animation_export_writes_back_only_the_models_own(blender, two_models, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    result = do_import(two_models / "A.alo")
    bpy.context.view_layer.objects.active = result.armature
    out = tmp_path / "out"
    out.mkdir()
    written = export_alo(bpy.context, str(out / "A.alo"), AloExportOptions(animations=True))
    assert [Path(p).name for p in written.animations] == ["A_IDLE_00.ala"]


def test_operator_reports_the_files_left_for_other_models(blender, two_models, capsys):
    assert bpy.ops.import_scene.alo(filepath=str(two_models / "A.alo")) == {"FINISHED"}
    assert "left for A_Blue.alo: A_Blue_IDLE_00.ala" in capsys.readouterr().out


# --- bind pose ------------------------------------------------------------------------------

def test_import_shows_the_bind_pose_and_keeps_the_animations(blender, two_models):
    from scene import file_corners

    from io_alamo.blender.alamo.actions import set_active_action
    from io_alamo.blender.alamo.exporter.ala import armature_actions
    path = two_models / "A.alo"
    arm = do_import(path).armature
    assert arm.animation_data is None or arm.animation_data.action is None
    [action] = armature_actions(arm)                       # listed in the animations panel
    assert action.name == "A_IDLE_00" and action.use_fake_user
    model = load_model(path)
    worlds = model.skeleton.world_matrices()
    bpy.context.scene.frame_set(15)                          # a quarter turn into the animation
    turret = bpy.data.objects["Tank_Turret"]
    for obj in (turret, bpy.data.objects["Tank_Hull"]):
        want, *_ = file_corners(model, obj.alamo.file_index, worlds)
        assert np.allclose(deformed_corners_world(obj), want, atol=1e-5)
    set_active_action(arm, action)                           # one click plays it
    bpy.context.scene.frame_set(15)
    want, *_ = file_corners(model, turret.alamo.file_index, worlds)
    assert not np.allclose(deformed_corners_world(turret), want, atol=1e-2)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.alamo.bind_pose() == {"FINISHED"}         # and one click goes back
    bpy.context.scene.frame_set(16)
    assert arm.animation_data.action is None and action.users >= 1
    assert np.allclose(deformed_corners_world(turret), want, atol=1e-5)


@pytest.mark.parametrize("path", corpus_params(".alo"))
def test_real_models_show_their_bind_pose_without_shadow_volumes(blender, path):
    from io_alamo.blender.alamo.game_view import is_shadow_mesh
    from io_alamo.blender.alamo.importer.alo import import_alamo
    result = import_alamo(bpy.context, str(path))       # a model or an effect, as what it is
    if not hasattr(result, "armature"):
        pytest.skip("particle effect: no bind pose (issue 33 imports it as emitters)")
    arm = result.armature
    assert arm.animation_data is None or arm.animation_data.action is None
    stem = path.stem.lower() + "_"
    assert all(a["alamo_source_file"].lower().startswith(stem) for a in bpy.data.actions)
    assert len(bpy.data.actions) == result.counts["animations"]
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start + 5)
    for pb in arm.pose.bones:                          # every bone where the file puts it
        assert np.allclose(np.array(pb.matrix), np.array(pb.bone.matrix_local), atol=1e-4)
    shaders = {s.material.alamo.shader.lower() for o in result.objects if o.type == "MESH"
               for s in o.material_slots}
    shadows = [o for o in result.objects if is_shadow_mesh(o)]
    assert bool(shadows) == any("shadowvolume" in s for s in shaders)
    assert all(o.hide_get() and o.hide_render for o in shadows)


# --- shadow volumes -------------------------------------------------------------------------

def shadow_model(path):
    params = [("texture", "BaseTexture", "W_Test.tga")]
    objects = [sb._mesh_obj("Body", [sb._submesh("MeshGloss.fx", params=params)]),
               sb._mesh_obj("Body_Shadow", [sb._submesh("MeshShadowVolume.fx", "alD3dVertN",
                                                        params=[])]),
               sb._mesh_obj("Skin_Shadow", [sb._submesh("RSkinShadowVolume.fx",
                                                        "alD3dVertRSkinNU2", params=[])])]
    spec = sb._model_spec([sb._bone("Root", -1)], objects, [(i, 0) for i in range(3)])
    path.write_bytes(sb.build_alo(spec))
    return path


def test_shadow_meshes_are_hidden_but_kept_and_exported(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.formats.alamo import read_alo
    path = shadow_model(tmp_path / "Shadowed.alo")
    arm = do_import(path).armature
    shadows = [bpy.data.objects["Body_Shadow"], bpy.data.objects["Skin_Shadow"]]
    body = bpy.data.objects["Body"]
    assert all(o.hide_get() and o.hide_render for o in shadows)
    assert body.visible_get() and not body.hide_render

    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.alamo.lod_alt_show(show_all=True) == {"FINISHED"}   # the panel shows them
    assert all(o.visible_get() and not o.hide_render for o in shadows)
    assert bpy.ops.alamo.lod_alt_show() == {"FINISHED"}               # and back to the game's
    assert all(o.hide_get() and o.hide_render for o in shadows) and body.visible_get()

    out = tmp_path / "out.alo"
    export_alo(bpy.context, str(out), AloExportOptions())
    assert [m.name for m in read_alo(out.read_bytes()).meshes] == [
        "Body", "Body_Shadow", "Skin_Shadow"]


def test_meshes_on_bones_the_file_hides_are_hidden(blender, tmp_path):
    """A bone's visibility covers what hangs on it and on its children."""
    bones = [sb._bone("Root", -1), sb._bone("B_Girder", 0, visible=0), sb._bone("B_Beam", 1)]
    names = ["Tower", "Girder", "Beam"]
    objects = [sb._mesh_obj(n, [sb._submesh()]) for n in names]
    path = tmp_path / "Site.alo"
    path.write_bytes(sb.build_alo(sb._model_spec(bones, objects, [(0, 0), (1, 1), (2, 2)])))
    arm = do_import(path).armature
    girder, beam = bpy.data.objects["Girder"], bpy.data.objects["Beam"]
    assert all(o.hide_get() and o.hide_render for o in (girder, beam))
    assert bpy.data.objects["Tower"].visible_get()
    bpy.context.view_layer.objects.active = arm
    bpy.ops.alamo.lod_alt_show(show_all=True)
    assert all(o.visible_get() and not o.hide_render for o in (girder, beam))


# --- texture alpha --------------------------------------------------------------------------

def textured_quad(folder, shader):
    """A 2x2 quad mapped once with a red texture whose alpha is 0 on its left half."""
    folder.mkdir(exist_ok=True)
    rgba = np.zeros((32, 32, 4), np.uint8)
    rgba[..., 0], rgba[..., 1], rgba[..., 2] = 230, 30, 30
    rgba[:, 16:, 3] = 255
    write_tga(folder / "W_Half.tga", rgba)
    corners = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
    verts = sb._quad_vertices(extra=lambda i: {"uv": [corners[i], (0, 0), (0, 0), (0, 0)]})
    sub = sb._submesh(shader, vertices=verts, params=[("texture", "BaseTexture", "W_Half.tga")])
    spec = sb._model_spec([sb._bone("Root", -1)], [sb._mesh_obj("Quad", [sub])], [(0, 0)])
    path = folder / "Panel.alo"
    path.write_bytes(sb.build_alo(spec))
    return path


def preview_pixels(tmp_path, name):
    """Render the batch's preview (Cycles, CPU) and return its pixels, (h, w, 4) floats."""
    from io_alamo.blender.outputs import render_preview
    target = tmp_path / f"{name}.png"
    render_preview(bpy.context, target, size=96, samples=4)
    img = bpy.data.images.load(str(target))
    px = np.empty(len(img.pixels), np.float32)
    img.pixels.foreach_get(px)
    w, h = img.size
    bpy.data.images.remove(img)
    return px.reshape(h, w, 4)


def red_and_other(px):
    """(red pixels, pixels neither red nor the background) of a preview."""
    rgb = px[..., :3]
    background = np.abs(rgb - rgb[0, 0]).max(axis=-1) < 0.03
    red = rgb[..., 0] - rgb[..., 1:].max(axis=-1) > 0.1     # lit and reflecting: still red
    return int(red.sum()), int((~red & ~background).sum())


def test_opaque_shader_shows_the_whole_texture_whatever_its_alpha(blender, tmp_path):
    do_import(textured_quad(tmp_path / "opaque", "MeshGloss.fx"))
    mat = bpy.data.objects["Quad"].active_material
    tex = mat.node_tree.nodes["Alamo Base Texture"]
    # alpha is data (the gloss mask), never transparency
    assert not reaches(tex.outputs["Alpha"], "BSDF_PRINCIPLED", "Alpha")
    assert reaches(tex.outputs["Alpha"], "BSDF_GLOSSY", "Color")         # the highlight
    assert tex.image.alpha_mode == "CHANNEL_PACKED"
    opaque_red, other = red_and_other(preview_pixels(tmp_path, "opaque"))
    assert opaque_red > 500 and other < 0.03 * opaque_red    # no black half where alpha is 0

    bpy.ops.wm.read_factory_settings(use_empty=True)
    do_import(textured_quad(tmp_path / "alpha", "MeshAlpha.fx"))
    mat = bpy.data.objects["Quad"].active_material
    assert reaches(mat.node_tree.nodes["Alamo Base Texture"].outputs["Alpha"],
                   "BSDF_PRINCIPLED", "Alpha")
    red, other = red_and_other(preview_pixels(tmp_path, "alpha"))
    # the blending shader lets the background through on the transparent half
    assert 0.35 < red / opaque_red < 0.7 and other < 0.1 * opaque_red


def test_switching_to_a_blending_shader_links_the_alpha(blender, tmp_path):
    do_import(textured_quad(tmp_path / "q", "MeshGloss.fx"))
    mat = bpy.data.objects["Quad"].active_material
    tex = mat.node_tree.nodes["Alamo Base Texture"]
    assert bpy.ops.alamo.set_shader(material=mat.name, shader="MeshAdditive.fx") == {"FINISHED"}
    # additive: the texel glows (emission) over what is behind, whatever its alpha
    assert reaches(tex.outputs["Color"], "EMISSION", "Color")
    assert mat.surface_render_method == "BLENDED"
    assert bpy.ops.alamo.set_shader(material=mat.name, shader="MeshAlpha.fx") == {"FINISHED"}
    assert reaches(tex.outputs["Alpha"], "BSDF_PRINCIPLED", "Alpha")
    assert mat.surface_render_method == "BLENDED"
    assert bpy.ops.alamo.set_shader(material=mat.name, shader="MeshGloss.fx") == {"FINISHED"}
    assert not reaches(tex.outputs["Alpha"], "BSDF_PRINCIPLED", "Alpha")
    assert mat.surface_render_method == "DITHERED"


# --- glTF -----------------------------------------------------------------------------------

def glb_json(path):
    data = path.read_bytes()
    assert data[:4] == b"glTF"
    length, kind = struct.unpack("<I4s", data[12:20])
    assert kind == b"JSON"
    return json.loads(data[20:20 + length])


def test_glb_holds_what_the_game_shows_unless_asked_for_everything(blender, tmp_path):
    names = ["Hull_LOD0", "Hull_LOD1", "Tower_ALT0", "Tower_ALT1", "Secret", "Flag"]
    objects = [sb._mesh_obj(n, [sb._submesh()], hidden=int(n == "Secret")) for n in names]
    objects.append(sb._mesh_obj("Hull_Shadow", [sb._submesh("MeshShadowVolume.fx",
                                                            "alD3dVertN", params=[])]))
    bones = [sb._bone("Root", -1), sb._bone("B_Flag", 0, sb._translate(0, 0, 1))]
    spec = sb._model_spec(bones, objects, [(i, int(i == 5)) for i in range(7)])
    src = tmp_path / "in"
    src.mkdir()
    (src / "Ship.alo").write_bytes(sb.build_alo(spec))
    wave = sb._anim_bone("B_Flag", 1, translation_offset=(0.0, 0.0, 1.0),
                         default_rotation=(0, 0, 23170, 23170))
    (src / "Ship_Wave_00.ala").write_bytes(sb.build_ala(
        {"format": 1, "num_frames": 12, "fps": 30.0, "bones": [wave]}))
    meshes = {}
    for flag in ("--glb", "--glb-all"):
        out = tmp_path / flag.strip("-")
        r = subprocess.run([sys.executable, "-m", "io_alamo.batch", "import", str(src),
                            "--out", str(out), flag], capture_output=True, text=True,
                           timeout=600, cwd=ROOT)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        gltf = glb_json(out / "Ship.glb")
        meshes[flag] = sorted(n["name"] for n in gltf["nodes"] if "mesh" in n)
        # the bind pose is shown, and the model's animation is in the file all the same
        assert [a["name"] for a in gltf["animations"]] == ["Ship_Wave_00"]
    assert meshes["--glb"] == ["Flag", "Hull_LOD1", "Tower_ALT0"]
    assert meshes["--glb-all"] == sorted(names + ["Hull_Shadow"])
