"""Alamo shaders on Blender materials: switching a material's shader with its parameters,
the parameters it lacks, and the material preview that follows edits."""

import bpy

from ...formats.alamo import shaders
from ..prefs import user_texture_folders
from .props import param_value
from ..texture_lookup import texture_folders
from .importer import materials

# the value a parameter added by hand starts with, by type
BLANK_VALUES = {"INT": 0, "FLOAT": 0.0, "FLOAT3": (0, 0, 0), "FLOAT4": (0, 0, 0, 0),
                "TEXTURE": ""}
COLOUR_NAMES = {"emissive", "diffuse", "diffuse1", "specular", "colorization", "color",
                "debugcolor", "atmosphere", "citycolor"}


def add_param(props, name, ptype, value):
    """Append the parameter ``name`` of type ``ptype`` with ``value`` to a material's Alamo
    properties."""
    item = props.params.add()
    item.name = name
    item.type = ptype
    if ptype == "INT":
        item.int_value = int(value)
    elif ptype == "FLOAT":
        item.float_value = float(value)
    elif ptype == "FLOAT3":
        item.float3_value = [float(x) for x in value]
    elif ptype == "FLOAT4":
        item.float4_value = [float(x) for x in value]
    else:
        item.texture = str(value)
    return item


def switch_shader(mat, name):
    """Give the material the shader ``name``; returns the names of the parameters whose values
    were kept.

    A catalogue shader gets its parameters in its order: values of parameters of the same
    name and type are kept, the others start at the catalogue's defaults; parameters the
    shader does not have are dropped (kept when it is the shader the material already has).
    A shader the catalogue does not know keeps every parameter as it is."""
    props = mat.alamo
    spec = shaders.find(name)
    old = [(p.name, p.type, param_value(p)) for p in props.params]
    if spec is None:
        props.shader = name.strip()
        return [n for n, _, _ in old]
    same = shaders.find(props.shader) is spec
    values = {}
    for n, t, v in old:
        values.setdefault((n.lower(), t), v)
    wanted = {(p.name.lower(), p.type) for p in spec.params}
    props.shader = spec.name
    props.params.clear()
    kept = []
    for p in spec.params:
        value = values.get((p.name.lower(), p.type))
        if value is None:
            value = p.default
        else:
            kept.append(p.name)
        add_param(props, p.name, p.type, value)
    if same:
        for n, t, v in old:
            if (n.lower(), t) not in wanted:
                add_param(props, n, t, v)
    formats = {spec.vertex_format}
    if spec.skinned and shaders.find(spec.skinned):
        formats.add(shaders.find(spec.skinned).vertex_format)
    if not same and props.vertex_format and props.vertex_format not in formats:
        props.vertex_format = ""         # export picks the new shader's format
    return kept


def missing_params(mat):
    """Catalogue parameters of the material's shader that the material lacks."""
    spec = shaders.find(mat.alamo.shader)
    if spec is None:
        return []
    have = {(p.name.lower(), p.type) for p in mat.alamo.params}
    return [p.name for p in spec.params if (p.name.lower(), p.type) not in have]


def is_colour(param):
    """Whether a FLOAT3/FLOAT4 parameter holds a colour (rather than UV offsets, rates...)."""
    name = param.name.lower()
    return name in COLOUR_NAMES or name.endswith(("color", "colour"))


def texture_search_folders(context):
    """Where typed texture names are looked for: beside the .blend file (and its mod's
    Data/Art/Textures), then the folders of the add-on preferences."""
    folders = texture_folders(bpy.data.filepath) if bpy.data.filepath else []
    return folders + user_texture_folders(context)


def refresh_material_preview(context, mat):
    """Rebuild the material's preview nodes after an edit of its Alamo shader or parameters."""
    materials.refresh_preview(mat, texture_search_folders(context))
