"""Blender mesh data as whole arrays, shared by every engine: for export the evaluated mesh,
its triangles, per-corner data and corners numbered by what they hold; for import vertex
groups filled from (vertex, bone, weight) arrays."""

import bmesh
import bpy
import numpy as np

from . import compat


def evaluated_mesh(obj, depsgraph, apply_modifiers):
    """(mesh, cleanup): the mesh with modifiers applied, except Armature modifiers, whose
    pose must not be baked into the bind-pose vertices."""
    others = [m for m in obj.modifiers if m.type != "ARMATURE" and m.show_viewport]
    if not apply_modifiers or not others:
        return obj.data, lambda: None          # nothing to apply: no evaluated copy needed
    muted = [m for m in obj.modifiers if m.type == "ARMATURE" and m.show_viewport]
    for m in muted:
        m.show_viewport = False
    try:
        depsgraph.update()
        evaluated = obj.evaluated_get(depsgraph)
        me = evaluated.to_mesh()
    finally:
        for m in muted:
            m.show_viewport = True
    return me, evaluated.to_mesh_clear


def loop_arrays(me, need_tangents):
    """Per-loop data as Blender holds it: vertex, normal, up to 4 UV layers, colour, tangent
    and bitangent sign (each an array over the mesh's loops)."""
    n = len(me.loops)
    out = {}
    lv = compat.corner_vertices(me)
    out["vertex"] = lv
    normals = np.empty(n * 3, np.float32)
    me.corner_normals.foreach_get("vector", normals)
    out["normal"] = normals.reshape(-1, 3)
    for k, layer in enumerate(list(me.uv_layers)[:4]):
        out[f"uv{k}"] = compat.uv_layer(me, layer)
    att = me.color_attributes.get("Color") or (me.color_attributes[0]
                                               if len(me.color_attributes) else None)
    if att is not None and att.domain in ("POINT", "CORNER"):
        c = np.empty(len(att.data) * 4, np.float32)
        att.data.foreach_get("color", c)
        c = c.reshape(-1, 4)
        out["color"] = c[lv] if att.domain == "POINT" else c
    if need_tangents and not len(me.uv_layers):
        out["tangent_problem"] = "it has no UV map"
    elif need_tangents:
        try:
            out["tangent"], out["sign"] = mikk_tangents(me)
        except RuntimeError as e:
            out["tangent_problem"] = f"Blender cannot compute them ({str(e).strip()})"
    return out


def mikk_tangents(me):
    """(L, 3) tangents and (L,) bitangent signs of every corner (MikkTSpace, first UV map).
    Blender computes them for triangles and quads only: a mesh with n-gons has them
    computed on a triangulated copy, each corner taking its own from the copy."""
    n = len(me.loops)
    sizes = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_total", sizes)
    if len(sizes) and sizes.max() > 4:
        return _triangulated_tangents(me, n)
    try:
        me.calc_tangents(uvmap=me.uv_layers[0].name)
        t = np.empty(n * 3, np.float32)
        me.loops.foreach_get("tangent", t)
        sign = np.empty(n, np.float32)
        me.loops.foreach_get("bitangent_sign", sign)
        return t.reshape(-1, 3), sign
    finally:
        me.free_tangents()


def _triangulated_tangents(me, n):
    copy = me.copy()
    try:
        ident = copy.attributes.new(".alamo_loop", "INT", "CORNER")
        ident.data.foreach_set("value", np.arange(n, dtype=np.int32))
        bm = bmesh.new()
        try:
            bm.from_mesh(copy)
            bmesh.ops.triangulate(bm, faces=bm.faces[:])
            bm.to_mesh(copy)
        finally:
            bm.free()
        origin = np.empty(len(copy.loops), np.int32)
        copy.attributes[".alamo_loop"].data.foreach_get("value", origin)
        t, sign = mikk_tangents(copy)
        out_t = np.zeros((n, 3), np.float32)
        out_s = np.ones(n, np.float32)
        out_t[origin], out_s[origin] = t, sign
        return out_t, out_s
    finally:
        bpy.data.meshes.remove(copy)


def distinct_loops(words):
    """Number the loops so that loops with equal ``words`` (a list of uint32 arrays over the
    loops) share a number; numbers are in order of first use. Returns (number of each loop,
    first loop of each number)."""
    n = len(words[0])
    h1 = np.full(n, 0x9E3779B97F4A7C15, np.uint64)
    h2 = np.full(n, 0x2545F4914F6CDD1D, np.uint64)
    with np.errstate(over="ignore"):
        for w in words:
            w = w.astype(np.uint64)
            h1 ^= w
            h1 *= np.uint64(0xBF58476D1CE4E5B9)
            h1 ^= h1 >> np.uint64(31)
            h2 += w
            h2 *= np.uint64(0x94D049BB133111EB)
            h2 ^= h2 >> np.uint64(29)
    _, first, inverse = np.unique(h1, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if not np.array_equal(h2, h2[first][inverse]):      # a 64-bit collision: be exact
        key = np.ascontiguousarray(np.stack(words, axis=1).astype(np.uint32))
        raw = key.view(np.dtype((np.void, 4 * key.shape[1]))).ravel()
        _, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inverse], first[order]


def triangles(me):
    """(loops of each triangle corner, polygon of each triangle)."""
    sizes = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_total", sizes)
    if len(sizes) and (sizes == 3).all():            # already triangles: no tessellation
        return np.arange(3 * len(sizes), dtype=np.int32), np.arange(len(sizes), dtype=np.int32)
    me.calc_loop_triangles()
    nt = len(me.loop_triangles)
    tri_loops = np.empty(nt * 3, np.int32)
    me.loop_triangles.foreach_get("loops", tri_loops)
    tri_poly = np.empty(nt, np.int32)
    me.loop_triangles.foreach_get("polygon_index", tri_poly)
    return tri_loops, tri_poly


def add_vertex_groups(obj, bone_names, v, b, w):
    """Vertex groups named after the bones, holding weight ``w[k]`` of vertex ``v[k]`` for
    bone ``b[k]`` (int64 arrays; float32 weights >= 0, each (vertex, bone) once). One call per
    (bone, weight) pair: a handful for real files. Returns the arrays in the order used."""
    groups = {}
    for bone in np.unique(b):
        groups[bone] = obj.vertex_groups.new(name=bone_names[bone])
    # sorted by bone, then weight (float32 >= 0 orders as its bits), then vertex
    order = np.argsort((b << 32) | w.view(np.uint32).astype(np.int64), kind="stable")
    b, w, v = b[order], w[order], v[order]
    if len(b):
        cuts = np.flatnonzero((np.diff(b) != 0) | (np.diff(w) != 0)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(b)]):
            groups[b[lo]].add(v[lo:hi].tolist(), float(w[lo]), "REPLACE")
    return v, b, w
