"""A LOD's vertex table: point flags, UV sets, positions, normals and bone weights.

From version 45 normals are packed into 30 bits and UVs into 16-bit steps between a stored
minimum and maximum; earlier versions store floats."""

import numpy as np

NORMAL_SCALE = -1.0 / 511.0      # packed normals are stored negated
UV_STEP = 1.0 / 65536.0


def read_point_flags(r):
    n, raw = r.filled_array(4, "point flags")
    return np.frombuffer(raw, "<u4")


def unpack_normals(packed):
    """Three signed 10-bit fields per 32-bit word -> (n, 3) float32."""
    p = packed.astype(np.int64)
    xyz = np.stack([(p >> s) & 0x3FF for s in (0, 10, 20)], axis=1)
    xyz = np.where(xyz > 511, xyz - 1024, xyz)
    return (xyz * NORMAL_SCALE).astype(np.float32)


def read_uv_set(r):
    """One UV set as (n, 2) float32 in the file's convention (v grows downwards)."""
    quantised = r.version >= 45
    if quantised:
        lo_u, lo_v, hi_u, hi_v = (float(x) for x in r.floats(4))
    n, raw = r.filled_array(4 if quantised else 8, "UV set")
    if not quantised:
        return np.frombuffer(raw, "<f4").reshape(n, 2).astype(np.float32)
    steps = np.frombuffer(raw, "<i2").reshape(n, 2).astype(np.float64) + 32767.0
    uv = np.empty((n, 2), np.float32)
    with np.errstate(invalid="ignore", over="ignore"):    # a damaged range gives NaN, kept
        uv[:, 0] = steps[:, 0] * UV_STEP * (hi_u - lo_u) + lo_u
        uv[:, 1] = steps[:, 1] * UV_STEP * (hi_v - lo_v) + lo_v
    return uv


def read_vertex_table(r, lod, flags, lod_bones):
    with r.enter("vertex table"):
        size_at = r.pos
        size = r.u32()                            # counts its own 4 bytes
        if r.version >= 50:
            flags = read_point_flags(r)
        with r.enter("UV sets"):
            uv_sets = [read_uv_set(r)]
            for _ in range(1, r.u32()):           # v47 may say 0 and mean 1
                uv_sets.append(read_uv_set(r))
        with r.enter("points"):
            n, raw = r.packed_array(12, "points")
            lod.vertices = np.frombuffer(raw, "<f4").reshape(n, 3).astype(np.float32)
        with r.enter("normals"):
            if r.version >= 45:
                m, raw = r.filled_array(4, "normals")
                lod.normals = unpack_normals(np.frombuffer(raw, "<u4"))
            else:
                m, raw = r.filled_array(12, "normals")
                lod.normals = np.frombuffer(raw, "<f4").reshape(m, 3).astype(np.float32)
        r.packed_array(8 if r.version >= 45 else 24, "tangent space")
        with r.enter("bone weights"):
            k, raw = r.packed_array(12, "vertex bone references")
            rows = np.frombuffer(raw, np.uint8).reshape(k, 12)
            lod.bone_counts = rows[:, :4].copy().view("<i4").ravel()
            lod.bone_weights = rows[:, 4:].reshape(k, 4, 2).copy()
        r.packed_array(32, "vertex neighbours")
        if r.pos - size_at != size:
            lod_size_mismatch(r, size, r.pos - size_at)
    lod.uv_sets = uv_sets
    lod.point_flags = flags if flags is not None else np.zeros(0, np.uint32)
    lod.bone_map = lod_bones
    _check_counts(r, lod)


def lod_size_mismatch(r, stored, actual):
    r.warnings.append(f"{'/'.join(r.where)}: the vertex table says {stored:,} bytes, "
                      f"{actual:,} were read")


def _check_counts(r, lod):
    """Every per-vertex array holds one entry per point, or none."""
    n = len(lod.vertices)
    arrays = {"normals": lod.normals, "point flags": lod.point_flags,
              "bone weights": lod.bone_weights}
    arrays.update({f"UV set {k}": uv for k, uv in enumerate(lod.uv_sets)})
    for name, arr in arrays.items():
        if len(arr) not in (0, n):
            raise r.error(f"{len(arr):,} {name} for {n:,} points")
