"""MEG v1, the archives Empire at War and Forces of Corruption ship their data in (``*.meg``).

Layout (little-endian; FORMAT-NOTES.md "MEG v1"):

- ``uint32`` name count, ``uint32`` file count;
- the names, each a ``uint16`` length and that many ASCII bytes (upper case, ``\\``-separated,
  e.g. ``DATA\\ART\\MODELS\\EI_VADER.ALO``);
- one 20-byte record per file: ``uint32`` CRC-32 of the upper-case name, ``uint32`` record
  index, ``uint32`` size, ``uint32`` absolute start, ``uint32`` name index; sorted by CRC;
- the members' bytes.

Reading is lazy: :class:`MegArchive` reads the index (names and records) and nothing else;
:meth:`MegArchive.read` then reads one member's bytes. Every count, size and offset is checked
against the archive's size before anything is allocated, so a hostile or truncated archive gets
one :class:`MegFormatError` naming the file, the offset and the place (``header``,
``name #3``, ``record #7``), never a huge allocation. Later Petroglyph layouts (a header with
flags and a version id, optionally encrypted) are refused with a message that says which they
are. What the games would trip over but a reader can live with (a CRC that does not match the
name, the same name twice, records out of CRC order) is listed in :attr:`MegArchive.problems`.
"""

import fnmatch
import mmap
import os
import struct
import zlib
from dataclasses import dataclass

import numpy as np

from ...errors import FormatError

HEADER_SIZE = 8
RECORD_SIZE = 20
LATER_ID = 0x3F7D70A4                 # second word of the v2/v3 header (the float 0.99)
FLAGS_PLAIN = 0xFFFFFFFF              # first word of a v2/v3 header: not encrypted
FLAGS_ENCRYPTED = 0x8FFFFFFF          # first word of an encrypted v3 header
RECORD_DTYPE = np.dtype([("crc", "<u4"), ("index", "<u4"), ("size", "<u4"),
                         ("start", "<u4"), ("name", "<u4")])


class MegFormatError(FormatError):
    """A .meg archive breaks the MEG v1 layout (or is a later layout io_alamo does not read)."""

    where_label = "in"


@dataclass(frozen=True, slots=True)
class MegEntry:
    """One member: its name as stored, the record's fields, and where its record is."""
    name: str
    crc: int
    index: int              # the record's index field
    size: int
    start: int              # absolute offset of its bytes
    name_index: int
    record: int             # position of its record in the table (0-based)


def _ascii_upper(name):
    """Upper case of the ASCII letters only (as the games fold names); other bytes kept."""
    return name.encode("latin-1", "replace").upper()


def crc_of_name(name):
    """CRC-32 of the name in upper case, as the records store it."""
    return zlib.crc32(_ascii_upper(name))


def normal_name(name):
    """The key a member is looked up by: upper case (ASCII letters), ``\\`` separators."""
    return _ascii_upper(name.replace("/", "\\")).decode("latin-1")


def name_matches(name, patterns):
    """Whether the member ``name`` or its file name matches one of ``patterns`` (shell
    wildcards already put through :func:`normal_name`), in any case."""
    key = normal_name(name)
    base = key.rpartition("\\")[2]
    return any(fnmatch.fnmatchcase(key, p) or fnmatch.fnmatchcase(base, p) for p in patterns)


def later_layout(head):
    """'...' naming the later MEG layout ``head`` (the first 8 bytes) starts, or None."""
    if len(head) < 8:
        return None
    first, second = struct.unpack_from("<II", head)
    if second != LATER_ID:
        return None
    if first == FLAGS_ENCRYPTED:
        return "an encrypted MEG v3 archive (later Petroglyph games)"
    if first == FLAGS_PLAIN:
        return "a MEG v2/v3 archive (a header with flags, later Petroglyph games)"
    return f"a MEG archive with header flags 0x{first:08x} (a later layout)"


def looks_like_meg(data):
    """Whether ``data`` (the first bytes of a file, or all of it) starts like a MEG archive of
    any layout: a cheap guess, as MEG has no magic."""
    head = bytes(data[:64])
    if later_layout(head):
        return True
    if len(head) < HEADER_SIZE:
        return False
    names, files = struct.unpack_from("<II", head)
    if names == 0 or files == 0 or names > (1 << 24) or files > (1 << 24):
        return len(head) == HEADER_SIZE and names == files == 0
    if len(head) < 10:
        return False
    (length,) = struct.unpack_from("<H", head, 8)
    sample = head[10:10 + length]
    return 0 < length and len(sample) > 0 and all(32 <= b < 127 for b in sample)


