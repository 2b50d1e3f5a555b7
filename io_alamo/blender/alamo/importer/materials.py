"""Materials: the shader and its parameters as editable properties, and preview nodes that
draw what the game's shader draws (the recipes of :mod:`..preview`)."""

import ntpath
import os

import bpy
import numpy as np

from ....formats.alamo.model import ParamType, ShaderParam
from ...names import to_blender
from ..props import param_value
from ...texture_images import load_texture
from ...texture_lookup import EXTENSIONS, TextureFinder
from .. import preview

BASE_TEXTURE_NAMES = ("basetexture", "diffusetexture", "texture", "basemap", "diffusemap")
NORMAL_HINTS = ("normal", "bump")
PLACEHOLDER_COLOR = (1.0, 0.0, 1.0, 1.0)
BASE_NODE = preview.BASE_NODE
NORMAL_NODE = preview.NORMAL_NODE


def _param_ident(ptype):
    return ParamType(ptype).name


def set_shader_params(mat, sub_material):
    """Shader name and every parameter, in file order, on ``mat.alamo``."""
    props = mat.alamo
    props.shader = to_blender(sub_material.shader)
    props.params.clear()
    for p in sub_material.params:
        item = props.params.add()
        item.name = to_blender(p.name)
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
            item.texture = to_blender(v)


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
        mat.alamo.vertex_format = to_blender(sub.vertex_format)
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
                img = load_texture(path)
            except RuntimeError as e:
                self.warn(f"texture {texture_name!r} found at {path} but could not be read: {e}")
        else:
            self.warn(f"texture {texture_name!r} not found (searched "
                      f"{self.finder.searched}); a placeholder is shown")
        if img is None:
            img = bpy.data.images.new(to_blender(texture_name), 16, 16)
            img.generated_color = PLACEHOLDER_COLOR
            img[preview.PLACEHOLDER_KEY] = True
        if img.as_pointer() not in self._existing:
            self.tx.add(img)
            self._existing.add(img.as_pointer())
        self.images[key] = img
        return img

    def _preview_nodes(self, mat, params):
        base, normal = base_and_normal_textures(params)
        preview.build(mat, params, self.image, base, normal)


def principled_node(tree):
    """The material's Principled BSDF, added and connected to the output if missing."""
    nodes = tree.nodes
    bsdf = next((n for n in nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None:
        bsdf = nodes.new("ShaderNodeBsdfPrincipled")
        out = next((n for n in nodes if n.type == "OUTPUT_MATERIAL"), None) or \
            nodes.new("ShaderNodeOutputMaterial")
        tree.links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    return bsdf


def image_file_name(image):
    """The file name a texture parameter names for ``image``: its file's name, else the image's
    own name (placeholders are named after the texture)."""
    path = image.filepath_raw or image.filepath
    return bpy.path.basename(path) if path else image.name


def is_texture_image(image):
    """Images that can stand for a texture: files and generated ones (placeholders), not
    render results."""
    return image.type in ("IMAGE", "UV_TEST")


def loaded_image(texture_name):
    """An image already in the file that shows ``texture_name`` (matched by file or image
    name, ignoring case, with .dds and .tga standing in for each other), or None."""
    base = ntpath.basename(texture_name.replace("/", "\\")).strip().lower()
    if not base:
        return None
    stem, ext = os.path.splitext(base)
    alike = {base} | ({stem + e for e in EXTENSIONS} if ext in EXTENSIONS or not ext else set())
    for img in bpy.data.images:
        if not is_texture_image(img):
            continue
        if img.name.lower() in alike or image_file_name(img).lower() in alike:
            return img
    return None


def find_image(texture_name, folders=()):
    """The image for a texture name: one already loaded, else the file found in ``folders``,
    else a magenta placeholder named after it (as import makes for missing textures)."""
    img = loaded_image(texture_name)
    if img is not None:
        return img
    path = TextureFinder(folders).find(texture_name)
    if path is not None:
        try:
            return load_texture(path)
        except RuntimeError:
            pass
    img = bpy.data.images.new(ntpath.basename(texture_name.replace("/", "\\")).strip(), 16, 16)
    img.generated_color = PLACEHOLDER_COLOR
    img[preview.PLACEHOLDER_KEY] = True
    return img


def refresh_preview(mat, folders=(), shown=None):
    """Make the preview nodes follow the material's Alamo shader and parameters after an edit:
    the recipe of the shader's family, showing the textures the parameters name (found as
    :func:`find_image` finds them) with the parameters' values. Nodes the recipes did not
    make are left alone. ``shown`` (a list) receives the image nodes made
    (:func:`preview.build`)."""
    params = [ShaderParam(p.name, ParamType[p.type], param_value(p)) for p in mat.alamo.params]
    base, normal = base_and_normal_textures(params)
    found = {}

    def image(name):
        key = name.lower()
        if key not in found:
            found[key] = find_image(name, folders)
        return found[key]

    preview.build(mat, params, image, base, normal, shown)
