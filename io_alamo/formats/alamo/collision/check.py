"""Check a collision tree against its sub-mesh: structure, triangle membership, boxes.

Phases, each one function: read the inputs (never trusting them); header and byte boxes;
walk from the root one depth at a time; leaves and their triangle ranges; triangle
membership; every leaf triangle inside its leaf's box.
"""

import math
from dataclasses import dataclass

import numpy as np

from .tree import dequantize_bytes


def check_collision_tree(tree, positions, indices, tolerance: float = 1e-4, *,
                         rounded_boxes: bool = True) -> list[str]:
    """Problems with ``tree`` as the collision tree of the given sub-mesh; empty if valid.

    Works on any tree (built here or read from a file, ``NODE_DTYPE`` or
    ``FILE_NODE_DTYPE`` nodes) and never raises or hangs on malformed ones. Checks:
    header box finite and ordered; root node spanning 0..255; byte boxes ordered; links in
    range, every node reached from the root exactly once (no cycles, no sharing, nothing
    unreachable); leaf ranges inside ``triangles``, not overlapping, covering it; triangle
    ids in range and each triangle in exactly one leaf (true of every real file); every
    vertex of every leaf triangle inside the leaf's dequantised box.

    The box test allows ``tolerance`` times the root box's largest size. With
    ``rounded_boxes`` (the default) it also allows the error of writers that round byte
    boxes to nearest instead of outward (half a byte step of each ancestor box): some
    community-exported files do that and the game takes them. Pass ``rounded_boxes=False``
    to demand outward quantisation, as Petroglyph's exporter and :func:`build_collision_tree`
    do. An empty tree (no nodes) is valid only for a sub-mesh without triangles.
    """
    problems = []
    try:
        _check(tree, positions, indices, float(tolerance), bool(rounded_boxes), problems)
    except Exception as exc:  # the checker must report, never raise
        problems.append(f"checker could not finish: {type(exc).__name__}: {exc}")
    return problems


def _ids(values, limit=5):
    values = [int(v) for v in np.asarray(values).reshape(-1)[:limit + 1]]
    text = ", ".join(str(v) for v in values[:limit])
    return text + (", ..." if len(values) > limit else "")


@dataclass(slots=True)
class _Mesh:
    pos: np.ndarray              # (V, 3) float64
    idx: np.ndarray              # (T, 3) int64
    ok: bool                     # indices inside the vertices


@dataclass(slots=True)
class _Tree:
    bmin: np.ndarray             # (N, 3) int64 byte boxes
    bmax: np.ndarray
    cnt: np.ndarray              # (N,) int64
    lnk: np.ndarray
    tris: np.ndarray             # (n,) int64 triangle list
    hmin: np.ndarray             # (3,) float64 header box
    hmax: np.ndarray


@dataclass(slots=True)
class _Walk:
    seen: np.ndarray             # times each node was reached from the root
    dmin: np.ndarray             # (N, 3) dequantised float boxes of the nodes reached
    dmax: np.ndarray
    slack: np.ndarray            # (N, 3) allowed rounding error per node


def _check(tree, positions, indices, tolerance, rounded_boxes, problems):
    mesh = _mesh_arrays(positions, indices, problems)
    if mesh is None:
        return
    t = _tree_arrays(tree, problems)
    if t is None:
        return
    ntri = len(mesh.idx)
    if len(t.cnt) == 0:
        if ntri:
            problems.append(f"tree has no nodes but the mesh has {ntri} triangles")
        if len(t.tris):
            problems.append(f"tree has no nodes but lists {len(t.tris)} triangles")
        return
    if not problems and len(t.cnt) <= SMALL_TREE and _small_sound(
            t, mesh, tolerance, rounded_boxes):
        return              # the phases below would find nothing: no need to run them
    box_ok = _check_boxes(t, problems)
    walk = _walk(t, box_ok, problems)
    leaves, slot_leaf, slots = _leaf_slots(t, walk.seen, problems)
    ids, in_mesh = _check_membership(t.tris[slots], ntri, problems)
    if box_ok and mesh.ok:
        _check_containment(mesh, t, walk, leaves[slot_leaf[in_mesh]], ids[in_mesh],
                           tolerance, rounded_boxes, problems)


