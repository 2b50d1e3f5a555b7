"""PAA/PAC textures of Bohemia Interactive's engines, decoded to RGBA pixels (stdlib + numpy).

A PAA is a 16-bit type, tagged blocks (``GGAT`` + reversed name + length + data), a palette
count (and palette), then mipmaps, largest first: width, height (16 bits each), a 24-bit data
length and the data. DXT1-5 mipmaps are LZO1X-compressed when the width's top bit is set;
the 16/32-bit colour types are LZSS-compressed (with the sum of the data as signed bytes after
them) unless the
data is exactly the raw size. Only the largest mipmap is decoded, block-wise with whole-array
numpy (no loop per pixel), or on request the largest one within a size (a small preview's).

    texture = read_paa(data)            # PaaTexture: width, height, rgba (h, w, 4) uint8
    small = read_paa(data, max_side=512)    # the largest mipmap of at most 512 pixels a side

Rows run top-down as stored (DirectX order). Every size is checked against the bytes left
before anything is allocated; a bad file raises one :class:`PaaFormatError`.
"""

import struct
from dataclasses import dataclass, field

import numpy as np

from ..errors import FormatError
from . import compiled, lzo, lzss
from .binary import MAX_EXPANSION  # LZO and LZSS cannot expand data more than this

DXT1, DXT2, DXT3, DXT4, DXT5 = 0xFF01, 0xFF02, 0xFF03, 0xFF04, 0xFF05
ARGB4444, ARGB1555, ARGB8888, AI88 = 0x4444, 0x1555, 0x8888, 0x8080
TYPE_NAMES = {DXT1: "DXT1", DXT2: "DXT2", DXT3: "DXT3", DXT4: "DXT4", DXT5: "DXT5",
              ARGB4444: "ARGB4444", ARGB1555: "ARGB1555", ARGB8888: "ARGB8888", AI88: "AI88"}
BLOCK_BYTES = {DXT1: 8, DXT2: 16, DXT3: 16, DXT4: 16, DXT5: 16}
PIXEL_BYTES = {ARGB4444: 2, ARGB1555: 2, ARGB8888: 4, AI88: 2}
MAX_SIDE = 8192
LZO_FLAG = 0x8000
CHUNK_BLOCKS = 1 << 16          # blocks decoded at a time


class PaaFormatError(FormatError):
    """A PAA/PAC texture breaks its format, or uses a type io_alamo does not decode."""


@dataclass(slots=True)
class PaaTexture:
    kind: int                          # one of the type constants above
    width: int
    height: int
    rgba: np.ndarray                   # (height, width, 4) uint8, top row first
    tags: dict = field(default_factory=dict)   # tag name (as read: "AVGC", "FLAG"...) -> bytes
    blocks: bytes = b""                # DXT kinds: the mipmap's blocks as stored (decompressed)
    level: int = 0                     # which mipmap (0: the largest)

    @property
    def kind_name(self):
        return TYPE_NAMES.get(self.kind, f"0x{self.kind:04x}")


