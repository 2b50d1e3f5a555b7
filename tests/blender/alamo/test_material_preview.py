"""Material previews draw what the game's shaders draw: for each shader family a generated
texture with known colours and alpha on a quad, baked in Cycles (Diffuse Color, Emit) at
16 x 16 and compared texel by texel with the formula of Petroglyph's HLSL sources; blending
checked by rendering over a known background; the scene-wide team colour changes only the
texels the base alpha masks."""

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

SIZE = 16
# game colours are sRGB numbers the shader multiplies as they are; Blender works in linear
# colour, so a product of two mid-grey colours comes out a little off (a pure power law
# would keep products exact; the sRGB curve is not one). Masks of 0 and 1, black and white
# are exact.
TOL = 0.03


def srgb_to_linear(c):
    c = np.clip(c, 0.0, None)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c):
    c = np.clip(c, 0.0, None)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def blocks(colours):
    """A SIZE x SIZE RGBA texture of 4 x 4 blocks, one per entry of ``colours`` (16 RGBA)."""
    c = np.asarray(colours, np.float32).reshape(4, 4, 4)
    return np.repeat(np.repeat(c, SIZE // 4, axis=0), SIZE // 4, axis=1)


# 16 texels: colours with alpha 0, 1 and in between (the alpha is the mask or the opacity)
RNG = np.random.default_rng(27)
BASE = blocks(np.column_stack([RNG.choice([0.0, 0.25, 0.5, 0.8, 1.0], (16, 3)),
                               np.array([0, 1, 0.5, 1, 0, 1, 0.25, 1, 0, 0, 1, 0.75, 1, 0, 1,
                                         0.5])]))
INNER = np.zeros((SIZE, SIZE), bool)           # texels away from the block borders
for k in range(4):
    INNER[4 * k + 1:4 * k + 3, :] = True
INNER &= INNER.T


def image(name, pixels):
    img = bpy.data.images.new(name, SIZE, SIZE, alpha=True)
    img.pixels.foreach_set(np.ascontiguousarray(pixels, np.float32).ravel())
    return img


def quad(shader, **values):
    """A 2 x 2 quad whose UVs span the texture, with a material of ``shader``; ``values`` set
    parameters by name (textures by name of an image in the file)."""
    from io_alamo.blender.alamo.shading import refresh_material_preview, switch_shader
    bpy.ops.mesh.primitive_plane_add(size=2)
    obj = bpy.context.object
    mat = bpy.data.materials.new(shader)
    obj.data.materials.append(mat)
    switch_shader(mat, shader)
    set_params(mat, **values)
    refresh_material_preview(bpy.context, mat)
    return obj, mat


def set_params(mat, **values):
    params = {p.name: p for p in mat.alamo.params}
    for name, v in values.items():
        p = params[name]
        if p.type == "TEXTURE":
            p.texture = v
        elif p.type == "FLOAT":
            p.float_value = v
        else:
            setattr(p, f"{p.type.lower()}_value", v)


def cycles(samples=1):
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    if hasattr(scene.cycles, "use_denoising"):
        scene.cycles.use_denoising = False
    return scene


def bake(obj, kind, **kw):
    """What Cycles bakes (``kind``: DIFFUSE colour, EMIT, GLOSSY colour) as sRGB numbers."""
    cycles()
    mat = obj.active_material
    img = bpy.data.images.new("Bake", SIZE, SIZE, float_buffer=True)
    node = mat.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = img
    mat.node_tree.nodes.active = node
    if kind in ("DIFFUSE", "GLOSSY"):
        kw["pass_filter"] = {"COLOR"}
    bpy.ops.object.bake(type=kind, margin=0, use_clear=True, **kw)
    px = np.empty(SIZE * SIZE * 4, np.float32)
    img.pixels.foreach_get(px)
    mat.node_tree.nodes.remove(node)
    bpy.data.images.remove(img)
    return linear_to_srgb(px.reshape(SIZE, SIZE, 4)[..., :3])


def colorize(base, team, diffuse=(1, 1, 1)):
    """The colorize shaders' surface colour: lerp(base, team * base, base.a) * Diffuse."""
    rgb, a = base[..., :3], base[..., 3:]
    return (rgb * (1 - a) + np.asarray(team[:3]) * rgb * a) * np.asarray(diffuse[:3])


def close(got, want, tol=TOL, where=INNER):
    err = np.abs(got - want)[where].max()
    assert err < tol, f"largest difference {err:.4f}"


# --- colorize ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shader", ["MeshBumpColorize.fx", "MeshGlossColorize.fx",
                                    "RSkinBumpColorize.fx"])