def _mesh_arrays(positions, indices, problems):
    try:
        pos = np.asarray(positions, dtype=np.float64)
        pos = pos.reshape(-1, 3) if pos.size else pos.reshape(0, 3)
    except (ValueError, TypeError) as exc:
        problems.append(f"positions are not an (V, 3) array: {exc}")
        return None
    idx = np.asarray(indices)
    if idx.size == 0:
        idx = np.zeros((0, 3), np.int64)
    if idx.ndim != 2 or idx.shape[1] != 3 or idx.dtype.kind not in "iu":
        problems.append(f"indices are not an integer (T, 3) array: {idx.dtype} {idx.shape}")
        return None
    idx = idx.astype(np.int64)
    ok = True
    if len(idx) and (idx.min() < 0 or idx.max() >= len(pos)):
        problems.append(f"the mesh's indices run outside its {len(pos)} vertices")
        ok = False
    return _Mesh(pos, idx, ok)


def _tree_arrays(tree, problems):
    raw = getattr(tree, "nodes", None)
    names = getattr(getattr(raw, "dtype", None), "names", None) or ()
    if not {"min", "max", "count", "link"} <= set(names):
        problems.append("tree.nodes is not an array of node records (min, max, count, link)")
        return None
    raw = raw.reshape(-1)
    nnodes = len(raw)
    try:
        bmin = np.asarray(raw["min"], dtype=np.int64).reshape(nnodes, 3)
        bmax = np.asarray(raw["max"], dtype=np.int64).reshape(nnodes, 3)
        cnt = np.asarray(raw["count"], dtype=np.int64).reshape(nnodes)
        lnk = np.asarray(raw["link"], dtype=np.int64).reshape(nnodes)
    except (ValueError, TypeError) as exc:
        problems.append(f"tree.nodes has malformed fields: {exc}")
        return None
    try:
        tris = np.asarray(tree.triangles).reshape(-1)
        if tris.size and tris.dtype.kind not in "iu":
            raise TypeError(f"dtype {tris.dtype}")
        tris = tris.astype(np.int64)
    except (AttributeError, ValueError, TypeError) as exc:
        problems.append(f"tree.triangles is not an integer array: {exc}")
        return None
    try:
        hmin = np.asarray(tree.box_min, dtype=np.float64).reshape(3)
        hmax = np.asarray(tree.box_max, dtype=np.float64).reshape(3)
    except (AttributeError, ValueError, TypeError) as exc:
        problems.append(f"tree box is not two 3-vectors: {exc}")
        return None
    return _Tree(bmin, bmax, cnt, lnk, tris, hmin, hmax)


def _check_boxes(t, problems):
    """Header box and byte boxes; True if the header box can be used for the box test."""
    hmin, hmax, bmin, bmax = t.hmin, t.hmax, t.bmin, t.bmax
    box_ok = bool(np.isfinite(hmin).all() and np.isfinite(hmax).all())
    if not box_ok:
        problems.append(f"root box is not finite: {hmin} .. {hmax}")
    elif (hmin > hmax).any():
        problems.append(f"root box min {hmin} exceeds max {hmax}")
        box_ok = False
    if (bmin[0] != 0).any() or (bmax[0] != 255).any():
        problems.append(f"root node box is {bmin[0].tolist()}..{bmax[0].tolist()}, not 0..255")
    bad = np.flatnonzero((bmin > bmax).any(1))
    if len(bad):
        problems.append(f"{len(bad)} nodes have a byte box min above max (nodes {_ids(bad)})")
    bad = np.flatnonzero((bmin < 0).any(1) | (bmax > 255).any(1))
    if len(bad):
        problems.append(f"{len(bad)} nodes have byte boxes outside 0..255 (nodes {_ids(bad)})")
    bad = np.flatnonzero((t.cnt < 0) | (t.lnk < 0))
    if len(bad):
        problems.append(f"{len(bad)} nodes have a negative count or link (nodes {_ids(bad)})")
    return box_ok


SMALL_TREE = 32      # nodes; up to this, the walk in plain Python costs less than numpy calls


