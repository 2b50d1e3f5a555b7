"""Writing files so that a failed write never destroys anything: every file is written to a
temporary file beside its target and renamed over it, all or nothing across several files, and
a target that must not be replaced (a folder, a read-only file, a path in a missing folder) is
refused before anything is written. Every format's writers and every exporter save through
:func:`write_all`."""

import contextlib
import errno
import os
import tempfile

__all__ = ["KIND_READERS", "SaveError", "check_overwrite", "check_target", "replacing_other_kinds",
           "write_all"]

#: Functions telling what a file's first bytes hold (``"a particle effect"``), or None: an
#: engine adds its own (alamo/sniff.py). A file of one kind is never replaced by one of another
#: kind unless the caller confirms it (:func:`replacing_other_kinds`).
KIND_READERS = []
_confirmed = {"other_kinds": False}


@contextlib.contextmanager
def replacing_other_kinds(confirmed=True):
    """Within this block, :func:`write_all` may replace a file of one kind (a particle effect)
    with one of another kind (a model): the user confirmed it (an export option)."""
    before = _confirmed["other_kinds"]
    _confirmed["other_kinds"] = bool(confirmed) or before
    try:
        yield
    finally:
        _confirmed["other_kinds"] = before


def kind_of(data):
    """What ``data`` (a file's first bytes) holds, by the engines' kind readers, or None."""
    for read in KIND_READERS:
        kind = read(bytes(data[:16]))
        if kind is not None:
            return kind
    return None


def check_kind(data, path):
    """Refuse (:class:`SaveError`) to replace ``path`` holding one kind of file with ``data``
    of another kind, unless confirmed (:func:`replacing_other_kinds`)."""
    if _confirmed["other_kinds"] or not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as f:
            old = kind_of(f.read(16))
    except OSError:
        return
    new = kind_of(data)
    if old is not None and new is not None and old != new:
        raise SaveError(OSError(errno.EEXIST, "kind"), path, other_kind=(old, new))


def write_all(items) -> None:
    """Write several files, ``[(bytes, path), ...]``, all or nothing.

    What is atomic: each target on its own. It is replaced by a rename of a complete
    temporary file written beside it, so it never holds a half-written file: at any moment it
    has either its old bytes or its new ones. The set of targets is not replaced in one step:

    1. each file is written to a temporary file beside its target (a full disk or a
       read-only folder stops here, before any target is touched);
    2. the targets are replaced one after another, each first kept as a backup (a hard link
       to the old file, or where the file system has none, the old file renamed aside);
    3. if a replacement fails, the targets already replaced are put back from their backups
       (new targets removed), so every target ends as it was;
    4. once all are replaced, the backups are deleted.

    On any error no temporary file or backup is left and the error (:class:`SaveError`, an
    OSError) names the file and the reason in words. Only a crash of the process or the
    machine between two replacements can leave some targets new and some old (with a
    ``.io_alamo-*.bak`` backup beside them).
    """
    encoded = [(data, os.fspath(path)) for data, path in items]
    for data, path in encoded:
        check_target(path)
        check_kind(data, path)
    written = []                  # (temporary file, target) not yet in place
    replaced = []                 # (target, backup or None) already in place
    try:
        for data, path in encoded:
            written.append((_write_temp(data, path), path))
        while written:
            tmp, path = written[0]
            replaced.append((path, _replace_keeping_backup(tmp, path)))
            written.pop(0)
    except BaseException as e:
        failed = _roll_back(replaced)
        if replaced and isinstance(e, SaveError):
            e.message += "; " + (failed or "the files replaced before it were put back")
        raise
    else:
        for _, backup in replaced:
            _remove(backup)
    finally:
        for tmp, _ in written:
            _remove(tmp)


