"""A Blender mesh object as an Alamo mesh: triangulated, split into one sub-mesh per used
material, vertices split where any corner attribute differs, sub-meshes split above 65,535
vertices or (skinned) 24 bones."""

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ....formats.alamo import shaders
from ....formats.alamo import VERTEX_DTYPE, Mesh, SubMesh, build_collision_tree
from ....formats.alamo.naming import format_has_tangents, format_is_b4i4
from ... import compat
from ...matrices import inverse
from ...mesh_data import distinct_loops, evaluated_mesh, loop_arrays, triangles
from ...names import from_blender
from .common import MAX_SKIN_BONES, MAX_VERTICES, ExportError
from .shadow import shadow_volume
from .tangents import corner_frames


def _weights(ctx, obj, me, bone_of_group):
    """(V, 4) skeleton bone indices and weights, strongest first, normalised; and which
    vertices have no weight at all."""
    nv = len(me.vertices)
    bones = np.zeros((nv, 4), np.int64)
    weights = np.zeros((nv, 4), np.float64)
    v, g, w = ctx.read_weights(obj, me)
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
    over_four = np.bincount(v, minlength=nv) > 4
    return bones, weights, unweighted, over_four


@dataclass(slots=True)
class MeshContext:
    """What building a mesh needs from the model export around it."""
    depsgraph: object
    apply_modifiers: bool
    arm: object                       # the armature object, or None
    bone_index: dict                  # Blender bone name -> export bone index
    worlds: list                      # model-space matrix of each exported bone
    to_model: Callable                # object -> its matrix in model space
    material: Callable                # Blender material -> Material record
    read_weights: Callable            # (object, mesh) -> (vertex, group, weight) arrays
    report: object                    # common.Report: warn(), tick()


def build_mesh(ctx, obj, bone, name):
    """The Mesh record of ``obj`` hung on export bone ``bone``, named ``name``."""
    me, cleanup = evaluated_mesh(obj, ctx.depsgraph, ctx.apply_modifiers)
    try:
        return _build(ctx, obj, me, bone, name)
    finally:
        cleanup()


def _snap_identity(m):
    """An object placed exactly at its bone (as import places them) is written in the
    bone's space as it is: float32 noise of the matrices (1e-7) would otherwise move every
    vertex and tangent by a last bit."""
    if np.allclose(m, np.eye(4), rtol=0.0, atol=1e-6):
        return np.eye(4)
    return m


@dataclass(slots=True)
class _Faces:
    tri_loops: np.ndarray             # loops of each triangle corner
    tri_mat: np.ndarray               # material slot of each triangle
    loop_mat: np.ndarray              # material slot of each loop
    co: np.ndarray                    # (V, 3) vertex positions


def _faces(obj, me):
    tri_loops, tri_poly = triangles(me)
    if len(tri_poly) == 0:
        raise ExportError(["has no triangles"])
    poly_mat = compat.material_indices(me)
    poly_size = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_total", poly_size)
    slots = max(len(obj.material_slots), 1)
    poly_mat = np.clip(poly_mat, 0, slots - 1)
    loop_mat = np.repeat(poly_mat, poly_size) if len(poly_size) else np.zeros(0, np.int32)
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    return _Faces(tri_loops, poly_mat[tri_poly], loop_mat, co.reshape(-1, 3).astype(np.float64))


def _materials(ctx, obj, skinned):
    """(vertex format, Material record, is a shadow mesh) of each material slot."""
    formats, materials, shadow = [], [], []
    for mat in [s.material for s in obj.material_slots] or [None]:
        material = ctx.material(mat)
        fmt = (from_blender(mat.alamo.vertex_format) if mat is not None
               and mat.alamo.vertex_format else None)
        if fmt is None and skinned:
            spec = shaders.find(material.shader)
            if spec is not None and spec.skinned and shaders.find(spec.skinned) is not None \
                    and shaders.find(spec.skinned).name != spec.name:
                ctx.report.warn(f"mesh {obj.name!r} is skinned but its shader {spec.name} is "
                                f"not a skinning shader: the game needs {spec.skinned} for it "
                                "to move with the bones", [obj])
        fmt = fmt or shaders.vertex_format(material.shader, skinned) or (
            "alD3dVertRSkinNU2" if skinned else "alD3dVertNU2")
        formats.append(fmt)
        materials.append(material)
        shadow.append(shaders.is_shadow(material.shader))
    return formats, materials, shadow


