"""A Blender mesh object as an Alamo mesh: triangulated, split into one sub-mesh per used
material, vertices split where any corner attribute differs, sub-meshes split above 65,535
vertices or (skinned) 24 bones."""

import numpy as np

from ... import shaders
from ...formats import VERTEX_DTYPE, Mesh, SubMesh, build_collision_tree
from ...naming import format_has_tangents, format_is_b4i4
from .alo import MAX_SKIN_BONES, MAX_VERTICES, ExportError


def _evaluated_mesh(obj, depsgraph, apply_modifiers):
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


def _corner_arrays(me, corner_loops, need_tangents):
    """Per-corner normals, UVs (up to 4 layers), colour, tangent and binormal."""
    n_loops = len(me.loops)
    normals = np.empty(n_loops * 3, np.float32)
    me.corner_normals.foreach_get("vector", normals)
    normals = normals.reshape(-1, 3)[corner_loops]
    uvs = np.zeros((len(corner_loops), 4, 2), np.float32)
    for k, layer in enumerate(list(me.uv_layers)[:4]):
        uv = np.empty(n_loops * 2, np.float32)
        layer.data.foreach_get("uv", uv)
        uv = uv.reshape(-1, 2)[corner_loops]
        uv[:, 1] = 1.0 - uv[:, 1]
        uvs[:, k] = uv
    color = None
    att = me.color_attributes.get("Color") or (me.color_attributes[0]
                                               if len(me.color_attributes) else None)
    if att is not None:
        c = np.empty(len(att.data) * 4, np.float32)
        att.data.foreach_get("color", c)
        c = c.reshape(-1, 4)
        if att.domain == "POINT":
            vi = np.empty(n_loops, np.int32)
            me.loops.foreach_get("vertex_index", vi)
            c = c[vi]
        color = c[corner_loops] if att.domain in ("POINT", "CORNER") else None
    tangent = binormal = None
    if need_tangents and len(me.uv_layers):
        try:
            me.calc_tangents(uvmap=me.uv_layers[0].name)
            t = np.empty(n_loops * 3, np.float32)
            me.loops.foreach_get("tangent", t)
            sign = np.empty(n_loops, np.float32)
            me.loops.foreach_get("bitangent_sign", sign)
            t = t.reshape(-1, 3)[corner_loops]
            tangent = t
            binormal = np.cross(normals, t) * sign[corner_loops, None]
        except RuntimeError:
            tangent = binormal = None
        finally:
            me.free_tangents()
    return normals, uvs, color, tangent, binormal


def _weights(obj, me, bone_of_group):
    """(V, 4) skeleton bone indices and weights, strongest first, normalised; and which
    vertices have no weight at all."""
    from ..fingerprint import read_weights
    nv = len(me.vertices)
    bones = np.zeros((nv, 4), np.int64)
    weights = np.zeros((nv, 4), np.float64)
    v, g, w = read_weights(me)
    lut = np.full(max(g.max() + 1 if len(g) else 1, max(bone_of_group, default=0) + 1), -1)
    for group, bone in bone_of_group.items():
        lut[group] = bone
    b = lut[g] if len(g) else np.zeros(0, np.int64)
    keep = (b >= 0) & (w > 0)
    v, b, w = v[keep], b[keep], w[keep].astype(np.float64)
    order = np.lexsort((-w, v))                       # per vertex, strongest first
    v, b, w = v[order], b[order], w[order]
    start = np.searchsorted(v, v, side="left")
    rank = np.arange(len(v)) - start
    top = rank < 4
    bones[v[top], rank[top]] = b[top]
    weights[v[top], rank[top]] = w[top]
    total = weights.sum(axis=1, keepdims=True)
    unweighted = total[:, 0] <= 0
    weights = np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)
    return bones, weights, unweighted


def build_mesh(exporter, obj, bone, name):
    ctx = exporter.context
    depsgraph = ctx.evaluated_depsgraph_get()
    me, cleanup = _evaluated_mesh(obj, depsgraph, exporter.options.apply_modifiers)
    try:
        return _build(exporter, obj, me, bone, name)
    finally:
        cleanup()


