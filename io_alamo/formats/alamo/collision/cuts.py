"""Where to cut a node of the collision tree: the cheapest surface-area-like cut per segment.

Costs every candidate cut of many nodes (segments of the triangles' per-axis orders) at once
with whole-array numpy; :mod:`.build` calls :func:`best_cuts` once per size class per level.
"""

import numpy as np

# A split may not put fewer than ceil(n / SPLIT_WINDOW) triangles on one side: keeps the
# depth logarithmic whatever the cost says (all real splits seen respect it).
SPLIT_WINDOW = 8
SPLIT_WINDOW_LARGE = 4        # for nodes above _EXACT_MAX triangles (the real ones: >= 27 %)
# Box extents are padded by this fraction of the node's largest extent before taking
# volumes, so that flat (zero-volume) nodes still have a meaningful cost.
_VOLUME_PAD = 1e-3
# Costs this close (relative) to the cheapest count as equal: the more even cut wins.
_TIE = 1e-9
# Nodes with more triangles than this try _BINS - 1 evenly spread cuts per axis instead
# of every cut (matches the real trees as well as trying every cut, and is much faster).
_EXACT_MAX = 64
_BINS = 16


def running_max(x, reverse=False):
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


def best_cuts(boxes_t, ords, pos, rank, n, lseg, ntri):
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
            fwd = running_max(b)
            bwd = running_max(b, reverse=True)
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