def _walk(t, box_ok, problems):
    """Walk from the root, one depth at a time: reach counts and dequantised boxes."""
    cnt, lnk = t.cnt, t.lnk
    nnodes = len(cnt)
    if nnodes <= SMALL_TREE:
        seen, dmin, dmax, slack, bad_link, multi = _walk_small(t, box_ok)
        return _walk_result(nnodes, seen, dmin, dmax, slack, bad_link, multi, problems)
    seen = np.zeros(nnodes, np.int64)
    seen[0] = 1
    dmin = np.zeros((nnodes, 3))
    dmax = np.zeros((nnodes, 3))
    slack = np.zeros((nnodes, 3))                      # allowed rounding error per node
    dmin[0] = t.hmin if box_ok else 0.0
    dmax[0] = t.hmax if box_ok else 0.0
    frontier = np.array([0], np.int64)
    bad_link, multi = [], []
    while len(frontier):
        inner = frontier[cnt[frontier] == 0]
        left = lnk[inner]
        in_range = (left >= 0) & (left < nnodes - 1)
        if not in_range.all():
            bad_link.append(inner[~in_range])
            inner, left = inner[in_range], left[in_range]
        if not len(inner):
            break
        kids = np.concatenate((left, left + 1))
        par2 = np.concatenate((inner, inner))
        seen += np.bincount(kids, minlength=nnodes)
        fresh = seen[kids] == 1                        # reached for the first time, once
        if not fresh.all():
            multi.append(kids[~fresh])
            kids, par2 = kids[fresh], par2[fresh]
        order = np.argsort(kids)                       # the next depth in node order
        kids, par2 = kids[order], par2[order]
        pmin = dmin[par2]
        pext = dmax[par2] - pmin
        dmin[kids] = dequantize_bytes(pmin, pext, t.bmin[kids])
        dmax[kids] = dequantize_bytes(pmin, pext, t.bmax[kids])
        slack[kids] = slack[par2] + 0.5 / 255.0 * pext
        frontier = kids
    bad_link = np.concatenate(bad_link) if bad_link else ()
    multi = np.unique(np.concatenate(multi)) if multi else ()
    return _walk_result(nnodes, seen, dmin, dmax, slack, bad_link, multi, problems)


def _walk_result(nnodes, seen, dmin, dmax, slack, bad_link, multi, problems):
    if len(bad_link):
        problems.append(f"{len(bad_link)} inner nodes link to children outside the "
                        f"{nnodes} nodes (nodes {_ids(bad_link)})")
    if len(multi):
        problems.append(f"{len(multi)} nodes are reached more than once from the root "
                        f"(a cycle or a shared child; nodes {_ids(multi)})")
    unreached = np.flatnonzero(seen == 0)
    if len(unreached):
        problems.append(f"{len(unreached)} nodes are not reachable from the root "
                        f"(nodes {_ids(unreached)})")
    return _Walk(seen, dmin, dmax, slack)


def _leaf_slots(t, seen, problems):
    """Leaves reached and their triangle ranges: ``(leaves, leaf of each slot, slots)``,
    where the slots are the positions in the triangle list the kept leaves cover."""
    cnt, lnk, ntris = t.cnt, t.lnk, len(t.tris)
    leaves = np.flatnonzero((seen > 0) & (cnt > 0))
    start, stop = lnk[leaves], lnk[leaves] + cnt[leaves]
    inside = (start >= 0) & (stop <= ntris)
    if (~inside).any():
        problems.append(f"{int((~inside).sum())} leaves have triangle ranges past the "
                        f"{ntris} listed triangles (nodes {_ids(leaves[~inside])})")
    leaves, start, stop = leaves[inside], start[inside], stop[inside]
    order = np.argsort(start, kind="stable")
    overlap = stop[order][:-1] > start[order][1:]
    if overlap.any():
        problems.append(f"{int(overlap.sum())} leaf triangle ranges overlap the next one "
                        f"(nodes {_ids(leaves[order][:-1][overlap])})")
        # keep the work bounded: drop leaves that overlap an earlier one
        reach = np.maximum.accumulate(stop[order])
        ok = np.r_[True, start[order][1:] >= reach[:-1]]
        leaves, start, stop = leaves[order][ok], start[order][ok], stop[order][ok]
    sizes = stop - start
    used = np.zeros(ntris, bool)
    slot_leaf = np.repeat(np.arange(len(leaves)), sizes)
    slots = np.arange(len(slot_leaf)) - np.repeat(np.cumsum(sizes) - sizes, sizes) \
        + np.repeat(start, sizes)
    used[slots] = True
    if ntris and not used.all():
        problems.append(f"{int((~used).sum())} entries of the triangle list belong to no leaf")
    return leaves, slot_leaf, slots


