"""Whole-LOD geometry facts of a binarized P3D, in the file's own axes."""

import numpy as np

from .markers import face_corners


def signed_volume(lod, keep=None):
    """The volume the LOD's faces enclose, by the right-handed cross product of each face's
    corners in file order: positive when they wind outward (what real visual LODs hold),
    negative when inward. ``keep``: a mask of the faces to count. Faces naming missing
    vertices are skipped."""
    if lod.faces is None or not len(lod.faces) or lod.vertices is None:
        return 0.0
    corners = face_corners(lod.faces)
    if keep is not None:
        corners = corners[keep]
    n = len(lod.vertices)
    ok = ((corners < n) & ((corners >= 0) | (np.arange(4) == 3))).all(axis=1)
    corners = corners[ok]
    quads = corners[:, 3] >= 0
    tris = np.concatenate([corners[:, :3], corners[quads][:, [0, 2, 3]]])
    p = lod.vertices.astype(np.float64)[tris]
    p = p[np.isfinite(p).all(axis=(1, 2))]
    return float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0)
