"""DDS textures as the Alamo games ship them: DXT1 (no alpha) or DXT5 (alpha) with a full
mipmap chain, or uncompressed A8R8G8B8 (one level) on request.

The header follows the games' own files (``../shared/corpus/Textures``: flags 0xA1007 =
caps, height, width, pixel format, mipmap count, linear size; the top level's byte size as
the linear size; FourCC pixel format, with the alpha bit where the texture has alpha; caps
0x401008 = texture, mipmap, complex). DXT blocks are encoded by ``etcpak`` (a compiled
encoder, bundled with the extension); without it DXT cannot be written and
:func:`encode_dds` writes the uncompressed form, as :func:`dxt_available` tells.

    data = encode_dds(rgba)                  # (h, w, 4) uint8, top row first
"""

import struct

import numpy as np

try:
    import etcpak as _etcpak
except (ImportError, OSError, AttributeError):   # etcpak needs archspec; either may be absent
    _etcpak = None

HEADER_SIZE = 124
DDSD_CAPS, DDSD_HEIGHT, DDSD_WIDTH, DDSD_PITCH = 0x1, 0x2, 0x4, 0x8
DDSD_PIXELFORMAT, DDSD_MIPMAPCOUNT, DDSD_LINEARSIZE = 0x1000, 0x20000, 0x80000
DDPF_ALPHAPIXELS, DDPF_FOURCC, DDPF_RGB = 0x1, 0x4, 0x40
DDSCAPS_COMPLEX, DDSCAPS_TEXTURE, DDSCAPS_MIPMAP = 0x8, 0x1000, 0x400000
COMPRESSED, UNCOMPRESSED = "DXT", "A8R8G8B8"


def dxt_available():
    """Whether DXT can be written here (etcpak is installed)."""
    return _etcpak is not None


def has_alpha(rgba):
    return bool((np.asarray(rgba)[:, :, 3] < 255).any())


def mip_chain(rgba):
    """The image and each half-size level below it, down to 1 x 1 (2 x 2 box filter; an odd
    side keeps its last row or column)."""
    levels = [np.ascontiguousarray(rgba, np.uint8)]
    while max(levels[-1].shape[:2]) > 1:
        img = levels[-1].astype(np.uint16)
        h, w = img.shape[:2]
        h2, w2 = max(h // 2, 1), max(w // 2, 1)
        if h > 1:
            img = img[:2 * h2:2] + img[1:2 * h2:2]
        else:
            img = img * 2
        if w > 1:
            img = img[:, :2 * w2:2] + img[:, 1:2 * w2:2]
        else:
            img = img * 2
        levels.append(((img + 2) // 4).astype(np.uint8))
    return levels


def _blocks(level, alpha):
    """DXT1/DXT5 blocks of one level (padded to whole 4 x 4 blocks by repeating edges)."""
    h, w = level.shape[:2]
    ph, pw = -h % 4, -w % 4
    if ph or pw:
        level = np.pad(level, ((0, ph), (0, pw), (0, 0)), mode="edge")
    data = np.ascontiguousarray(level).tobytes()
    encode = _etcpak.compress_bc3 if alpha else _etcpak.compress_bc1
    return encode(data, w + pw, h + ph)


def _header(w, h, linear, mips, fourcc, alpha, compressed):
    flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT
    caps = DDSCAPS_TEXTURE
    if compressed:
        flags |= DDSD_MIPMAPCOUNT | DDSD_LINEARSIZE
        caps |= DDSCAPS_MIPMAP | DDSCAPS_COMPLEX
        pf = struct.pack("<II4sIIIII", 32, DDPF_FOURCC | (DDPF_ALPHAPIXELS if alpha else 0),
                         fourcc, 0, 0, 0, 0, 0)
    else:
        flags |= DDSD_PITCH
        pf = struct.pack("<II4sIIIII", 32, DDPF_RGB | DDPF_ALPHAPIXELS, b"\0\0\0\0", 32,
                         0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000)
    head = struct.pack("<4sIIIIIII44x", b"DDS ", HEADER_SIZE, flags, h, w, linear, 0,
                       mips if compressed else 1)
    return head + pf + struct.pack("<IIII4x", caps, 0, 0, 0)


def encode_dds(rgba, compression=COMPRESSED):
    """A DDS of ``rgba`` ((h, w, 4) uint8, top row first): DXT1/DXT5 with every mipmap, or
    (``compression`` UNCOMPRESSED, or without etcpak) A8R8G8B8, one level."""
    rgba = np.ascontiguousarray(rgba, np.uint8)
    h, w = rgba.shape[:2]
    if compression == COMPRESSED and dxt_available():
        alpha = has_alpha(rgba)
        levels = [_blocks(level, alpha) for level in mip_chain(rgba)]
        fourcc = b"DXT5" if alpha else b"DXT1"
        return _header(w, h, len(levels[0]), len(levels), fourcc, alpha, True) + \
            b"".join(levels)
    body = rgba[:, :, [2, 1, 0, 3]].tobytes()                       # BGRA
    return _header(w, h, 4 * w, 1, b"", True, False) + body


def describe_dds(data):
    """(width, height, FourCC or "A8R8G8B8", mipmap count) of DDS bytes (for checks)."""
    if len(data) < 128 or data[:4] != b"DDS ":
        raise ValueError("not a DDS file")
    flags, h, w, _, _, mips = struct.unpack_from("<6I", data, 8)
    pf_flags, fourcc = struct.unpack_from("<I4s", data, 80)
    kind = fourcc.decode("latin-1") if pf_flags & DDPF_FOURCC else UNCOMPRESSED
    return w, h, kind, (mips if flags & DDSD_MIPMAPCOUNT else 1)
