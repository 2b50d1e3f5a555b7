"""Real models with colorize shaders (../shared/corpus), each beside a generated base texture:
with Colorization set to red through the Alamo material properties, what Cycles bakes as
Diffuse Color follows the game's formula ``lerp(base, red * base, base.a) * Diffuse`` on the
texels the models' UVs cover."""

import shutil

import numpy as np
import pytest
from corpus import CORPUS

bpy = pytest.importorskip("bpy")

# the corpus models with colorize shaders
MODELS = ("EV_AT-Barge_D.alo", "NV_IPV1.ALO", "NV_SwampSpeeder_U.alo",
          "RB_Station_03_HP03_IC.alo", "RB_TLTower.alo", "RV_MonCalCruiser_Drydock_D.alo",
          "UV_CanderousAssaultTank.alo", "UV_Vengeance_HP_RGT_TB.alo", "escort_carrier_two.alo",
          "heavy_missile_platform_ldl_l.alo", "j1_proton_cannon.alo",
          "multi-troop_transport_empty.alo")
SIZE = 64
RED = (1.0, 0.0, 0.0)


def linear_to_srgb(c):
    c = np.clip(c, 0.0, None)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def generated_texture(seed):
    """SIZE x SIZE RGBA in 4 x 4 texel blocks: random colours, alpha 0, 1 or in between (as
    Blender's pixels run: bottom row first)."""
    rng = np.random.default_rng(seed)
    cells = np.column_stack([rng.integers(0, 256, (256, 3)),
                             rng.choice([0, 255, 128, 64], 256)]).reshape(16, 16, 4)
    return np.repeat(np.repeat(cells, 4, axis=0), 4, axis=1).astype(np.uint8)


def colorize_materials():
    from io_alamo.formats.alamo import shaders
    return [m for m in bpy.data.materials
            if shaders.family(m.alamo.shader).endswith("colorize")]


def param(mat, name):
    return next((p for p in mat.alamo.params if p.name.lower() == name.lower()), None)


def wrap_uvs(obj):
    """Move each face's UVs by whole tiles into [0, 1) (the texture repeats; Cycles bakes only
    what lies in the first tile)."""
    me = obj.data
    layer = me.uv_layers.active
    n = len(me.loops)
    uv = np.empty(2 * n, np.float32)
    layer.data.foreach_get("uv", uv)
    uv = uv.reshape(n, 2)
    starts = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_start", starts)
    face = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    sums = np.zeros((len(starts), 2))
    np.add.at(sums, face, uv)
    counts = np.bincount(face, minlength=len(starts))[:, None]
    uv -= np.floor(sums / np.maximum(counts, 1))[face]
    layer.data.foreach_set("uv", uv.ravel())


def bake_texture(mats):
    """Diffuse Color baked over every object using ``mats`` into a SIZE x SIZE image;
    texels no face covers are NaN."""
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 1
    target = bpy.data.images.new("Bake", SIZE, SIZE, float_buffer=True)
    target.pixels.foreach_set(np.full(SIZE * SIZE * 4, -1.0, np.float32))
    spare = bpy.data.images.new("Spare", 4, 4, float_buffer=True)
    objs = [o for o in bpy.data.objects if o.type == "MESH"
            and any(s.material in mats for s in o.material_slots)]
    for o in bpy.data.objects:
        o.hide_render = o.hide_viewport = False
        o.hide_set(False)
        o.select_set(o in objs)
    bpy.context.view_layer.objects.active = objs[0]
    for o in objs:
        wrap_uvs(o)
    for mat in {s.material for o in objs for s in o.material_slots if s.material}:
        node = mat.node_tree.nodes.new("ShaderNodeTexImage")
        node.image = target if mat in mats else spare
        mat.node_tree.nodes.active = node
    bpy.ops.object.bake(type="DIFFUSE", pass_filter={"COLOR"}, margin=0, use_clear=False)
    px = np.empty(SIZE * SIZE * 4, np.float32)
    target.pixels.foreach_get(px)
    px = px.reshape(SIZE, SIZE, 4)[..., :3]
    px[px[..., 0] < -0.5] = np.nan
    return linear_to_srgb(np.nan_to_num(px, nan=-1.0)) * np.where(np.isnan(px), np.nan, 1)


@pytest.mark.parametrize("name", MODELS)
def test_red_colorization_bakes_the_game_formula(blender, tmp_path, name):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.formats.alamo import read_alo
    from io_alamo.formats.alamo.sample import write_tga
    src = CORPUS / name
    if not src.is_file():
        pytest.skip(f"no shared corpus at {CORPUS}: real-file tests skipped")
    shutil.copy(src, tmp_path / name)          # a temporary copy beside generated textures
    model = read_alo(src.read_bytes())
    textures = {}
    for obj in model.meshes:
        for sub in obj.submeshes:
            for p in sub.material.params:
                if p.name.lower() == "basetexture" and p.value:
                    textures.setdefault(p.value.lower(), generated_texture(len(textures)))
    for k, (texture, rgba) in enumerate(textures.items()):
        write_tga(tmp_path / (texture.rsplit(".", 1)[0] + ".tga"), rgba[::-1])
    import_alo(bpy.context, str(tmp_path / name), AloImportOptions(import_animations=False))
    mats = colorize_materials()
    assert mats
    for mat in mats:
        param(mat, "Colorization").float4_value = (*RED, 1.0)     # as a modder sets it
    by_texture = {}
    for mat in mats:
        by_texture.setdefault(param(mat, "BaseTexture").texture.lower(), []).append(mat)
    checked = 0
    for texture, group in by_texture.items():
        diffuse = {tuple(np.round(param(m, "Diffuse").float4_value[:3], 4)) for m in group}
        if len(diffuse) > 1:
            continue                        # one bake image cannot hold two Diffuse colours
        base = textures[texture].astype(np.float64) / 255
        want = (base[..., :3] * (1 - base[..., 3:]) + np.asarray(RED) * base[..., :3]
                * base[..., 3:]) * np.asarray(next(iter(diffuse)))
        got = bake_texture(group)
        covered = ~np.isnan(got[..., 0])
        assert covered.sum() > 20, f"{texture}: the UVs cover {covered.sum()} texels"
        good = (np.abs(got - want).max(axis=-1) < 2.5 / 255)[covered]
        print(f"{texture}: {good.mean():.2%} of {covered.sum()} covered texels follow")
        assert good.mean() >= 0.99, f"{texture}: {good.mean():.1%} of covered texels follow"
        checked += 1
        for m in bpy.data.materials:                 # leave no bake nodes for the next one
            for n in [n for n in m.node_tree.nodes if n.type == "TEX_IMAGE" and n.image
                      and n.image.name in ("Bake", "Spare")] if m.node_tree else []:
                m.node_tree.nodes.remove(n)
        for img in [i for i in bpy.data.images if i.name in ("Bake", "Spare")]:
            bpy.data.images.remove(img)
    assert checked
