"""Build a collision tree the way Petroglyph's 3ds Max exporter does (see the package docstring).

Phases, each one function: check the inputs; triangle bounds and the root box; split top-down
one level (all nodes of one depth) at a time; lay the nodes out depth first in pairs; tight
boxes bottom-up; outward quantisation top-down.
"""

from dataclasses import dataclass

import numpy as np

from .cuts import best_cuts
from .tree import NODE_DTYPE, CollisionTree, dequantize_bytes, scaled_box


def build_collision_tree(positions, indices, leaf_size: int = 2) -> CollisionTree:
    """Build a collision tree for one sub-mesh the way Petroglyph's 3ds Max exporter does.

    ``positions``: (V, 3) vertex positions (taken as float32, as the file stores them);
    ``indices``: (T, 3) integer triangle vertex indices. Returns a :class:`CollisionTree`
    with the exporter's root box, depth-first pair layout, outward-quantised boxes and
    leaves of at most ``leaf_size`` triangles (the exporter's is 2), listed in depth-first
    leaf order with ascending ids.

    Each inner node is cut where ``volume(left) * n_left + volume(right) * n_right`` is
    smallest, over the triangles sorted by centroid along each axis (ties by triangle id;
    see the module docstring). Volumes are taken with every extent padded by 1e-3 of the
    node's largest, so flat nodes still compare; costs within 1e-9 count as equal and then
    the more even cut wins (so identical or coincident triangles are still halved), then
    the lower axis, then the smaller left side. Nodes of up to 64 triangles try every cut
    leaving at least ``ceil(n / 8)`` on each side, bigger ones the 15 cuts
    ``ceil(k * n / 16)`` leaving at least ``ceil(n / 4)``: depth stays logarithmic.
    Built one depth at a time with numpy (100,000 triangles in about half a second).

    With no triangles the tree has no nodes, an empty triangle list and a zero box: the
    format cannot express an empty tree (a lone node with ``count == 0`` would be an inner
    node), so callers should not write a 0x1200 chunk for an empty sub-mesh.
    Large inputs are built even when they exceed the file's 16-bit counts and links.
    """
    leaf_size, pos, idx = _checked_inputs(positions, indices, leaf_size)
    if len(idx) == 0:
        return CollisionTree(np.zeros(3, np.float32), np.zeros(3, np.float32),
                             np.zeros(0, NODE_DTYPE), np.zeros(0, np.uint32))
    tris = _triangle_bounds(pos, idx)
    built = _split_levels(tris, leaf_size)
    fid, link, triangles, leaf_id = _pair_layout(built)
    bmin, bmax = _tight_boxes(built, tris, triangles, leaf_id)
    qmin, qmax = _quantise_outward(built, bmin, bmax, tris.box_min, tris.box_max)

    nodes = np.zeros(len(built.child), NODE_DTYPE)
    nodes["min"][fid] = qmin
    nodes["max"][fid] = qmax
    nodes["count"][fid] = np.where(built.is_inner, 0, built.count)
    nodes["link"][fid] = link
    return CollisionTree(tris.box_min, tris.box_max, nodes, triangles)


def _checked_inputs(positions, indices, leaf_size):
    """``(leaf_size, positions (V, 3) float32, indices (T, 3) int64)``, or ValueError."""
    leaf_size = int(leaf_size)
    if leaf_size < 1:
        raise ValueError(f"leaf_size must be at least 1, not {leaf_size}")
    pos = np.asarray(positions, dtype=np.float32)
    if pos.size == 0:
        pos = pos.reshape(0, 3)
    if pos.ndim != 2 or pos.shape[1] != 3:
        raise ValueError(f"positions must have shape (V, 3), not {pos.shape}")
    idx = np.asarray(indices)
    if idx.size == 0:
        idx = np.zeros((0, 3), np.int64)
    if idx.ndim != 2 or idx.shape[1] != 3:
        raise ValueError(f"indices must have shape (T, 3), not {idx.shape}")
    if idx.dtype.kind not in "iu":
        raise ValueError(f"indices must be integers, not {idx.dtype}")
    if len(idx):
        idx = idx.astype(np.int64, copy=False)
        if idx.min() < 0 or idx.max() >= len(pos):
            raise ValueError(f"indices must lie in 0..{len(pos) - 1}")
    return leaf_size, pos, idx