def _triangles(me):
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


def _build(exporter, obj, me, bone, name):
    tri_loops, tri_poly = _triangles(me)
    nt = len(tri_poly)
    if nt == 0:
        raise ExportError(["has no triangles"])
    poly_mat = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("material_index", poly_mat)
    tri_mat = poly_mat[tri_poly]
    loop_vert = np.empty(len(me.loops), np.int32)
    me.loops.foreach_get("vertex_index", loop_vert)
    corner_vert = loop_vert[tri_loops]
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3).astype(np.float64)

    arm = exporter.arm
    groups = {g.index: g.name for g in obj.vertex_groups}
    bone_of_group = {i: exporter.bone_index[n] for i, n in groups.items()
                     if n in exporter.bone_index}
    has_armature_mod = any(m.type == "ARMATURE" and m.object == arm for m in obj.modifiers)
    skinned = bool(arm is not None and bone_of_group and has_armature_mod)

    # vertex space: model space for skinned meshes, the connected bone's space for rigid ones
    to_model = exporter.to_model(obj)
    target = np.eye(4) if skinned else np.linalg.inv(exporter.worlds[bone])
    m = target @ to_model
    pos = co @ m[:3, :3].T + m[:3, 3]
    nrm_m = np.linalg.inv(m[:3, :3]).T

    slots = [s.material for s in obj.material_slots] or [None]
    formats, materials, shadow = [], [], []
    for k, mat in enumerate(slots):
        material = exporter._material(mat)
        fmt = mat.alamo.vertex_format if mat is not None and mat.alamo.vertex_format else None
        fmt = fmt or shaders.vertex_format(material.shader, skinned) or (
            "alD3dVertRSkinNU2" if skinned else "alD3dVertNU2")
        formats.append(fmt)
        materials.append(material)
        shadow.append(shaders.is_shadow(material.shader))
    need_tangents = any(format_has_tangents(f) for f in formats)
    normals, uvs, color, tangent, binormal = _corner_arrays(me, tri_loops, need_tangents)
    normals = normals.astype(np.float64) @ nrm_m.T
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, length, out=normals, where=length > 0)
    if tangent is not None:
        tangent = tangent.astype(np.float64) @ m[:3, :3].T
        binormal = binormal.astype(np.float64) @ m[:3, :3].T

    if skinned:
        vb, vw, unweighted = _weights(obj, me, bone_of_group)
        bad = np.flatnonzero(unweighted[np.unique(corner_vert)])
        if len(bad):
            used = np.unique(corner_vert)[bad]
            if me is obj.data:                      # select them where the user can see them
                for i in used.tolist():
                    me.vertices[i].select = True
            raise ExportError([f"{len(used)} skinned vertices have no bone weights "
                               "(they would not move with the skeleton)"])
    n_corner = len(corner_vert)
    record = np.zeros(n_corner, VERTEX_DTYPE)
    record["position"] = pos[corner_vert]
    record["normal"] = normals
    record["uv"] = uvs
    if tangent is not None:
        record["tangent"] = tangent
        record["binormal"] = binormal
    record["color"] = color if color is not None else 1.0
    record["unused"] = 1.0
    if skinned:
        record["bone_indices"] = vb[corner_vert]     # skeleton indices, mapped below
        record["bone_weights"] = vw[corner_vert]
    else:
        record["bone_weights"][:, 0] = 1.0

    subs = []
    for k in np.unique(np.clip(tri_mat, 0, len(slots) - 1)):
        tris = np.flatnonzero(np.clip(tri_mat, 0, len(slots) - 1) == k)
        corners = (tris[:, None] * 3 + np.arange(3)).ravel()
        if shadow[k]:
            from .shadow import shadow_submesh_arrays
            verts, idx = shadow_submesh_arrays(record[corners].reshape(-1, 3), obj)
        else:
            verts, idx = _unique_vertices(record[corners])
        for part_v, part_i in _split(verts, idx, formats[k], skinned):
            subs.append(_submesh(materials[k], formats[k], part_v, part_i, skinned))
    if not subs:
        raise ExportError(["has no triangles"])
    allpos = np.concatenate([s.vertices["position"] for s in subs])
    mesh = Mesh(name, subs, allpos.min(axis=0).astype("<f4"), allpos.max(axis=0).astype("<f4"),
                hidden=int(obj.alamo.hidden), collision=int(obj.alamo.collision))
    if mesh.collision:
        for s in subs:
            s.collision_tree = build_collision_tree(s.vertices["position"], s.indices)
    return mesh


