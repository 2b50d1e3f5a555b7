"""The node-tree walk the batch's glTF images use (io_alamo.blender.gltf_materials.
nodes_upstream): the nodes of the wanted types and every node a link path leads from into
one of them, nothing that leads elsewhere or nowhere (issue 44)."""

import pytest

bpy = pytest.importorskip("bpy")
import numpy as np  # noqa: E402


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