@dataclass(slots=True)
class _Triangles:
    """Per-triangle bounds and centroids, and the root box around them."""

    box_min: np.ndarray          # (3,) float32 root box
    box_max: np.ndarray
    tmin: np.ndarray             # (3, T) float64 triangle box minima
    tmax: np.ndarray
    centroids3: np.ndarray       # (T, 3) float64, 3 x centroid (same order as the centroid)
    boxes_t: np.ndarray          # (6, T + 1): -min, max rows and a neutral -inf column at T


def _triangle_bounds(pos, idx):
    v0, v1, v2 = pos[idx[:, 0]], pos[idx[:, 1]], pos[idx[:, 2]]   # (T, 3) float32 each
    tmin32 = np.minimum(np.minimum(v0, v1), v2)
    tmax32 = np.maximum(np.maximum(v0, v1), v2)
    if not (np.isfinite(tmin32).all() and np.isfinite(tmax32).all()):
        raise ValueError("triangle vertex positions must be finite")
    box_min, box_max = scaled_box(tmin32.min(0), tmax32.max(0))
    ntri = len(idx)
    tmin = tmin32.T.astype(np.float64)                 # (3, T)
    tmax = tmax32.T.astype(np.float64)
    cen = v0.astype(np.float64)                        # 3 * centroid: same order
    cen += v1
    cen += v2
    # (-min, max) rows with a neutral column at index T, used to pad segments to one length
    boxes_t = np.full((6, ntri + 1), -np.inf)
    boxes_t[:3, :ntri] = -tmin
    boxes_t[3:, :ntri] = tmax
    return _Triangles(box_min, box_max, tmin, tmax, cen, boxes_t)


@dataclass(slots=True)
class _Built:
    """The tree in build order. Build ids are given level by level, so a level is a
    contiguous id range and a node's two children have consecutive ids."""

    child: np.ndarray            # first child's build id, -1 for a leaf
    count: np.ndarray            # triangles in the node's subtree
    levels: list                 # (first, past last) build id of each level
    is_inner: np.ndarray
    leaf_id: np.ndarray          # leaf build id of each leaf triangle ...
    leaf_tri: np.ndarray         # ... and its triangle id


def _split_levels(tris, leaf_size):
    """Split top-down, one level (all nodes of one depth) at a time."""
    ntri = tris.tmin.shape[1]
    child = [np.array([-1], np.int64)]                 # per level: first child's build id
    count = [np.array([ntri], np.int64)]               # per level: triangles in subtree
    leaf_ids = []                                      # per level: (leaf build id, tri id)
    leaf_tris = []

    ords = np.stack([np.argsort(tris.centroids3[:, a], kind="stable") for a in range(3)])
    if ntri <= leaf_size:
        seg_node = np.zeros(0, np.int64)
        leaf_ids.append(np.zeros(ntri, np.int64))
        leaf_tris.append(ords[0].copy())
        ords = ords[:, :0]
    else:
        seg_node = np.zeros(1, np.int64)               # build ids of the nodes to split
    seg_n = np.array([ntri], np.int64)[: len(seg_node)]
    next_id = 1
    level_first = [0]                                  # build id of each level's first node

    while len(seg_node):
        nseg = len(seg_node)
        segid, rank, cut, axis = _choose_cuts(ords, seg_n, tris.boxes_t, ntri)
        new_ords, is_left_pos = _partition(ords, segid, rank, cut, axis, ntri)

        # Children: pair (2i, 2i+1) of this level's i-th split node.
        child_n = np.empty(2 * nseg, np.int64)
        child_n[0::2] = cut
        child_n[1::2] = seg_n - cut
        first_child = next_id + 2 * np.arange(nseg)
        level_first.append(next_id)
        child.append(np.full(2 * nseg, -1, np.int64))
        count.append(child_n)
        # record the split nodes' first child in their own level's array
        lvl_prev = child[-2]
        lvl_prev[seg_node - level_first[-2]] = first_child
        next_id += 2 * nseg

        which = 2 * segid + ~is_left_pos               # child (level-local) of each position
        child_is_leaf = child_n <= leaf_size
        at_leaf = child_is_leaf[which]
        if at_leaf.any():
            leaf_ids.append(level_first[-1] + which[at_leaf])
            leaf_tris.append(new_ords[0][at_leaf])
        keep = ~at_leaf
        ords = new_ords[:, keep]
        active = ~child_is_leaf
        seg_node = (level_first[-1] + np.arange(2 * nseg))[active]
        seg_n = child_n[active]

    child = np.concatenate(child)
    level_first.append(len(child))
    levels = [(level_first[i], level_first[i + 1]) for i in range(len(level_first) - 1)]
    return _Built(child, np.concatenate(count), levels, child >= 0,
                  np.concatenate(leaf_ids), np.concatenate(leaf_tris))


