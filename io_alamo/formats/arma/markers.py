"""Proxy marker triangles of a binarized P3D LOD.

The binariser keeps one small triangle per proxy among a LOD's faces: it lies in a section
whose special flags carry the proxy bit (0x10000000, seen as 0x10002000, 0x1000c000 and
0x402000 | 0x10000000) and has one corner exactly at the proxy's origin. The engine places
the proxied model there and never draws the triangle; an import leaves it out of the mesh.
Held-out files also hold markers in untextured sections without the flag, and corners a
rounding away from the origin (a truck kept one in its shown LOD): a triangle of either kind
of section with a corner within ``NEAR`` of a proxy's origin is a marker too.
"""

import numpy as np

PROXY_SECTION_FLAG = 0x10000000
NEAR = 1e-4                    # metres: a corner this near a proxy's origin is "at" it


def face_corners(faces):
    """(n, 4) corner vertex indices of each face, -1 after a triangle's third corner. Made
    once per face list and kept on it, read-only (an import asks for a LOD's corners a dozen
    times): copy it to change it."""
    if faces.corners is None or len(faces.corners) != len(faces.sizes):
        corners = np.full((len(faces.sizes), 4), -1, np.int64)
        for k in range(4):
            has = faces.sizes > k
            corners[has, k] = faces.indices[faces.starts[has] + k]
        corners.setflags(write=False)
        faces.corners = corners
    return faces.corners


def proxy_marker_faces(lod):
    """Boolean mask over the LOD's faces: True for its proxy marker triangles."""
    n = len(lod.faces) if lod.faces is not None else 0
    marked = np.zeros(n, bool)
    if not n or not lod.proxies or lod.vertices is None or not len(lod.vertices):
        return marked
    for s in lod.sections:
        if s.special & PROXY_SECTION_FLAG or s.texture_index < 0:
            marked[max(s.first_face, 0):max(s.end_face, 0)] = True
    candidates = np.flatnonzero(marked & (lod.faces.sizes == 3))
    marked[:] = False
    if not len(candidates):
        return marked
    corners = face_corners(lod.faces)[candidates, :3]
    valid = (corners >= 0) & (corners < len(lod.vertices))
    points = lod.vertices[np.where(valid, corners, 0)]                        # (m, 3, 3)
    origins = np.array([p.matrix[:3, 3] for p in lod.proxies], np.float32)    # (p, 3)
    near = NEAR * np.maximum(1.0, np.abs(origins).max(axis=1))                # (p,)
    gap = np.abs(points[:, :, None, :] - origins[None, None, :, :]).max(axis=3)
    at = gap <= near[None, None, :]                                           # (m, 3, p)
    marked[candidates] = (at & valid[:, :, None]).any(axis=(1, 2))
    return marked
