"""The batch's glTF exporter reads pruned copies of the materials (io_alamo.blender.
gltf_materials): only the nodes that lead to a Material Output and the node groups (the
exporter's unlinked "glTF Material Output" group). The .glb is byte for byte the one the
whole materials give, and the scene is as it was afterwards (issue 44)."""

import numpy as np
import pytest
from scene import read_glb

bpy = pytest.importorskip("bpy")


def _image(name, size=8, seed=0):
    img = bpy.data.images.new(name, size, size, alpha=True)
    img.pixels.foreach_set(np.random.default_rng(seed).random(size * size * 4)
                           .astype(np.float32))
    return img


def _gltf_settings_group():
    """The node group the glTF exporter reads occlusion from (it sits unlinked)."""
    group = bpy.data.node_groups.new("glTF Material Output", "ShaderNodeTree")
    if hasattr(group, "interface"):
        group.interface.new_socket("Occlusion", in_out="INPUT", socket_type="NodeSocketFloat")
    else:                                                      # Blender < 4.0
        group.inputs.new("NodeSocketFloat", "Occlusion")
    return group


def scene():
    """A cube with a textured material (a colour factor through a Mix node, alpha, a normal
    map, occlusion in the glTF group, and a dead specular chain and texture) and a glowing
    one (emission texture, Base Color black), the nodes the exporter never reads included."""
    from io_alamo.blender.compat import ensure_node_tree
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    bpy.ops.object.mode_set(mode="OBJECT")
    obj.data.uv_layers.new(name="Second")
    group = _gltf_settings_group()
    for k in range(2):
        mat = bpy.data.materials.new(f"Panel {k}")
        tree = ensure_node_tree(mat)
        nodes, links = tree.nodes, tree.links
        bsdf, out = nodes["Principled BSDF"], nodes["Material Output"]
        tex = nodes.new("ShaderNodeTexImage")
        tex.image = _image(f"Base{k}.png", seed=k)
        if k == 0:
            mix = nodes.new("ShaderNodeMix")
            mix.data_type, mix.blend_type = "RGBA", "MULTIPLY"
            mix.inputs["Factor"].default_value = 1.0
            mix.inputs[7].default_value = (0.5, 0.8, 1.0, 1.0)
            links.new(tex.outputs["Color"], mix.inputs[6])
            links.new(mix.outputs[2], bsdf.inputs["Base Color"])
            links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
            normal = nodes.new("ShaderNodeTexImage")
            normal.image = _image("Bumps.png", seed=5)
            nmap = nodes.new("ShaderNodeNormalMap")
            nmap.uv_map = "Second"
            links.new(normal.outputs["Color"], nmap.inputs["Color"])
            links.new(nmap.outputs["Normal"], bsdf.inputs["Normal"])
            settings = nodes.new("ShaderNodeGroup")
            settings.node_tree = group
            occlusion = nodes.new("ShaderNodeTexImage")
            occlusion.image = _image("Occlusion.png", seed=6)
            sep = nodes.new("ShaderNodeSeparateColor")
            links.new(occlusion.outputs["Color"], sep.inputs[0])
            links.new(sep.outputs["Red"], settings.inputs["Occlusion"])
            bsdf.inputs["Roughness"].default_value = 0.25
        else:
            bsdf.inputs["Base Color"].default_value = (0, 0, 0, 1)
            links.new(tex.outputs["Color"], bsdf.inputs["Emission Color"])
            bsdf.inputs["Emission Strength"].default_value = 1.0
        # what the preview draws besides, which glTF never reads: a specular chain that no
        # longer reaches the output and a texture in no link
        gloss = nodes.new("ShaderNodeBsdfGlossy")
        add = nodes.new("ShaderNodeAddShader")
        links.new(bsdf.outputs["BSDF"], add.inputs[0])
        links.new(gloss.outputs["BSDF"], add.inputs[1])
        links.new(nodes.new("ShaderNodeRGB").outputs[0], gloss.inputs["Color"])
        nodes.new("ShaderNodeTexImage").image = _image(f"Unused{k}.png", seed=9)
        obj.data.materials.append(mat)
    obj.data.polygons.foreach_set("material_index", [0, 1, 0, 1, 0, 1])
    return obj


def _state():
    return sorted((m.name, len(m.node_tree.nodes), len(m.node_tree.links), m.users)
                  for m in bpy.data.materials), \
        [s.material.name for o in bpy.data.objects for s in o.material_slots]


def test_the_glb_is_the_same_from_the_pruned_materials(blender, tmp_path):
    import addon_utils

    from io_alamo.blender.gltf_materials import kept_nodes, reachable_materials
    obj = scene()
    before = _state()
    addon_utils.enable("io_scene_gltf2", default_set=False)
    try:
        def export(name):
            bpy.ops.export_scene.gltf(filepath=str(tmp_path / name), export_format="GLB",
                                      check_existing=False)
            return (tmp_path / name).read_bytes()
        whole = export("whole.glb")
        with reachable_materials([obj]):
            shown = [s.material for s in obj.material_slots]
            assert [m.name for m in shown] == ["Panel 0", "Panel 1"]
            # the dead chain and the unused texture are gone, the glTF group stays
            for mat in shown:
                types = sorted(n.type for n in mat.node_tree.nodes)
                assert "BSDF_GLOSSY" not in types and "ADD_SHADER" not in types
                assert types.count("TEX_IMAGE") == (3 if mat.name == "Panel 0" else 1)
                assert ("GROUP" in types) == (mat.name == "Panel 0")
                assert kept_nodes(mat.node_tree) == {n.name for n in mat.node_tree.nodes}
            pruned = export("pruned.glb")
    finally:
        addon_utils.disable("io_scene_gltf2", default_set=False)
    assert _state() == before
    # what the comparison covers: every kind of node the exporter follows reached it
    doc, _ = read_glb(tmp_path / "whole.glb")
    panel, glow = sorted(doc["materials"], key=lambda m: m["name"])
    assert {"normalTexture", "occlusionTexture"} <= set(panel)
    assert panel["pbrMetallicRoughness"]["baseColorFactor"][:3] == pytest.approx([.5, .8, 1])
    assert "emissiveTexture" in glow
    assert pruned == whole