def _choose_cuts(ords, seg_n, boxes_t, ntri):
    """Each segment's cut (left size) and axis; also every position's segment and rank."""
    nseg = len(seg_n)
    m = ords.shape[1]
    seg_start = np.zeros(nseg, np.int64)
    np.cumsum(seg_n[:-1], out=seg_start[1:])
    segid = np.repeat(np.arange(nseg), seg_n)
    rank = np.arange(m) - seg_start[segid]             # position inside its segment
    # Segments of similar size (same power of two) are costed together in a
    # padded (position, segment) layout.
    cut = np.empty(nseg, np.int64)
    axis = np.empty(nseg, np.int64)
    size_class = np.ceil(np.log2(seg_n)).astype(np.int64)
    el_class = size_class[segid]
    for c in np.unique(size_class):
        segs = np.flatnonzero(size_class == c)
        loc = np.zeros(nseg, np.int64)
        loc[segs] = np.arange(len(segs))
        at = np.flatnonzero(el_class == c) if len(segs) < nseg else np.arange(m)
        cut[segs], axis[segs] = best_cuts(boxes_t, ords, at, rank[at], seg_n[segs],
                                          loc[segid[at]], ntri)
    return segid, rank, cut, axis


def _partition(ords, segid, rank, cut, axis, ntri):
    """Every axis order partitioned stably into each segment's left and right part.

    Which triangles go left: the first ``cut`` of the chosen axis's order. A left element's
    new place is its segment's start plus the lefts before it in the segment, a right one's
    the segment's start plus ``cut`` plus the rights before it. Returns the new orders and,
    per position, whether it was left.
    """
    m = ords.shape[1]
    cut_el = cut[segid]
    is_left_pos = rank < cut_el
    go_left = np.zeros(ntri, bool)
    go_left[ords[axis[segid], np.arange(m)][is_left_pos]] = True
    lefts_before_seg = (np.cumsum(cut) - cut)[segid]
    start_el = np.arange(m) - rank
    base_l = start_el - lefts_before_seg - 1
    base_r = start_el + cut_el + rank + lefts_before_seg
    new_ords = np.empty_like(ords)
    for a in range(3):
        o = ords[a]
        is_l = go_left[o]
        cl = np.cumsum(is_l)
        new_ords[a, np.where(is_l, base_l + cl, base_r - cl)] = o
    return new_ords, is_left_pos


