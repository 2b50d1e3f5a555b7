"""The batch .glb's PNG files reach Blender's glTF exporter as one-pixel stand-ins
(io_alamo.blender.gltf_images.StandIns, issue 44): the exporter decodes an image before it
copies the file's bytes, so it is shown a stand-in and the file's bytes are put in the .glb
after. Only images every use of which the exporter copies as they are get one: the .glb is
byte for byte the one the images themselves give, and those images are never decoded."""

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")


def _png(tmp_path, name, seed):
    """A clean 8-bit RGBA PNG file, loaded as Blender loads a texture (not decoded yet)."""
    img = bpy.data.images.new(name, 8, 4, alpha=True)
    img.pixels.foreach_set(np.random.default_rng(seed).random(8 * 4 * 4).astype(np.float32))
    img.filepath_raw = str(tmp_path / f"{name}.png")
    img.file_format = "PNG"
    img.save()
    bpy.data.images.remove(img)
    return bpy.data.images.load(str(tmp_path / f"{name}.png"))


def _tex(nodes, image):
    node = nodes.new("ShaderNodeTexImage")
    node.image = image
    return node


def scene(tmp_path):
    """Materials with every way of using a texture the rule tells apart: {name: image}."""
    from io_alamo.blender.compat import ensure_node_tree
    img = {n: _png(tmp_path, n, k) for k, n in enumerate(
        ["Colour", "Bumps", "Glow", "White", "Other", "OtherAlpha", "Packed", "AlphaOnly"])}
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    bpy.ops.object.mode_set(mode="OBJECT")
    for k in range(5):
        mat = bpy.data.materials.new(f"M{k}")
        tree = ensure_node_tree(mat)
        nodes, links = tree.nodes, tree.links
        bsdf = nodes["Principled BSDF"]
        if k == 0:          # colour and its alpha, a normal map, an emission: copied whole
            tex = _tex(nodes, img["Colour"])
            links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
            links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
            nmap = nodes.new("ShaderNodeNormalMap")
            links.new(_tex(nodes, img["Bumps"]).outputs["Color"], nmap.inputs["Color"])
            links.new(nmap.outputs["Normal"], bsdf.inputs["Normal"])
            links.new(_tex(nodes, img["Glow"]).outputs["Color"], bsdf.inputs["Emission Color"])
            bsdf.inputs["Emission Strength"].default_value = 1.0
        elif k == 1:        # a glow's base colour: white times black, its alpha: whole
            white = _tex(nodes, img["White"])
            mix = nodes.new("ShaderNodeMix")
            mix.data_type, mix.blend_type = "RGBA", "MULTIPLY"
            sockets = {s.identifier: s for s in mix.inputs}
            sockets["Factor_Float"].default_value = 1.0
            sockets["B_Color"].default_value = (0, 0, 0, 1)
            links.new(white.outputs["Color"], sockets["A_Color"])
            links.new(next(s for s in mix.outputs if s.identifier == "Result_Color"),
                      bsdf.inputs["Base Color"])
            links.new(white.outputs["Alpha"], bsdf.inputs["Alpha"])
        elif k == 2:        # colour of one image, alpha of another: composed
            links.new(_tex(nodes, img["Other"]).outputs["Color"], bsdf.inputs["Base Color"])
            links.new(_tex(nodes, img["OtherAlpha"]).outputs["Alpha"], bsdf.inputs["Alpha"])
        elif k == 3:        # channels split off (metallic, roughness): left to the exporter
            sep = nodes.new("ShaderNodeSeparateColor")
            links.new(_tex(nodes, img["Packed"]).outputs["Color"], sep.inputs[0])
            links.new(sep.outputs["Green"], bsdf.inputs["Roughness"])
            links.new(sep.outputs["Blue"], bsdf.inputs["Metallic"])
        else:               # an alpha with no colour texture (4.5+ compose white and it)
            links.new(_tex(nodes, img["AlphaOnly"]).outputs["Alpha"], bsdf.inputs["Alpha"])
        obj.data.materials.append(mat)
    obj.data.polygons.foreach_set("material_index", [0, 1, 2, 3, 4, 0])
    return [s.material for s in obj.material_slots], img


WHOLE = {"Colour", "Bumps", "Glow", "White"}


def test_only_images_copied_whole_get_stand_ins_and_the_glb_is_the_same(blender, tmp_path):
    import addon_utils

    from io_alamo.blender.gltf_images import _taken_whole, encoded_once
    from io_alamo.formats.glb import read_glb
    materials, img = scene(tmp_path)
    names = {image.name: n for n, image in img.items()}
    assert {names[i] for i in _taken_whole(materials)} == WHOLE
    addon_utils.enable("io_scene_gltf2", default_set=False)
    try:
        def export(name, stand_ins):
            path = tmp_path / name
            with encoded_once(materials, stand_ins=stand_ins) as images:
                shown = {n.image.name for m in materials for n in m.node_tree.nodes
                         if n.type == "TEX_IMAGE"}
                bpy.ops.export_scene.gltf(filepath=str(path), export_format="GLB",
                                          check_existing=False)
                assert images.fill(str(path))
            return path.read_bytes(), shown
        stood, shown = export("stand-ins.glb", True)
        # the files copied whole were never decoded; the others are shown as they are
        assert not any(img[n].has_data for n in WHOLE)
        assert {names.get(n) for n in shown} == set(img) - WHOLE | {None}
        plain, shown = export("plain.glb", False)
        assert {names.get(n) for n in shown} == set(img)
    finally:
        addon_utils.disable("io_scene_gltf2", default_set=False)
    doc, binary = read_glb(stood)
    assert len(doc["images"]) >= len(WHOLE) and b"ioAs" not in binary
    assert stood == plain


def test_the_batch_glb_is_the_same_with_stand_ins(blender, tmp_path, monkeypatch):
    """The sample models as the batch writes them: the same bytes with stand-ins, without,
    and when the glb's layout is refused (the export is made again with the images)."""
    from io_alamo.blender import gltf_images, outputs
    from io_alamo.blender.alamo.game_view import prepare_gltf_export
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.blender.alamo.preview.gltf import gltf_look
    from io_alamo.formats.alamo.sample import write_sample
    folder = tmp_path / "sample"
    write_sample(folder)
    filled, real_fill = [], gltf_images.StandIns.fill

    def fill(self, path):
        filled.append(len(self.real))
        return real_fill(self, path)
    monkeypatch.setattr(gltf_images.StandIns, "fill", fill)
    for model in sorted(folder.glob("*.alo")):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        import_alo(bpy.context, str(model), AloImportOptions())
        filled.clear()
        outputs.export_glb(tmp_path / "stood.glb", look=gltf_look, prepare=prepare_gltf_export)
        assert filled and filled[0] > 0            # stand-ins were shown and filled
        with monkeypatch.context() as m:
            m.setattr(outputs, "_copies_pngs", lambda options: False)
            outputs.export_glb(tmp_path / "plain.glb", look=gltf_look,
                               prepare=prepare_gltf_export)
        with monkeypatch.context() as m:
            m.setattr(gltf_images.StandIns, "fill",
                      lambda self, path: fill(self, path) and len(filled) > 1)
            filled.clear()
            outputs.export_glb(tmp_path / "again.glb", look=gltf_look,
                               prepare=prepare_gltf_export)
            assert len(filled) >= 2                # refused once, exported again
        plain = (tmp_path / "plain.glb").read_bytes()
        assert (tmp_path / "stood.glb").read_bytes() == plain
        assert (tmp_path / "again.glb").read_bytes() == plain
