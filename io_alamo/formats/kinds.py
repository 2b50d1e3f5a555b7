"""Model formats of other engines that io_alamo reads, each told apart by its first bytes.

One entry per format. The command line asks :func:`foreign_kind` before it treats a file as an
Alamo chunk file, so ``info``, ``validate`` and ``roundtrip`` work on every format io_alamo knows.
Each format's module stays on its own (stdlib + numpy) and raises a subclass of
:class:`~io_alamo.formats.errors.FormatError`.
"""

from dataclasses import dataclass
from typing import Callable, Optional

from . import alod
from .alamo import meg
from .alithia import alm1
from .arma import describe as p3d_describe


@dataclass(frozen=True, slots=True)
class ForeignKind:
    name: str                                        # e.g. "Alithia ALM1"
    magic: bytes                                     # the file's first bytes
    info: Callable[[bytes, str], list]               # readable summary lines
    validate: Callable[[bytes, str], list]           # problems, one string each; [] = fine
    roundtrip: Optional[Callable[[bytes, str], bytes]] = None   # read + write back, if writable
    sniff: Optional[Callable[[bytes], bool]] = None  # instead of ``magic``, for formats without


KINDS: tuple = (
    ForeignKind("Alithia ALM1", alm1.MAGIC, alm1.info_lines, alm1.problems, alm1.roundtrip),
    ForeignKind("ALOD mesh", alod.MAGIC, alod.info_lines, alod.problems, alod.roundtrip),
    ForeignKind("Bohemia P3D (ODOL)", b"ODOL", p3d_describe.info_lines, p3d_describe.problems),
    ForeignKind("Petroglyph MEG archive", b"", meg.info_lines, meg.problems,
                sniff=meg.looks_like_meg),
)


def foreign_kind(data) -> Optional[ForeignKind]:
    """The non-Alamo format ``data`` is in, by its magic, or None."""
    head = bytes(data[:64])
    for kind in KINDS:
        if kind.sniff(head) if kind.sniff else head.startswith(kind.magic):
            return kind
    return None
