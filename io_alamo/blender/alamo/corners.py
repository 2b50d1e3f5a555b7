"""A key per mesh corner of what its tangent frame depends on (position, normal, first UV).

Import stores the keys beside the file's tangent frames; export recomputes them, and every
corner whose key is unchanged keeps the file's tangent frame, so moving one vertex changes
the tangents only where the position, normal or UV changed.
"""

import numpy as np

from .. import compat

KEY_ATTRIBUTE = "alamo_corner_key"


def corner_keys(me):
    """(loops,) int32 hash of each corner's vertex position, corner normal and first UV."""
    n = len(me.loops)
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    lv = compat.corner_vertices(me)
    normals = np.empty(n * 3, np.float32)
    me.corner_normals.foreach_get("vector", normals)
    uv = compat.uv_layer(me, me.uv_layers[0]) if len(me.uv_layers) else None
    return keys_of(co.reshape(-1, 3)[lv], normals.reshape(-1, 3), uv)


def keys_of(corner_co, normals, uv=None):
    """:func:`corner_keys` of the corners' positions ((loops, 3) float32), normals (the same)
    and first UV ((loops, 2) float32, or None without UV layers)."""
    words = [corner_co, normals] + ([uv.reshape(-1, 2)] if uv is not None else [])
    h = np.full(len(corner_co), 0x9E3779B97F4A7C15, np.uint64)
    with np.errstate(over="ignore"):
        for block in words:
            # + 0 turns -0.0 into 0.0: the same value
            bits = np.ascontiguousarray(np.asarray(block, np.float32) + np.float32(0)).view(
                np.uint32)
            for k in range(bits.shape[1]):
                h ^= bits[:, k].astype(np.uint64)
                h *= np.uint64(0xBF58476D1CE4E5B9)
                h ^= h >> np.uint64(31)
    return (h & np.uint64(0x7FFFFFFF)).astype(np.int32)


def store_corner_keys(me, written=None):
    """Keep the corner keys of the mesh as import made it (a hidden integer attribute).
    ``written``: a function giving the keys of what the importer has just written
    (:func:`keys_of` its arrays): Blender 4.5+ hands custom normals back exactly as set, so
    nothing needs to be read back (nor the normals computed). Blender 4.2 stores them
    re-encoded: there, and without ``written``, they are read back."""
    if written is None or not compat.HAS_CUSTOM_NORMAL_ATTRIBUTE:
        keys = corner_keys(me)
    else:
        keys = written()
    att = me.attributes.new(KEY_ATTRIBUTE, "INT", "CORNER")
    att.data.foreach_set("value", keys)


def unchanged_corners(me):
    """(loops,) bool: corners whose key is still the one import stored (None without one)."""
    att = me.attributes.get(KEY_ATTRIBUTE)
    if att is None or att.domain != "CORNER" or att.data_type != "INT":
        return None
    kept = np.empty(len(me.loops), np.int32)
    att.data.foreach_get("value", kept)
    return kept == corner_keys(me)