def read_paa(data, filename=None, decode=True, max_side=None):
    """Decode the largest mipmap of the PAA/PAC bytes ``data``. ``decode`` False leaves a
    DXT texture's pixels undecoded (``rgba`` None, its ``blocks`` kept: :func:`decoded`).
    ``max_side``: the largest mipmap whose sides are at most that many pixels instead
    (its ``level`` says which; mipmap 0 when the file has no such one, or when the levels
    after mipmap 0 run past the end: they are skipped over, never expanded; an error names
    the mipmap it is in)."""
    data = bytes(data)

    def fail(message, offset):
        return PaaFormatError(message, offset=offset, filename=filename)

    if len(data) < 2:
        raise fail("too short for a PAA texture", 0)
    kind = struct.unpack_from("<H", data, 0)[0]
    if kind not in TYPE_NAMES:
        raise fail(f"texture type 0x{kind:04x} is not one io_alamo decodes (DXT1-5, ARGB4444, "
                   "ARGB1555, ARGB8888, AI88; palette textures are not)", 0)
    pos, tags = _tags(data, 2, fail)
    if pos + 2 > len(data):
        raise fail("the file ends before its palette", pos)
    colours = struct.unpack_from("<H", data, pos)[0]
    pos += 2 + 3 * colours
    if pos + 7 > len(data):
        raise fail("the file ends before its first mipmap", min(pos, len(data)))
    level = 0
    if max_side is not None:
        pos, level = _level_within(data, pos, kind, max_side)
    w, h = struct.unpack_from("<HH", data, pos)
    size = int.from_bytes(data[pos + 4:pos + 7], "little")
    at = pos + 7
    compressed_lzo = bool(w & LZO_FLAG) and kind in BLOCK_BYTES
    w &= 0x7FFF
    if not (0 < w <= MAX_SIDE and 0 < h <= MAX_SIDE):
        raise fail(f"mipmap {level} is {w} x {h} pixels (1 to {MAX_SIDE} each expected)", pos)
    if at + size > len(data):
        raise fail(f"mipmap {level} needs {size:,} bytes but only {len(data) - at:,} are left", at)
    raw = _mipmap_bytes(data, at, size, kind, w, h, compressed_lzo, fail, level)
    if kind in BLOCK_BYTES:
        tex = PaaTexture(kind, w, h, None, tags, bytes(raw), level)
        return decoded(tex) if decode else tex
    return PaaTexture(kind, w, h, _decode_plain(raw, w, h, kind), tags, level=level)


def _level_within(data, pos, kind, max_side):
    """(header offset, level) of the first mipmap from ``pos`` on whose sides are at most
    ``max_side``, the ones before it each smaller than the last and within the file;
    (``pos``, 0) when there is none."""
    at, level, side = pos, 0, None
    while at + 7 <= len(data):
        w, h = struct.unpack_from("<HH", data, at)
        w &= 0x7FFF
        size = int.from_bytes(data[at + 4:at + 7], "little")
        if not (w and h) or at + 7 + size > len(data) or (side and max(w, h) >= side):
            break
        if max(w, h) <= max_side:
            return (at, level) if level else (pos, 0)
        at, level, side = at + 7 + size, level + 1, max(w, h)
    return pos, 0


def decoded(texture):
    """``texture`` with its pixels (``rgba``) decoded from its DXT blocks, if not yet."""
    if texture.rgba is None:
        w, h = texture.width, texture.height
        rgba = compiled.bcn_decode(texture.blocks, w, h, TYPE_NAMES[texture.kind])
        texture.rgba = rgba if rgba is not None else decode_dxt(texture.blocks, w, h,
                                                                texture.kind)
    return texture


def has_alpha(texture, below=253):
    """Whether any pixel's alpha is less than ``below`` (253: what a colour texture's
    compression leaves of opaque). A DXT1 or DXT5 texture that is opaque everywhere is told
    from its blocks without decoding (DXT1: no block in three-colour mode uses its
    transparent index 3; DXT5: every alpha block's two ends at least ``below`` and, where
    the block has the 0/255 entries, its index 6 (0) unused); any other is decoded."""
    if texture.rgba is None and _opaque_blocks(texture, below):
        return False
    return bool((decoded(texture).rgba[:, :, 3] < below).any())


