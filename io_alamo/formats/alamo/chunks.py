"""Alamo chunked files: a tree of (type, size) chunks, and mini-chunks inside data chunks.

A chunk header is two little-endian uint32, ``type`` and ``size``; ``size`` counts the body
only. Bit 31 of ``size`` set means the body is a run of child chunks. Mini-chunks are a
1-byte type and a 1-byte size followed by that many bytes; they fill a data chunk exactly.
"""

import struct

from ..errors import AlamoFormatError
from .sniff import PARTICLE_ROOTS, ROOT_TYPES

CONTAINER_BIT = 0x80000000
MAX_SIZE = 0x7FFFFFFF
MAX_DEPTH = 64
# Every chunk and mini-chunk read becomes a Python object of a few hundred bytes, far more
# than the 8 (or 2) bytes it can take in a file. Real files have a few hundred chunks (the
# largest known under 1,000; a 1,000-bone model about 3,000): these caps, per file, keep a
# file made of nothing but empty chunks from taking gigabytes.
MAX_CHUNKS = 100_000
MAX_MINIS = 100_000
_EMPTY = memoryview(b"")       # shared by every empty data chunk

_HEADER = struct.Struct("<II")

#: What the readers take: a whole file (or a slice of one) in memory.
BytesLike = bytes | bytearray | memoryview


class Chunk:
    """One chunk: ``data`` (bytes-like) for a data chunk, ``children`` for a container."""

    __slots__ = ("type", "data", "children", "offset", "path", "budget", "parsed")

    def __init__(self, type, data=None, children=None, offset=None, path="", budget=None):
        if (data is None) == (children is None):
            raise ValueError("a chunk has either data or children")
        self.parsed = None          # (data, its mini-chunks): read_minis parses a body once
        self.type = type
        self.data = data
        self.children = children
        self.offset = offset
        self.path = path or f"0x{type:x}"
        self.budget = budget        # the file's _Budget, for chunks read from a file

    @property
    def is_container(self):
        return self.children is not None

    @property
    def body_offset(self):
        return None if self.offset is None else self.offset + 8

    def size(self):
        """Body size in bytes, as the header will state it."""
        if self.children is None:
            return len(self.data)
        return sum(8 + c.size() for c in self.children)

    def error(self, message, at=None):
        """An error located in this chunk (``at`` is an offset into the body)."""
        offset = self.offset if at is None or self.offset is None else self.offset + 8 + at
        return AlamoFormatError(message, offset=offset, path=self.path)

    def __deepcopy__(self, memo):
        # a read chunk's data is a memoryview into the file, which deepcopy cannot copy
        data = None if self.data is None else bytes(self.data)
        children = None if self.children is None else [
            c.__deepcopy__(memo) for c in self.children]
        return Chunk(self.type, data, children, self.offset, self.path)

    def __repr__(self):
        kind = f"{len(self.children)} children" if self.is_container else f"{len(self.data)} bytes"
        return f"<Chunk 0x{self.type:x} {kind} at {self.offset}>"


class _Budget:
    """How many chunks and mini-chunks one file has used of its caps."""

    __slots__ = ("chunks", "minis")

    def __init__(self):
        self.chunks = self.minis = 0


def _past_end(size, left, at_file_end):
    """Why a chunk's size does not fit: the file is cut short (a top-level chunk runs past
    the end of the file), or the size is wrong for its parent."""
    if at_file_end:
        return (f"the file is cut short: the chunk needs {size:,} bytes, only {max(left, 0):,} "
                "are left (an incomplete download or copy?)")
    return f"chunk size {size} runs past the end of its parent ({left} bytes left)"


class TrailingDataError(AlamoFormatError):
    """Bytes after the file's last whole chunk that are no chunk (``at``: where they start).
    The game's loaders stop after the chunks they read and ignore them."""

    def __init__(self, at, end):
        self.at, self.size = at, end - at
        super().__init__(f"{end - at:,} bytes of trailing data after the last chunk (no Alamo "
                         f"chunk starts there); the game ignores them: cut the file there",
                         offset=at)