class MegArchive:
    """The index of a MEG v1 archive at a path (or in a bytes-like object); members are read
    one at a time. ``with MegArchive(path) as meg: meg.read("DATA\\\\ART\\\\X.TEC")``."""

    def __init__(self, source, filename=None):
        self._buffer = None
        if isinstance(source, (bytes, bytearray, memoryview)):
            self.path = None
            self._buffer = memoryview(source).cast("B")
            self.filename = filename or "<archive>"
            self.file_size = len(self._buffer)
            self._parse(self._buffer)
        else:
            self.path = os.fspath(source)
            self.filename = filename or self.path
            with open(self.path, "rb") as f:
                self.file_size = os.fstat(f.fileno()).st_size
                if self.file_size < HEADER_SIZE:
                    self._parse(f.read())          # too short: the parser says so
                else:
                    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
                        self._parse(view)
        self._handle = None

    # --- the index -------------------------------------------------------------------------

    def _error(self, message, offset, place):
        return MegFormatError(message, offset=offset, path=place, filename=self.filename)

    def _parse(self, view):
        size = len(view)
        if size < HEADER_SIZE:
            raise self._error(f"truncated: {size} bytes, a MEG header needs {HEADER_SIZE}",
                              0, "header")
        later = later_layout(bytes(view[:8]))
        if later:
            raise self._error(f"{later}; io_alamo reads MEG v1, the layout of Empire at War "
                              "and Forces of Corruption", 0, "header")
        if not looks_like_meg(view[:64]):
            head = " ".join(f"{b:02x}" for b in bytes(view[:4]))
            raise self._error(f"not a MEG archive (starts with {head})", 0, "header")
        name_count, file_count = struct.unpack_from("<II", view)
        if HEADER_SIZE + 2 * name_count > size:
            raise self._error(f"{name_count:,} names cannot fit in a file of {size:,} bytes",
                              0, "header (name count)")
        if HEADER_SIZE + 2 * name_count + RECORD_SIZE * file_count > size:
            raise self._error(f"{file_count:,} records cannot fit in a file of {size:,} bytes",
                              4, "header (file count)")
        self.names, offset = self._names(view, name_count, size)
        self.index_end = offset + RECORD_SIZE * file_count
        if self.index_end > size:
            raise self._error(f"truncated: the {file_count:,} records end at 0x"
                              f"{self.index_end:x}, past the end of the file (0x{size:x})",
                              offset, "records")
        table = np.frombuffer(view, RECORD_DTYPE, file_count, offset).copy()
        self._check_records(table, offset, name_count, size)
        self.entries = [MegEntry(self.names[n], int(c), int(i), int(s), int(st), int(n), k)
                        for k, (c, i, s, st, n) in enumerate(table.tolist())]
        self.records_offset = offset
        self._lookup = {}
        self.problems = self._problems(table, offset)

    def _names(self, view, count, size):
        names = []
        offset = HEADER_SIZE
        for k in range(count):
            if offset + 2 > size:
                raise self._error("truncated: the name table ends before its length field",
                                  offset, f"name #{k}")
            (length,) = struct.unpack_from("<H", view, offset)
            if offset + 2 + length > size:
                raise self._error(f"truncated: a {length}-byte name runs past the end of the "
                                  f"file (0x{size:x})", offset, f"name #{k}")
            raw = bytes(view[offset + 2:offset + 2 + length])
            if not raw:
                raise self._error("empty name", offset, f"name #{k}")
            if b"\x00" in raw:
                raise self._error("a name holds a NUL byte", offset, f"name #{k}")
            names.append(raw.decode("latin-1"))
            offset += 2 + length
        return names, offset

    def _check_records(self, table, offset, name_count, size):
        def first(bad):
            return int(np.flatnonzero(bad)[0])
        bad = table["name"] >= name_count
        if bad.any():
            k = first(bad)
            raise self._error(f"name index {int(table['name'][k])} is past the {name_count} "
                              "names", offset + RECORD_SIZE * k + 16, f"record #{k}")
        end = table["start"].astype(np.int64) + table["size"]
        bad = end > size
        if bad.any():
            k = first(bad)
            raise self._error(f"truncated or corrupt: {int(table['size'][k]):,} bytes at 0x"
                              f"{int(table['start'][k]):x} run past the end of the file "
                              f"(0x{size:x})", offset + RECORD_SIZE * k + 8, f"record #{k}")
        bad = (table["start"] < self.index_end) & (table["size"] > 0)
        if bad.any():
            k = first(bad)
            raise self._error(f"data at 0x{int(table['start'][k]):x} lies inside the index "
                              f"(which ends at 0x{self.index_end:x})",
                              offset + RECORD_SIZE * k + 12, f"record #{k}")

    def _problems(self, table, offset):
        out = []
        for e in self.entries:
            at = f" (offset 0x{offset + RECORD_SIZE * e.record:x}, record #{e.record})"
            if crc_of_name(e.name) != e.crc:
                out.append(f"CRC 0x{e.crc:08x} does not match its name '{e.name}' "
                           f"(0x{crc_of_name(e.name):08x}); the game will not find it{at}")
            if e.index != e.record:
                out.append(f"record index {e.index} (expected {e.record}){at}")
            key = normal_name(e.name)
            other = self._lookup.setdefault(key, e)
            if other is not e:
                out.append(f"duplicate name '{e.name}' (also record #{other.record}); "
                           f"record #{other.record} is the one read{at}")
        crcs = table["crc"]
        if len(crcs) > 1 and (np.diff(crcs.astype(np.int64)) < 0).any():
            k = int(np.flatnonzero(np.diff(crcs.astype(np.int64)) < 0)[0]) + 1
            out.append("records are not sorted by CRC; the game may not find some members "
                       f"(offset 0x{offset + RECORD_SIZE * k:x}, record #{k})")
        return out

    # --- members ---------------------------------------------------------------------------

    def __len__(self):
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def find(self, name):
        """The member called ``name`` (any case, ``/`` or ``\\``), or None."""
        return self._lookup.get(normal_name(name))

    def entry(self, name):
        e = self.find(name)
        if e is None:
            raise KeyError(f"{self.filename}: no member {name!r}")
        return e

    def read(self, member):
        """The bytes of a member (a :class:`MegEntry` or a name)."""
        e = member if isinstance(member, MegEntry) else self.entry(member)
        if self._buffer is not None:
            return bytes(self._buffer[e.start:e.start + e.size])
        if self._handle is not None:
            return self._read_from(self._handle, e)
        with open(self.path, "rb") as f:
            return self._read_from(f, e)

    def _read_from(self, f, e):
        f.seek(e.start)
        data = f.read(e.size)
        if len(data) != e.size:
            raise self._error(f"truncated: {e.name} needs {e.size:,} bytes, the file has "
                              f"{len(data):,} there (did it change since it was opened?)",
                              e.start, f"record #{e.record}")
        return data

    def __enter__(self):
        """Keep one file handle open for many reads (closed on exit)."""
        if self.path is not None and self._handle is None:
            self._handle = open(self.path, "rb")
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def member_label(archive_path, name):
    """How a member is named in messages: ``Models.meg:DATA\\ART\\MODELS\\X.ALO``."""
    return f"{archive_path}:{name}"


def info_lines(data, filename=None):
    """Readable summary of an archive given as bytes (the command line's ``info``)."""
    meg = MegArchive(data, filename)
    total = sum(e.size for e in meg.entries)
    lines = [f"MEG v1 archive: {len(meg.entries)} files, {len(meg.names)} names, "
             f"{total:,} bytes of data"]
    folders = {}
    for e in meg.entries:
        folder = e.name.rpartition("\\")[0]
        folders[folder] = folders.get(folder, 0) + 1
    for folder, n in sorted(folders.items()):
        lines.append(f"{folder or '(top)'}: {n} files")
    return lines + [f"problem: {p}" for p in meg.problems]


def problems(data, filename=None):
    """Problems of an archive given as bytes (the command line's ``validate``)."""
    return MegArchive(data, filename).problems