def _skin(ctx, obj, me, faces, loops, used_mats, formats, materials, bone_of_group):
    """(V, 4) bone indices and weights; refuses used vertices without weights (selecting
    them), warns about more weights than the vertex format holds."""
    vb, vw, unweighted, over_four = _weights(ctx, obj, me, bone_of_group)
    used_verts = np.zeros(len(me.vertices), bool)
    used_verts[loops["vertex"][faces.tri_loops]] = True
    bad = np.flatnonzero(unweighted & used_verts)
    if len(bad):
        if me is obj.data:                      # select them where the user can see them
            sel = np.zeros(len(me.vertices), bool)
            sel[bad] = True
            me.vertices.foreach_set("select", sel)
        raise ExportError([f"{len(bad)} skinned vertices have no bone weights "
                           "(they would not move with the skeleton); they are selected"],
                          elements_selected=True)
    corner_v = loops["vertex"][faces.tri_loops].reshape(-1, 3)
    for k in used_mats.tolist():
        vs = np.unique(corner_v[faces.tri_mat == k])
        if format_is_b4i4(formats[k]):
            n_over, limit = int(over_four[vs].sum()), 4
        else:
            n_over, limit = int((vw[vs, 1] > 0).sum()), 1
        if n_over:
            ctx.report.warn(f"mesh {obj.name!r}: {n_over} vertices have more than {limit} "
                            f"bone weight{'s' if limit > 1 else ''}, the most "
                            f"{formats[k]} holds (shader {materials[k].shader}); the "
                            "strongest are kept", [obj])
    return vb, vw


def _vertices(ctx, obj, me, faces, loops, m, need_tangents, skin):
    """(number of each loop, VERTEX_DTYPE record of each distinct vertex)."""
    n_loops = len(me.loops)
    # loops that would make the same vertex share a number; only those are built
    words = [loops["vertex"].view(np.uint32), faces.loop_mat.astype(np.uint32)]
    # as the game's exporter: split by position, normal, UVs and colour, not by tangent
    for key in ("normal", "uv0", "uv1", "uv2", "uv3", "color"):
        if key in loops:
            a = np.ascontiguousarray(loops[key]).reshape(n_loops, -1).view(np.uint32)
            words += [a[:, k] for k in range(a.shape[1])]
    frames = corner_frames(me, loops) if need_tangents else None
    if frames is not None:
        words += frames.split_words()
    loop_id, rep = distinct_loops(words)
    vert = loops["vertex"][rep]
    record = np.zeros(len(rep), VERTEX_DTYPE)
    record["position"] = faces.co[vert] @ m[:3, :3].T + m[:3, 3]
    nrm_m = inverse(m[:3, :3]).T
    normals = loops["normal"][rep].astype(np.float64) @ nrm_m.T
    record["normal"] = _unit(normals)
    for k in range(4):
        if f"uv{k}" in loops:
            uv = loops[f"uv{k}"][rep]
            record["uv"][:, k, 0] = uv[:, 0]
            record["uv"][:, k, 1] = 1.0 - uv[:, 1]
    if need_tangents:
        _tangents(ctx, obj, record, frames.per_vertex(loop_id, len(rep)), m,
                  loops.get("tangent_problem"))
    record["color"] = loops["color"][rep] if "color" in loops else 1.0
    record["unused"] = 1.0
    if skin is not None:
        record["bone_indices"] = skin[0][vert]      # skeleton indices, mapped per sub-mesh
        record["bone_weights"] = skin[1][vert]
    else:
        record["bone_weights"][:, 0] = 1.0
    return loop_id, record


