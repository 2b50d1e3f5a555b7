"""The batch .glb's images are encoded once per image (io_alamo.blender.gltf_images), not once
per material socket: the exporter then finds clean PNG files, whose bytes it copies, and the
.glb holds the same images, under the same names, as the exporter's own encoding gives
(issue 44): an image whose alpha a node reads keeps its pixels and PNG colour type (8-bit
images are encoded by io_alamo, others saved by Blender as the exporter saves them); one
whose alpha nothing reads becomes an RGB PNG of the same colours. The scene is as it was
afterwards."""

import numpy as np
import pytest
from scene import read_glb

bpy = pytest.importorskip("bpy")


def glb_images(path):
    """[(name, bytes)] of a .glb's images, and its materials' JSON."""
    doc, binary = read_glb(path)
    out = []
    for im in doc.get("images", []):
        view = doc["bufferViews"][im["bufferView"]]
        out.append((im.get("name"), binary[view.get("byteOffset", 0):][:view["byteLength"]]))
    return out, doc["materials"]


def scene(tmp_path, alpha_mode="STRAIGHT", alpha=True):
    """Two materials sharing a TGA base texture (a file the exporter must re-encode, its alpha
    read by the first; an RGBA file, or an RGB one without ``alpha``) and a generated,
    unsaved normal map (its alpha feeds no BSDF); a third image is in a node glTF does not
    read."""
    rng = np.random.default_rng(0)
    base = bpy.data.images.new("Shared.tga", 16, 8, alpha=alpha)
    base.pixels.foreach_set(rng.random(16 * 8 * 4).astype(np.float32))
    base.filepath_raw = str(tmp_path / "Shared.tga")
    base.file_format = "TARGA"
    base.save()
    base.alpha_mode = alpha_mode
    normal = bpy.data.images.new("Bumps", 8, 8, alpha=True)
    normal.pixels.foreach_set(rng.random(8 * 8 * 4).astype(np.float32))
    loose = bpy.data.images.new("Loose", 4, 4)
    bpy.ops.mesh.primitive_plane_add()
    obj = bpy.context.object
    bpy.ops.object.mode_set(mode="OBJECT")
    materials = []
    for k in range(2):
        mat = bpy.data.materials.new(f"M{k}")
        mat.use_nodes = True
        nodes, links = mat.node_tree.nodes, mat.node_tree.links
        bsdf = nodes["Principled BSDF"]
        tex = nodes.new("ShaderNodeTexImage")
        tex.image = base
        links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        if k == 0:
            links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
        ntex = nodes.new("ShaderNodeTexImage")
        ntex.image = normal
        nmap = nodes.new("ShaderNodeNormalMap")
        links.new(ntex.outputs["Color"], nmap.inputs["Color"])
        # its alpha feeds a node that leads nowhere glTF reads (as the preview's specular
        # mask does): not read
        links.new(ntex.outputs["Alpha"], nodes.new("ShaderNodeMath").inputs[0])
        links.new(nmap.outputs["Normal"], bsdf.inputs["Normal"])
        nodes.new("ShaderNodeTexImage").image = loose
        obj.data.materials.append(mat)
        materials.append(mat)
    return materials


def png_pixels(data, tmp_path):
    """(PNG colour type, RGBA pixels) of PNG bytes, read by Blender."""
    path = tmp_path / "read.png"
    path.write_bytes(data)
    image = bpy.data.images.load(str(path))
    try:
        px = np.empty(image.size[0] * image.size[1] * 4, np.float32)
        image.pixels.foreach_get(px)
    finally:
        bpy.data.images.remove(image)
    return data[25], px.reshape(-1, 4)


def export(path):
    bpy.ops.export_scene.gltf(filepath=str(path), export_format="GLB", check_existing=False)


@pytest.mark.parametrize("alpha_mode,alpha", [("STRAIGHT", True), ("CHANNEL_PACKED", True),
                                              ("STRAIGHT", False), ("PREMUL", True)])
def test_images_encoded_once_are_the_exporters_own(blender, tmp_path, alpha_mode, alpha):
    import addon_utils

    from io_alamo.blender.gltf_images import _copies_bytes, encoded_once
    materials = scene(tmp_path, alpha_mode, alpha)
    nodes_before = [[n.image for n in m.node_tree.nodes if n.type == "TEX_IMAGE"]
                    for m in materials]
    images_before = sorted(i.name for i in bpy.data.images)
    addon_utils.enable("io_scene_gltf2", default_set=False)
    try:
        export(tmp_path / "plain.glb")
        with encoded_once(materials):
            shown = {n.image.name: n.image for m in materials for n in m.node_tree.nodes
                     if n.type == "TEX_IMAGE"}
            # what glTF reads is a clean PNG file (its bytes copied, not encoded again),
            # one copy per image; the node glTF does not read is left alone
            assert len(shown) == 3 and "Loose" in shown
            assert all(_copies_bytes(i) for n, i in shown.items() if n != "Loose")
            export(tmp_path / "once.glb")
    finally:
        addon_utils.disable("io_scene_gltf2", default_set=False)
    plain, plain_materials = glb_images(tmp_path / "plain.glb")
    once, once_materials = glb_images(tmp_path / "once.glb")
    assert len(plain) == 2 and once_materials == plain_materials
    assert [n for n, _ in once] == [n for n, _ in plain]
    read = {n: (png_pixels(a, tmp_path), png_pixels(b, tmp_path))
            for (n, a), (_, b) in zip(plain, once)}
    # its alpha is read: the same pixels and colour type (RGBA, or RGB for an RGB file); the
    # same bytes where Blender saved it (premultiplied alpha: Blender converts on saving)
    (kind, px), (once_kind, once_px) = read["Shared"]
    assert (once_kind, kind) == ((6, 6) if alpha else (2, 2)) and np.array_equal(once_px, px)
    assert (dict(once)["Shared"] == dict(plain)["Shared"]) == (alpha_mode == "PREMUL")
    (kind, px), (once_kind, once_px) = read["Bumps"]
    assert (kind, once_kind) == (6, 2)                 # RGBA by the exporter, RGB once
    assert np.array_equal(once_px[:, :3], px[:, :3]) and (once_px[:, 3] == 1).all()
    assert [[n.image for n in m.node_tree.nodes if n.type == "TEX_IMAGE"]
            for m in materials] == nodes_before
    assert sorted(i.name for i in bpy.data.images) == images_before


def test_an_image_file_is_encoded_once_per_run(blender, tmp_path, monkeypatch):
    """A batch's units share texture files: the PNG made of one is kept for the rest of the
    run and taken again (same bytes); a generated image is encoded each time (issue 44)."""
    import addon_utils

    from io_alamo.blender import gltf_images
    monkeypatch.setattr(gltf_images, "_KEPT", gltf_images.KeptPngs("io_alamo-test-images-"))
    made, real = [], gltf_images._png_copy
    monkeypatch.setattr(gltf_images, "_png_copy",
                        lambda image, *a: made.append(image.name) or real(image, *a))
    materials = scene(tmp_path)
    addon_utils.enable("io_scene_gltf2", default_set=False)
    try:
        for name in ("first", "again"):
            with gltf_images.encoded_once(materials):
                export(tmp_path / f"{name}.glb")
    finally:
        addon_utils.disable("io_scene_gltf2", default_set=False)
    assert sorted(made) == ["Bumps", "Bumps", "Shared.tga"]
    assert glb_images(tmp_path / "again.glb") == glb_images(tmp_path / "first.glb")
