"""The compiled decoders of ``imagecodecs`` (LZO via lzokay, BCn via bcdec) where it is
installed, the pure :mod:`.lzo` and :mod:`.paa` decoders where it is not.

The extension bundles imagecodecs as wheels; a checkout without it still reads every file,
only slower. Both paths give the same bytes (BCn colours may differ by one step of rounding);
the pure one also names the place of a corrupt stream, so a stream the compiled decoder rejects
is decoded again by the pure one for its error.

P3D files store an LZO stream's expanded size but not its compressed length, which lzokay
needs exactly (it rejects input past the end marker as well as input short of it). The stream
ends with the marker ``11 00 00``; the end is the first such marker at which decoding
succeeds, found by bisection over the markers that can end it: decoding stops short of the
true end with "InputOverrun" and past it with "InputNotConsumed".
"""

import os

import numpy as np

from . import lzo

try:
    import imagecodecs as _codecs
    if not (_codecs.LZO.available and _codecs.BCN.available):
        _codecs = None
except (ImportError, AttributeError, OSError):        # absent, or built for another numpy
    _codecs = None

# IO_ALAMO_PURE=1 in the environment (or ENABLED = False) forces the pure decoders.
ENABLED = _codecs is not None and not os.environ.get("IO_ALAMO_PURE")
END_MARKER = b"\x11\x00\x00"
BCN_FORMAT = {"DXT1": 1, "DXT2": 2, "DXT3": 2, "DXT4": 3, "DXT5": 3}


def available():
    """Whether the compiled decoders are in use."""
    return ENABLED and _codecs is not None


def describe():
    """One line saying which decoders are in use (for benchmarks and reports)."""
    if available():
        return f"imagecodecs {_codecs.__version__} (lzokay, bcdec)"
    return "pure Python/numpy decoders" + ("" if _codecs is not None else
                                           " (imagecodecs not installed)")


def _longest_stream(out_size):
    """The most bytes an LZO1X stream expanding to ``out_size`` bytes can take."""
    return out_size + out_size // 16 + 64 + 3


def lzo_decompress(src, pos, out_size):
    """As :func:`.lzo.decompress`: ``(out_size bytes, input bytes used)``."""
    if not available() or out_size <= 0:
        return lzo.decompress(src, pos, out_size)
    view = memoryview(src)[pos:pos + _longest_stream(out_size)]
    w = np.frombuffer(view, np.uint8)
    ends = np.flatnonzero((w[:-2] == 0x11) & (w[1:-1] == 0) & (w[2:] == 0)) + 3
    lo, hi = 0, len(ends) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        end = int(ends[mid])
        try:
            out = _codecs.lzo_decode(view[:end], out=out_size)
        except _codecs.LzoError as e:
            text = str(e)
            if "InputOverrun" in text:
                lo = mid + 1
                continue
            if "InputNotConsumed" in text:
                hi = mid - 1
                continue
            break
        if len(out) == out_size:
            return bytes(out), end
        break
    return lzo.decompress(src, pos, out_size)       # corrupt: the pure decoder says where


def bcn_decode(raw, w, h, kind_name):
    """RGBA (h, w, 4) uint8 of DXT data (``kind_name`` "DXT1".."DXT5"), or None when the
    compiled decoder is not in use or declines (imagecodecs 2025.3.30 refuses some small
    images, e.g. 8 x 8): then the caller decodes with numpy."""
    if not available():
        return None
    bw, bh = (w + 3) // 4, (h + 3) // 4
    size = 8 if kind_name == "DXT1" else 16
    try:
        px = _codecs.bcn_decode(bytes(raw[:bw * bh * size]), BCN_FORMAT[kind_name],
                                shape=(bh * 4, bw * 4, 4))
    except (ValueError, RuntimeError):               # BcnError is a RuntimeError
        return None
    return np.ascontiguousarray(px[:h, :w])