def _tangents(ctx, obj, record, per_vertex, m, problem=None):
    t, b, known = per_vertex
    record["tangent"] = _unit(t @ m[:3, :3].T)
    record["binormal"] = _unit(b @ m[:3, :3].T)
    if not known.all():
        ctx.report.warn(f"mesh {obj.name!r}: its tangents (for normal maps) are only a guess: "
                        f"{problem or 'they could not be computed'}")
        n = record["normal"][~known].astype(np.float64)
        axis = np.where(np.abs(n[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
        t = _unit(np.cross(axis, n))
        record["tangent"][~known] = t
        record["binormal"][~known] = np.cross(n, t)


def _submeshes(ctx, obj, me, faces, loop_id, record, m, used_mats, slots, skinned):
    """One sub-mesh per used material (a shadow volume for shadow shaders), split at the
    vertex and bone limits."""
    formats, materials, shadow = slots
    corner_id = loop_id[faces.tri_loops].reshape(-1, 3)
    subs = []
    for k in used_mats.tolist():
        ids = corner_id[faces.tri_mat == k]
        mask = np.zeros(len(record), bool)
        mask[ids.ravel()] = True
        used = np.flatnonzero(mask)                # ascending: order of first use
        lut = np.zeros(len(record), np.int64)
        lut[used] = np.arange(len(used))
        verts, idx = record[used], lut[ids]
        if shadow[k]:
            volume = shadow_volume(verts[idx], obj if me is obj.data else None, m)
            verts, idx = volume.vertices, volume.indices
            if volume.open_edges:
                ctx.report.warn(f"shadow mesh {obj.name!r} is not closed: {volume.open_edges} "
                                "edges have no opposite face (selected) and are left open; "
                                "the game may show gaps in its shadow", [obj])
        for part_v, part_i in _split(verts, idx, formats[k], skinned):
            subs.append(_submesh(materials[k], formats[k], part_v, part_i, skinned))
    return subs


def _build(ctx, obj, me, bone, name):
    tick = ctx.report.tick
    tick(None)
    faces = _faces(obj, me)
    arm = ctx.arm
    groups = {g.index: g.name for g in obj.vertex_groups}
    bone_of_group = {i: ctx.bone_index[n] for i, n in groups.items() if n in ctx.bone_index}
    has_armature_mod = any(m.type == "ARMATURE" and m.object == arm for m in obj.modifiers)
    skinned = bool(arm is not None and bone_of_group and has_armature_mod)

    # vertex space: model space for skinned meshes, the connected bone's space for rigid ones
    target = np.eye(4) if skinned else inverse(ctx.worlds[bone])
    m = _snap_identity(target @ ctx.to_model(obj))
    slots = _materials(ctx, obj, skinned)
    formats, materials, _ = slots
    used_mats = np.unique(faces.tri_mat)
    need_tangents = any(format_has_tangents(formats[k]) for k in used_mats.tolist())
    tick("  mesh: triangles, positions")
    loops = loop_arrays(me, need_tangents)
    tick("  mesh: corner data, tangents")
    skin = _skin(ctx, obj, me, faces, loops, used_mats, formats, materials, bone_of_group) \
        if skinned else None
    tick("  mesh: weights")
    loop_id, record = _vertices(ctx, obj, me, faces, loops, m, need_tangents, skin)
    tick("  mesh: distinct vertices")
    subs = _submeshes(ctx, obj, me, faces, loop_id, record, m, used_mats, slots, skinned)
    tick("  mesh: sub-meshes, splits")
    if not subs:
        raise ExportError(["has no triangles"])
    allpos = np.concatenate([s.vertices["position"] for s in subs])
    mesh = Mesh(name, subs, allpos.min(axis=0).astype("<f4"), allpos.max(axis=0).astype("<f4"),
                hidden=int(obj.alamo.hidden), collision=int(obj.alamo.collision))
    if mesh.collision:
        for s in subs:
            s.collision_tree = build_collision_tree(s.vertices["position"], s.indices)
        tick("  mesh: collision trees")
    return mesh


def _unit(v):
    length = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, length, out=np.zeros_like(v), where=length > 0)


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


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.int64)


def _split_by_bones(verts, idx, fmt):
    """Runs of triangles using at most 24 bones each. Triangles are ordered by their lowest
    bone so that neighbours share bones; each triangle's bones are a bit set, and a run ends
    where the running union of the sets passes 24 bits."""
    b, use = _bones_used(verts, fmt)
    bones = np.unique(b[use])
    if len(bones) <= MAX_SKIN_BONES:
        return [(verts, idx)]
    dense = np.searchsorted(bones, b)
    words = (len(bones) + 63) // 64
    vmask = np.zeros((len(verts), words), np.uint64)
    for slot in range(b.shape[1]):
        rows = np.flatnonzero(use[:, slot])
        d = dense[rows, slot]
        vmask[rows, d // 64] |= np.left_shift(np.uint64(1), (d % 64).astype(np.uint64))
    lowest = np.where(use, dense, len(bones)).min(axis=1)
    order = np.argsort(lowest[idx].min(axis=1), kind="stable")
    idx = idx[order]
    tmask = vmask[idx[:, 0]] | vmask[idx[:, 1]] | vmask[idx[:, 2]]
    out, start, n = [], 0, len(idx)
    while start < n:
        width = 4096
        while True:
            acc = np.bitwise_or.accumulate(tmask[start:start + width], axis=0)
            count = _POPCOUNT[acc.view(np.uint8)].sum(axis=1)
            over = np.flatnonzero(count > MAX_SKIN_BONES)
            if len(over):
                end = start + max(int(over[0]), 1)
                break
            if start + width >= n:
                end = n
                break
            width *= 2
        out.append(_compact(verts, idx[start:end]))
        start = end
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