def test_colorize_bakes_the_team_coloured_surface_and_emissive(blender, shader):
    image("T_Base.tga", BASE)
    team, diffuse, emissive = (0.9, 0.2, 0.1, 1.0), (1.0, 0.8, 0.6, 1.0), (0.1, 0.3, 0.05, 0)
    obj, _ = quad(shader, BaseTexture="T_Base.tga", Colorization=team, Diffuse=diffuse,
                  Emissive=emissive)
    close(bake(obj, "DIFFUSE"), colorize(BASE, team, diffuse))
    # Emissive is added to the light that multiplies the surface: surface * Emissive * 2
    close(bake(obj, "EMIT"), colorize(BASE, team, 2 * np.asarray(emissive[:3])))


def test_editing_colorization_or_the_team_colour_updates_the_preview(blender):
    image("T_Base.tga", BASE)
    obj, mat = quad("MeshBumpColorize.fx", BaseTexture="T_Base.tga",
                    Colorization=(0.0, 1.0, 0.0, 1.0))
    green = bake(obj, "DIFFUSE")
    close(green, colorize(BASE, (0, 1, 0)))
    set_params(mat, Colorization=(1.0, 0.0, 0.0, 1.0))      # as a script or the UI sets it
    red = bake(obj, "DIFFUSE")
    close(red, colorize(BASE, (1, 0, 0)))

    team = bpy.context.scene.alamo_team
    team.color = (0.2, 0.4, 1.0)
    close(bake(obj, "DIFFUSE"), red)                          # off: the material's own
    team.override = True
    blue = bake(obj, "DIFFUSE")
    close(blue, colorize(BASE, (0.2, 0.4, 1.0)))
    masked = (BASE[..., 3] > 0) & (BASE[..., :3].max(axis=-1) > 0)
    changed = np.abs(blue - red).max(axis=-1) > 0.02
    assert (changed[INNER] == masked[INNER]).all()           # only the team-colour mask
    assert np.allclose(mat.alamo.params["Colorization"].float4_value, (1, 0, 0, 1))
    team.override = False
    close(bake(obj, "DIFFUSE"), red)


def test_switching_shader_rebuilds_the_recipe(blender):
    image("T_Base.tga", BASE)
    obj, mat = quad("MeshGloss.fx", BaseTexture="T_Base.tga")
    close(bake(obj, "DIFFUSE"), BASE[..., :3])                # gloss: no team colour
    assert bpy.ops.alamo.set_shader(material=mat.name, shader="MeshBumpColorize.fx") == \
        {"FINISHED"}
    set_params(mat, Colorization=(0.0, 0.0, 1.0, 1.0))
    close(bake(obj, "DIFFUSE"), colorize(BASE, (0, 0, 1)))
    assert not [n for n in mat.node_tree.nodes if n.name.startswith("Alamo Math")
                and not n.outputs[0].is_linked]               # no leftovers


# --- gloss: the specular is masked -------------------------------------------------------------

def glossy_mask(obj):
    return bake(obj, "GLOSSY").max(axis=-1)


def test_gloss_masks_the_specular_with_the_base_alpha(blender):
    image("T_Base.tga", BASE)
    obj, _ = quad("MeshGloss.fx", BaseTexture="T_Base.tga", Diffuse=(0.5, 1.0, 1.0, 1.0))
    close(bake(obj, "DIFFUSE"), BASE[..., :3] * (0.5, 1.0, 1.0))   # alpha is not opacity
    spec = glossy_mask(obj)[INNER]
    alpha = BASE[..., 3][INNER]
    assert (spec[alpha == 0] < 1e-3).all() and (spec[alpha == 1] > 0.05).all()


