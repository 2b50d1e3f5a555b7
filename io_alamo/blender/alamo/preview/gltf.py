"""The preview's look for glTF, which cannot mask: while a glTF file is written, each
material's Base Color is a texture baked from the recipe's formula (the colorized surface
``lerp(base, team * base, base.a) * Diffuse``; for glowing shaders ``texel * colour`` as
emission over a transparent surface). Everything is put back afterwards."""

import os
import shutil
import tempfile
from contextlib import contextmanager

import bpy
import numpy as np

from ...gltf_images import KeptPngs, byte_pixels, texture_file, unit_bytes, write_png
from .nodes import BASE_NODE, PREFIX
from .values import material_values

BAKED = PREFIX + "glTF Base Colour"
# Blender's glTF exporter composes an alpha-only base colour texture (white, the alpha) from
# 4.5 on (checked in 4.5 and 5.0); 4.2's takes the alpha's image as it is
COMPOSES_ALPHA = bpy.app.version >= (4, 5, 0)


def _srgb_numbers(image):
    """The image's RGBA as the game reads them (sRGB numbers), (h, w, 4)."""
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    px = px.reshape(h, w, 4)
    if image.is_float and image.colorspace_settings.name != "Non-Color":
        c = np.clip(px[..., :3], 0.0, None)
        px[..., :3] = np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)
    return px


def _rgb(v, default):
    v = list(v) if v is not None else list(default)
    return np.asarray((v + [1.0, 1.0, 1.0])[:3], np.float32)


def team_colour(scene, values):
    team = getattr(scene, "alamo_team", None)
    if team is not None and team.override:
        return np.asarray(team.color, np.float32)
    return _rgb(values.get("colorization"), (1, 1, 1))


def surface_pixels(mat, scene):
    """(RGBA in sRGB numbers, emits) the material's preview draws from its base texture, or
    None when it has no base texture node."""
    tex = mat.node_tree.nodes.get(BASE_NODE)
    if tex is None or tex.image is None or not tex.image.size[0]:
        return None
    w, h = tex.image.size
    px = _srgb_numbers(tex.image).reshape(-1, 4)     # worked on in place, whole rows of
    emits = _surface(mat, scene, px)                  # RGBA (a 2048² texture is 64 MB)
    return px.reshape(h, w, 4), emits


def _surface(mat, scene, px):
    """Turn texels (RGBA in sRGB numbers, (n, 4) float32, in place) into the surface the
    preview draws; returns whether it glows (then unclamped)."""
    nodes = mat.node_tree.nodes
    values = material_values(mat)
    if nodes.get(PREFIX + "Emission") is not None:                 # glowing shaders
        px *= np.append(_rgb(values.get("color"), (1, 1, 1)), np.float32(1))
        px[:, 3] = px[:, :3].max(axis=1)
        return True
    diffuse = np.append(_rgb(values.get("diffuse"), (1, 1, 1)), np.float32(1))
    if nodes.get(PREFIX + "Team") is not None:
        # lerp(base, team * base, base.a) * diffuse = base * (a * (team - 1) + 1) * diffuse
        slope = np.append((team_colour(scene, values) - 1) * diffuse[:3], np.float32(0))
        factor = np.multiply.outer(px[:, 3], slope)
        factor += diffuse
        px *= factor
    else:
        px *= diffuse
    np.minimum(px, 1, out=px)               # (np.clip is several times slower)
    np.maximum(px, 0, out=px)
    if mat.surface_render_method != "BLENDED":
        px[:, 3] = 1
    return False


# the numbers an 8-bit texture's bytes are read as (k * (1 / 255) in float32, as Blender
# reads them): row k of _LEVELS holds (k, k, k, k); row a * 256 + t of _PAIRS (t, t, t, a)
_LEVEL = np.arange(256, dtype=np.float32) * np.float32(1 / 255)
_LEVELS = np.repeat(_LEVEL[:, None], 4, axis=1)
_PAIRS = np.stack([np.tile(_LEVEL, 256)] * 3 + [np.repeat(_LEVEL, 256)], -1)


