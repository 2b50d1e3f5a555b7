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


def affine_inverse(m):
    """Inverse of a stack of (..., 4, 4) affine matrices (last row 0, 0, 0, 1), in closed
    form (the 3x3 part by its adjugate), far faster than ``np.linalg.inv`` on many small
    matrices; a matrix that is not affine, is singular or holds NaN goes to :func:`inverse`."""
    m = np.asarray(m, np.float64)
    a, t = m[..., :3, :3], m[..., :3, 3]
    c0 = np.cross(a[..., :, 1], a[..., :, 2])       # rows of the adjugate
    c1 = np.cross(a[..., :, 2], a[..., :, 0])
    c2 = np.cross(a[..., :, 0], a[..., :, 1])
    det = np.einsum("...i,...i->...", a[..., :, 0], c0)
    scale = np.abs(a).max(axis=(-2, -1))
    good = (np.abs(det) > 1e-9 * scale ** 3) & np.isfinite(det) & np.isfinite(t).all(-1) \
        & (m[..., 3, :] == (0.0, 0.0, 0.0, 1.0)).all(-1)
    out = np.zeros_like(m)
    r = np.stack([c0, c1, c2], axis=-2) / np.where(good, det, 1.0)[..., None, None]
    out[..., :3, :3] = r
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", r, t)
    out[..., 3, 3] = 1.0
    if not good.all():
        out[~good] = inverse(m[~good])
    return out


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


def decompose(m):
    """Translation, (w, x, y, z) rotation and scale of (..., 4, 4) matrices."""
    t = m[..., :3, 3]
    a = m[..., :3, :3]
    s = np.linalg.norm(a, axis=-2)                       # column lengths
    det = np.linalg.det(a)
    s[..., 0] = np.where(det < 0, -s[..., 0], s[..., 0])  # a mirror: one negative scale
    safe = np.where(np.abs(s) > 1e-12, s, 1.0)
    r = a / safe[..., None, :]
    return t, quaternions(r), s


def quaternions(r):
    """(w, x, y, z) unit quaternions of (..., 3, 3) rotation matrices (Shepperd's method)."""
    m00, m11, m22 = r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]
    trace = m00 + m11 + m22
    cand = np.stack([trace, m00, m11, m22], axis=-1)
    pick = cand.argmax(axis=-1)
    q = np.empty(r.shape[:-2] + (4,))
    # w largest
    w = np.sqrt(np.maximum(1.0 + trace, 0.0)) * 2.0
    qw = np.stack([0.25 * w, (r[..., 2, 1] - r[..., 1, 2]) / _nz(w),
                   (r[..., 0, 2] - r[..., 2, 0]) / _nz(w), (r[..., 1, 0] - r[..., 0, 1]) / _nz(w)],
                  axis=-1)
    x = np.sqrt(np.maximum(1.0 + m00 - m11 - m22, 0.0)) * 2.0
    qx = np.stack([(r[..., 2, 1] - r[..., 1, 2]) / _nz(x), 0.25 * x,
                   (r[..., 0, 1] + r[..., 1, 0]) / _nz(x), (r[..., 0, 2] + r[..., 2, 0]) / _nz(x)],
                  axis=-1)
    y = np.sqrt(np.maximum(1.0 - m00 + m11 - m22, 0.0)) * 2.0
    qy = np.stack([(r[..., 0, 2] - r[..., 2, 0]) / _nz(y), (r[..., 0, 1] + r[..., 1, 0]) / _nz(y),
                   0.25 * y, (r[..., 1, 2] + r[..., 2, 1]) / _nz(y)], axis=-1)
    z = np.sqrt(np.maximum(1.0 - m00 - m11 + m22, 0.0)) * 2.0
    qz = np.stack([(r[..., 1, 0] - r[..., 0, 1]) / _nz(z), (r[..., 0, 2] + r[..., 2, 0]) / _nz(z),
                   (r[..., 1, 2] + r[..., 2, 1]) / _nz(z), 0.25 * z], axis=-1)
    for k, cand_q in enumerate((qw, qx, qy, qz)):
        sel = pick == k
        q[sel] = cand_q[sel]
    q /= np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-12)
    return q


def _nz(v):
    return np.where(np.abs(v) > 1e-12, v, 1.0)


def continuous_quaternions(q):
    """(B, F, 4): the first frame with w >= 0, then each frame the sign nearest the last."""
    q = q.copy()
    q[:, 0][q[:, 0, 0] < 0] *= -1
    if q.shape[1] > 1:
        flip = np.einsum("bfi,bfi->bf", q[:, 1:], q[:, :-1]) < 0
        sign = np.where(np.cumsum(flip, axis=1) % 2 == 1, -1.0, 1.0)
        q[:, 1:] *= sign[..., None]
    return q
