"""PNG files written fast from 8-bit pixels (numpy and zlib): the batch's .glb carries its
baked and converted textures as PNG, and encoding them was most of what a 2048x2048 texture
cost there (issue 44).

Every row uses the "Up" filter (the difference from the row above: smooth textures turn
into small numbers, which one whole-array subtraction makes) and zlib's level 2. On the
2048x2048 colour and normal maps of ``scripts/bench_glb.py --big-textures`` that takes
0.06-0.07 s each and gives 0.46 MB files, where Blender's own PNG writer took 0.28 s for
0.43 MB; without a filter the files were twice as big, level 6 took twice as long. The
pixels are the given bytes exactly: PNG is lossless.
"""

import struct
import zlib

import numpy as np

__all__ = ["encode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}          # channels -> grey, grey+alpha, RGB, RGBA
_UP = 2


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(body, zlib.crc32(kind)))


def encode_png(pixels, level=2):
    """The PNG file of ``pixels``: uint8, (height, width, channels) with 1-4 channels
    (grey, grey+alpha, RGB, RGBA), first row at the top of the picture."""
    px = np.asarray(pixels)
    if px.ndim == 2:
        px = px[..., None]
    if px.dtype != np.uint8 or px.ndim != 3 or px.shape[2] not in _COLOUR_TYPES:
        raise ValueError(f"PNG pixels must be uint8 (height, width, 1-4), not {px.dtype} "
                         f"{px.shape}")
    h, w, c = px.shape
    if not h or not w:
        raise ValueError(f"PNG pixels must not be empty, not {w}x{h}")
    rows = px.reshape(h, w * c)
    raw = np.empty((h, w * c + 1), np.uint8)
    raw[:, 0] = _UP
    np.subtract(rows[1:], rows[:-1], out=raw[1:, 1:])        # wraps modulo 256, as PNG's
    raw[0, 1:] = rows[0]                                      # the row above the first is 0
    header = struct.pack(">IIBBBBB", w, h, 8, _COLOUR_TYPES[c], 0, 0, 0)
    return b"".join((_SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"IDAT", zlib.compress(raw, level)), _chunk(b"IEND", b"")))