def surface_bytes(mat, scene, read=byte_pixels):
    """(bytes (h, w, 3 or 4) uint8, bottom row first, emits) of the surface the preview
    draws from its base texture, as Blender stores :func:`surface_pixels` in an 8-bit
    image: RGB for an opaque surface, RGBA for a glowing or blended one; None without a
    base texture. Each colour channel of the surface depends only on that channel's texel
    and, under team colour, the texel's alpha; its alpha only on the texel's alpha (or on
    the colours, for a glow): an 8-bit texture's surface is looked up in the surface of
    every level (or pair), the same numbers for a fraction of the arithmetic. ``read(image)``
    gives the texture's bytes (:func:`byte_pixels`)."""
    nodes = mat.node_tree.nodes
    tex = nodes.get(BASE_NODE)
    if tex is None or tex.image is None or not tex.image.size[0]:
        return None
    texels = read(tex.image)
    if texels is None:                                    # float texture: worked out whole
        px, emits = surface_pixels(mat, scene)
        out = unit_bytes(px, clamp=True)
        return (out if emits or mat.surface_render_method == "BLENDED" else out[..., :3]), emits
    team = nodes.get(PREFIX + "Team") is not None
    grid = (_PAIRS if team else _LEVELS).copy()
    emits = _surface(mat, scene, grid)
    table = unit_bytes(grid, clamp=True).T.copy()           # (4, 65536 or 256)
    alpha = texels[..., 3]
    rows = alpha.astype(np.uint16) << 8 if team else None
    # an opaque surface's RGB made as a whole array (no copy out of RGBA to encode)
    opaque = not emits and mat.surface_render_method != "BLENDED"
    out = np.empty(texels.shape[:2] + (3 if opaque else 4,), np.uint8)
    for c in range(3):
        out[..., c] = table[c][rows | texels[..., c] if team else texels[..., c]]
    if emits:        # the glow's alpha, max(r, g, b) before rounding: the same after
        np.maximum(out[..., 0], out[..., 1], out=out[..., 3])    # (a third of the
        np.maximum(out[..., 3], out[..., 2], out=out[..., 3])    # time max(axis) takes)
    elif not opaque:
        out[..., 3] = table[3][rows if team else alpha]
    return out, emits


@contextmanager
def gltf_look(scene, materials=None, put_back=True):
    """While inside, materials show glTF their preview's colours as a plain texture; put
    back afterwards (unless not ``put_back``: the scene is thrown away after)."""
    undo, baked = [], {"folder": tempfile.mkdtemp(prefix="io_alamo-bake-")}
    try:
        for mat in materials if materials is not None else bpy.data.materials:
            if mat.node_tree is not None and mat.node_tree.nodes.get(BASE_NODE) is not None:
                made = _bake(mat, scene, baked)
                if made is not None:
                    undo.append(made)
        # the textures' bytes read for the bakes (as much as Blender holds of them) let go
        baked.pop("texels", None)
        yield
    finally:
        shutil.rmtree(baked.pop("folder"), ignore_errors=True)
        baked.pop("texels", None)
        if put_back:
            for restore in reversed(undo):
                restore()
            for made in baked.values():
                for image in (made[0], made[2]):
                    if image is not None:
                        bpy.data.images.remove(image)


def _bake_key(mat, scene):
    """What a material's baked texture depends on: materials that agree share one image
    (a unit's parts often share a texture: baked and encoded once, not per material)."""
    nodes = mat.node_tree.nodes
    tex = nodes.get(BASE_NODE)
    values = material_values(mat)
    colours = tuple(tuple(_rgb(values.get(k), (1, 1, 1))) for k in ("color", "diffuse"))
    team = nodes.get(PREFIX + "Team") is not None
    return (tex.image.name if tex.image is not None else None,
            nodes.get(PREFIX + "Emission") is not None, team, mat.surface_render_method,
            colours, tuple(team_colour(scene, values)) if team else None)


# baked surfaces kept for the rest of the process (see KeptPngs), under their texture file
# and the rest of the bake key
_KEPT = KeptPngs("io_alamo-bakes-", limit=512 << 20)


def _baked_image(mat, scene, baked):
    """(image, emits, glow alpha image or None) of the material's baked surface, made once
    per :func:`_bake_key` (and once per texture file and key in a process)."""
    key = _bake_key(mat, scene)
    if key not in baked:
        base = mat.node_tree.nodes[BASE_NODE].image
        source = texture_file(base) if base is not None else None
        kept_key = (source,) + key[1:] if source is not None else None
        found = _KEPT.load(kept_key)
        glow = key[1] and COMPOSES_ALPHA
        white = _KEPT.load(kept_key + ("white",)) if found is not None and glow else None
        baked[key] = (found, key[1], white) if found is not None and \
            (white is not None or not glow) else _new_bake(mat, scene, baked, kept_key)
    return baked[key]


