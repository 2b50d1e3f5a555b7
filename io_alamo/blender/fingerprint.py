"""What the importer made, as a hash, so export can tell an untouched mesh from an edited one.

Import hashes the arrays it handed to Blender; export reads the same things back from the
mesh and hashes them the same way. Equal hashes: the mesh is as imported and export writes
the file's own data for it, byte for byte.
"""

import hashlib

import numpy as np

KEY = "alamo_fingerprint"


def digest(parts):
    """Hash of named arrays (order-independent in the names)."""
    h = hashlib.sha1()
    for name in sorted(parts):
        a = np.ascontiguousarray(parts[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def weight_arrays(vertices, groups, group_names, weights):
    """Canonical vertex weights: rows sorted by (vertex, group name), float32 weights.

    ``groups`` are indices into ``group_names``; the canonical form names groups by their
    rank among the sorted names, and hashes that sorted table once."""
    v = np.asarray(vertices, np.int64)
    g = np.asarray(groups, np.int64)
    w = np.asarray(weights, np.float32)
    names = sorted(set(group_names[i] for i in np.unique(g).tolist())) if len(g) else []
    rank = {n: k for k, n in enumerate(names)}
    lut = np.array([rank.get(n, -1) for n in group_names], np.int64) if group_names else \
        np.zeros(0, np.int64)
    code = lut[g] if len(g) else np.zeros(0, np.int64)
    order = np.lexsort((code, v))
    table = "\0".join(names).encode("utf-8", "surrogateescape")
    return {"weight_vertex": v[order], "weight_group": code[order],
            "weight_value": w[order], "weight_names": np.frombuffer(table, np.uint8)}


def read_weights(me):
    """Every vertex weight of a mesh as flat arrays (vertex, group index, weight). Blender has
    no bulk access to vertex groups; this is the tightest loop over them."""
    vs, gs, ws = [], [], []
    for v in me.vertices:
        i = v.index
        for g in v.groups:
            vs.append(i)
            gs.append(g.group)
            ws.append(g.weight)
    return (np.array(vs, np.int64), np.array(gs, np.int64), np.array(ws, np.float32))


def mesh_parts(me, obj):
    """Read back from Blender what the importer set (see imp/alo.py _fill_mesh)."""
    parts = {}
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    parts["co"] = co
    vi = np.empty(len(me.loops), np.int32)
    me.loops.foreach_get("vertex_index", vi)
    parts["loops"] = vi
    mi = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("material_index", mi)
    parts["material_index"] = mi
    for layer in me.uv_layers:
        uv = np.empty(len(me.loops) * 2, np.float32)
        layer.data.foreach_get("uv", uv)
        parts[f"uv:{layer.name}"] = uv
    for name, width, prop in (("Color", 4, "color"), ("alamo_tangent", 3, "vector"),
                              ("alamo_binormal", 3, "vector")):
        att = me.attributes.get(name)
        if att is not None:
            a = np.empty(len(att.data) * width, np.float32)
            att.data.foreach_get(prop, a)
            parts[f"{name}:{att.domain}"] = a
    names = [g.name for g in obj.vertex_groups]       # index i is group i
    v, g, w = read_weights(me) if names else (np.zeros(0, np.int64),) * 3
    keep = (g >= 0) & (g < len(names))
    parts.update(weight_arrays(v[keep], g[keep], names, w[keep]))
    parts.update(placement_parts(obj))
    return parts


def placement_parts(obj):
    return {"matrix_basis": np.array(obj.matrix_basis, np.float32),
            "matrix_parent_inverse": np.array(obj.matrix_parent_inverse, np.float32),
            "parent": np.frombuffer(f"{obj.parent_type}:{obj.parent_bone}:"
                                    f"{obj.parent.name if obj.parent else ''}".encode(), np.uint8),
            "modifiers": np.frombuffer(",".join(m.type for m in obj.modifiers
                                                if m.show_viewport).encode(), np.uint8)}