def _row_hash(words):
    """A 64-bit hash per row of a (n, k) uint64 array."""
    h = np.full(len(words), 0x9E3779B97F4A7C15, np.uint64)
    with np.errstate(over="ignore"):
        for k in range(words.shape[1]):
            h ^= words[:, k]
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(31)
    return h


def _unique_vertices(corners):
    """Distinct vertex records (first-occurrence order) and (T, 3) indices into them."""
    corners = np.ascontiguousarray(corners)
    words = corners.view(np.uint64).reshape(len(corners), -1)
    _, first, inverse = np.unique(_row_hash(words), return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if not np.array_equal(words, words[first][inverse]):      # a hash collision: be exact
        raw = corners.view(np.dtype((np.void, corners.dtype.itemsize)))
        _, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return corners[first[order]], rank[inverse.ravel()].reshape(-1, 3)


def _split(verts, idx, fmt, skinned):
    """Pieces of at most 65,535 vertices and, when skinned, at most 24 bones."""
    pieces = _split_by_vertices(verts, idx)
    if not skinned:
        return pieces
    out = []
    for v, i in pieces:
        out += _split_by_bones(v, i, fmt)
    return out


def _compact(verts, idx):
    used, inverse = np.unique(idx.ravel(), return_inverse=True)
    return verts[used], inverse.reshape(-1, 3)


def _split_by_vertices(verts, idx):
    if len(verts) <= MAX_VERTICES:
        return [(verts, idx)]
    out = []
    start = 0
    while start < len(idx):
        lo, hi = start + 1, len(idx)
        while lo < hi:                      # the longest run of triangles that fits
            mid = (lo + hi + 1) // 2
            if len(np.unique(idx[start:mid])) <= MAX_VERTICES:
                lo = mid
            else:
                hi = mid - 1
        out.append(_compact(verts, idx[start:lo]))
        start = lo
    return out


def _bones_used(verts, fmt):
    slots = 4 if format_is_b4i4(fmt) else 1
    b = verts["bone_indices"][:, :slots]
    w = verts["bone_weights"][:, :slots]
    return b, w > 0


def _split_by_bones(verts, idx, fmt):
    b, use = _bones_used(verts, fmt)
    if len(np.unique(b[use])) <= MAX_SKIN_BONES:
        return [(verts, idx)]
    out, current, tris = [], set(), []
    for t, tri in enumerate(idx):
        need = set(b[tri][use[tri]].tolist())
        if len(current | need) > MAX_SKIN_BONES and tris:
            out.append(_compact(verts, idx[tris]))
            current, tris = set(), []
        current |= need
        tris.append(t)
    if tris:
        out.append(_compact(verts, idx[tris]))
    return out


def _submesh(material, fmt, verts, idx, skinned):
    verts = verts.copy()
    bone_map = None
    if skinned:
        slots = 4 if format_is_b4i4(fmt) else 1
        b, use = _bones_used(verts, fmt)
        if slots == 1:
            use = np.zeros_like(use)
            use[:, 0] = True
        bone_map = np.unique(b[use]).astype("<u4")
        local = np.searchsorted(bone_map, verts["bone_indices"])
        local = np.where(np.arange(4) < slots, np.minimum(local, len(bone_map) - 1), 0)
        verts["bone_indices"] = local
        if slots == 1:
            verts["bone_weights"] = [1.0, 0.0, 0.0, 0.0]
        else:
            verts["bone_weights"][:, slots:] = 0
    return SubMesh(material, fmt, verts, idx.astype("<u2"), bone_map)
