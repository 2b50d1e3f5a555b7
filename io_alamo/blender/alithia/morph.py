"""Morph (vertex) animation as shape keys: one key per file frame, the first the basis,
keyed as steps; and what import and export of such meshes share (axes, the fingerprint).

Shape-key values are keyed, not the absolute keys' evaluation time: relative keys are what
modders edit, and at a key's frame exactly that key is at 1 and every other at 0.
"""

import numpy as np

from .. import compat
from ..alamo.hub import digest

FINGERPRINT_KEY = "alamo_morph_fingerprint"
# the imported file's bytes, under a key of their own (not Alamo's: blender/source.py)
SOURCE_KEY = "alm1_source"
KEY_GROUP = "Frames"


def frame_key_name(k):
    return f"Frame {k}"


def file_to_blender(v):
    """File axes (x, y, z) as Blender's: the Alithia exporter wrote Blender (x, y, z) as
    (x, z, -y), so Blender = (x, -z, y)."""
    v = np.asarray(v, np.float32)
    return np.stack([v[..., 0], -v[..., 2], v[..., 1]], axis=-1)


def blender_to_file(v):
    v = np.asarray(v, np.float32)
    return np.stack([v[..., 0], v[..., 2], -v[..., 1]], axis=-1)


def add_frame_keys(obj, frames):
    """One shape key per frame of ``frames`` ((n, V, 3) Blender positions), the first the
    basis; returns the key blocks."""
    blocks = []
    for k, co in enumerate(frames):
        kb = obj.shape_key_add(name=frame_key_name(k), from_mix=False)
        kb.data.foreach_set("co", np.ascontiguousarray(co, np.float32).ravel())
        kb.value = 0.0
        blocks.append(kb)
    return blocks


def key_steps(action, key, blocks, times):
    """Key each shape key after the basis to 1 at its own time and 0 elsewhere, with
    constant interpolation, so the timeline shows frame k from ``times[k]`` to the next."""
    writer = compat.ActionWriter(action, key, id_type="KEY")
    constant = compat.INTERPOLATION["CONSTANT"]
    last = len(blocks) - 1
    for k in range(1, len(blocks)):
        frames = [times[0], times[k]] + ([times[k + 1]] if k < last else [])
        values = [0.0, 1.0] + ([0.0] if k < last else [])
        fc = writer.fcurve(f'key_blocks["{blocks[k].name}"].value', 0, KEY_GROUP)
        compat.set_keys(fc, np.asarray(frames, np.float32), values, [constant] * len(frames))
    writer.assign()


def key_positions(me):
    """(keys, V, 3) positions of every shape key in order (the mesh's own if it has none)."""
    nv = len(me.vertices)
    blocks = list(me.shape_keys.key_blocks) if me.shape_keys else []
    out = np.empty((max(len(blocks), 1), nv, 3), np.float32)
    if not blocks:
        me.vertices.foreach_get("co", out[0].ravel())
    for k, kb in enumerate(blocks):
        kb.data.foreach_get("co", out[k].ravel())
    return out


def uv_corners(me):
    """The active UV layer per corner, (loops, 2); None without one."""
    layer = me.uv_layers.active or (me.uv_layers[0] if len(me.uv_layers) else None)
    return None if layer is None else compat.uv_layer(me, layer)


def corner_normals(me):
    n = np.empty(len(me.loops) * 3, np.float32)
    me.corner_normals.foreach_get("vector", n)
    return n.reshape(-1, 3)


def morph_parts(me):
    """What the morph export writes from a mesh: every key's positions, the corners and
    their faces, the UVs and the (custom) normals."""
    sizes = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_total", sizes)
    uv = uv_corners(me)
    return {"keys": key_positions(me), "loops": compat.corner_vertices(me), "sizes": sizes,
            "uv": np.zeros(0, np.float32) if uv is None else uv, "normals": corner_normals(me)}


def remember(obj):
    """Fingerprint ``obj``'s mesh as it is now (right after import)."""
    obj[FINGERPRINT_KEY] = digest(morph_parts(obj.data))


def unchanged(obj):
    """Whether ``obj``'s mesh is as :func:`remember` saw it."""
    held = obj.get(FINGERPRINT_KEY)
    return held is not None and obj.type == "MESH" and \
        digest(morph_parts(obj.data)) == held
