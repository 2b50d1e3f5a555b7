"""PNG files written fast from 8-bit pixels (numpy and zlib): the batch's .glb carries its
baked and converted textures as PNG, and encoding them was most of what a 2048x2048 texture
cost there (issue 44).

Every row uses the "Up" filter (the difference from the row above: smooth textures turn
into small numbers, which one whole-array subtraction makes) and zlib's level 2. On the
2048x2048 colour and normal maps of ``scripts/bench_glb.py --big-textures`` that takes
0.06-0.07 s each and gives 0.46 MB files, where Blender's own PNG writer took 0.28 s for
0.43 MB; without a filter the files were twice as big, level 6 took twice as long. The
pixels are the given bytes exactly: PNG is lossless.

Where imagecodecs is installed (the extension bundles it) the stream is compressed by its
libdeflate at level 1 instead: on the 60 images the batch's .glb files of the corpus hold
(19 MB of pixels), 0.11 s of CPU and 4.67 MB, where zlib's level 2 takes 0.26 s for 4.99 MB
(issue 44). Both write the zlib format PNG requires; ``IO_ALAMO_PURE=1`` uses zlib.
"""

import os
import struct
import zlib

import numpy as np

try:
    import imagecodecs as _codecs
    if not _codecs.DEFLATE.available:
        _codecs = None
except (ImportError, AttributeError, OSError):        # absent, or built for another numpy
    _codecs = None

__all__ = ["encode_png", "plain_shape"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}          # channels -> grey, grey+alpha, RGB, RGBA
_UP = 2


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(body, zlib.crc32(kind)))


def _compress(raw):
    """The zlib stream of the filtered rows (libdeflate where imagecodecs has it)."""
    if _codecs is not None and not os.environ.get("IO_ALAMO_PURE"):
        return _codecs.deflate_encode(raw, level=1)
    return zlib.compress(raw, 2)


def encode_png(pixels, extra=()):
    """The PNG file of ``pixels``: uint8, (height, width, channels) with 1-4 channels
    (grey, grey+alpha, RGB, RGBA), first row at the top of the picture; ``extra``: (kind,
    body) chunks written after the header (ancillary ones, which decoders that do not know
    them skip)."""
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
                     *(_chunk(kind, body) for kind, body in extra),
                     _chunk(b"IDAT", _compress(raw)), _chunk(b"IEND", b"")))


_CHANNELS = {t: c for c, t in _COLOUR_TYPES.items()}


def plain_shape(head):
    """(height, width, channels) of the PNG file whose first bytes (33 suffice) are
    ``head``, when it is of a kind :func:`encode_png` writes (8 bits, not interlaced, grey,
    grey+alpha, RGB or RGBA, not empty); None for any other file."""
    if len(head) < 33 or head[:8] != _SIGNATURE or head[12:16] != b"IHDR":
        return None
    w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", head[16:29])
    if depth != 8 or colour not in _CHANNELS or interlace or not w or not h:
        return None
    return h, w, _CHANNELS[colour]
