"""Blender mesh data as whole arrays, shared by every engine: for export the evaluated mesh,
its triangles, per-corner data and corners numbered by what they hold; for import vertex
groups filled from (vertex, bone, weight) arrays."""

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
            out["tangent"], out["sign"] = corner_tangents(me, out["normal"])
        except RuntimeError as e:
            out["tangent_problem"] = f"Blender cannot compute them ({str(e).strip()})"
    return out


def corner_tangents(me, normals=None):
    """(L, 3) tangents and (L,) bitangent signs of every corner (first UV map), computed in
    numpy in a fixed order so that the same mesh gives the same bits every time (Blender's
    threaded MikkTSpace, ``Mesh.calc_tangents``, differs by up to 2e-7 from one call to the
    next: issue 43). As MikkTSpace: each triangle's direction of increasing U (and V), weighted
    by its angle at the corner, summed over the triangles of the corner's face (n-gons as
    Blender triangulates them), made perpendicular to the corner normal (``normals``, (L, 3);
    read when None) and unit length; the sign says whether V runs along normal x tangent.
    A corner whose UVs give no direction gets one perpendicular to its normal."""
    n = len(me.loops)
    me.calc_loop_triangles()
    tri = np.empty(len(me.loop_triangles) * 3, np.int32)
    me.loop_triangles.foreach_get("loops", tri)
    tri = tri.reshape(-1, 3)
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    p = co.reshape(-1, 3).astype(np.float64)[compat.corner_vertices(me)]
    uv = compat.uv_layer(me, me.uv_layers[0]).astype(np.float64)
    if normals is None:
        normals = np.empty(n * 3, np.float32)
        me.corner_normals.foreach_get("vector", normals)
    nrm = np.asarray(normals, np.float64).reshape(-1, 3)
    corners = p[tri]                                        # (T, 3 corners, 3)
    to_next = np.roll(corners, -1, axis=1) - corners
    to_prev = np.roll(corners, 1, axis=1) - corners
    e1, e2 = to_next[:, 0], to_prev[:, 0]
    d1 = uv[tri[:, 1]] - uv[tri[:, 0]]
    d2 = uv[tri[:, 2]] - uv[tri[:, 0]]
    orient = np.sign(d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1])[:, None]
    tan = _unit_rows((e1 * d2[:, 1:] - e2 * d1[:, 1:]) * orient)
    bit = _unit_rows((e2 * d1[:, :1] - e1 * d2[:, :1]) * orient)
    cos = np.einsum("tkc,tkc->tk", _unit_rows(to_next), _unit_rows(to_prev))
    angle = np.arccos(np.clip(cos, -1.0, 1.0))[:, :, None]   # each corner's, (T, 3, 1)
    t_sum = _corner_sums(tri, (tan[:, None, :] * angle).reshape(-1, 3), n)
    b_sum = _corner_sums(tri, (bit[:, None, :] * angle).reshape(-1, 3), n)
    t = t_sum - nrm * np.einsum("ij,ij->i", nrm, t_sum)[:, None]
    length = np.linalg.norm(t, axis=1)
    bad = ~(length > 1e-12)
    if bad.any():                  # no UV direction: any vector perpendicular to the normal
        axis = np.eye(3)[np.argmin(np.abs(nrm[bad]), axis=1)]
        t[bad] = np.cross(nrm[bad], axis)
        length[bad] = np.linalg.norm(t[bad], axis=1)
    t /= np.where(length > 0, length, 1.0)[:, None]
    sign = np.where(np.einsum("ij,ij->i", np.cross(nrm, t), b_sum) < 0, -1.0, 1.0)
    return t.astype(np.float32), sign.astype(np.float32)


def _unit_rows(v):
    length = np.sqrt(np.einsum("...c,...c->...", v, v))[..., None]
    return v / np.where(length > 0, length, 1.0)


def _corner_sums(tri, values, n):
    """(n, 3) sums of ``values`` (one row per triangle corner, ``tri`` order) per corner, in
    a fixed order (bincount adds in index order); a mesh of triangles only just places them."""
    idx = tri.ravel()
    out = np.zeros((n, 3))
    if len(idx) == n and np.array_equal(np.sort(idx), np.arange(n)):
        out[idx] = values
        return out
    for c in range(3):
        out[:, c] = np.bincount(idx, values[:, c], minlength=n)
    return out


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


def add_vertex_groups(obj, bone_names, v, b, w, bones=None):
    """Vertex groups named after the bones, holding weight ``w[k]`` of vertex ``v[k]`` for
    bone ``b[k]`` (int64 arrays; float32 weights >= 0, each (vertex, bone) once). One call per
    (bone, weight) pair: a handful for real files. ``bones``: the bones to make groups for,
    in order (default: those of ``b``). Returns the arrays in the order used."""
    groups = {}
    for bone in (np.unique(b) if bones is None else bones):
        groups[bone] = obj.vertex_groups.new(name=bone_names[bone])
    # sorted by bone, then weight (float32 >= 0 orders as its bits), then vertex
    order = np.argsort((b << 32) | w.view(np.uint32).astype(np.int64), kind="stable")
    b, w, v = b[order], w[order], v[order]
    if len(b):
        cuts = np.flatnonzero((np.diff(b) != 0) | (np.diff(w) != 0)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(b)]):
            groups[b[lo]].add(v[lo:hi].tolist(), float(w[lo]), "REPLACE")
    return v, b, w
