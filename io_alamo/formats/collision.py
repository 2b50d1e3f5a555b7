"""Collision trees (``0x1200``): the record, a builder like the 3ds Max exporter's, a checker.

A tree is a binary tree of boxes. The root box is the header's float box (``box_min`` to
``box_max``) and the root node spans 0..255 of it. Every other node's byte box is relative
to its parent's box: 0..255 spans the parent box. An inner node (``count == 0``) has its two
children at ``link`` and ``link + 1``; a leaf holds ``count`` triangle ids starting at
``triangles[link]``.

What Petroglyph's exporter writes (checked on the game's own files):

* the header box is the bounding box of the sub-mesh's triangles scaled by 1.01 about its
  centre (0.5 % of its size added on each side of each axis), computed in float32;
* node byte boxes are the tight box of the node's triangles quantised outward (floor the
  minimum, ceil the maximum) against the parent's dequantised box;
* a node with at most two triangles is a leaf, so leaves hold one or two triangles;
* the split of an inner node is a cut of its triangles sorted by centroid along one axis,
  the lower part first; the cut matches, on most nodes, the one that minimises
  ``volume(left box) * n_left + volume(right box) * n_right`` over all three axes (the
  exporter's exact rule is not known: it sometimes picks a slightly different cut);
* layout is depth first with children allocated in pairs: a node's pair is allocated, then
  the first child's whole subtree, then the second child's;
* the triangle list holds the leaves' triangles in that same depth-first leaf order, each
  leaf's ids ascending, every triangle exactly once.

Some community-exported files instead round byte boxes to nearest (so a triangle can poke out
of its leaf box by up to half a byte step per level), lay nodes out breadth first and put one
triangle per leaf; the game reads them, so the checker accepts them by default.

Nothing here imports bpy: numpy and the standard library only.
"""

from dataclasses import dataclass, field

import numpy as np

# In memory the counts and links are 32-bit so that trees larger than the file allows can
# still be built and checked; the writer refuses values that do not fit the file's 16 bits.
NODE_DTYPE = np.dtype([("min", "u1", (3,)), ("max", "u1", (3,)), ("count", "<u4"), ("link", "<u4")])
FILE_NODE_DTYPE = np.dtype([("min", "u1", (3,)), ("max", "u1", (3,)), ("count", "<u2"), ("link", "<u2")])


@dataclass(eq=False)
class CollisionTree:
    box_min: np.ndarray          # (3,) float32, the root box
    box_max: np.ndarray          # (3,) float32
    nodes: np.ndarray            # NODE_DTYPE records
    triangles: np.ndarray        # (n,) uint32 triangle ids into the sub-mesh's index buffer
    layout: object = field(default=None, repr=False)


# The exporter scales the triangles' bounding box by this about its centre for the root box.
ROOT_BOX_SCALE = 1.01
# A split may not put fewer than ceil(n / SPLIT_WINDOW) triangles on one side: keeps the
# depth logarithmic whatever the cost says (all real splits seen respect it).
SPLIT_WINDOW = 8
# Box extents are padded by this fraction of the node's largest extent before taking
# volumes, so that flat (zero-volume) nodes still have a meaningful cost.
_VOLUME_PAD = 1e-3
# Costs this close (relative) to the cheapest count as equal: the more even cut wins.
_TIE = 1e-9


def _dequantize(pmin, pext, b):
    """Float bound of byte ``b`` in a parent box starting at ``pmin`` with size ``pext``.

    One formula shared by the builder and the checker, in float64.
    """
    return pmin + (np.asarray(b, dtype=np.float64) / 255.0) * pext


def root_box(positions, indices):
    """The exporter's header box for these triangles: float32 ``(box_min, box_max)``."""
    pos = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
    idx = np.asarray(indices).reshape(-1, 3)
    if len(idx) == 0:
        return np.zeros(3, np.float32), np.zeros(3, np.float32)
    pts = pos[idx].reshape(-1, 3)
    lo = pts.min(0)
    hi = pts.max(0)
    # float32, in the exporter's order of operations (bit-exact on the game's files)
    centre = (lo + hi) / np.float32(2)
    half = (hi - lo) / np.float32(2) * np.float32(ROOT_BOX_SCALE)
    return np.minimum(centre - half, lo), np.maximum(centre + half, hi)


# --------------------------------------------------------------------------------------
# Builder
# --------------------------------------------------------------------------------------