def _trailing(view, pos, end, chunks, depth):
    """Whether what does not fit at ``pos`` is trailing data after a whole file: at the top
    level, after at least one chunk, no known root chunk type (or too short for a header)."""
    if depth or not chunks or end != len(view):
        return False
    if end - pos < 8:
        return True
    return _HEADER.unpack_from(view, pos)[0] not in ROOT_TYPES | PARTICLE_ROOTS


def read_chunks(data: BytesLike, start: int = 0, end: int | None = None, parent_path: str = "",
                depth: int = 0, budget: _Budget | None = None) -> list[Chunk]:
    """Parse chunks in ``data[start:end]`` into a list of :class:`Chunk`.

    Data chunk bodies are zero-copy memoryview slices of ``data``. Every size is checked
    against what is left before it is used.
    """
    view = data if isinstance(data, memoryview) else memoryview(data)
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    end = len(view) if end is None else end
    if depth > MAX_DEPTH:
        raise AlamoFormatError(f"chunks nested deeper than {MAX_DEPTH} levels",
                               offset=start, path=parent_path)
    chunks = []
    counts = {}
    pos = start
    budget = budget or _Budget()
    unpack, new = _HEADER.unpack_from, object.__new__
    prefix = f"{parent_path}/" if parent_path else ""
    while pos < end:
        if not depth and _trailing(view, pos, end, chunks, depth) and (
                end - pos < 8 or (unpack(view, pos)[1] & MAX_SIZE) > end - pos - 8):
            raise TrailingDataError(pos, end)
        if end - pos < 8:
            raise AlamoFormatError(
                f"{end - pos} stray bytes where a chunk header (8 bytes) should start",
                offset=pos, path=parent_path)
        ctype, raw_size = unpack(view, pos)
        size = raw_size & MAX_SIZE
        k = counts.get(ctype, 0)        # the path: parent/0xTYPE, [k] for the k-th repeat of a
        counts[ctype] = k + 1           # type (written out here: a call per chunk costs)
        path = prefix + hex(ctype) if k == 0 else f"{prefix}{hex(ctype)}[{k}]"   # 0x...
        body = pos + 8
        if size > end - body:
            raise AlamoFormatError(_past_end(size, end - body, depth == 0 and end == len(view)),
                                   offset=pos, path=path)
        budget.chunks += 1
        if budget.chunks > MAX_CHUNKS:
            raise AlamoFormatError(f"more than {MAX_CHUNKS:,} chunks; no Alamo file has that "
                                   "many", offset=pos, path=path)
        chunk = new(Chunk)      # Chunk's __init__ spelled out (its call is most of the cost)
        chunk.type, chunk.offset, chunk.path, chunk.budget, chunk.parsed = (
            ctype, pos, path, budget, None)
        if raw_size & CONTAINER_BIT:
            chunk.data = None
            chunk.children = read_chunks(view, body, body + size, path, depth + 1, budget)
        else:
            chunk.data = view[body:body + size] if size else _EMPTY
            chunk.children = None
        chunks.append(chunk)
        pos = body + size
    return chunks


def write_chunks(chunks: list[Chunk], mini_types=()) -> bytes:
    """Serialise chunks to bytes; sizes are computed before any byte is emitted.

    Data chunks of ``mini_types`` hold mini-chunks: those are counted, so that nothing is
    written that :func:`read_chunks` and :func:`read_minis` would refuse.
    """
    parts = []
    counts = [0, 0]
    _emit(chunks, parts, 0, counts, frozenset(mini_types))
    if counts[0] > MAX_CHUNKS:
        raise AlamoFormatError(f"{counts[0]:,} chunks; readers accept at most {MAX_CHUNKS:,}")
    if counts[1] > MAX_MINIS:
        raise AlamoFormatError(f"{counts[1]:,} mini-chunks; readers accept at most "
                               f"{MAX_MINIS:,}")
    return b"".join(parts)


