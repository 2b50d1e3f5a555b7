"""Path helpers on top of the bytes-in, bytes-out readers and writers."""

import errno
import os
import tempfile

from .alo_read import decode_alo, read_alo
from .alo_write import write_alo
from .animation import Animation, decode_ala, read_ala, write_ala
from .chunk_types import ChunkType
from .chunks import BytesLike, read_chunks
from .errors import AlamoFormatError
from .model import Model, ParticleEffect

PathLike = str | os.PathLike

# Larger than any real .alo/.ala by far; refuses to slurp something that cannot be one.
MAX_FILE_SIZE = 1 << 30


def read_file_bytes(path: PathLike) -> bytes:
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_SIZE:
            raise AlamoFormatError(f"file is {size} bytes; larger than any Alamo file",
                                   filename=path)
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise AlamoFormatError(f"cannot read: {e.strerror or e}", filename=path) from None


def load_alo(path: PathLike) -> Model | ParticleEffect:
    return read_alo(read_file_bytes(path), filename=os.fspath(path))


def load_ala(path: PathLike) -> Animation:
    return read_ala(read_file_bytes(path), filename=os.fspath(path))


def read_any(data: BytesLike, filename: str | None = None
             ) -> Model | ParticleEffect | Animation:
    """A Model, ParticleEffect or Animation, whichever the bytes hold."""
    try:
        roots = read_chunks(data)
        if roots and roots[0].type == ChunkType.ANIMATION:
            return decode_ala(roots)
        return decode_alo(roots)
    except AlamoFormatError as e:
        raise e.with_filename(filename)


def load(path: PathLike) -> Model | ParticleEffect | Animation:
    return read_any(read_file_bytes(path), filename=os.fspath(path))


def encode(obj: Model | ParticleEffect | Animation) -> bytes:
    return write_ala(obj) if isinstance(obj, Animation) else write_alo(obj)


def save(obj: Model | ParticleEffect | Animation, path: PathLike) -> None:
    """Write a model or animation atomically: the target is replaced only on success."""
    save_all([(obj, path)])


def save_all(items) -> None:
    """Write several models or animations, ``[(obj, path), ...]``, all or nothing.

    Everything is encoded first, then each file is written to a temporary file beside its
    target; only when every one is written are the targets replaced (a rename, which needs
    no space). A bad record, a full disk or a read-only folder leaves every target as it
    was and no temporary file behind; the error (:class:`SaveError`, an OSError) names the
    file and the reason in words.
    """
    encoded = [(encode(obj), os.fspath(path)) for obj, path in items]
    written = []
    try:
        for data, path in encoded:
            written.append((_write_temp(data, path), path))
        while written:
            tmp, path = written[0]
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise SaveError(e, path) from None
            written.pop(0)
    finally:
        for tmp, _ in written:
            try:
                os.unlink(tmp)
            except OSError:
                pass


class SaveError(OSError):
    """A file could not be written; ``str()`` says which and why, in one line."""

    def __init__(self, cause, path):
        super().__init__(cause.errno, cause.strerror or str(cause), path)
        why = _REASONS.get(cause.errno, cause.strerror or str(cause))
        kept = ("it was left as it was" if os.path.exists(path) else "nothing was written")
        self.message = f"cannot write {path}: {why}; {kept}"

    def __str__(self):
        return self.message


_REASONS = {getattr(errno, name, None): why for name, why in (
    ("ENOSPC", "the disk is full"),
    ("EDQUOT", "the disk quota is used up"),
    ("EACCES", "permission denied (is the folder or the file read-only?)"),
    ("EPERM", "permission denied (is the folder or the file read-only?)"),
    ("EROFS", "the disk is read-only"),
    ("ENOENT", "the folder does not exist"),
    ("EISDIR", "it is a folder"),
)}


def _write_temp(data, path):
    """``data`` in a new temporary file in ``path``'s folder, with the permissions the
    target has (or a new file would get); returns the temporary file's path."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".io_alamo-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise SaveError(e, path) from None
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view[:_WRITE_BLOCK])
                if n <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                view = view[n:]
        finally:
            os.close(fd)
        os.chmod(tmp, _mode_for(path))
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise SaveError(e, path) from None
        raise
    return tmp


_WRITE_BLOCK = 1 << 24


def _mode_for(path):
    """The target's permission bits, or those a new file gets (mkstemp makes them 0600)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