def _segmented_cummax(v, segid, seg_start, reverse=False):
    """Running maximum along each row of ``v`` (rows, M), restarting at every segment.

    Segments are contiguous runs of equal ``segid`` (0, 1, 2, ... along the row) starting
    at ``seg_start``. Done with one ``np.maximum.accumulate`` by shifting every segment to
    start at zero and lifting it above all earlier ones; the lift costs some low bits of
    precision (about 1e-16 times the number of segments, relative to the largest segment's
    range), fine for split costs: the boxes that get written are computed exactly.
    """
    nseg = len(seg_start)
    base = np.minimum.reduceat(v, seg_start, axis=1)[:, segid]
    w = v - base
    big = float(w.max()) * 2.0
    if not big > 0:
        return v.copy()
    if reverse:
        off = ((nseg - 1 - segid) * big)[::-1]
        w = w[:, ::-1] + off
        np.maximum.accumulate(w, axis=1, out=w)
        w -= off
        w = w[:, ::-1]
    else:
        off = segid * big
        w += off
        np.maximum.accumulate(w, axis=1, out=w)
        w -= off
    w += base
    return w


def build_collision_tree(positions, indices, leaf_size=2) -> CollisionTree:
    """Build a collision tree for one sub-mesh the way Petroglyph's 3ds Max exporter does.

    ``positions``: (V, 3) vertex positions (taken as float32, as the file stores them);
    ``indices``: (T, 3) integer triangle vertex indices. Returns a :class:`CollisionTree`
    with the exporter's root box, depth-first pair layout, outward-quantised boxes and
    leaves of at most ``leaf_size`` triangles (the exporter's is 2), listed in depth-first
    leaf order with ascending ids.

    Each inner node is cut where ``volume(left) * n_left + volume(right) * n_right`` is
    smallest, over the triangles sorted by centroid along each axis (see the module
    docstring); equal costs go to the more even cut, so identical or coincident triangles
    are still halved. Neither side gets fewer than ``ceil(n / 8)`` triangles.

    With no triangles the tree has no nodes, an empty triangle list and a zero box: the
    format cannot express an empty tree (a lone node with ``count == 0`` would be an inner
    node), so callers should not write a 0x1200 chunk for an empty sub-mesh.
    Large inputs are built even when they exceed the file's 16-bit counts and links.
    """
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
    ntri = len(idx)
    if ntri == 0:
        return CollisionTree(np.zeros(3, np.float32), np.zeros(3, np.float32),
                             np.zeros(0, NODE_DTYPE), np.zeros(0, np.uint32))
    idx = idx.astype(np.int64, copy=False)
    if idx.min() < 0 or idx.max() >= len(pos):
        raise ValueError(f"indices must lie in 0..{len(pos) - 1}")
    tri32 = pos[idx]                                   # (T, 3 vertices, 3 axes) float32
    if not np.isfinite(tri32).all():
        raise ValueError("triangle vertex positions must be finite")
    box_min, box_max = root_box(pos, idx)

    tri = tri32.astype(np.float64)
    tmin = np.ascontiguousarray(tri.min(1).T)          # (3, T)
    tmax = np.ascontiguousarray(tri.max(1).T)
    cen = tri.sum(1)                                   # 3 * centroid: same order

    # ---- top-down, one level (all nodes of one depth) at a time --------------------
    # Build ids are given level by level, so a level is a contiguous id range and a
    # node's two children have consecutive ids.
    child = [np.array([-1], np.int64)]                 # per level: first child's build id
    count = [np.array([ntri], np.int64)]               # per level: triangles in subtree
    leaf_ids = []                                      # per level: (leaf build id, tri id)
    leaf_tris = []

    ords = np.stack([np.argsort(cen[:, a], kind="stable") for a in range(3)])  # (3, M)
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
        m = ords.shape[1]
        seg_start = np.zeros(nseg, np.int64)
        np.cumsum(seg_n[:-1], out=seg_start[1:])
        segid = np.repeat(np.arange(nseg), seg_n)
        rank = np.arange(m) - seg_start[segid]         # position inside its segment
        n_el = seg_n[segid]
        s_el = rank + 1                                # left size if cut after this element
        lo_s = np.maximum(1, -(-seg_n // SPLIT_WINDOW))
        valid = (s_el >= lo_s[segid]) & (s_el <= (seg_n - lo_s)[segid])
        seg_end = seg_start + seg_n - 1

        costs = np.empty((3, m))
        pad = None
        for a in range(3):
            o = ords[a]
            v = np.concatenate([-tmin[:, o], tmax[:, o]])     # (6, M): -min, max
            fwd = _segmented_cummax(v, segid, seg_start)
            bwd = _segmented_cummax(v, segid, seg_start, reverse=True)
            el = fwd[3:] + fwd[:3]                             # left box extents
            if pad is None:
                node_ext = el[:, seg_end].max(0)
                pad_seg = np.where(node_ext > 0, _VOLUME_PAD * node_ext, 1.0)
                pad = pad_seg[segid]
            er = np.empty_like(el)                             # right box extents
            er[:, :-1] = bwd[3:, 1:] + bwd[:3, 1:]
            er[:, -1] = 0.0
            vl = (el[0] + pad) * (el[1] + pad) * (el[2] + pad)
            vr = (er[0] + pad) * (er[1] + pad) * (er[2] + pad)
            c = vl * s_el + vr * (n_el - s_el)
            c[~valid] = np.inf
            costs[a] = c

        # Cheapest cut per node; ties go to the most even cut, then the lower axis,
        # then the smaller left side.
        best = np.minimum.reduceat(costs.min(0), seg_start)
        tie = costs <= best[segid] * (1.0 + _TIE)
        key = (np.abs(2 * s_el - n_el) * 3 + np.arange(3)[:, None]) * (n_el + 1) + s_el
        key = np.where(tie, key, np.iinfo(np.int64).max)
        kbest = np.minimum.reduceat(key.min(0), seg_start)
        cut = kbest % (seg_n + 1)                      # left child's triangle count
        axis = (kbest // (seg_n + 1)) % 3

        # Which triangles go left, then a stable partition of every axis order.
        go_left = np.zeros(ntri, bool)
        left_pos = rank < cut[segid]
        for a in range(3):
            sel = left_pos & (axis[segid] == a)
            go_left[ords[a][sel]] = True
        new_ords = np.empty_like(ords)
        for a in range(3):
            o = ords[a]
            is_l = go_left[o]
            cl = np.cumsum(is_l) - is_l
            rank_l = cl - cl[seg_start][segid]
            newpos = seg_start[segid] + np.where(is_l, rank_l, cut[segid] + (rank - rank_l))
            new_ords[a, newpos] = o

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

        which = 2 * segid + (rank >= cut[segid])       # child (level-local) of each position
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
    count = np.concatenate(count)
    nbuild = len(child)
    level_first.append(nbuild)
    levels = [(level_first[i], level_first[i + 1]) for i in range(len(level_first) - 1)]
    is_inner = child >= 0

    # ---- depth-first pair layout -----------------------------------------------------
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
    leaf_id = np.concatenate(leaf_ids)
    leaf_tri = np.concatenate(leaf_tris)
    order = np.lexsort((leaf_tri, off[leaf_id]))
    triangles = leaf_tri[order].astype(np.uint32)
    leaf_id = leaf_id[order]
    link[~is_inner] = off[~is_inner]

    # ---- tight boxes bottom-up, outward quantisation top-down ------------------------
    bmin = np.empty((nbuild, 3))
    bmax = np.empty((nbuild, 3))
    starts = np.flatnonzero(np.r_[True, leaf_id[1:] != leaf_id[:-1]])
    owners = leaf_id[starts]
    bmin[owners] = np.minimum.reduceat(tmin.T[triangles], starts, axis=0)
    bmax[owners] = np.maximum.reduceat(tmax.T[triangles], starts, axis=0)
    for lo, hi in reversed(levels):
        ids = np.arange(lo, hi)[is_inner[lo:hi]]
        c1 = child[ids]
        bmin[ids] = np.minimum(bmin[c1], bmin[c1 + 1])
        bmax[ids] = np.maximum(bmax[c1], bmax[c1 + 1])

    qmin = np.zeros((nbuild, 3), np.int64)
    qmax = np.full((nbuild, 3), 255, np.int64)
    dmin = np.empty((nbuild, 3))
    dmax = np.empty((nbuild, 3))
    dmin[0] = box_min
    dmax[0] = box_max
    for lo, hi in levels:
        ids = np.arange(lo, hi)[is_inner[lo:hi]]
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
        lo_b = np.where(_dequantize(pmin, pext, lo_b) > bmin[kids], np.maximum(lo_b - 1, 0), lo_b)
        hi_b = np.where(_dequantize(pmin, pext, hi_b) < bmax[kids], np.minimum(hi_b + 1, 255), hi_b)
        lo_b = np.minimum(lo_b, hi_b)
        qmin[kids] = lo_b
        qmax[kids] = hi_b
        dmin[kids] = _dequantize(pmin, pext, lo_b)
        dmax[kids] = _dequantize(pmin, pext, hi_b)

    nodes = np.zeros(nbuild, NODE_DTYPE)
    nodes["min"][fid] = qmin
    nodes["max"][fid] = qmax
    nodes["count"][fid] = np.where(is_inner, 0, count)
    nodes["link"][fid] = link
    return CollisionTree(box_min, box_max, nodes, triangles)


# --------------------------------------------------------------------------------------
# Checker
# --------------------------------------------------------------------------------------

def _ids(values, limit=5):
    values = [int(v) for v in np.asarray(values).reshape(-1)[:limit + 1]]
    text = ", ".join(str(v) for v in values[:limit])
    return text + (", ..." if len(values) > limit else "")


def check_collision_tree(tree, positions, indices, tolerance=1e-4, *,
                         rounded_boxes=True) -> list[str]:
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


def _check(tree, positions, indices, tolerance, rounded_boxes, problems):
    # ---- inputs ----
    try:
        pos = np.asarray(positions, dtype=np.float64)
        pos = pos.reshape(-1, 3) if pos.size else pos.reshape(0, 3)
    except (ValueError, TypeError) as exc:
        problems.append(f"positions are not an (V, 3) array: {exc}")
        return
    idx = np.asarray(indices)
    if idx.size == 0:
        idx = np.zeros((0, 3), np.int64)
    if idx.ndim != 2 or idx.shape[1] != 3 or idx.dtype.kind not in "iu":
        problems.append(f"indices are not an integer (T, 3) array: {idx.dtype} {idx.shape}")
        return
    idx = idx.astype(np.int64)
    ntri = len(idx)
    mesh_ok = True
    if ntri and (idx.min() < 0 or idx.max() >= len(pos)):
        problems.append(f"the mesh's indices run outside its {len(pos)} vertices")
        mesh_ok = False

    raw = getattr(tree, "nodes", None)
    names = getattr(getattr(raw, "dtype", None), "names", None) or ()
    if not {"min", "max", "count", "link"} <= set(names):
        problems.append("tree.nodes is not an array of node records (min, max, count, link)")
        return
    raw = raw.reshape(-1)
    nnodes = len(raw)
    try:
        bmin = np.asarray(raw["min"], dtype=np.int64).reshape(nnodes, 3)
        bmax = np.asarray(raw["max"], dtype=np.int64).reshape(nnodes, 3)
        cnt = np.asarray(raw["count"], dtype=np.int64).reshape(nnodes)
        lnk = np.asarray(raw["link"], dtype=np.int64).reshape(nnodes)
    except (ValueError, TypeError) as exc:
        problems.append(f"tree.nodes has malformed fields: {exc}")
        return
    try:
        tris = np.asarray(tree.triangles).reshape(-1)
        if tris.size and tris.dtype.kind not in "iu":
            raise TypeError(f"dtype {tris.dtype}")
        tris = tris.astype(np.int64)
    except (AttributeError, ValueError, TypeError) as exc:
        problems.append(f"tree.triangles is not an integer array: {exc}")
        return
    try:
        hmin = np.asarray(tree.box_min, dtype=np.float64).reshape(3)
        hmax = np.asarray(tree.box_max, dtype=np.float64).reshape(3)
    except (AttributeError, ValueError, TypeError) as exc:
        problems.append(f"tree box is not two 3-vectors: {exc}")
        return

    if nnodes == 0:
        if ntri:
            problems.append(f"tree has no nodes but the mesh has {ntri} triangles")
        if len(tris):
            problems.append(f"tree has no nodes but lists {len(tris)} triangles")
        return

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
    bad = np.flatnonzero((cnt < 0) | (lnk < 0))
    if len(bad):
        problems.append(f"{len(bad)} nodes have a negative count or link (nodes {_ids(bad)})")

    # ---- walk from the root, one depth at a time ----
    seen = np.zeros(nnodes, np.int64)
    seen[0] = 1
    dmin = np.zeros((nnodes, 3))
    dmax = np.zeros((nnodes, 3))
    slack = np.zeros((nnodes, 3))                      # allowed rounding error per node
    dmin[0] = hmin if box_ok else 0.0
    dmax[0] = hmax if box_ok else 0.0
    frontier = np.array([0], np.int64)
    bad_link, multi = [], []
    while len(frontier):
        inner = frontier[cnt[frontier] == 0]
        in_range = (lnk[inner] >= 0) & (lnk[inner] + 1 < nnodes)
        bad_link.append(inner[~in_range])
        par = inner[in_range]
        if not len(par):
            break
        kids = np.concatenate([lnk[par], lnk[par] + 1])
        par2 = np.concatenate([par, par])
        np.add.at(seen, kids, 1)
        uniq, first = np.unique(kids, return_index=True)
        fresh = seen[uniq] == 1                        # reached for the first time, once
        multi.append(uniq[~fresh])
        kids, par2 = uniq[fresh], par2[first[fresh]]
        pmin = dmin[par2]
        pext = dmax[par2] - pmin
        dmin[kids] = _dequantize(pmin, pext, bmin[kids])
        dmax[kids] = _dequantize(pmin, pext, bmax[kids])
        slack[kids] = slack[par2] + 0.5 / 255.0 * pext
        frontier = kids
    bad_link = np.concatenate(bad_link)
    if len(bad_link):
        problems.append(f"{len(bad_link)} inner nodes link to children outside the "
                        f"{nnodes} nodes (nodes {_ids(bad_link)})")
    multi = np.unique(np.concatenate(multi)) if multi else np.zeros(0, np.int64)
    if len(multi):
        problems.append(f"{len(multi)} nodes are reached more than once from the root "
                        f"(a cycle or a shared child; nodes {_ids(multi)})")
    unreached = np.flatnonzero(seen == 0)
    if len(unreached):
        problems.append(f"{len(unreached)} nodes are not reachable from the root "
                        f"(nodes {_ids(unreached)})")

    # ---- leaves and their triangle ranges ----
    leaves = np.flatnonzero((seen > 0) & (cnt > 0))
    start, stop = lnk[leaves], lnk[leaves] + cnt[leaves]
    inside = (start >= 0) & (stop <= len(tris))
    if (~inside).any():
        problems.append(f"{int((~inside).sum())} leaves have triangle ranges past the "
                        f"{len(tris)} listed triangles (nodes {_ids(leaves[~inside])})")
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
    used = np.zeros(len(tris), bool)
    slot_leaf = np.repeat(np.arange(len(leaves)), sizes)
    slots = np.arange(len(slot_leaf)) - np.repeat(np.cumsum(sizes) - sizes, sizes) \
        + np.repeat(start, sizes)
    used[slots] = True
    if len(tris) and not used.all():
        problems.append(f"{int((~used).sum())} entries of the triangle list belong to no leaf")

    ids = tris[slots]
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

    # ---- every leaf triangle inside its leaf's box ----
    if not (box_ok and mesh_ok):
        return
    slot_leaf, ids = slot_leaf[in_mesh], ids[in_mesh]
    node = leaves[slot_leaf]
    verts = pos[idx[ids]]                              # (K, 3, 3)
    if not np.isfinite(verts).all():
        problems.append("some leaf triangles have non-finite vertex positions")
        return
    scale = float((hmax - hmin).max())
    big = float(max(np.abs(hmin).max(), np.abs(hmax).max()))
    allow = tolerance * scale + 2.0 ** -20 * big       # plus float32 rounding of the file
    allow = allow + (slack[node] if rounded_boxes else 0.0)    # (K, 3) or scalar
    allow = np.broadcast_to(allow, (len(node), 3))
    below = (dmin[node][:, None, :] - verts) - allow[:, None, :]
    above = (verts - dmax[node][:, None, :]) - allow[:, None, :]
    excess = np.maximum(below, above).max(axis=(1, 2))
    out = np.flatnonzero(excess > 0)
    if len(out):
        worst = out[np.argmax(excess[out])]
        problems.append(
            f"{len(out)} triangles poke out of their leaf's box (triangles {_ids(ids[out])}; "
            f"worst: triangle {int(ids[worst])} in node {int(node[worst])}, "
            f"{float(excess[worst]):.6g} beyond the allowance)")