def _emit(chunks, parts, depth, counts, mini_types):
    if depth > MAX_DEPTH:
        raise AlamoFormatError(f"chunks nested deeper than {MAX_DEPTH} levels")
    total = 0
    for chunk in chunks:
        slot = len(parts)
        parts.append(b"")
        counts[0] += 1
        if chunk.children is None:
            body = chunk.data
            size = len(body)
            parts.append(body)
            flag = 0
            if chunk.type in mini_types:
                counts[1] += count_minis(body)
        else:
            size = _emit(chunk.children, parts, depth + 1, counts, mini_types)
            flag = CONTAINER_BIT
        if size > MAX_SIZE:
            raise AlamoFormatError(f"chunk 0x{chunk.type:x} too large ({size} bytes)")
        if not 0 <= chunk.type <= 0xFFFFFFFF:
            raise AlamoFormatError(f"chunk type {chunk.type!r} out of range")
        parts[slot] = _HEADER.pack(chunk.type, size | flag)
        total += 8 + size
    return total


def container(ctype: int, children) -> Chunk:
    return Chunk(ctype, children=list(children))


# --- mini-chunks -------------------------------------------------------------------------

class Mini:
    """One mini-chunk: a 1-byte type and up to 255 bytes of data."""

    __slots__ = ("type", "data", "offset")

    def __init__(self, type, data, offset=None):
        self.type = type
        self.data = data
        self.offset = offset

    def __repr__(self):
        return f"<Mini 0x{self.type:x} {bytes(self.data).hex()}>"


def read_minis(chunk: Chunk) -> list[Mini]:
    """Split a data chunk's body into mini-chunks; they must fill it exactly. A body is
    parsed once (the readers and the game rules both ask); a new list each call, of the same
    Mini records (their data is bytes: nobody edits a Mini in place)."""
    if chunk.parsed is not None and chunk.parsed[0] is chunk.data:
        return list(chunk.parsed[1])
    minis = _parse_minis(chunk)
    chunk.parsed = (chunk.data, minis)
    return list(minis)


def _parse_minis(chunk):
    data = chunk.data
    raw = data if type(data) is bytes else bytes(data)   # one copy; its slices are the bodies
    base = None if chunk.offset is None else chunk.offset + 10    # + 8 (header) + 2 (mini's)
    minis = []
    append, new = minis.append, object.__new__
    pos = 0
    end = len(raw)
    while pos < end:
        if end - pos < 2:
            raise chunk.error("mini-chunk header cut off", at=pos)
        mtype = raw[pos]
        stop = pos + 2 + raw[pos + 1]
        if stop > end:
            raise chunk.error(
                f"mini-chunk 0x{mtype:x} size {raw[pos + 1]} runs past the end of the chunk",
                at=pos)
        mini = new(Mini)        # Mini's __init__ spelled out (its call is most of the cost)
        mini.type, mini.data, mini.offset = mtype, raw[pos + 2:stop], (
            None if base is None else base + pos)
        append(mini)
        pos = stop
    if chunk.budget is not None:
        chunk.budget.minis += len(minis)
        if chunk.budget.minis > MAX_MINIS:
            raise chunk.error(f"more than {MAX_MINIS:,} mini-chunks; no Alamo file has that "
                              "many")
    return minis


def count_minis(data: BytesLike) -> int:
    """How many mini-chunks a data chunk's body holds (as many as read_minis would make)."""
    n = pos = 0
    end = len(data)
    while pos + 2 <= end:
        pos += 2 + data[pos + 1]
        n += 1
    return n


def write_minis(minis) -> bytes:
    parts = []
    for m in minis:
        n = len(m.data)
        if n > 255:
            raise AlamoFormatError(
                f"mini-chunk 0x{m.type:x} holds {n} bytes; the format allows 255")
        parts.append(bytes((m.type, n)))
        parts.append(m.data)
    return b"".join(parts)