def _new_bake(mat, scene, baked, kept_key):
    texels = baked.setdefault("texels", {})        # a texture baked twice is read once

    def read(image):
        if image.name not in texels:
            texels[image.name] = byte_pixels(image)
        return texels[image.name]
    made = surface_bytes(mat, scene, read)
    if made is None:
        return None, False, None
    px, emits = made
    base = mat.node_tree.nodes[BASE_NODE].image
    stem = f"{os.path.splitext(base.name)[0]}_preview"
    # written as PNG once (in a folder of its own: the file names the glTF image as the
    # image's name does): the glTF exporter takes a clean PNG file's bytes as they are,
    # where it would encode the pixels again for every material using them. An opaque
    # surface's alpha is 1 everywhere and glTF reads none (_bake links Alpha only for the
    # others): RGB, a third less to encode and to store
    image = write_png(px, os.path.join(baked["folder"], str(len(baked))), stem)
    _KEPT.keep(kept_key, image)
    white = None
    if emits and COMPOSES_ALPHA:
        # the glow's base colour texture as the exporter composes it (white, the glow's
        # alpha; its colour multiplied by black), under the same name: a clean PNG it
        # copies, where it would decode the bake and encode the composite with Blender's
        # PNG writer (issue 44; 4.2's exporter composes nothing: left as it was). A grey and
        # alpha PNG: read as RGBA, the same pixels as its RGBA composite, a fifth smaller
        pair = np.empty(px.shape[:2] + (2,), np.uint8)
        pair[..., 0] = 255
        pair[..., 1] = px[..., 3]
        white = write_png(pair, os.path.join(baked["folder"], f"{len(baked)}a"), stem)
        _KEPT.keep(kept_key and kept_key + ("white",), white)
    return image, emits, white


def _bake(mat, scene, baked):
    image, emits, white = _baked_image(mat, scene, baked)
    if image is None:
        return None
    tree = mat.node_tree
    bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    out = next((n for n in tree.nodes if n.type == "OUTPUT_MATERIAL"), None)
    if bsdf is None or out is None:
        return None
    saved = [(link.from_socket, link.to_socket) for link in tree.links
             if link.to_node == bsdf or link.to_node == out]
    defaults = {name: _copy(bsdf.inputs[name].default_value)
                for name in ("Base Color", "Emission Color", "Emission Strength", "Alpha")}
    node = _image_node(tree, BAKED, image)
    added = [node]
    for link in list(tree.links):
        if link.to_node == bsdf and link.to_socket.name in defaults:
            tree.links.remove(link)
    tree.links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    if emits:
        bsdf.inputs["Base Color"].default_value = (0.0, 0.0, 0.0, 1.0)
        tree.links.new(node.outputs["Color"], bsdf.inputs["Emission Color"])
        bsdf.inputs["Emission Strength"].default_value = 1.0
        if white is not None:
            added += _black_with_alpha(tree, bsdf, white)
        else:
            tree.links.new(node.outputs["Alpha"], bsdf.inputs["Alpha"])
    else:
        tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
        if mat.surface_render_method == "BLENDED":
            tree.links.new(node.outputs["Alpha"], bsdf.inputs["Alpha"])

    def restore():
        for made in added:
            tree.nodes.remove(made)
        for link in list(tree.links):
            if link.to_node == bsdf or link.to_node == out:
                tree.links.remove(link)
        for a, b in saved:
            tree.links.new(a, b)
        for name, value in defaults.items():
            bsdf.inputs[name].default_value = value
    return restore


def _image_node(tree, name, image):
    node = tree.nodes.new("ShaderNodeTexImage")
    node.name = name
    node.image = image
    return node


def _black_with_alpha(tree, bsdf, white):
    """Link a glow's black base colour and alpha as one texture times a colour factor:
    ``white`` (white, the glow's alpha) multiplied by black into Base Color, its alpha into
    Alpha. Blender shows the same (black, the alpha), and glTF exporters read
    baseColorFactor (0, 0, 0, 1) with ``white`` as baseColorTexture, whose bytes they copy
    (the texture they composed of white and the bake's alpha before); the nodes added."""
    node = _image_node(tree, BAKED + " Alpha", white)
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type, mix.blend_type = "RGBA", "MULTIPLY"
    sockets = {s.identifier: s for s in mix.inputs}
    sockets["Factor_Float"].default_value = 1.0
    sockets["B_Color"].default_value = (0.0, 0.0, 0.0, 1.0)
    tree.links.new(node.outputs["Color"], sockets["A_Color"])
    result = next(s for s in mix.outputs if s.identifier == "Result_Color")
    tree.links.new(result, bsdf.inputs["Base Color"])
    tree.links.new(node.outputs["Alpha"], bsdf.inputs["Alpha"])
    return [node, mix]


def _copy(value):
    return tuple(value) if hasattr(value, "__len__") else value