def check_overwrite(paths, overwrite=False):
    """The one rule of every writer (command line, batch): an existing file is replaced only
    with ``overwrite`` (--overwrite), a folder never. Raises FileExistsError or
    IsADirectoryError naming the first path in the way (nothing is written); returns the
    paths that exist and will be replaced, for the message that says so."""
    existing = []
    for path in map(os.fspath, paths):
        if os.path.isdir(path):
            raise IsADirectoryError(f"{path}: it is a folder, not a file (a folder is never "
                                    "replaced); nothing was written")
        if os.path.lexists(path):
            if not overwrite:
                raise FileExistsError(f"{path}: exists (--overwrite replaces it); nothing "
                                      "was written")
            existing.append(path)
    return existing


def check_target(path):
    """Refuse (:class:`SaveError`) a target that must not be replaced by a file: an existing
    folder (replacing it would move the folder and all in it aside), a read-only file, or a
    path whose folder does not exist. Nothing is touched."""
    path = os.fspath(path)
    if not path or os.path.isdir(path):
        raise SaveError(OSError(errno.EISDIR, os.strerror(errno.EISDIR)), path or ".")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise SaveError(e, path) from None
    if mode is not None and not mode & 0o222:
        raise SaveError(OSError(errno.EACCES, "read-only"), path, read_only=True)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise SaveError(OSError(errno.ENOENT, os.strerror(errno.ENOENT)), path)


def _replace_keeping_backup(tmp, path):
    """Rename ``tmp`` onto ``path``; returns the backup of the old ``path`` (None if there was
    none). On failure ``path`` is as it was and no backup is left."""
    backup = None
    if os.path.lexists(path):
        backup = tmp + ".bak"
        try:
            os.link(path, backup, follow_symlinks=False)
        except (OSError, NotImplementedError):
            try:                  # no hard links here (FAT, some network shares): move aside
                os.replace(path, backup)
            except OSError as e:
                raise SaveError(e, path) from None
    try:
        os.replace(tmp, path)
    except OSError as e:
        failed = ""
        if backup is not None and os.path.lexists(path):
            _remove(backup)               # a hard link: the target was not touched
        elif backup is not None:
            failed = _roll_back([(path, backup)])     # moved aside: move it back
        error = SaveError(e, path)
        if failed:
            error.message += "; " + failed
        raise error from None
    return backup


def _roll_back(replaced):
    """Put the targets already replaced back as they were; returns what could not be."""
    failed = []
    for path, backup in reversed(replaced):
        try:
            if backup is None:
                os.unlink(path)
            else:
                os.replace(backup, path)
        except OSError as e:
            kept = f" (its old bytes are in {backup})" if backup else ""
            failed.append(f"{path} could not be put back: {e.strerror or e}{kept}")
    return "; ".join(failed)


def _remove(path):
    if path is None:
        return
    try:
        os.unlink(path)
    except OSError:
        pass


class SaveError(OSError):
    """A file could not be written; ``str()`` says which and why in one line, in the shape of
    every message: ``FILE: cannot be written: why; what became of it``."""

    def __init__(self, cause, path, read_only=False, other_kind=None):
        super().__init__(cause.errno, cause.strerror or str(cause), path)
        why = _REASONS.get(cause.errno, cause.strerror or str(cause))
        if read_only:
            why = "the file is read-only (clear its read-only flag to replace it)"
        if other_kind:
            why = (f"it holds {other_kind[0]}, and {other_kind[1]} would replace it (confirm "
                   "with the export's Replace Another Kind option, or choose another name; "
                   "on the command line, remove the file first)")
        kept = ("it was left as it was" if os.path.exists(path) else "nothing was written")
        self.message = f"{path}: cannot be written: {why}; {kept}"

    def __str__(self):
        return self.message


_REASONS = {getattr(errno, name, None): why for name, why in (
    ("ENOSPC", "the disk is full"),
    ("EDQUOT", "the disk quota is used up"),
    ("EACCES", "permission denied (is the folder or the file read-only?)"),
    ("EPERM", "permission denied (is the folder or the file read-only?)"),
    ("EROFS", "the disk is read-only"),
    ("ENOENT", "the folder does not exist"),
    ("EISDIR", "it is a folder, not a file (give a file name)"),
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
        _remove(tmp)
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