def test_the_batch_glb_is_the_same_from_the_pruned_materials(blender, tmp_path, monkeypatch):
    """The Alamo preview materials as the batch writes them (baked look, images encoded
    once): the same .glb bytes with and without the pruned copies."""
    import contextlib

    from io_alamo.blender import outputs
    from io_alamo.blender.alamo.game_view import prepare_gltf_export
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.blender.alamo.preview.gltf import gltf_look
    from io_alamo.formats.alamo.sample import write_sample
    folder = tmp_path / "sample"
    write_sample(folder)
    model = sorted(folder.glob("*.alo"))[0]
    import_alo(bpy.context, str(model), AloImportOptions())
    nodes = sum(len(m.node_tree.nodes) for m in bpy.data.materials if m.node_tree)
    seen = []
    real = outputs.reachable_materials

    def counted(objects, put_back=True):
        seen.append(sorted(len(s.material.node_tree.nodes) for o in objects
                           for s in o.material_slots if s.material is not None))
        return real(objects, put_back)

    monkeypatch.setattr(outputs, "reachable_materials", counted)
    outputs.export_glb(tmp_path / "pruned.glb", look=gltf_look, prepare=prepare_gltf_export)
    monkeypatch.setattr(outputs, "reachable_materials",
                        lambda objects, put_back=True: contextlib.nullcontext())
    outputs.export_glb(tmp_path / "whole.glb", look=gltf_look, prepare=prepare_gltf_export)
    assert seen and seen[0]
    assert sum(len(m.node_tree.nodes) for m in bpy.data.materials if m.node_tree) == nodes
    doc, _ = read_glb(tmp_path / "whole.glb")
    assert doc["materials"] and doc.get("images")
    assert (tmp_path / "pruned.glb").read_bytes() == (tmp_path / "whole.glb").read_bytes()


def test_a_scene_thrown_away_after_gets_the_same_glb_with_nothing_put_back(blender, tmp_path):
    """The batch without --preview: the scene is saved before the .glb and thrown away
    after, so export_glb(put_back=False) leaves the bakes, the pruning (in place, no copies)
    and the images' PNG copies as they are: the same bytes as when everything is put back."""
    from io_alamo.blender import outputs
    from io_alamo.blender.alamo.game_view import prepare_gltf_export
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.blender.alamo.preview.gltf import BAKED, gltf_look
    from io_alamo.formats.alamo.sample import write_sample
    folder = tmp_path / "sample"
    write_sample(folder)
    for model in sorted(folder.glob("*.alo")):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        import_alo(bpy.context, str(model), AloImportOptions())
        before = _state()
        outputs.export_glb(tmp_path / "back.glb", look=gltf_look, prepare=prepare_gltf_export)
        assert _state() == before
        outputs.export_glb(tmp_path / "left.glb", look=gltf_look, prepare=prepare_gltf_export,
                           put_back=False)
        assert (tmp_path / "left.glb").read_bytes() == (tmp_path / "back.glb").read_bytes()
        # what was left: no copies, the materials' own trees pruned and baked
        assert sorted(m.name for m in bpy.data.materials) == sorted(n for n, *_ in before[0])
        trees = [m.node_tree for m in bpy.data.materials if m.node_tree is not None]
        assert sum(len(t.nodes) for t in trees) < sum(n for _, n, *_ in before[0])
        assert any(BAKED in t.nodes for t in trees)


def test_nodes_upstream_follows_links_into_the_wanted_nodes_only(blender):
    from io_alamo.blender.gltf_materials import nodes_upstream
    obj = scene()
    panel, glow = (s.material.node_tree for s in obj.material_slots)
    names = {n.type: n.name for n in panel.nodes if n.type != "TEX_IMAGE"}
    images = {n.image.name: n.name for n in panel.nodes if n.type == "TEX_IMAGE"}
    # into the output: the BSDF and its colour, alpha and normal chains; not the dead
    # specular chain (it leads into an Add Shader that reaches nothing), the unlinked
    # texture, or the occlusion chain of the unlinked glTF group
    assert nodes_upstream(panel, ("OUTPUT_MATERIAL",)) == {
        names["OUTPUT_MATERIAL"], names["BSDF_PRINCIPLED"], names["MIX"],
        names["NORMAL_MAP"], images["Base0.png"], images["Bumps.png"]}
    # into the group: the occlusion chain
    assert nodes_upstream(panel, ("GROUP",)) == {
        names["GROUP"], names["SEPARATE_COLOR"], images["Occlusion.png"]}
    # into the Add Shader: both shaders and all that feeds them
    assert nodes_upstream(panel, ("ADD_SHADER",)) >= {
        names["ADD_SHADER"], names["BSDF_GLOSSY"], names["RGB"], names["BSDF_PRINCIPLED"],
        images["Base0.png"]}
    glow_images = {n.image.name: n.name for n in glow.nodes if n.type == "TEX_IMAGE"}
    assert glow_images["Base1.png"] in nodes_upstream(glow, ("BSDF_PRINCIPLED",))
    assert glow_images["Unused1.png"] not in nodes_upstream(glow, ("BSDF_PRINCIPLED",))
    assert nodes_upstream(glow, ("GROUP",)) == set()
