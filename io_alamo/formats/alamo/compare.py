"""Where two files differ: the first differing offset and the chunk that holds it (the
roundtrip checks of the command line and the batch converter)."""

from ..errors import AlamoFormatError
from ..files import first_difference
from .chunks import read_chunks

__all__ = ["chunk_path_at", "first_difference"]


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
