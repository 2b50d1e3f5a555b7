"""A glowing material's base colour in the batch .glb (io_alamo.blender.alamo.preview.gltf):
black with the glow's alpha. The bake writes that texture itself (white, the glow's alpha)
and links it through a Mix multiply by black, so the glTF exporter copies its PNG bytes
where it composed the texture before (decoding the bake, Blender's PNG writer; issue 44).
The .glb shows the same: the same JSON (materials, textures, images, samplers, every
accessor) and the same pixels in every image as the exporter's own composite gives."""

import numpy as np
import pytest
from scene import read_glb

bpy = pytest.importorskip("bpy")

SIZE = 32


def _texture(tmp_path, name, seed):
    """A TGA file of random colours and alpha, loaded as the importer loads a texture."""
    rng = np.random.default_rng(seed)
    img = bpy.data.images.new(name, SIZE, SIZE, alpha=True)
    img.pixels.foreach_set(rng.random(SIZE * SIZE * 4).astype(np.float32))
    img.filepath_raw = str(tmp_path / name)
    img.file_format = "TARGA"
    img.save()
    return img


def _scene(tmp_path):
    """A glowing quad (additive, colour beyond 1), a blended and an opaque one."""
    from test_material_preview import quad
    _texture(tmp_path, "T_Glow.tga", 1)
    _texture(tmp_path, "T_Hull.tga", 2)
    quad("MeshAdditive.fx", BaseTexture="T_Glow.tga", Color=(2.0, 0.5, 0.3, 1.0))
    quad("MeshAlpha.fx", BaseTexture="T_Hull.tga", Diffuse=(0.5, 1.0, 0.7, 1.0))
    quad("MeshGloss.fx", BaseTexture="T_Hull.tga", Diffuse=(0.5, 1.0, 0.25, 1.0))


def _composed():
    """Counter of the glTF exporter's composed (unhappy path) images."""
    import importlib
    for name in ("io_scene_gltf2.blender.exp.material.encode_image",              # 4.5, 5.0
                 "io_scene_gltf2.blender.exp.material.extensions.gltf2_blender_image"):  # 4.2
        try:
            return importlib.import_module(name).ExportImage, "_ExportImage__encode_unhappy"
        except ImportError:
            continue
    raise AssertionError("the glTF exporter's ExportImage is not where it was")


def _export(path, monkeypatch, slow):
    from io_alamo.blender.alamo import batch
    from io_alamo.blender.alamo.preview import gltf
    from io_alamo.blender import gltf_images
    # a fresh run each time: nothing kept from the other export
    monkeypatch.setattr(gltf, "_KEPT", gltf_images.KeptPngs("io_alamo-test-glow-"))
    real = gltf._new_bake

    def without_glow_texture(*args):                 # what the bake linked before
        image, emits, white = real(*args)
        if white is not None:
            bpy.data.images.remove(white)
        return image, emits, None
    monkeypatch.setattr(gltf, "_new_bake", without_glow_texture if slow else real)
    import addon_utils
    addon_utils.enable("io_scene_gltf2", default_set=False)
    cls, name = _composed()
    calls, composed = [], getattr(cls, name)
    monkeypatch.setattr(cls, name, lambda self, *a: calls.append(1) or composed(self, *a))
    batch.export_glb(path, look=gltf.gltf_look, prepare=batch.prepare_gltf_export,
                     extras=batch.ParticleExtras())
    return len(calls)


def _images(doc, binary, tmp_path):
    """[(name, mime type, PNG colour type, bytes as Blender reads them)] of a .glb."""
    out = []
    for k, im in enumerate(doc["images"]):
        view = doc["bufferViews"][im["bufferView"]]
        data = binary[view.get("byteOffset", 0):][:view["byteLength"]]
        path = tmp_path / f"read{k}.png"
        path.write_bytes(data)
        img = bpy.data.images.load(str(path))
        px = np.empty(len(img.pixels), np.float32)
        img.pixels.foreach_get(px)
        bpy.data.images.remove(img)
        out.append((im["name"], im["mimeType"], data[25], np.round(px * 255).astype(np.uint8)))
    return out


def _without_sizes(doc):
    for view in doc["bufferViews"]:
        view.pop("byteOffset", None)
        view.pop("byteLength", None)
    for buffer in doc["buffers"]:
        buffer.pop("byteLength", None)
    return doc


