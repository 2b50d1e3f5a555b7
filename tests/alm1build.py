"""Alithia ALM1 files built from the spec's tables alone (alithia-alm1-format.html), not with
io_alamo's writer: a header of ``'ALM1'`` and four little-endian uint32 (flags, vertex count,
face count, frame count), ``frames`` arrays of vertices (8 float32: x y z, nx ny nz, u v),
then the faces (3 uint16 each). No public sample files exist, so the tests use these."""

import struct
from dataclasses import dataclass

import numpy as np


@dataclass
class Built:
    data: bytes
    positions: np.ndarray      # (frames, V, 3), file axes
    normals: np.ndarray        # (frames, V, 3)
    uvs: np.ndarray            # (frames, V, 2), as stored (v not flipped)
    faces: np.ndarray          # (F, 3)
    flags: int = 0
    trailing: bytes = b""


def header(vertex_count, face_count, frame_count, flags=0, magic=b"ALM1"):
    return struct.pack("<4sIIII", magic, flags, vertex_count, face_count, frame_count)


def assemble(positions, normals, uvs, faces, flags=0, trailing=b"", counts=None):
    """The file for the given arrays; ``counts`` overrides (vertices, faces, frames)."""
    frames, nv = positions.shape[:2]
    rows = np.concatenate([positions, normals, uvs], axis=2).astype("<f4")
    nv_h, nf_h, fr_h = counts or (nv, len(faces), frames)
    return (header(nv_h, nf_h, fr_h, flags) + rows.tobytes()
            + np.asarray(faces, "<u2").tobytes() + trailing)


def wave_grid(frames=1, size=4, flags=0, trailing=b""):
    """A (size+1)^2 grid lying in the file's x-z plane (y is the engine's up), a wave running
    over it frame by frame; every vertex has its own uv, so Blender keeps them one to one."""
    n = size + 1
    gx, gz = np.meshgrid(np.arange(n, dtype=np.float64), np.arange(n, dtype=np.float64))
    gx, gz = gx.ravel(), gz.ravel()
    t = np.arange(frames, dtype=np.float64)[:, None]
    y = 0.5 * np.sin(0.9 * gx[None] + 0.6 * gz[None] + 0.7 * t) + 0.05 * t
    pos = np.stack([np.broadcast_to(gx, y.shape) - size / 2, y,
                    np.broadcast_to(gz, y.shape) - size / 2], axis=2)
    dy_dx = 0.45 * np.cos(0.9 * gx[None] + 0.6 * gz[None] + 0.7 * t)
    dy_dz = 0.3 * np.cos(0.9 * gx[None] + 0.6 * gz[None] + 0.7 * t)
    nrm = np.stack([-dy_dx, np.ones_like(y), -dy_dz], axis=2)
    nrm /= np.linalg.norm(nrm, axis=2, keepdims=True)
    uv = np.stack([gx / size, gz / size], axis=1)
    uvs = np.broadcast_to(uv, (frames,) + uv.shape)
    quads = np.array([(r * n + c, (r + 1) * n + c, (r + 1) * n + c + 1, r * n + c + 1)
                      for r in range(size) for c in range(size)])
    # counter-clockwise seen from +y in the file, so the faces point up in Blender
    faces = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    pos, nrm, uvs = (np.ascontiguousarray(a, np.float32) for a in (pos, nrm, uvs))
    data = assemble(pos, nrm, uvs, faces, flags, trailing)
    return Built(data, pos, nrm, uvs, faces.astype(np.uint16), flags, trailing)


def largest(frames=2, faces=100_000):
    """65,535 vertices (the most the exporter writes; 16-bit indices reach all of them),
    many faces using the highest indices, ``frames`` frames."""
    nv = 65_535
    rng = np.random.default_rng(7)
    pos = rng.standard_normal((frames, nv, 3)).astype(np.float32)
    nrm = np.broadcast_to(np.float32([0, 1, 0]), (frames, nv, 3)).copy()
    uvs = rng.random((frames, nv, 2)).astype(np.float32)
    f = rng.integers(0, nv, (faces, 3)).astype(np.uint16)
    f[-1] = (nv - 1, nv - 2, nv - 3)
    return Built(assemble(pos, nrm, uvs, f), pos, nrm, uvs, f)


def huge_counts(vertex_count=0xFFFFFFFF, face_count=0xFFFFFFFF, frame_count=0xFFFFFFFF,
                body=64):
    """A small file whose header claims the largest counts 32 bits hold."""
    return header(vertex_count, face_count, frame_count) + bytes(body)
