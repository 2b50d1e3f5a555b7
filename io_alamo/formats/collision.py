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
SPLIT_WINDOW_LARGE = 4        # for nodes above _EXACT_MAX triangles (the real ones: >= 27 %)
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
    return _scaled_box(pts.min(0), pts.max(0))


def _scaled_box(lo, hi):
    """The root box around the float32 bounds ``lo``..``hi``."""
    # float32, in the exporter's order of operations (bit-exact on the game's files)
    centre = (lo + hi) / np.float32(2)
    half = (hi - lo) / np.float32(2) * np.float32(ROOT_BOX_SCALE)
    return np.minimum(centre - half, lo), np.maximum(centre + half, hi)


# --------------------------------------------------------------------------------------
# Builder
# --------------------------------------------------------------------------------------

# Nodes with more triangles than this try _BINS - 1 evenly spread cuts per axis instead
# of every cut (matches the real trees as well as trying every cut, and is much faster).
_EXACT_MAX = 64
_BINS = 16


def _running_max(x, reverse=False):
    """Running maximum of ``x`` (6, L, S) along axis 1 (forward or backward), as a loop
    of whole-slice maxima: fast for many short segments."""
    out = np.empty_like(x)
    length = x.shape[1]
    steps = range(length - 1, -1, -1) if reverse else range(length)
    prev = None
    for j in steps:
        if prev is None:
            out[:, j] = x[:, j]
        else:
            np.maximum(out[:, prev], x[:, j], out=out[:, j])
        prev = j
    return out


def _best_cuts(boxes_t, ords, pos, rank, n, lseg, ntri):
    """Cheapest cut of each of ``len(n)`` segments of similar size (one size class).

    ``pos``/``rank``/``lseg``: flat positions of the class's elements in ``ords``, their
    rank inside their segment and their segment's index in the class; ``n``: segment sizes.
    ``boxes_t`` is (6, T + 1): ``-min, max`` of each triangle's box, so that one running
    maximum gives both, and a neutral all ``-inf`` column at T for padding.
    Every cut is tried in segments of up to ``_EXACT_MAX`` triangles; longer ones try
    the ``_BINS - 1`` cuts ``ceil(k * n / _BINS)``, and at least a quarter each side.
    Returns (left size, axis) per segment.
    """
    nseg = len(n)
    length = int(n.max())
    binned = length > _EXACT_MAX                       # then every n > _EXACT_MAX
    if binned:
        starts = -(-np.arange(_BINS)[:, None] * n // _BINS)    # (BINS, S) first row of bins
        s = starts[1:]                                 # left size of each candidate cut
        starts = (starts + np.arange(nseg) * length).T.ravel()  # in the flat (S * L) rows
    else:
        s = np.broadcast_to(np.arange(1, length)[:, None], (length - 1, nseg))
    lo_s = np.maximum(1, -(-n // (SPLIT_WINDOW_LARGE if binned else SPLIT_WINDOW)))
    invalid = (s < lo_s) | (s > n - lo_s)              # (J, S)
    n_right = n - s
    cols = np.arange(nseg)

    def axis_costs(a):
        tri_pad = np.full((length, nseg), ntri, np.int64)
        tri_pad[rank, lseg] = ords[a][pos]
        if not binned:
            # many short segments: (6, L, S), a loop of whole-slice maxima
            b = np.take(boxes_t, tri_pad, axis=1)
            fwd = _running_max(b)
            bwd = _running_max(b, reverse=True)
        else:
            # fewer, long segments: (6, S, L) reduced to (6, S, _BINS) bin boxes
            b = np.take(boxes_t, tri_pad.T, axis=1).reshape(6, -1)
            b = np.maximum.reduceat(b, starts, axis=1).reshape(6, nseg, _BINS)
            fwd = np.maximum.accumulate(b, axis=2).transpose(0, 2, 1)
            bwd = np.maximum.accumulate(b[:, :, ::-1], axis=2)[:, :, ::-1].transpose(0, 2, 1)
        last = _BINS - 1 if binned else n - 1
        node_ext = (fwd[3:, last, cols] + fwd[:3, last, cols]).max(0)
        pad = np.where(node_ext > 0, _VOLUME_PAD * node_ext, 1.0)
        # volumes of the left box of cut j (rows ..j) and the right one (rows j+1..)
        vol_l = vol_r = None
        for k in range(3):
            e = fwd[3 + k, :-1] + fwd[k, :-1]
            e += pad
            vol_l = e if vol_l is None else np.multiply(vol_l, e, out=vol_l)
            e = bwd[3 + k, 1:] + bwd[k, 1:]
            e += pad
            vol_r = e if vol_r is None else np.multiply(vol_r, e, out=vol_r)
        vol_l *= s
        vol_r *= n_right
        vol_l += vol_r
        vol_l[invalid] = np.inf
        return vol_l

    with np.errstate(invalid="ignore", over="ignore"):
        costs = np.stack([axis_costs(a) for a in range(3)])
    # The cheapest cut; costs within _TIE of it are equal, and then the most even cut
    # wins, then the lower axis, then the smaller left side.
    flat = costs.reshape(-1, nseg)
    first = flat.argmin(axis=0)
    best = flat[first, np.arange(nseg)]
    tie = flat <= best * (1.0 + _TIE)
    cut = s[first % len(s), cols]
    axis = first // len(s)
    multi = np.flatnonzero(np.count_nonzero(tie, axis=0) > 1)
    if len(multi):
        nm = n[multi]
        sm = s[:, multi]
        key = (np.abs(2 * sm - nm) * 3 + np.arange(3)[:, None, None]) * (nm + 1) + sm
        key = np.where(tie.reshape(costs.shape)[:, :, multi], key, np.iinfo(np.int64).max)
        key = key.min(axis=(0, 1))
        cut[multi] = key % (nm + 1)
        axis[multi] = (key // (nm + 1)) % 3
    return cut, axis


def build_collision_tree(positions, indices, leaf_size=2) -> CollisionTree:
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
    v0, v1, v2 = pos[idx[:, 0]], pos[idx[:, 1]], pos[idx[:, 2]]   # (T, 3) float32 each
    tmin32 = np.minimum(np.minimum(v0, v1), v2)
    tmax32 = np.maximum(np.maximum(v0, v1), v2)
    if not (np.isfinite(tmin32).all() and np.isfinite(tmax32).all()):
        raise ValueError("triangle vertex positions must be finite")
    box_min, box_max = _scaled_box(tmin32.min(0), tmax32.max(0))

    tmin = tmin32.T.astype(np.float64)                 # (3, T)
    tmax = tmax32.T.astype(np.float64)
    cen = v0.astype(np.float64)                        # 3 * centroid: same order
    cen += v1
    cen += v2
    # (-min, max) rows with a neutral column at index T, used to pad segments to one length
    boxes_t = np.full((6, ntri + 1), -np.inf)
    boxes_t[:3, :ntri] = -tmin
    boxes_t[3:, :ntri] = tmax

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
            cut[segs], axis[segs] = _best_cuts(boxes_t, ords, at, rank[at], seg_n[segs],
                                               loc[segid[at]], ntri)

        # Which triangles go left (the first ``cut`` of the chosen axis's order), then a
        # stable partition of every axis order: a left element's new place is its
        # segment's start plus the lefts before it in the segment, a right one's the
        # segment's start plus ``cut`` plus the rights before it.
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
