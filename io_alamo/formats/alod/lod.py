"""Levels of detail from an ALOD mesh's collapse records, Blender-free.

The file holds the full-detail mesh and the collapses that simplify it, in order. Applying
the first ``k`` collapses gives a lower-detail mesh: an edge collapse moves every vertex on
positions ``p1`` and ``p2`` to ``vl`` (the patch left of ``p1 -> p2``) or ``vr`` (the right
one), both on the new position; an influence collapse replaces vertices one for one. The
triangles that end up with two corners on one position vanish.

Which side of a seam a vertex is on is told by its texture coordinates: it goes to whichever
of ``vl`` and ``vr`` is nearer in (s, t) (the two are one vertex away from seams). Each
collapse touches only the few vertices on its two positions, so the walk is linear in the
number of collapses; resolving the vertex map of a level is whole-array pointer jumping.
"""

from bisect import bisect_left, bisect_right

import numpy as np

DEFAULT_FRACTIONS = (0.25, 0.5, 0.75)      # share of the collapses applied per level


def lod_stops(errors, fractions=DEFAULT_FRACTIONS):
    """[(collapses applied, error threshold)] for a few thresholds taken from the collapse
    errors: the error of the collapse at each fraction of the list. A level applies the
    collapses before the first whose error exceeds its threshold (errors are meant to grow
    along the list; one that does not ends the level early). Fewest collapses first; levels
    that would apply nothing or repeat one another are left out."""
    errors = np.asarray(errors, np.float64)
    n = len(errors)
    out = []
    for f in sorted(fractions):
        k = int(np.ceil(n * f))
        if k < 1:
            continue
        threshold = float(errors[k - 1])
        over = np.flatnonzero(~(errors <= threshold))      # NaN never passes
        applied = int(over[0]) if len(over) else n
        if applied >= 1 and (not out or applied > out[-1][0]):
            out.append((applied, threshold))
    return out


def collapse_vertex_maps(mesh, stops):
    """For each number of collapses in ``stops`` (ascending), the (vertices,) int64 map of
    every file vertex to the vertex that stands for it after that many collapses."""
    vpos_arr = np.asarray(mesh.vertices.position, np.int64)
    walk = _CollapseWalk(vpos_arr, np.asarray(mesh.vertices.tex_coords, np.float64).tolist(),
                         np.unique(np.asarray(mesh.triangles["vertices"], np.int64)))
    c = mesh.collapses
    # plain Python values: the walk touches a few of them per collapse
    kinds = c.is_influence.tolist()
    rank = c.rank.tolist()
    edges = np.stack([c.edges[f].astype(np.int64) for f in ("p1", "p2", "vl", "vr")],
                     axis=1).tolist() if len(c.edges) else []
    bounds = np.concatenate([[0], np.cumsum(c.influence_counts.astype(np.int64))]).tolist()
    pairs = np.asarray(c.influence_pairs, np.int64).tolist()
    parent = np.arange(len(vpos_arr), dtype=np.int64)
    maps, done = [], 0
    for target in sorted(stops):
        for i in range(done, target):
            r = rank[i]
            if kinds[i]:
                walk.influence(pairs[bounds[r]:bounds[r + 1]])
            else:
                walk.edge(*edges[r])
        done = target
        moved = dict(walk.take_moves())         # a vertex moved twice: the last move
        if moved:
            parent[list(moved)] = list(moved.values())
        maps.append(resolve(parent))
    return maps


class _CollapseWalk:
    """Which vertices are live on which position, and where the others went."""

    def __init__(self, vpos, uv, used):
        self.vpos, self.uv = vpos.tolist(), uv
        # the full-detail mesh's vertices by position; a position's set is made when first
        # touched, so setting up costs no loop per vertex
        order = np.argsort(vpos[used], kind="stable")
        self._by_position = used[order].tolist()
        self._positions = vpos[used][order].tolist()
        self.at_pos = {}
        self.moves = []                   # (vertex, new parent), in order

    def live(self, p):
        """The set of vertices live on position ``p``."""
        found = self.at_pos.get(p)
        if found is None:
            lo = bisect_left(self._positions, p)
            hi = bisect_right(self._positions, p, lo)
            found = self.at_pos[p] = set(self._by_position[lo:hi])
        return found

    def take_moves(self):
        out, self.moves = self.moves, []
        return out

    def _revive(self, v):
        self.moves.append((v, v))
        self.live(self.vpos[v]).add(v)

    def influence(self, pairs):
        for old, new in pairs:
            if old != new:
                self._revive(new)
                self.live(self.vpos[old]).discard(old)
                self.moves.append((old, new))

    def edge(self, p1, p2, vl, vr):
        live = self.live(p1) | self.live(p2)
        self.at_pos[p1], self.at_pos[p2] = set(), set()
        self._revive(vl)
        self._revive(vr)
        uv = self.uv
        for t in live:
            if t == vl or t == vr:
                continue
            if vl == vr:
                self.moves.append((t, vl))
                continue
            (s, u), (sl, ul), (sr, ur) = uv[t], uv[vl], uv[vr]
            left = (s - sl) ** 2 + (u - ul) ** 2 <= (s - sr) ** 2 + (u - ur) ** 2
            self.moves.append((t, vl if left else vr))


def resolve(parent):
    """Follow parent links to their ends, whole-array (pointer jumping)."""
    out = parent.copy()
    for _ in range(64):
        nxt = out[out]
        if np.array_equal(nxt, out):
            break
        out = nxt
    return out


def lod_triangles(mesh, vertex_map):
    """(triangles as mapped vertices, index of each kept file triangle) of one level: the
    triangles whose three corners stay on three different positions."""
    tri = vertex_map[np.asarray(mesh.triangles["vertices"], np.int64)]
    pos = np.asarray(mesh.vertices.position, np.int64)[tri]
    keep = (pos[:, 0] != pos[:, 1]) & (pos[:, 1] != pos[:, 2]) & (pos[:, 0] != pos[:, 2])
    return tri[keep], np.flatnonzero(keep)
