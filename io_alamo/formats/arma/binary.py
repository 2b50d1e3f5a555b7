"""Checked reading of a binarized P3D: every count and length is held against the bytes left
before anything is sliced or allocated, and every problem becomes one :class:`P3dFormatError`
naming the file's version, the offset and the structure (``LOD 3 (Geometry)/faces``)."""

import struct

import numpy as np

from ..errors import FormatError
from . import compiled, lzo, lzss

MAX_STRING = 1 << 16            # longest asciiz accepted (paths and names are short)
MAX_EXPANSION = 256             # LZO and LZSS cannot expand data by more than ~255x


class P3dFormatError(FormatError):
    """A binarized P3D (ODOL) file breaks its format, or is one io_alamo cannot read."""


_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_F32 = struct.Struct("<f")


class Reader:
    """A position in the file's bytes plus what decides its layout (the version)."""

    def __init__(self, data, version=0, filename=None):
        self.data = bytes(data)
        self.pos = 0
        self.version = version
        self.filename = filename
        self.where = []             # structure path, innermost last
        self.warnings = []          # problems that do not stop reading

    # --- errors and places -------------------------------------------------------------

    def error(self, message, offset=None):
        path = "/".join(self.where)
        text = f"ODOL v{self.version}: {message}" if self.version else message
        return P3dFormatError(text, offset=self.pos if offset is None else offset,
                              path=path, filename=self.filename)

    def enter(self, name):
        """Use as ``with r.enter("faces"):`` so errors inside name the structure."""
        return _Where(self, name)

    def remaining(self):
        return len(self.data) - self.pos

    def need(self, size, what):
        if size < 0 or size > self.remaining():
            raise self.error(f"{what} needs {size:,} bytes but only {max(self.remaining(), 0):,}"
                             " are left in the file")

    def count(self, what, min_item_size):
        """A u32 element count, checked against the bytes that ``min_item_size`` each need."""
        at = self.pos
        n = self.u32()
        if n * min_item_size > self.remaining():
            raise self.error(f"{what}: a count of {n:,} does not fit in the {self.remaining():,}"
                             " bytes left", at)
        return n

    # --- plain values -------------------------------------------------------------------

    def take(self, size, what="data"):
        self.need(size, what)
        out = self.data[self.pos:self.pos + size]
        self.pos += size
        return out

    def u8(self):
        self.need(1, "a byte")
        self.pos += 1
        return self.data[self.pos - 1]

    def boolean(self):
        return self.u8() != 0

    def u32(self):
        self.need(4, "a 32-bit value")
        self.pos += 4
        return _U32.unpack_from(self.data, self.pos - 4)[0]

    def i32(self):
        self.need(4, "a 32-bit value")
        self.pos += 4
        return _I32.unpack_from(self.data, self.pos - 4)[0]

    def f32(self):
        self.need(4, "a float")
        self.pos += 4
        return _F32.unpack_from(self.data, self.pos - 4)[0]

    def floats(self, n):
        return np.frombuffer(self.take(4 * n, f"{n} floats"), "<f4").astype(np.float32)

    def vec3(self):
        return self.floats(3)

    def asciiz(self):
        end = self.data.find(b"\0", self.pos, self.pos + MAX_STRING)
        if end < 0:
            raise self.error("a text string has no terminating NUL byte")
        out = self.data[self.pos:end].decode("cp1252", errors="replace")
        self.pos = end + 1
        return out

    def strings(self, what):
        return [self.asciiz() for _ in range(self.count(what, 1))]

    # --- compressed arrays --------------------------------------------------------------

    def packed(self, n, item_size, what):
        """``n`` items of ``item_size`` bytes, stored raw or compressed by the version's rules."""
        size = n * item_size
        if size == 0:
            return b""
        if size > MAX_EXPANSION * self.remaining() + 1024:
            raise self.error(f"{what}: {n:,} items cannot come from the "
                             f"{self.remaining():,} bytes left")
        if self.version >= 64:
            compressed = self.u8() != 0
        else:
            compressed = size >= 1024
        if not compressed:
            return self.take(size, what)
        codec = lzo if self.version >= 44 else lzss
        decompress = compiled.lzo_decompress if codec is lzo else lzss.decompress
        try:
            out, used = decompress(self.data, self.pos, size)
        except (lzo.LzoError, lzss.LzssError) as e:
            name = "LZO" if codec is lzo else "LZSS"
            raise self.error(f"{what}: {name} data is corrupt ({e})", e.offset) from None
        self.pos += used
        return out

    def packed_array(self, item_size, what):
        """A u32 count followed by that many packed items."""
        n = self.count(what, 0)
        return n, self.packed(n, item_size, what)

    def filled_array(self, item_size, what):
        """A u32 count, a fill flag, then one item for all or all items packed."""
        n = self.count(what, 0)
        if self.boolean():
            one = self.take(item_size, what)
            if n * item_size > MAX_EXPANSION * self.remaining() + (1 << 20):
                raise self.error(f"{what}: a count of {n:,} is implausible here")
            return n, one * n
        return n, self.packed(n, item_size, what)


class _Where:
    def __init__(self, reader, name):
        self.reader = reader
        self.name = name

    def __enter__(self):
        self.reader.where.append(self.name)
        return self.reader

    def __exit__(self, *exc):
        self.reader.where.pop()
        return False