def _check_membership(ids, ntri, problems):
    """Each mesh triangle in exactly one leaf; returns the ids and which are in the mesh."""
    in_mesh = (ids >= 0) & (ids < ntri)
    if (~in_mesh).any():
        problems.append(f"{int((~in_mesh).sum())} leaf triangle ids are not below the mesh's "
                        f"{ntri} triangles (ids {_ids(ids[~in_mesh])})")
    refs = np.bincount(ids[in_mesh], minlength=ntri)
    missing = np.flatnonzero(refs == 0)
    if len(missing):
        problems.append(f"{len(missing)} triangles are in no leaf (triangles {_ids(missing)})")
    dup = np.flatnonzero(refs > 1)
    if len(dup):
        problems.append(f"{len(dup)} triangles are in more than one leaf (triangles {_ids(dup)})")
    return ids, in_mesh


def _check_containment(mesh, t, walk, node, ids, tolerance, rounded_boxes, problems):
    """Every vertex of leaf triangle ``ids[k]`` inside the box of its leaf ``node[k]``."""
    verts = mesh.pos[mesh.idx[ids]]                    # (K, 3, 3)
    if not np.isfinite(verts).all():
        problems.append("some leaf triangles have non-finite vertex positions")
        return
    hmin, hmax = t.hmin, t.hmax
    scale = float((hmax - hmin).max())
    big = float(max(np.abs(hmin).max(), np.abs(hmax).max()))
    allow = tolerance * scale + 2.0 ** -20 * big       # plus float32 rounding of the file
    allow = allow + (walk.slack[node] if rounded_boxes else 0.0)    # (K, 3) or scalar
    allow = np.broadcast_to(allow, (len(node), 3))
    below = (walk.dmin[node][:, None, :] - verts) - allow[:, None, :]
    above = (verts - walk.dmax[node][:, None, :]) - allow[:, None, :]
    excess = np.maximum(below, above).max(axis=(1, 2))
    out = np.flatnonzero(excess > 0)
    if len(out):
        worst = out[np.argmax(excess[out])]
        problems.append(
            f"{len(out)} triangles poke out of their leaf's box (triangles {_ids(ids[out])}; "
            f"worst: triangle {int(ids[worst])} in node {int(node[worst])}, "
            f"{float(excess[worst]):.6g} beyond the allowance)")


def _walk_small(t, box_ok):
    """:func:`_walk`'s steps on Python numbers, for a small tree: the same depths, order and
    float64 arithmetic (``dequantize_bytes`` per value), so the same arrays and problems."""
    nnodes = len(t.cnt)
    seen, dmin, dmax, slack, bad_link, multi = _walk_lists(t, box_ok)
    return (np.array(seen, np.int64), np.array(dmin, np.float64).reshape(nnodes, 3),
            np.array(dmax, np.float64).reshape(nnodes, 3),
            np.array(slack, np.float64).reshape(nnodes, 3), bad_link, multi)


def _walk_lists(t, box_ok):
    """:func:`_walk_small`'s walk, its results as Python lists (``multi`` sorted)."""
    cnt, lnk = t.cnt.tolist(), t.lnk.tolist()
    bmin, bmax = t.bmin.tolist(), t.bmax.tolist()
    nnodes = len(cnt)
    seen = [0] * nnodes
    seen[0] = 1
    zero = [0.0, 0.0, 0.0]
    dmin, dmax, slack = [zero] * nnodes, [zero] * nnodes, [zero] * nnodes
    if box_ok:
        dmin[0], dmax[0] = t.hmin.tolist(), t.hmax.tolist()
    frontier, bad_link, multi = [0], [], set()
    while frontier:
        inner, left = [], []
        for n in frontier:
            if cnt[n] == 0:
                if 0 <= lnk[n] < nnodes - 1:
                    inner.append(n)
                    left.append(lnk[n])
                else:
                    bad_link.append(n)
        if not inner:
            break
        kids = left + [k + 1 for k in left]
        for k in kids:
            seen[k] += 1
        fresh = sorted((k, p) for k, p in zip(kids, inner + inner) if seen[k] == 1)
        multi.update(k for k in kids if seen[k] != 1)
        for k, p in fresh:
            pmin = dmin[p]
            pext = [hi - lo for hi, lo in zip(dmax[p], pmin)]
            dmin[k] = [lo + (b / 255.0) * e for lo, b, e in zip(pmin, bmin[k], pext)]
            dmax[k] = [lo + (b / 255.0) * e for lo, b, e in zip(pmin, bmax[k], pext)]
            slack[k] = [s + 0.5 / 255.0 * e for s, e in zip(slack[p], pext)]
        frontier = [k for k, _ in fresh]
    return seen, dmin, dmax, slack, bad_link, sorted(multi)


