"""Matrix helpers for bone and object placement that survive a file's bad matrices."""

import numpy as np


def nearest_rotation(m3):
    """The nearest proper rotation to a 3x3 matrix (Blender bones hold no scale or shear);
    the identity for a matrix with NaN or infinity, as a file's may hold."""
    if not np.isfinite(m3).all():
        return np.eye(3)
    try:
        u, _, vt = np.linalg.svd(m3)
    except np.linalg.LinAlgError:
        return np.eye(3)
    r = u @ vt
    if np.linalg.det(r) < 0:
        r = u @ np.diag([1.0, 1.0, -1.0]) @ vt
    if not np.isfinite(r).all():
        r = np.eye(3)
    return r


def inverse(m, fallback=None):
    """Inverse of a matrix (or a stack of them). A file's bone matrices may be singular (a
    zero scale) or hold NaN or infinity: each such matrix goes to ``fallback`` (by default
    the pseudo-inverse, or the identity)."""
    m = np.asarray(m, np.float64)
    try:
        out = np.linalg.inv(m)
        if np.isfinite(out).all():
            return out
    except np.linalg.LinAlgError:
        pass
    n = m.shape[-1]
    flat = m.reshape(-1, n, n)
    out = np.empty_like(flat)
    for k, a in enumerate(flat):
        out[k] = (fallback or _pseudo_inverse)(a)
    return out.reshape(m.shape)


def rigid_inverse(m):
    """Inverse of a 4x4 rotation-and-translation matrix: the rotation transposed."""
    out = np.eye(4)
    out[:3, :3] = m[:3, :3].T
    out[:3, 3] = -(m[:3, :3].T @ m[:3, 3])
    return out


def _pseudo_inverse(a):
    if np.isfinite(a).all():
        for invert in (np.linalg.inv, np.linalg.pinv):
            try:
                out = invert(a)
            except np.linalg.LinAlgError:
                continue
            if np.isfinite(out).all():
                return out
    return np.eye(len(a))
