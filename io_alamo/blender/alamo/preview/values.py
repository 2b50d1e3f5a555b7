"""Parameter values into the preview nodes: cheap (node values and driver expressions only),
so it runs on every edit of a parameter. Game colours are sRGB numbers the shader multiplies
as they are; nodes that feed Blender's linear colour get them decoded."""

import bpy
import numpy as np

from ..props import param_value
from .nodes import PREFIX


def srgb_to_linear(c):
    c = np.clip(np.asarray(c, np.float64), 0.0, None)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _rgb(v):
    if isinstance(v, (int, float)):
        v = [v] * 3                   # a colour parameter stored as one float (grey)
    return [float(x) for x in (list(v) + [1.0, 1.0, 1.0])[:3]]


def _alpha(v, default=1.0):
    v = list(v)
    return float(v[3]) if len(v) > 3 else default


def roughness(shininess):
    """Blinn-Phong exponent to a GGX roughness (the usual sqrt(2 / (n + 2)))."""
    return float(np.sqrt(2.0 / (max(float(shininess), 0.0) + 2.0)))


# node name -> (parameter, default, what the node gets)
RAW = lambda v: _rgb(v) + [1.0]
LINEAR = lambda v: [float(x) for x in srgb_to_linear(_rgb(v))] + [1.0]
# the highlight's reflectance at Specular white (about a dielectric's, for a glossy BSDF
# that has no Fresnel falloff)
HIGHLIGHT_SCALE = 0.1
HIGHLIGHT = lambda v: [HIGHLIGHT_SCALE * float(x) for x in srgb_to_linear(_rgb(v))] + [1.0]  # noqa: E731
TWICE = lambda v: [2.0 * x for x in _rgb(v)] + [1.0]                  # noqa: E731
RGB_NODES = {
    "Diffuse": ("Diffuse", (1, 1, 1, 1), RAW),
    "Colorization": ("Colorization", (1, 1, 1, 1), RAW),
    "Emissive": ("Emissive", (0, 0, 0, 0), TWICE),
    "Specular": ("Specular", (1, 1, 1, 1), HIGHLIGHT),
    "Color": ("Color", (1, 1, 1, 1), RAW),
    "Atmosphere": ("Atmosphere", (0, 0, 0, 0), LINEAR),
}
VALUE_NODES = {
    "Diffuse Alpha": ("Diffuse", (1, 1, 1, 1), _alpha),
    "Roughness": ("Shininess", 32.0, roughness),
    "Atmosphere Strength": ("Atmosphere", (0, 0, 0, 0), lambda v: 2.0 * _alpha(v, 0.0)),
    "Atmosphere Power": ("AtmospherePower", 1.0, float),
    "Edge Brightness": ("EdgeBrightness", 0.0, float),
}


COLOUR_PARAMS = ("diffuse", "color", "diffusecolor", "basecolor", "debugcolor")


def material_values(mat):
    """{lower-case parameter name: value} of a material's Alamo parameters."""
    out = {}
    for p in mat.alamo.params:
        out.setdefault(p.name.lower(), param_value(p))
    return out


def apply(mat, fps=None):
    """Write the material's parameter values into its preview nodes."""
    tree = mat.node_tree
    if tree is None:
        return
    values = material_values(mat)
    nodes = tree.nodes
    for table in (RGB_NODES, VALUE_NODES):
        for name, (param, default, convert) in table.items():
            node = nodes.get(PREFIX + name)
            if node is not None:
                _set(node.outputs[0], convert(values.get(param.lower(), default)))
    _plain_colour(nodes, values)
    _scroll(tree, values, fps)


def _set(socket, value):
    old = socket.default_value
    same = tuple(old) == tuple(value) if isinstance(value, list) else old == value
    if not same:
        socket.default_value = value


def _plain_colour(nodes, values):
    """Without a base texture the Base Color shows the colour parameter (Diffuse, Color...)."""
    bsdf = next((n for n in nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None or bsdf.inputs["Base Color"].is_linked:
        return
    colour = next((values[n] for n in COLOUR_PARAMS if isinstance(values.get(n), tuple)
                   and len(values[n]) >= 3), None)
    if colour is not None:
        _set(bsdf.inputs["Base Color"], [float(np.clip(x, 0.0, 1.0)) for x in colour[:3]]
             + [1.0])


def _scroll(tree, values, fps):
    """Scrolling UVs: each Mapping node named Alamo ... with an ``alamo_rate`` parameter name
    moves by rate * seconds (``frame / fps``); v runs the other way in Blender."""
    ad = tree.animation_data
    if ad is None:
        return
    if fps is None:
        scene = bpy.context.scene if bpy.context else None
        fps = scene.render.fps / scene.render.fps_base if scene else 30.0
    for node in tree.nodes:
        rate_name = node.get("alamo_rate") if node.type == "MAPPING" else None
        if not rate_name:
            continue
        rate = values.get(rate_name.lower(), 0.0)
        rate = list(rate) if isinstance(rate, tuple) else [0.0, float(rate)]
        scale_name = node.get("alamo_scale")
        scale = float(values.get(scale_name.lower(), 1.0)) or 1.0 if scale_name else 1.0
        k = scale if node.get("alamo_scroll_scaled") else 1.0
        speeds = (k * float(rate[0]) / fps, -k * float(rate[1] if len(rate) > 1 else 0.0) / fps)
        path = f'nodes["{node.name}"].inputs[1].default_value'
        for axis, speed in enumerate(speeds):
            fc = ad.drivers.find(path, index=axis)
            expression = f"frame*{speed!r}" if speed else "0.0"
            if fc is not None and fc.driver.expression != expression:
                fc.driver.expression = expression
        if scale_name:
            node.inputs["Scale"].default_value = (scale, scale, 1.0)