def test_gloss_colorize_takes_its_gloss_from_the_gloss_texture_red(blender):
    image("T_Base.tga", BASE)
    gloss = blocks([[r, 1 - r, 1 - r, 1] for r in (0, 1) * 8])
    image("T_Gloss.tga", gloss)
    obj, _ = quad("MeshGlossColorize.fx", BaseTexture="T_Base.tga", GlossTexture="T_Gloss.tga")
    spec = glossy_mask(obj)[INNER]
    red = gloss[..., 0][INNER]
    assert (spec[red == 0] < 1e-3).all() and (spec[red == 1] > 0.05).all()


def test_bump_colorize_takes_its_gloss_from_the_normal_map_alpha(blender):
    image("T_Base.tga", BASE)
    normal = blocks([[0.5, 0.5, 1.0, a] for a in (1, 0) * 8])
    image("T_Normal.tga", normal)
    obj, _ = quad("MeshBumpColorize.fx", BaseTexture="T_Base.tga", NormalTexture="T_Normal.tga")
    spec = glossy_mask(obj)[INNER]
    a = normal[..., 3][INNER]
    assert (spec[a == 0] < 1e-3).all() and (spec[a == 1] > 0.05).all()


# --- blending over a background -----------------------------------------------------------------

WORLD = np.array([0.2, 0.3, 0.4])


def render_over_world(samples=16):
    """The quad filling a 16 x 16 orthographic render over a uniform world colour, linear."""
    scene = cycles(samples)
    world = bpy.data.worlds.new("W")
    if world.node_tree is None:
        world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (*WORLD, 1.0)
    scene.world = world
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    cam.data.type = "ORTHO"
    cam.data.ortho_scale = 2.0
    cam.location = (0, 0, 5)
    scene.collection.objects.link(cam)
    scene.camera = cam
    r = scene.render
    r.resolution_x = r.resolution_y = SIZE
    r.resolution_percentage = 100
    r.film_transparent = False
    scene.cycles.filter_width = 0.01
    scene.view_settings.view_transform = "Standard"
    r.image_settings.file_format = "OPEN_EXR"
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        r.filepath = str(Path(tmp) / "r.exr")
        bpy.ops.render.render(write_still=True)
        img = bpy.data.images.load(r.filepath)
        px = np.empty(SIZE * SIZE * 4, np.float32)
        img.pixels.foreach_get(px)
        bpy.data.images.remove(img)
    return px.reshape(SIZE, SIZE, 4)[..., :3]


def test_additive_adds_light_and_never_occludes(blender):
    image("T_Glow.tga", BASE)
    colour = (1.0, 0.5, 0.25, 1.0)
    obj, mat = quad("MeshAdditive.fx", BaseTexture="T_Glow.tga", Color=colour)
    glow = bake(obj, "EMIT")
    close(glow, BASE[..., :3] * colour[:3])                  # texel * colour, alpha ignored
    got = render_over_world()
    want = WORLD + srgb_to_linear(BASE[..., :3] * colour[:3])     # ONE/ONE: background + glow
    close(got, want, tol=0.01)
    assert mat.surface_render_method == "BLENDED"