def _pair_layout(built):
    """Depth-first pair layout: final node ids, links, and the triangle list in leaf order.

    Returns ``(final id per build id, link per build id, triangles, leaf build id of each
    entry of triangles)``.
    """
    child, count, levels, is_inner = built.child, built.count, built.levels, built.is_inner
    nbuild = len(child)
    inner_sub = np.zeros(nbuild, np.int64)             # inner nodes in each subtree
    for lo, hi in reversed(levels):
        c = child[lo:hi]
        inn = c >= 0
        inner_sub[lo:hi][inn] = 1 + inner_sub[c[inn]] + inner_sub[c[inn] + 1]
    pre = np.zeros(nbuild, np.int64)                   # pre-order rank among inner nodes
    fid = np.zeros(nbuild, np.int64)                   # final node id
    off = np.zeros(nbuild, np.int64)                   # first slot in the triangle list
    link = np.zeros(nbuild, np.int64)
    for lo, hi in levels:
        ids = np.arange(lo, hi)[is_inner[lo:hi]]
        if not len(ids):
            continue
        c1 = child[ids]
        c2 = c1 + 1
        link[ids] = 1 + 2 * pre[ids]
        fid[c1] = link[ids]
        fid[c2] = link[ids] + 1
        pre[c1] = pre[ids] + 1
        pre[c2] = pre[ids] + 1 + inner_sub[c1]
        off[c1] = off[ids]
        off[c2] = off[ids] + count[c1]
    order = np.lexsort((built.leaf_tri, off[built.leaf_id]))
    triangles = built.leaf_tri[order].astype(np.uint32)
    leaf_id = built.leaf_id[order]
    link[~is_inner] = off[~is_inner]
    return fid, link, triangles, leaf_id


def _tight_boxes(built, tris, triangles, leaf_id):
    """Each node's tight float box (build order), from its leaves up."""
    nbuild = len(built.child)
    bmin = np.empty((nbuild, 3))
    bmax = np.empty((nbuild, 3))
    starts = np.flatnonzero(np.r_[True, leaf_id[1:] != leaf_id[:-1]])
    owners = leaf_id[starts]
    bmin[owners] = np.minimum.reduceat(tris.tmin.T[triangles], starts, axis=0)
    bmax[owners] = np.maximum.reduceat(tris.tmax.T[triangles], starts, axis=0)
    for lo, hi in reversed(built.levels):
        ids = np.arange(lo, hi)[built.is_inner[lo:hi]]
        c1 = built.child[ids]
        bmin[ids] = np.minimum(bmin[c1], bmin[c1 + 1])
        bmax[ids] = np.maximum(bmax[c1], bmax[c1 + 1])
    return bmin, bmax


def _quantise_outward(built, bmin, bmax, box_min, box_max):
    """Byte boxes (build order): floor/ceil against the parent's dequantised box, top-down."""
    child = built.child
    nbuild = len(child)
    qmin = np.zeros((nbuild, 3), np.int64)
    qmax = np.full((nbuild, 3), 255, np.int64)
    dmin = np.empty((nbuild, 3))
    dmax = np.empty((nbuild, 3))
    dmin[0] = box_min
    dmax[0] = box_max
    for lo, hi in built.levels:
        ids = np.arange(lo, hi)[built.is_inner[lo:hi]]
        if not len(ids):
            continue
        kids = np.concatenate([child[ids], child[ids] + 1])
        par = np.concatenate([ids, ids])
        pmin = dmin[par]
        pext = dmax[par] - pmin
        flat = pext <= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            fl = np.floor((bmin[kids] - pmin) / pext * 255.0)
            fh = np.ceil((bmax[kids] - pmin) / pext * 255.0)
        lo_b = np.clip(np.where(flat, 0, np.nan_to_num(fl)), 0, 255)
        hi_b = np.clip(np.where(flat, 255, np.nan_to_num(fh, nan=255.0)), 0, 255)
        # float rounding guard: the dequantised box must hold the tight box
        lo_b = np.where(dequantize_bytes(pmin, pext, lo_b) > bmin[kids],
                        np.maximum(lo_b - 1, 0), lo_b)
        hi_b = np.where(dequantize_bytes(pmin, pext, hi_b) < bmax[kids],
                        np.minimum(hi_b + 1, 255), hi_b)
        lo_b = np.minimum(lo_b, hi_b)
        qmin[kids] = lo_b
        qmax[kids] = hi_b
        dmin[kids] = dequantize_bytes(pmin, pext, lo_b)
        dmax[kids] = dequantize_bytes(pmin, pext, hi_b)
    return qmin, qmax
