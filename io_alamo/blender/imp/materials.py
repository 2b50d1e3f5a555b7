"""Materials: the shader and its parameters as editable properties, and preview nodes that
show the base texture (and normal map) in Material Preview."""

import bpy
import numpy as np

from ...formats.model import ParamType
from .. import compat

BASE_TEXTURE_NAMES = ("basetexture", "diffusetexture", "texture", "basemap", "diffusemap")
NORMAL_HINTS = ("normal", "bump")
COLOR_PARAM_NAMES = ("diffuse", "color", "diffusecolor", "basecolor")
PLACEHOLDER_COLOR = (1.0, 0.0, 1.0, 1.0)


def _param_ident(ptype):
    return ParamType(ptype).name


def set_shader_params(mat, sub_material):
    """Shader name and every parameter, in file order, on ``mat.alamo``."""
    props = mat.alamo
    props.shader = sub_material.shader
    props.params.clear()
    for p in sub_material.params:
        item = props.params.add()
        item.name = p.name
        item.type = _param_ident(p.type)
        v = p.value
        if p.type == ParamType.INT:
            item.int_value = int(np.clip(int(v), -2**31, 2**31 - 1))
        elif p.type == ParamType.FLOAT:
            item.float_value = float(v)
        elif p.type == ParamType.FLOAT3:
            item.float3_value = [float(x) for x in v]
        elif p.type == ParamType.FLOAT4:
            item.float4_value = [float(x) for x in v]
        else:
            item.texture = v


def base_and_normal_textures(params):
    """(base texture name, normal map name) among TEXTURE parameters (either may be None)."""
    textures = [(p.name, p.value) for p in params if p.type == ParamType.TEXTURE and p.value]
    normal = next((v for n, v in textures if any(h in n.lower() for h in NORMAL_HINTS)), None)
    base = next((v for n, v in textures if n.lower() in BASE_TEXTURE_NAMES), None)
    if base is None:
        base = next((v for n, v in textures if not any(h in n.lower() for h in NORMAL_HINTS)),
                    None)
    return base, normal


class MaterialBuilder:
    """Makes one material per sub-mesh; loads each texture once."""

    def __init__(self, tx, finder, warn):
        self.tx = tx
        self.finder = finder
        self.warn = warn
        self.images = {}
        self.count = 0
        self._existing = {img.as_pointer() for img in bpy.data.images}

    def build(self, sub, mesh_name, slot):
        name = mesh_name if slot == 0 else f"{mesh_name}_{slot}"
        mat = self.tx.add(bpy.data.materials.new(name))
        self.count += 1
        set_shader_params(mat, sub.material)
        mat.alamo.vertex_format = sub.vertex_format
        self._preview_nodes(mat, sub.material.params)
        return mat

    def image(self, texture_name):
        key = texture_name.lower()
        if key in self.images:
            return self.images[key]
        path = self.finder.find(texture_name)
        img = None
        if path is not None:
            try:
                img = bpy.data.images.load(path, check_existing=True)
            except RuntimeError as e:
                self.warn(f"texture {texture_name!r} found at {path} but could not be read: {e}")
        else:
            self.warn(f"texture {texture_name!r} not found (searched "
                      f"{len(self.finder.folders)} folders); a placeholder is shown")
        if img is None:
            img = bpy.data.images.new(texture_name, 16, 16)
            img.generated_color = PLACEHOLDER_COLOR
        if img.as_pointer() not in self._existing:
            self.tx.add(img)
            self._existing.add(img.as_pointer())
        self.images[key] = img
        return img

    def _preview_nodes(self, mat, params):
        tree = compat.ensure_node_tree(mat)
        nodes, links = tree.nodes, tree.links
        bsdf = next((n for n in nodes if n.type == "BSDF_PRINCIPLED"), None)
        if bsdf is None:
            bsdf = nodes.new("ShaderNodeBsdfPrincipled")
            out = next((n for n in nodes if n.type == "OUTPUT_MATERIAL"), None) or \
                nodes.new("ShaderNodeOutputMaterial")
            links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
        base, normal = base_and_normal_textures(params)
        if base:
            tex = nodes.new("ShaderNodeTexImage")
            tex.name = tex.label = "Alamo Base Texture"
            tex.image = self.image(base)
            tex.location = (bsdf.location.x - 400, bsdf.location.y)
            links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        else:
            colour = next((p for p in params if p.type in (ParamType.FLOAT4, ParamType.FLOAT3)
                           and p.name.lower() in COLOR_PARAM_NAMES), None)
            if colour is not None:
                rgb = [float(np.clip(x, 0.0, 1.0)) for x in list(colour.value)[:3]]
                bsdf.inputs["Base Color"].default_value = (*rgb, 1.0)
        if normal:
            tex = nodes.new("ShaderNodeTexImage")
            tex.name = tex.label = "Alamo Normal Texture"
            tex.image = self.image(normal)
            if tex.image.source == "FILE":
                tex.image.colorspace_settings.name = "Non-Color"
            tex.location = (bsdf.location.x - 700, bsdf.location.y - 300)
            nmap = nodes.new("ShaderNodeNormalMap")
            nmap.location = (bsdf.location.x - 300, bsdf.location.y - 300)
            links.new(tex.outputs["Color"], nmap.inputs["Color"])
            links.new(nmap.outputs["Normal"], bsdf.inputs["Normal"])
