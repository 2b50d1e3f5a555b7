"""Build PAA textures from the published layout (type, GGAT tags, palette, mipmaps) and
decode them with a plain per-pixel reference written from the DXT description, so tests
know every pixel the numpy decoder must give."""

import struct

import numpy as np
from p3d_compress import lzo_compress, lzss_compress

DXT1, DXT5, ARGB4444, ARGB8888 = 0xFF01, 0xFF05, 0x4444, 0x8888


def random_blocks(kind, n, seed=0, three_colour=False):
    """``n`` random DXT blocks (bytes); DXT1 in four-colour mode unless ``three_colour``."""
    rng = np.random.default_rng(seed)
    size = 8 if kind == DXT1 else 16
    raw = rng.integers(0, 256, (n, size), dtype=np.uint8)
    colour = raw[:, -8:]
    c0 = colour[:, 0].astype(int) | (colour[:, 1].astype(int) << 8)
    c1 = colour[:, 2].astype(int) | (colour[:, 3].astype(int) << 8)
    swap = (c0 > c1) if three_colour else (c0 < c1)
    colour[swap, 0:2], colour[swap, 2:4] = colour[swap, 2:4].copy(), colour[swap, 0:2].copy()
    if kind == DXT5:
        raw[: n // 2, 0], raw[: n // 2, 1] = 200, 20                # eight-alpha mode
        raw[n // 2:, 0], raw[n // 2:, 1] = 20, 200                  # six-alpha mode
    return raw.tobytes()


def _565(c):
    r, g, b = (c >> 11) & 31, (c >> 5) & 63, c & 31
    return [(r * 255 + 15) // 31, (g * 255 + 31) // 63, (b * 255 + 15) // 31]


def reference_dxt(raw, w, h, kind):
    """Per-pixel decoding, one block at a time (slow, obvious)."""
    size = 8 if kind == DXT1 else 16
    out = np.zeros((h, w, 4), np.uint8)
    bw = (w + 3) // 4
    for k in range(len(raw) // size):
        block = raw[k * size:(k + 1) * size]
        col = block[-8:]
        c0, c1 = struct.unpack_from("<HH", col)
        p0, p1 = _565(c0), _565(c1)
        if kind != DXT1 or c0 > c1:
            pal = [p0 + [255], p1 + [255], [(2 * a + b) // 3 for a, b in zip(p0, p1)] + [255],
                   [(a + 2 * b) // 3 for a, b in zip(p0, p1)] + [255]]
        else:
            pal = [p0 + [255], p1 + [255], [(a + b) // 2 for a, b in zip(p0, p1)] + [255],
                   [0, 0, 0, 0]]
        bits = struct.unpack_from("<I", col, 4)[0]
        if kind == DXT5:
            a0, a1 = block[0], block[1]
            if a0 > a1:
                alphas = [a0, a1] + [((7 - i) * a0 + i * a1) // 7 for i in range(1, 7)]
            else:
                alphas = [a0, a1] + [((5 - i) * a0 + i * a1) // 5 for i in range(1, 5)] + [0, 255]
            abits = int.from_bytes(block[2:8], "little")
        by, bx = divmod(k, bw)
        for i in range(16):
            y, x = by * 4 + i // 4, bx * 4 + i % 4
            if y >= h or x >= w:
                continue
            px = list(pal[(bits >> (2 * i)) & 3])
            if kind == DXT5:
                px[3] = alphas[(abits >> (3 * i)) & 7]
            out[y, x] = px
    return out


def build_paa(kind, w, h, data, compress=False, tags=(("CGVA", b"\xff\x80\x40\x20"),),
              more=()):
    """A PAA of one mipmap ``data`` (raw pixel/block bytes), the smaller ones of ``more``
    ((w, h, data) each) after it, plus the end marker. ``compress``: LZO for DXT (the
    width's top bit set), LZSS for the others."""
    out = bytearray(struct.pack("<H", kind))
    for name, value in tags:
        out += b"GGAT" + name.encode() + struct.pack("<I", len(value)) + value
    out += struct.pack("<H", 0)                                   # no palette
    for w, h, data in ((w, h, data), *more):
        out += _level(kind, w, h, data, compress)
    out += struct.pack("<HH", 0, 0)
    return bytes(out)


def _level(kind, w, h, data, compress):
    width = w
    if compress and kind in (DXT1, DXT5):
        data, width = lzo_compress(data), w | 0x8000
    elif compress:
        packed = lzss_compress(data)[:-4]
        signed = int(np.frombuffer(data, np.int8).sum(dtype=np.int64)) & 0xFFFFFFFF
        data = packed + signed.to_bytes(4, "little")              # PAA sums signed bytes
    return struct.pack("<HH", width, h) + len(data).to_bytes(3, "little") + data


def solid_dxt1(w, h, rgb565):
    """DXT1 data of one colour everywhere (index 0)."""
    n = ((w + 3) // 4) * ((h + 3) // 4)
    return struct.pack("<HHI", rgb565, 0, 0) * n
