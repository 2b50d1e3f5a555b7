"""Writing MEG v1 archives (the reader is :mod:`.meg`), laid out as the games' own archives are
(FORMAT-NOTES.md "MEG v1", e.g. ``Cinematics.meg``):

- the names upper case with ``\\`` separators, the name table sorted;
- the records sorted by the CRC-32 of the name (ties by name), each record's index its
  position, its name index the name's place in the sorted table;
- the members' bytes right after the index, in record order.

A name the format cannot hold (not printable ASCII, longer than 65,535 bytes, empty, the same
as another name once upper-cased) and an archive over 4 GiB (offsets are 32-bit) are refused
before anything is written. The archive is written to a temporary file beside the target and
renamed over it: a failed write leaves nothing behind.
"""

import os
import shutil
import struct
import tempfile

import numpy as np

from . import HEADER_SIZE, RECORD_DTYPE, MegFormatError, crc_of_name, normal_name
from ...saving import SaveError, check_target

__all__ = ["MAX_NAME_LENGTH", "archive_name", "meg_index", "write_meg"]

MAX_NAME_LENGTH = 0xFFFF
MAX_ARCHIVE_SIZE = 0xFFFFFFFF
_COPY_BLOCK = 1 << 20


def archive_name(name, archive=None):
    """The name as the archive stores it (``DATA\\ART\\MODELS\\X.ALO``), or a
    :class:`MegFormatError` saying why the format cannot hold it."""
    def refuse(why):
        return MegFormatError(f"cannot store '{name}': {why}", path="names", filename=archive)
    if any(not 32 <= ord(c) < 127 for c in name):
        raise refuse("the archive holds ASCII names only (rename the file)")
    stored = normal_name(name).strip("\\")
    if not stored or any(part in ("", ".", "..") for part in stored.split("\\")):
        raise refuse("an archive name needs a file name and no empty, '.' or '..' folders")
    if len(stored) > MAX_NAME_LENGTH:
        raise refuse(f"{len(stored):,} characters, the format holds {MAX_NAME_LENGTH:,}")
    return stored


def meg_index(members, archive=None):
    """The index (header, names, records) of an archive of ``members`` = ``[(name, size)]``,
    and the members' order in the data: ``(bytes, [member position, ...])``."""
    names = [archive_name(n, archive) for n, _ in members]
    seen = {}
    for k, n in enumerate(names):
        if n in seen:
            raise MegFormatError(f"'{members[seen[n]][0]}' and '{members[k][0]}' are both "
                                 f"stored as {n}", path="names", filename=archive)
        seen[n] = k
    table_names = sorted(names)
    name_index = {n: k for k, n in enumerate(table_names)}
    order = sorted(range(len(names)), key=lambda k: (crc_of_name(names[k]), names[k]))
    head = [struct.pack("<II", len(names), len(names))]
    for n in table_names:
        raw = n.encode("ascii")
        head.append(struct.pack("<H", len(raw)) + raw)
    index_size = sum(map(len, head)) + RECORD_DTYPE.itemsize * len(names)
    table = np.zeros(len(names), RECORD_DTYPE)
    start = index_size
    for pos, k in enumerate(order):
        size = members[k][1]
        table[pos] = (crc_of_name(names[k]), pos, size, start, name_index[names[k]])
        start += size
        if start > MAX_ARCHIVE_SIZE:
            raise MegFormatError(f"the files add up to more than {MAX_ARCHIVE_SIZE:,} bytes, "
                                 "the most a MEG v1 archive can address (make two archives)",
                                 path="records", filename=archive)
    assert HEADER_SIZE == len(head[0])
    return b"".join(head) + table.tobytes(), order


def write_meg(target, members):
    """Write an archive of ``members`` = ``[(name, source file path)]`` to ``target``; returns
    ``[(stored name, source)]`` in the archive's order."""
    target = os.fspath(target)
    sizes = [(name, os.path.getsize(src)) for name, src in members]
    index, order = meg_index(sizes, target)
    check_target(target)
    folder = os.path.dirname(os.path.abspath(target))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".io_alamo-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise SaveError(e, target) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(index)
            for k in order:
                _copy_member(members[k][1], sizes[k][1], out)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        if isinstance(e, OSError) and not isinstance(e, SaveError):
            raise SaveError(e, target) from None
        raise
    return [(archive_name(members[k][0]), members[k][1]) for k in order]


def _copy_member(src, size, out):
    with open(src, "rb") as f:
        shutil.copyfileobj(f, out, _COPY_BLOCK)
        if f.tell() != size:
            raise OSError(f"{src} changed size while the archive was written")


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