def _small_sound(t, mesh, tolerance, rounded_boxes):
    """Whether the checker would find nothing in a small tree, all in plain Python (no numpy
    call per phase): the header box finite and ordered, the root box 0..255, every byte box
    ordered inside 0..255, no count or link negative (:func:`_check_boxes`), every node
    reached once from the root (:func:`_walk_lists`), then :func:`_small_rest_sound`. False
    whenever it is not sure: the phases then run and say what is wrong."""
    try:
        hmin, hmax = t.hmin.tolist(), t.hmax.tolist()
        if not all(math.isfinite(v) for v in hmin + hmax) or any(
                lo > hi for lo, hi in zip(hmin, hmax)):
            return False
        bmin, bmax = t.bmin.tolist(), t.bmax.tolist()
        if bmin[0] != [0, 0, 0] or bmax[0] != [255, 255, 255]:
            return False
        if not all(0 <= a <= b <= 255 for lo, hi in zip(bmin, bmax) for a, b in zip(lo, hi)):
            return False
        if min(t.cnt.tolist()) < 0 or min(t.lnk.tolist()) < 0:
            return False
        seen, dmin, dmax, slack, bad_link, multi = _walk_lists(t, True)
        if bad_link or multi or 0 in seen:
            return False
        return _small_rest_sound(t, mesh, (dmin, dmax, slack), tolerance, rounded_boxes)
    except Exception:       # whatever it cannot look at, the phases look at
        return False


def _small_rest_sound(t, mesh, boxes, tolerance, rounded_boxes):
    """Whether the leaf, membership and containment phases would find nothing in a small
    tree whose boxes and walk found nothing (so every node is reached once, no count or link
    is negative and the boxes are usable): the leaves' ranges tile the triangle list, which
    holds each mesh triangle once, and every vertex of a leaf's triangles is inside its box
    by the same float64 arithmetic. Plain Python; False whenever it is not sure."""
    try:
        cnt, lnk, tris = t.cnt.tolist(), t.lnk.tolist(), t.tris.tolist()
        if sorted(tris) != list(range(len(mesh.idx))):
            return False
        ranges = sorted((lnk[n], lnk[n] + cnt[n], n) for n in range(len(cnt)) if cnt[n] > 0)
        at = 0
        for start, stop, _ in ranges:
            if start != at:             # a gap or an overlap
                return False
            at = stop
        if at != len(tris):
            return False
        verts = mesh.pos[mesh.idx[t.tris]].tolist()         # (K, 3, 3), in slot order
        hmin, hmax = t.hmin.tolist(), t.hmax.tolist()
        scale = max(hi - lo for lo, hi in zip(hmin, hmax))
        big = max(max(abs(v) for v in hmin), max(abs(v) for v in hmax))
        allow = tolerance * scale + 2.0 ** -20 * big
        dmin, dmax, slack = boxes       # the walk's boxes and slack, as lists
        for start, stop, n in ranges:
            lo, hi = dmin[n], dmax[n]
            room = [allow + e for e in slack[n]] if rounded_boxes else [allow + 0.0] * 3
            for tri in verts[start:stop]:
                for v in tri:
                    for c in (0, 1, 2):
                        if not ((lo[c] - v[c]) - room[c] <= 0 and (v[c] - hi[c]) - room[c] <= 0):
                            return False
        return True
    except Exception:       # whatever it cannot look at, the phases look at
        return False
