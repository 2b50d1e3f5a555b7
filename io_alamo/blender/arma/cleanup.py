"""Repairs of what some binarized models hold wrong (issue 35, seen in held-out files):

- parts wound the other way: a LOD's faces mostly wind outward, but a cargo box or a door
  may enclose its volume inward. Each connected part that encloses a clearly negative volume
  is turned (:func:`inward_parts`);
- corner normals pointing against their face (10-26% of corners in some models render
  black there): such a normal is turned to the face's side (:func:`agreeing_normals`);
- points no face uses (a mortar's six stray vertices stretched its bounds and framing):
  left out of the mesh as it is built (``mesh.fill_mesh(drop_loose=True)``).
"""

import numpy as np

from ...formats.arma.markers import face_corners

MIN_SHARE = 0.05               # a part's volume must be this share of its bounding box's
MIN_CLOSED = 0.95              # and this share of its edges must have a face on each side


def _labels(corners, n):
    """Connected-part label per face (faces sharing a point share a label)."""
    parent = np.arange(n, dtype=np.int64)
    valid = corners >= 0
    first = corners[:, 0]
    safe = np.where(valid, corners, 0)
    # each point's corners, grouped once: a per-point least value is one reduceat, not a
    # scattered np.minimum.at per pass
    targets = corners[valid]
    owner = np.repeat(np.arange(len(corners)), valid.sum(axis=1))
    order = np.argsort(targets, kind="stable")
    targets, owner = targets[order], owner[order]
    cuts = np.flatnonzero(np.r_[True, targets[1:] != targets[:-1]])
    points = targets[cuts]
    while True:
        # every corner takes the least label of its face; pointer jumping shortens chains
        g = np.where(valid, parent[safe], n)
        face_min = np.minimum(np.minimum(g[:, 0], g[:, 1]), np.minimum(g[:, 2], g[:, 3]))
        before = parent.copy()
        if len(points):
            least = np.minimum.reduceat(face_min[owner], cuts)
            parent[points] = np.minimum(parent[points], least)
        parent = parent[parent]
        if np.array_equal(parent, before):
            break
    return parent[first]


def inward_parts(lod, keep, n_points):
    """Boolean mask over the faces of ``keep`` (a face mask): True where the face belongs to
    a connected part that encloses its volume inward in the file's axes (so it must keep
    the file's corner order to face outward in Blender)."""
    faces = np.flatnonzero(keep)
    out = np.zeros(len(lod.faces), bool)
    if not len(faces) or lod.vertices is None:
        return out
    corners = face_corners(lod.faces)[faces]
    ok = ((corners < n_points) & ((corners >= 0) | (np.arange(4) == 3))).all(axis=1)
    faces, corners = faces[ok], corners[ok]
    if not len(faces):
        return out
    labels = _labels(corners, n_points)
    p = lod.vertices.astype(np.float64)
    uniq, part = np.unique(labels, return_inverse=True)
    closed = _closed_share(corners, part, len(uniq))
    quads = corners[:, 3] >= 0
    tri_face = np.concatenate([np.arange(len(faces)), np.flatnonzero(quads)])
    tris = np.concatenate([corners[:, :3], corners[quads][:, [0, 2, 3]]])
    # volumes about each part's own centre: an almost closed part's barely depends on it
    counts = np.bincount(part[tri_face], minlength=len(uniq))
    centre = np.stack([np.bincount(part[tri_face], p[tris[:, 0], k], len(uniq))
                       for k in range(3)], axis=1) / np.maximum(counts, 1)[:, None]
    t = p[tris] - centre[part[tri_face]][:, None, :]
    vol = np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])) / 6.0
    vol = np.where(np.isfinite(vol), vol, 0.0)
    part_volume = np.bincount(part[tri_face], vol, len(uniq))
    lo = np.full((len(uniq), 3), np.inf)
    hi = np.full((len(uniq), 3), -np.inf)
    pts = p[np.where(corners >= 0, corners, corners[:, :1])]            # (f, 4, 3)
    by_part = np.argsort(part, kind="stable")
    cuts = np.flatnonzero(np.r_[True, np.diff(part[by_part]) != 0])
    present = part[by_part][cuts]
    # fmin/fmax skip NaN as nanmin/nanmax did; the parts' bounds by one reduceat each
    least = np.fmin(np.fmin(pts[:, 0], pts[:, 1]), np.fmin(pts[:, 2], pts[:, 3]))
    most = np.fmax(np.fmax(pts[:, 0], pts[:, 1]), np.fmax(pts[:, 2], pts[:, 3]))
    lo[present] = np.minimum.reduceat(least[by_part], cuts)
    hi[present] = np.maximum.reduceat(most[by_part], cuts)
    box = np.prod(np.maximum(hi - lo, 0.0), axis=1)
    inward = (part_volume < -MIN_SHARE * box) & (closed >= MIN_CLOSED)
    out[faces[inward[part]]] = True
    return out


def _closed_share(corners, part, n_parts):
    """Per part, the share of its edges that two of its faces share."""
    nxt = np.roll(corners, -1, axis=1)
    tri = corners[:, 3] < 0
    nxt[tri, 2] = corners[tri, 0]                        # a triangle's third edge closes it
    a, b = corners.ravel(), nxt.ravel()
    ok = (a >= 0) & (b >= 0)
    face = np.repeat(np.arange(len(corners)), 4)[ok]
    a, b = a[ok], b[ok]
    key = np.minimum(a, b) * (int(max(a.max(), b.max())) + 1) + np.maximum(a, b)
    _, inverse, uses = np.unique(key, return_inverse=True, return_counts=True)
    paired = uses[inverse.ravel()] == 2
    total = np.bincount(part[face], minlength=n_parts)
    return np.bincount(part[face], paired, n_parts) / np.maximum(total, 1)


def agreeing_normals(points, loops, starts, counts, normals):
    """``normals`` (one per corner, Blender axes) with each one pointing against its
    face's normal turned round (mirrored through the face's plane); returns (normals, how
    many were turned)."""
    if not len(loops):
        return normals, 0
    face = np.repeat(np.arange(len(starts)), counts)
    nxt = np.arange(len(loops)) + 1
    ends = starts + counts
    nxt[ends - 1] = starts
    a = points[loops].astype(np.float64)
    b = points[loops[nxt]].astype(np.float64)
    face_n = np.add.reduceat(np.cross(a, b), starts, axis=0)      # Newell's method
    fn = face_n[face]
    dot = np.einsum("ij,ij->i", normals, fn)
    wrong = dot < -1e-12 * np.einsum("ij,ij->i", fn, fn)
    if not wrong.any():
        return normals, 0
    unit = fn[wrong] / np.linalg.norm(fn[wrong], axis=1, keepdims=True)
    n = normals.copy()
    n[wrong] = normals[wrong] - 2.0 * (dot[wrong] / np.linalg.norm(fn[wrong], axis=1))[:, None] \
        * unit
    return n, int(wrong.sum())