def test_the_glow_base_colour_is_the_exporters_composite_without_composing(
        blender, tmp_path, monkeypatch):
    _scene(tmp_path)
    materials = sorted((m.name, len(m.node_tree.nodes), len(m.node_tree.links))
                       for m in bpy.data.materials if m.node_tree is not None)
    images = len(bpy.data.images)
    fast, slow = tmp_path / "fast.glb", tmp_path / "slow.glb"
    from io_alamo.blender.alamo.preview.gltf import COMPOSES_ALPHA
    assert _export(fast, monkeypatch, slow=False) == 0         # nothing composed
    # the glow's base colour (Blender 4.5 on; 4.2's exporter takes the bake as it is, and
    # the .glb is the one it wrote before, byte for byte)
    assert _export(slow, monkeypatch, slow=True) == (1 if COMPOSES_ALPHA else 0)
    assert COMPOSES_ALPHA or fast.read_bytes() == slow.read_bytes()
    (doc, binary), (doc0, binary0) = read_glb(fast), read_glb(slow)
    glow = next(m for m in doc["materials"] if "emissiveTexture" in m)
    assert glow["pbrMetallicRoughness"]["baseColorFactor"] == [0, 0, 0, 1]
    assert glow["alphaMode"] == "BLEND" and "baseColorTexture" in glow["pbrMetallicRoughness"]
    got, want = _images(doc, binary, tmp_path), _images(doc0, binary0, tmp_path)
    base = doc["textures"][glow["pbrMetallicRoughness"]["baseColorTexture"]["index"]]
    # the same pixels read as RGBA; the glow's base colour a grey and alpha PNG (4) where
    # the exporter's composite is an RGBA one (6)
    kinds, kinds0 = [g[2] for g in got], [w[2] for w in want]
    if COMPOSES_ALPHA:
        assert (kinds[base["source"]], kinds0[base["source"]]) == (4, 6)
        kinds[base["source"]] = 6
    assert [g[:2] for g in got] == [w[:2] for w in want] and kinds == kinds0
    for g, w in zip(got, want):
        assert np.array_equal(g[3], w[3]), g[0]
    rgba = got[base["source"]][3].reshape(-1, 4)
    assert (rgba[:, :3] == 255).all() or not COMPOSES_ALPHA             # white,
    assert len(np.unique(rgba[:, 3])) > 10                                # the alpha
    # every accessor and buffer view but the images' the same bytes, the JSON the same
    views = [{im["bufferView"] for im in d["images"]} for d in (doc, doc0)]
    data = [[b[v.get("byteOffset", 0):][:v["byteLength"]] for k, v in
             enumerate(d["bufferViews"]) if k not in skip]
            for d, b, skip in ((doc, binary, views[0]), (doc0, binary0, views[1]))]
    assert data[0] == data[1]
    assert _without_sizes(doc) == _without_sizes(doc0)
    # the scene is as it was
    assert sorted((m.name, len(m.node_tree.nodes), len(m.node_tree.links))
                  for m in bpy.data.materials if m.node_tree is not None) == materials
    assert len(bpy.data.images) == images


@pytest.mark.skipif(bpy is not None and bpy.app.version < (4, 5, 0),
                    reason="the glow's base colour texture is made for the exporter of 4.5 on")
def test_the_glow_texture_is_kept_for_the_run_and_follows_the_colour(
        blender, tmp_path, monkeypatch):
    """The next unit of a batch with the same glow takes the kept texture (not baked again);
    another colour (another alpha: the glow's brightest channel) gives a new one."""
    from io_alamo.blender.alamo.preview import gltf
    from io_alamo.blender import gltf_images
    from test_material_preview import quad, set_params
    monkeypatch.setattr(gltf, "_KEPT", gltf_images.KeptPngs("io_alamo-test-glow-kept-"))
    _texture(tmp_path, "T_Glow.tga", 1)
    _, mat = quad("MeshAdditive.fx", BaseTexture="T_Glow.tga", Color=(0.5, 0.2, 0.1, 1.0))
    calls, real = [], gltf.surface_bytes
    monkeypatch.setattr(gltf, "surface_bytes", lambda *a: calls.append(1) or real(*a))

    def alpha():
        with gltf.gltf_look(bpy.context.scene):
            link = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED") \
                .inputs["Alpha"].links[0]
            img = link.from_node.image
            px = np.empty(len(img.pixels), np.float32)
            img.pixels.foreach_get(px)
        px = np.round(px * 255).astype(np.uint8).reshape(-1, 4)
        assert (px[:, :3] == 255).all()
        return px[:, 3]

    first = alpha()
    assert alpha().tolist() == first.tolist() and len(calls) == 1        # kept
    set_params(mat, Color=(0.25, 0.1, 0.05, 1.0))
    from io_alamo.blender.alamo.shading import refresh_material_preview
    refresh_material_preview(bpy.context, mat)
    second = alpha()
    assert len(calls) == 2 and second.tolist() != first.tolist()
    # the glow's alpha is its brightest channel: half the colour, half the alpha (rounded)
    assert np.abs(second.astype(int) - first.astype(int) / 2).max() <= 1


def test_each_bake_holds_its_own_textures_surface(blender, tmp_path, monkeypatch):
    """A texture two materials bake from is read once per glTF export (issue 44): each bake
    still holds the surface of its own material's texture, as read alone."""
    from io_alamo.blender.alamo.preview import gltf
    from io_alamo.blender import gltf_images
    monkeypatch.setattr(gltf, "_KEPT", gltf_images.KeptPngs("io_alamo-test-glow-own-"))
    _scene(tmp_path)
    reads, real = [], gltf.byte_pixels
    monkeypatch.setattr(gltf, "byte_pixels", lambda image: reads.append(image.name) or
                        real(image))
    scene = bpy.context.scene
    mats = [m for m in bpy.data.materials if m.node_tree is not None and
            m.node_tree.nodes.get(gltf.BASE_NODE) is not None]
    want = {m.name: gltf.surface_bytes(m, scene, real)[0] for m in mats}
    with gltf.gltf_look(scene):
        assert sorted(reads) == ["T_Glow.tga", "T_Hull.tga"]        # each texture once
        for m in mats:
            img = m.node_tree.nodes[gltf.BAKED].image
            px = np.empty(len(img.pixels), np.float32)
            img.pixels.foreach_get(px)
            got = np.round(px * 255).astype(np.uint8).reshape(SIZE, SIZE, 4)
            assert np.array_equal(got[..., :want[m.name].shape[2]], want[m.name]), m.name