def test_additive_scrolls_with_the_frame(blender):
    image("T_Glow.tga", BASE)
    obj, mat = quad("MeshAdditive.fx", BaseTexture="T_Glow.tga",
                    UVScrollRate=(0.25, 0.0, 0.0, 0.0))
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 30, 1.0
    scene.frame_set(0)
    still = bake(obj, "EMIT")
    scene.frame_set(30)                                       # one second: a quarter across
    moved = bake(obj, "EMIT")
    close(moved, np.roll(still, -SIZE // 4, axis=1), where=np.roll(INNER, -SIZE // 4, axis=1))
    set_params(mat, UVScrollRate=(0.0, 0.0, 0.0, 0.0))
    scene.frame_set(31)
    close(bake(obj, "EMIT"), still)


def test_alpha_blends_by_texel_alpha_times_diffuse_alpha(blender):
    image("T_Glass.tga", BASE)
    obj, mat = quad("MeshAlpha.fx", BaseTexture="T_Glass.tga", Diffuse=(0.5, 1.0, 1.0, 1.0),
                    Specular=(0.0, 0.0, 0.0, 0.0))
    # rgb * Diffuse where the texel is opaque (Cycles bakes a transparent texel as nothing)
    close(bake(obj, "DIFFUSE"), BASE[..., :3] * (0.5, 1.0, 1.0),
          where=INNER & (BASE[..., 3] == 1))
    diffuse = (1.0, 1.0, 1.0, 0.8)
    set_params(mat, Diffuse=diffuse)
    got = render_over_world(samples=64)
    # lit by the uniform world alone, a matte surface shows albedo * world
    alpha = BASE[..., 3:] * diffuse[3]
    want = WORLD * (1 - alpha) + srgb_to_linear(BASE[..., :3]) * WORLD * alpha
    close(got, want, tol=0.02)
    assert mat.surface_render_method == "BLENDED"


# --- the other families --------------------------------------------------------------------------

def test_skydome_lays_the_clouds_over_the_base(blender):
    image("T_Base.tga", BASE)
    clouds = blocks([[1, 1, 1, a] for a in (0, 1, 0.5, 0) * 4])
    image("T_Clouds.tga", clouds)
    obj, _ = quad("Skydome.fx", BaseTexture="T_Base.tga", CloudTexture="T_Clouds.tga",
                  CloudScale=1.0)
    a = clouds[..., 3:]
    # lerp in linear colour: exact where the clouds are 0 or 1
    want = linear_to_srgb(srgb_to_linear(BASE[..., :3]) * (1 - a) + a)
    close(bake(obj, "DIFFUSE"), want)


@pytest.mark.parametrize("shader", ["TerrainMeshBump.fx", "TerrainMeshGloss.fx", "Tree.fx",
                                    "alDefault.fx", "BatchMeshGloss.fx", "Planet.fx"])
def test_lit_families_bake_base_times_diffuse(blender, shader):
    from io_alamo.formats.alamo import shaders
    image("T_Base.tga", BASE)
    names = {p.name for p in shaders.find(shader).params}
    values = {p.name: "" for p in shaders.find(shader).params if p.type == "TEXTURE"}
    values.update({"BaseTexture": "T_Base.tga"} if "BaseTexture" in names else {})
    if "Diffuse" in names:
        values["Diffuse"] = (0.5, 1.0, 0.25, 1.0)
    if "Atmosphere" in names:
        values["Atmosphere"] = (0.0, 0.0, 0.0, 0.0)
    obj, _ = quad(shader, **values)
    want = BASE[..., :3]
    if "Diffuse" in names and shader != "Planet.fx":
        want = want * (0.5, 1.0, 0.25)
    if shader == "alDefault.fx":
        return                                       # no parameters: a plain surface
    # Tree is alpha-tested: where its alpha is 0 nothing is drawn (and nothing baked)
    close(bake(obj, "DIFFUSE"), want, where=INNER & (BASE[..., 3] == 1) if shader == "Tree.fx"
          else INNER)


def test_every_catalogue_shader_gets_a_recipe_that_bakes(blender):
    from io_alamo.formats.alamo import shaders
    from io_alamo.blender.alamo.preview import RECIPES
    image("T_Base.tga", BASE)
    families = set()
    for name in shaders.names():
        spec = shaders.find(name)
        assert spec.family in RECIPES, name
        families.add(spec.family)
        textures = {p.name: "T_Base.tga" for p in spec.params if p.type == "TEXTURE"}
        obj, mat = quad(name, **textures)
        assert mat.node_tree.nodes.get("Alamo Base Texture") is not None or \
            "BaseTexture" not in textures, name
        emit = bake(obj, "EMIT")
        assert np.isfinite(emit).all(), name
        bpy.data.objects.remove(obj)
    assert families == set(RECIPES)


# --- glTF: the colorized base colour baked into the texture it writes ----------------------------

def colorize_model(folder, team=(0.1, 0.3, 1.0, 1.0)):
    """A quad .alo with MeshBumpColorize and the BASE texture beside it, as a .tga."""
    import specbuild as sb

    from io_alamo.formats.alamo.sample import write_tga
    folder.mkdir(exist_ok=True)
    write_tga(folder / "W_Team.tga", np.round(BASE[::-1] * 255).astype(np.uint8))
    corners = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
    verts = sb._quad_vertices(extra=lambda i: {"uv": [corners[i], (0, 0), (0, 0), (0, 0)]})
    sub = sb._submesh("MeshBumpColorize.fx", vertices=verts,
                      params=[("float4", "Colorization", team),
                              ("float4", "Diffuse", (1.0, 0.8, 0.6, 1.0)),
                              ("texture", "BaseTexture", "W_Team.tga")])
    spec = sb._model_spec([sb._bone("Root", -1)], [sb._mesh_obj("Quad", [sub])], [(0, 0)])
    path = folder / "Panel.alo"
    path.write_bytes(sb.build_alo(spec))
    return path


def test_gltf_look_bakes_the_colorized_base_colour_and_puts_everything_back(blender, tmp_path):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.blender.alamo.preview.gltf import gltf_look
    import_alo(bpy.context, str(colorize_model(tmp_path)), AloImportOptions())
    mat = bpy.data.objects["Quad"].active_material
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    before = sorted((ln.from_node.name, ln.to_socket.name) for ln in mat.node_tree.links)
    images = len(bpy.data.images)
    bpy.context.scene.alamo_team.override = True
    bpy.context.scene.alamo_team.color = (1.0, 0.0, 0.0)
    with gltf_look(bpy.context.scene):
        link = bsdf.inputs["Base Color"].links[0]
        assert link.from_node.type == "TEX_IMAGE"           # what glTF exporters read
        img = link.from_node.image
        px = np.empty(SIZE * SIZE * 4, np.float32)
        img.pixels.foreach_get(px)
        close(px.reshape(SIZE, SIZE, 4)[..., :3], colorize(BASE, (1, 0, 0), (1, 0.8, 0.6)),
              tol=1 / 255 + 1e-4, where=np.ones((SIZE, SIZE), bool))
    assert sorted((ln.from_node.name, ln.to_socket.name) for ln in mat.node_tree.links) == before
    assert len(bpy.data.images) == images


def test_gltf_look_bakes_a_texture_file_once_per_run(blender, tmp_path, monkeypatch):
    """A batch converts units that share textures: a texture file's bake is kept for the
    rest of the run and taken again with the same pixels; a changed team colour or texture
    file is baked anew (issue 44)."""
    import os

    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.blender.alamo.preview import gltf
    model = colorize_model(tmp_path)
    calls, real = [], gltf.surface_bytes
    monkeypatch.setattr(gltf, "surface_bytes", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(gltf, "_KEPT", gltf.KeptPngs("io_alamo-test-bakes-"))

    def baked(team):
        bpy.ops.wm.read_factory_settings(use_empty=True)          # the batch's next unit
        import_alo(bpy.context, str(model), AloImportOptions())
        bpy.context.scene.alamo_team.override = True
        bpy.context.scene.alamo_team.color = team
        mat = bpy.data.objects["Quad"].active_material
        bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
        with gltf.gltf_look(bpy.context.scene):
            img = bsdf.inputs["Base Color"].links[0].from_node.image
            px = np.empty(SIZE * SIZE * 4, np.float32)
            img.pixels.foreach_get(px)
        return px.reshape(SIZE, SIZE, 4)[..., :3]

    first = baked((1.0, 0.0, 0.0))
    again = baked((1.0, 0.0, 0.0))
    assert len(calls) == 1 and np.array_equal(first, again)
    close(again, colorize(BASE, (1, 0, 0), (1, 0.8, 0.6)), tol=1 / 255 + 1e-4,
          where=np.ones((SIZE, SIZE), bool))
    close(baked((0.0, 1.0, 0.0)), colorize(BASE, (0, 1, 0), (1, 0.8, 0.6)),
          tol=1 / 255 + 1e-4, where=np.ones((SIZE, SIZE), bool))
    assert len(calls) == 2
    texture = tmp_path / "W_Team.tga"
    os.utime(texture, ns=(texture.stat().st_atime_ns, texture.stat().st_mtime_ns + 10**9))
    baked((0.0, 1.0, 0.0))
    assert len(calls) == 3


def stored_bytes(px):
    """The bytes Blender stores of float RGBA ``px`` (h, w, 4) in an 8-bit image, as the
    bake was written before issue 44 (a new image, its pixels set, saved by Blender)."""
    h, w = px.shape[:2]
    img = bpy.data.images.new("Stored", w, h, alpha=True)
    img.pixels.foreach_set(np.ascontiguousarray(px, np.float32).ravel())
    back = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(back)
    bpy.data.images.remove(img)
    return np.round(back * 255).astype(np.uint8).reshape(h, w, 4)


@pytest.mark.parametrize("shader,values,channels", [
    ("MeshBumpColorize.fx", {"Colorization": (0.1, 0.7, 1.0, 1.0),
                             "Diffuse": (1.0, 0.8, 0.6, 1.0)}, 3),
    ("MeshGloss.fx", {"Diffuse": (0.5, 1.0, 0.25, 1.0)}, 3),
    ("MeshAdditive.fx", {"Color": (2.0, 0.5, 0.3, 1.0)}, 4),           # glows beyond 1
    ("MeshAlpha.fx", {"Diffuse": (0.5, 1.0, 0.7, 1.0)}, 4)])           # blended
@pytest.mark.parametrize("float_buffer", [False, True])
def test_gltf_bakes_hold_what_blender_stored_of_the_formula(blender, shader, values, channels,
                                                          float_buffer):
    """The glTF bake of an 8-bit texture is looked up per (texel, alpha) pair (issue 44): for
    every pair, in every family, the bytes the .glb gets are those Blender stored of the float
    formula (surface_pixels) before; a float texture is worked out whole, as before. The
    PNG written is read back by Blender with the same bytes."""
    from io_alamo.blender.alamo.preview import gltf
    y, x = np.mgrid[0:256, 0:256]
    every = np.stack([x, 255 - x, (7 * x + y) % 256, y], -1) / 255     # red: every pair
    img = bpy.data.images.new("T_Every.tga", 256, 256, alpha=True, float_buffer=float_buffer)
    img.pixels.foreach_set(every.astype(np.float32).ravel())
    _, mat = quad(shader, BaseTexture="T_Every.tga", **values)
    scene = bpy.context.scene
    want, emits = gltf.surface_pixels(mat, scene)
    want = stored_bytes(want)
    got, got_emits = gltf.surface_bytes(mat, scene)
    assert got_emits == emits == (channels == 4 and shader == "MeshAdditive.fx")
    assert got.shape == (256, 256, channels) and np.array_equal(got, want[..., :channels])
    if channels == 3:
        assert (want[..., 3] == 255).all()              # opaque: the alpha left out is 1
    with gltf.gltf_look(scene):
        baked = mat.node_tree.nodes[gltf.BAKED].image
        px = np.empty(256 * 256 * 4, np.float32)
        baked.pixels.foreach_get(px)
    assert np.array_equal(np.round(px * 255).astype(np.uint8).reshape(256, 256, 4), want)


def glb_base_colour(path, tmp_path):
    """The base colour texture of the first material of a .glb, as (h, w, 4) numbers."""
    import json
    import struct
    data = path.read_bytes()
    length = struct.unpack("<I", data[12:16])[0]
    gltf = json.loads(data[20:20 + length])
    binary = data[20 + length + 8:]
    tex = gltf["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"]
    view = gltf["bufferViews"][gltf["images"][gltf["textures"][tex]["source"]]["bufferView"]]
    png = tmp_path / "base.png"
    png.write_bytes(binary[view.get("byteOffset", 0):][:view["byteLength"]])
    img = bpy.data.images.load(str(png))
    px = np.empty(len(img.pixels), np.float32)
    img.pixels.foreach_get(px)
    w, h = img.size
    bpy.data.images.remove(img)
    return px.reshape(h, w, 4)


def test_batch_glb_writes_the_colorized_base_colour(blender, tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[3]
    model = colorize_model(tmp_path / "in")
    r = subprocess.run([sys.executable, "-m", "io_alamo.batch", "import", str(model), "--out",
                        str(tmp_path / "out"), "--glb"], capture_output=True, text=True,
                       timeout=600, cwd=root, check=False)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    px = glb_base_colour(tmp_path / "out" / "Panel.glb", tmp_path)
    close(px[..., :3], colorize(BASE, (0.1, 0.3, 1.0), (1.0, 0.8, 0.6)), tol=1 / 255 + 1e-4,
          where=np.ones((SIZE, SIZE), bool))
    # an opaque surface: an RGB PNG (its alpha is 1 and glTF reads none; issue 44)
    assert (tmp_path / "base.png").read_bytes()[25] == 2 and (px[..., 3] == 1).all()


def test_a_missing_texture_stays_magenta_whatever_the_team_colour(blender):
    obj, mat = quad("MeshBumpColorize.fx", BaseTexture="W_Missing.tga",
                    Diffuse=(1.0, 1.0, 1.0, 1.0))
    assert mat.node_tree.nodes["Alamo Base Texture"].image.source == "GENERATED"
    bpy.context.scene.alamo_team.override = True
    bpy.context.scene.alamo_team.color = (0.0, 0.0, 1.0)
    close(bake(obj, "DIFFUSE"), np.broadcast_to((1.0, 0.0, 1.0), (SIZE, SIZE, 3)))


def test_faction_presets_in_the_sidebar_set_the_team_colour(blender):
    from io_alamo.blender.alamo.ui.team import PRESETS
    image("T_Base.tga", BASE)
    obj, _ = quad("MeshGlossColorize.fx", BaseTexture="T_Base.tga",
                    Colorization=(0.0, 1.0, 0.0, 1.0), Diffuse=(1.0, 1.0, 1.0, 1.0))
    assert hasattr(bpy.types, "VIEW3D_PT_alamo_team")
    assert bpy.ops.alamo.team_preset(preset="Rebellion") == {"FINISHED"}
    team = bpy.context.scene.alamo_team
    assert team.override and np.allclose(team.color, PRESETS["Rebellion"])
    close(bake(obj, "DIFFUSE"), colorize(BASE, PRESETS["Rebellion"]))


@pytest.mark.parametrize("shader", ["MeshAdditive.fx", "MeshAdditiveVColor.fx", "Nebula.fx",
                                    "MeshShield.fx", "MeshAdditiveReflection.fx"])
def test_glowing_shaders_without_textures_still_build(blender, shader):
    from io_alamo.formats.alamo import shaders
    blank = {p.name: "" for p in shaders.find(shader).params if p.type == "TEXTURE"}
    obj, mat = quad(shader, **blank)
    assert mat.node_tree.nodes.get("Alamo Emission") is not None
    assert np.isfinite(bake(obj, "EMIT")).all()


def test_team_panel_and_material_note_draw(blender):
    from test_ui import Context, draw

    from io_alamo.blender.alamo import ui
    _, mat = quad("MeshBumpColorize.fx")
    texts = draw(ui.team.VIEW3D_PT_alamo_team)
    assert any("Colorization" in t for t in texts)
    draw(ui.team.VIEW3D_PT_alamo_team, method="draw_header")
    texts = draw(ui.material.MATERIAL_PT_alamo, Context(region=None, material=mat))
    assert "Preview: bump-colorize, team colour from Colorization" in texts
    bpy.context.scene.alamo_team.override = True
    texts = draw(ui.material.MATERIAL_PT_alamo, Context(region=None, material=mat))
    assert "Preview: bump-colorize, team colour from the sidebar" in texts
