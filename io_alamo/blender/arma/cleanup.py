"""Repairs of what some binarized models hold wrong (issue 35, seen in held-out files):

- parts wound the other way: a LOD's faces mostly wind outward, but a cargo box or a door
  may enclose its volume inward. Each connected part that encloses a clearly negative volume
  is turned (:func:`inward_parts`);
- corner normals pointing against their face (10-26% of corners in some models render
  black there): such a normal is turned to the face's side; one lying in its face's plane
  takes the face's normal (:func:`agreeing_normals`);
- points no face uses (a mortar's six stray vertices stretched its bounds and framing):
  left out of the mesh as it is built (``mesh.fill_mesh(drop_loose=True)``).
"""

import numpy as np

from ...formats.arma.markers import face_corners

MIN_SHARE = 0.05               # a part's volume must be this share of its bounding box's
MIN_CLOSED = 0.95              # and this share of its edges must have a face on each side
IN_PLANE = 1e-6                # a corner normal this near its face's plane (cosine) has no side


def _labels(corners, n):
    """Connected-part label per face (faces sharing a point share a label): the least point
    of its part. Each face joins its corners to its first; roots are hooked, the larger onto
    the smaller, along the edges whose ends still have different roots, and the pointers
    are then jumped to their roots; only those edges go round again (a few rounds)."""
    parent = np.arange(n, dtype=np.int64)
    first = corners[:, 0]
    rest = corners[:, 1:] >= 0
    a = np.broadcast_to(first[:, None], rest.shape)[rest]
    b = corners[:, 1:][rest]
    while len(a):
        ra, rb = parent[a], parent[b]
        live = ra != rb
        if not live.any():
            break
        a, b, ra, rb = a[live], b[live], ra[live], rb[live]
        parent[np.maximum(ra, rb)] = np.minimum(ra, rb)     # roots only: each lower
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped
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
    """Per part, the share of its edges that two of its faces share. An edge's part is its
    points' part, so the edges are sorted as bare keys (no argsort)."""
    nxt = np.roll(corners, -1, axis=1)
    tri = corners[:, 3] < 0
    nxt[tri, 2] = corners[tri, 0]                        # a triangle's third edge closes it
    a, b = corners.ravel(), nxt.ravel()
    ok = (a >= 0) & (b >= 0)
    a, b = a[ok], b[ok]
    span = int(max(a.max(), b.max())) + 1
    key = np.sort(np.minimum(a, b) * span + np.maximum(a, b))
    point_part = np.zeros(span, np.int64)
    valid = corners >= 0
    point_part[corners[valid]] = np.broadcast_to(part[:, None], corners.shape)[valid]
    cuts = np.flatnonzero(np.r_[True, key[1:] != key[:-1], True])
    uses = np.diff(cuts)
    owner = point_part[key // span]
    total = np.bincount(owner, minlength=n_parts)
    paired = np.repeat(uses == 2, uses)
    return np.bincount(owner, paired, n_parts) / np.maximum(total, 1)


def agreeing_normals(points, loops, starts, counts, normals):
    """``normals`` (one per corner, Blender axes) with each one pointing against its
    face's normal turned round (mirrored through the face's plane), and each one lying in
    its face's plane (or of no length: a collision LOD of a held-out plane holds normals at
    right angles to 24% of its faces' corners) replaced by the face's normal; returns
    (normals, how many were changed)."""
    if not len(loops):
        return normals, 0
    face = np.repeat(np.arange(len(starts)), counts)
    nxt = np.arange(len(loops)) + 1
    ends = starts + counts
    nxt[ends - 1] = starts
    p = points.astype(np.float64)
    # Newell's method; the cross products column by column, as np.cross computes them
    # (the same products and differences, without its temporaries)
    ax, ay, az = (p[:, k][loops] for k in range(3))
    bx, by, bz = (v[nxt] for v in (ax, ay, az))
    cross = np.empty((len(loops), 3))
    np.subtract(ay * bz, az * by, out=cross[:, 0])
    np.subtract(az * bx, ax * bz, out=cross[:, 1])
    np.subtract(ax * by, ay * bx, out=cross[:, 2])
    face_n = np.add.reduceat(cross, starts, axis=0)
    fn = face_n[face]
    dot = np.einsum("ij,ij->i", normals, fn)
    fn_sq = np.einsum("ij,ij->i", fn, fn)
    wrong = dot < -1e-12 * fn_sq
    # in the plane: |cos| under IN_PLANE (a face with no area has no side: left alone)
    flat = ~wrong & (fn_sq > 0) & (dot * dot <= IN_PLANE ** 2 * fn_sq
                                   * np.einsum("ij,ij->i", normals, normals))
    if not wrong.any() and not flat.any():
        return normals, 0
    n = normals.copy()
    if wrong.any():
        unit = fn[wrong] / np.linalg.norm(fn[wrong], axis=1, keepdims=True)
        n[wrong] = normals[wrong] - 2.0 * (dot[wrong] / np.linalg.norm(fn[wrong], axis=1))[
            :, None] * unit
    if flat.any():
        n[flat] = fn[flat] / np.sqrt(fn_sq[flat])[:, None]
    return n, int(wrong.sum() + flat.sum())
