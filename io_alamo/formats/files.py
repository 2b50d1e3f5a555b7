"""Reading a model file from disk, for every format: one size cap, one error type; and where
two files' bytes differ (the round trips of the command line and the batch).

Each format's readers take bytes; this is where a path becomes bytes. A file that cannot be
read, or is larger than any model file io_alamo reads, raises the generic
:class:`~io_alamo.formats.errors.FormatError` naming the file (not any one engine's error)."""

import os

from .errors import FormatError

__all__ = ["MAX_FILE_SIZE", "PathLike", "first_difference", "read_file_bytes"]

PathLike = str | os.PathLike

# Larger than any real model or animation of the four engines by far; refuses to slurp
# something that cannot be one (a disk image, a video) into memory.
MAX_FILE_SIZE = 1 << 30


def read_file_bytes(path: PathLike, max_size: int = MAX_FILE_SIZE) -> bytes:
    """The bytes of the file at ``path``; :class:`FormatError` if it cannot be read or is
    larger than ``max_size``."""
    try:
        size = os.path.getsize(path)
        if size > max_size:
            raise FormatError(f"file is {size:,} bytes; larger than any model file io_alamo "
                              "reads", filename=os.fspath(path))
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise FormatError(f"cannot read: {e.strerror or e}", filename=os.fspath(path)) from None


def first_difference(a: bytes, b: bytes) -> int | None:
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
