"""Path helpers on top of the bytes-in, bytes-out readers and writers."""

import os
import tempfile

from .alo_read import decode_alo, read_alo
from .alo_write import write_alo
from .animation import Animation, decode_ala, read_ala, write_ala
from .chunks import read_chunks
from .errors import AlamoFormatError

# Larger than any real .alo/.ala by far; refuses to slurp something that cannot be one.
MAX_FILE_SIZE = 1 << 30


def read_file_bytes(path):
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_SIZE:
            raise AlamoFormatError(f"file is {size} bytes; larger than any Alamo file",
                                   filename=path)
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise AlamoFormatError(f"cannot read: {e.strerror or e}", filename=path) from None


def load_alo(path):
    return read_alo(read_file_bytes(path), filename=os.fspath(path))


def load_ala(path):
    return read_ala(read_file_bytes(path), filename=os.fspath(path))


def read_any(data, filename=None):
    """A Model, ParticleEffect or Animation, whichever the bytes hold."""
    try:
        roots = read_chunks(data)
        if roots and roots[0].type == 0x1000:
            return decode_ala(roots)
        return decode_alo(roots)
    except AlamoFormatError as e:
        raise e.with_filename(filename)


def load(path):
    return read_any(read_file_bytes(path), filename=os.fspath(path))


def encode(obj):
    return write_ala(obj) if isinstance(obj, Animation) else write_alo(obj)


def save(obj, path):
    """Write a model or animation atomically: the target is replaced only on success."""
    data = encode(obj)
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".io_alamo-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
