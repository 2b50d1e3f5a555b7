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
    vpos = np.asarray(mesh.vertices.position, np.int64)
    uv = np.asarray(mesh.vertices.tex_coords, np.float64)
    c = mesh.collapses
    rank = c.rank
    edges = c.edges
    pair_start = np.concatenate([[0], np.cumsum(c.influence_counts.astype(np.int64))])
    pairs = np.asarray(c.influence_pairs, np.int64)
    parent = np.arange(len(vpos), dtype=np.int64)
    used = np.unique(np.asarray(mesh.triangles["vertices"], np.int64))
    at_pos = {}
    for v, p in zip(used.tolist(), vpos[used].tolist()):
        at_pos.setdefault(p, set()).add(v)
    maps, stops = [], sorted(stops)
    done = 0
    for target in stops:
        for i in range(done, target):
            r = int(rank[i])
            if c.is_influence[i]:
                for old, new in pairs[pair_start[r]:pair_start[r + 1]].tolist():
                    if old != new:
                        _revive(parent, at_pos, vpos, new)
                        at_pos.get(int(vpos[old]), set()).discard(old)
                        parent[old] = new
            else:
                e = edges[r]
                _edge(parent, at_pos, vpos, uv, int(e["p1"]), int(e["p2"]), int(e["vl"]),
                      int(e["vr"]))
        done = target
        maps.append(resolve(parent))
    return maps


def _revive(parent, at_pos, vpos, v):
    parent[v] = v
    at_pos.setdefault(int(vpos[v]), set()).add(v)


def _edge(parent, at_pos, vpos, uv, p1, p2, vl, vr):
    live = at_pos.pop(p1, set()) | at_pos.pop(p2, set())
    for t in (vl, vr):
        _revive(parent, at_pos, vpos, t)
    for t in live:
        if t == vl or t == vr:
            continue
        if vl == vr or ((uv[t] - uv[vl]) ** 2).sum() <= ((uv[t] - uv[vr]) ** 2).sum():
            parent[t] = vl
        else:
            parent[t] = vr


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
