"""Where two files differ: the first differing offset and the chunk that holds it (the
roundtrip checks of the command line and the batch converter)."""

from ..errors import AlamoFormatError
from .chunks import read_chunks


def first_difference(a, b):
    """Offset of the first differing byte (or the shorter length), or None if equal."""
    if a == b:
        return None
    n = min(len(a), len(b))
    lo = 0
    step = 1 << 16
    while lo < n and a[lo:lo + step] == b[lo:lo + step]:
        lo += step
    while lo < n and a[lo] == b[lo]:
        lo += 1
    return lo


def chunk_path_at(data, offset):
    """The path of the innermost chunk of ``data`` that contains ``offset``."""
    try:
        nodes = read_chunks(data)
    except AlamoFormatError:
        return "?"
    path = "(outside any chunk)"
    while nodes:
        for c in nodes:
            if c.offset <= offset < c.offset + 8 + c.size():
                path = c.path
                nodes = c.children or []
                break
        else:
            break
    return path