def _opaque_blocks(texture, below):
    """True when the blocks show every pixel opaque (see :func:`has_alpha`); False when
    they do not tell (then the pixels decide)."""
    if texture.kind not in (DXT1, DXT5) or texture.width % 4 or texture.height % 4:
        return False                          # edge blocks' padding would count: decode
    size = BLOCK_BYTES[texture.kind]
    n = (texture.width // 4) * (texture.height // 4)
    if len(texture.blocks) < n * size:
        return False
    # each block's first 8 bytes as one little-endian word: whole-array integer tests
    v = np.frombuffer(texture.blocks, "<u8", n * size // 8)[::size // 8]
    if texture.kind == DXT1:
        three = (v & 0xFFFF) <= ((v >> 16) & 0xFFFF)          # c0 <= c1: index 3 transparent
        idx = v >> 32
        return not (three & ((idx & (idx >> 1) & 0x55555555) != 0)).any()
    a0, a1 = v & 0xFF, (v >> 8) & 0xFF
    if (np.minimum(a0, a1) < below).any():
        return False
    idx = v >> 16
    six = (idx >> 2) & (idx >> 1) & ~idx & 0x249249249249   # an index 6 (binary 110)
    return not ((a0 <= a1) & (six != 0)).any()


def dds_of(texture):
    """A DDS file (one level, the DXT blocks as they are) of a DXT texture, or None for the
    other kinds: Blender reads it as fast as any DDS, with no decoding here."""
    if not texture.blocks:
        return None
    fourcc = TYPE_NAMES[texture.kind].encode("ascii")
    flags = 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000        # caps, height, width, format, size
    head = struct.pack("<4sIIIIIII44x", b"DDS ", 124, flags, texture.height, texture.width,
                       len(texture.blocks), 0, 1)
    pixel_format = struct.pack("<II4s20x", 32, 0x4, fourcc)
    return head + pixel_format + struct.pack("<IIII4x", 0x1000, 0, 0, 0) + texture.blocks


def _tags(data, pos, fail):
    tags = {}
    while data[pos:pos + 4] == b"GGAT":
        if pos + 12 > len(data):
            raise fail("a tag runs past the end of the file", pos)
        name = data[pos + 4:pos + 8][::-1].decode("latin-1")
        length = struct.unpack_from("<I", data, pos + 8)[0]
        if pos + 12 + length > len(data):
            raise fail(f"tag {name!r} needs {length:,} bytes past the end of the file", pos)
        tags[name] = data[pos + 12:pos + 12 + length]
        pos += 12 + length
    return pos, tags


def _expected_size(kind, w, h):
    if kind in BLOCK_BYTES:
        return ((w + 3) // 4) * ((h + 3) // 4) * BLOCK_BYTES[kind]
    return w * h * PIXEL_BYTES[kind]


def _mipmap_bytes(data, at, size, kind, w, h, compressed_lzo, fail, level=0):
    want = _expected_size(kind, w, h)
    if kind in BLOCK_BYTES and not compressed_lzo:
        if size < want:
            raise fail(f"mipmap {level} holds {size:,} bytes, {want:,} expected", at)
        return data[at:at + want]
    if kind not in BLOCK_BYTES and size == want:
        return data[at:at + want]
    if want > MAX_EXPANSION * max(size, 1):
        raise fail(f"mipmap {level} of {w} x {h} pixels cannot come from {size:,} compressed bytes",
                   at)
    chunk = data[at:at + size]
    try:
        if compressed_lzo:
            out, _ = compiled.lzo_decompress(chunk, 0, want)
        else:
            out, _ = lzss.decompress(chunk, 0, want, signed_checksum=True)
    except (lzo.LzoError, lzss.LzssError) as e:
        raise fail(f"mipmap {level}: {e}", at + e.offset) from None
    if len(out) != want:
        raise fail(f"mipmap {level} expands to {len(out):,} bytes, {want:,} expected", at)
    return out


def _rgb565(c):
    c = c.astype(np.uint32)
    r = (c >> 11) & 31
    g = (c >> 5) & 63
    b = c & 31
    return np.stack([(r * 255 + 15) // 31, (g * 255 + 31) // 63, (b * 255 + 15) // 31],
                    axis=-1).astype(np.int32)


def _colour_blocks(blocks, four_colour_always):
    """(n, 16, 4) uint8 RGBA of n 8-byte DXT colour blocks."""
    c0 = blocks[:, 0].astype(np.uint16) | (blocks[:, 1].astype(np.uint16) << 8)
    c1 = blocks[:, 2].astype(np.uint16) | (blocks[:, 3].astype(np.uint16) << 8)
    p0, p1 = _rgb565(c0), _rgb565(c1)
    four = (c0 > c1) | four_colour_always
    f = four[:, None]
    p2 = np.where(f, (2 * p0 + p1) // 3, (p0 + p1) // 2)
    p3 = np.where(f, (p0 + 2 * p1) // 3, 0)
    n = len(blocks)
    alpha = np.full((n, 4), 255, np.int32)
    alpha[:, 3] = np.where(four, 255, 0)
    palette = np.concatenate([np.stack([p0, p1, p2, p3], axis=1), alpha[:, :, None]], axis=2)
    packed = np.ascontiguousarray(palette.astype(np.uint8)).view(np.uint32).reshape(n * 4)
    bits = (blocks[:, 4:8].astype(np.uint32) << np.array([0, 8, 16, 24], np.uint32)).sum(
        axis=1, dtype=np.uint32)
    idx = (bits[:, None] >> (2 * np.arange(16, dtype=np.uint32))) & 3
    idx = idx.astype(np.intp) + 4 * np.arange(n, dtype=np.intp)[:, None]
    return packed[idx].view(np.uint8).reshape(n, 16, 4)         # one RGBA word per pixel


def _alpha_blocks(blocks):
    """(n, 16) alpha of n 8-byte DXT5 alpha blocks."""
    a0 = blocks[:, 0].astype(np.int32)
    a1 = blocks[:, 1].astype(np.int32)
    k = np.arange(1, 7, dtype=np.int32)
    eight = ((7 - k[:6, None]) * a0 + k[:6, None] * a1) // 7             # a0 > a1: 6 between
    six = ((5 - k[:4, None]) * a0 + k[:4, None] * a1) // 5               # else 4, then 0, 255
    six = np.concatenate([six, np.zeros((1, len(a0)), np.int32),
                          np.full((1, len(a0)), 255, np.int32)])
    between = np.where((a0 > a1)[None, :], eight, six)
    palette = np.concatenate([a0[None], a1[None], between]).T           # (n, 8)
    bits = np.zeros(len(blocks), np.uint64)
    for b in range(6):
        bits |= blocks[:, 2 + b].astype(np.uint64) << np.uint64(8 * b)
    idx = (bits[:, None] >> (3 * np.arange(16, dtype=np.uint64))) & np.uint64(7)
    return np.take_along_axis(palette, idx.astype(np.int64), axis=1)


def decode_dxt(raw, w, h, kind):
    """RGBA (h, w, 4) uint8 of DXT1 (8-byte blocks) or DXT2-5 (16-byte) data."""
    bw, bh = (w + 3) // 4, (h + 3) // 4
    size = BLOCK_BYTES[kind]
    blocks = np.frombuffer(raw, np.uint8, bw * bh * size).reshape(-1, size)
    px = np.empty((len(blocks), 16, 4), np.uint8)
    for lo in range(0, len(blocks), CHUNK_BLOCKS):      # bounded temporary arrays
        part = blocks[lo:lo + CHUNK_BLOCKS]
        px[lo:lo + len(part)] = _decode_blocks(part, kind)
    img = px.reshape(bh, bw, 4, 4, 4).transpose(0, 2, 1, 3, 4).reshape(bh * 4, bw * 4, 4)
    return np.ascontiguousarray(img[:h, :w])


def _decode_blocks(blocks, kind):
    if kind == DXT1:
        return _colour_blocks(blocks, False)
    px = _colour_blocks(blocks[:, 8:], True)
    if kind in (DXT4, DXT5):
        px[:, :, 3] = _alpha_blocks(blocks[:, :8])
    else:                                                 # DXT2/3: 4 bits per pixel
        nib = np.stack([blocks[:, :8] & 15, blocks[:, :8] >> 4], axis=2).reshape(-1, 16)
        px[:, :, 3] = nib.astype(np.int32) * 17
    return px


def _decode_plain(raw, w, h, kind):
    if kind == ARGB8888:                                  # stored B, G, R, A
        px = np.frombuffer(raw, np.uint8, w * h * 4).reshape(h, w, 4)
        return np.ascontiguousarray(px[:, :, [2, 1, 0, 3]])
    v = np.frombuffer(raw, "<u2", w * h).astype(np.uint32).reshape(h, w)
    if kind == ARGB4444:
        ch = [(v >> 8) & 15, (v >> 4) & 15, v & 15, (v >> 12) & 15]
        return (np.stack(ch, axis=-1) * 17).astype(np.uint8)
    if kind == ARGB1555:
        ch = [((v >> s) & 31) * 255 // 31 for s in (10, 5, 0)] + [((v >> 15) & 1) * 255]
        return np.stack(ch, axis=-1).astype(np.uint8)
    lum, alpha = v & 255, v >> 8                          # AI88: grey and alpha
    return np.stack([lum, lum, lum, alpha], axis=-1).astype(np.uint8)
