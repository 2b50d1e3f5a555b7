"""Every format io_alamo reads (and writes), one entry each: the one place that knows them.

An entry has the format's name, its magic test, its extensions, its reader, its writer when
there is one, the command line's describe/validate/roundtrip functions, and the names of its
Blender File > Import and File > Export operators (strings: the format layer never imports
bpy). The command line, the batch converter and the Blender operators ask this module what a
file is and what can be done with it; Alamo's .alo and .ala are ordinary entries.

    fmt = identify(data)             # the Format whose magic ``data`` starts with, or None
    fmt = recognise(data, filename)  # the same, or NotAlamoError ("not an Alamo file (...)")
    require(data, filename, "p3d")   # WrongFormatError saying what the file is and which
                                     # File > Import entry opens it

A new format adds one entry to :data:`FORMATS` (and its package under ``formats/``).
"""

import struct
from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import alod
from .alamo import AlamoFormatError, ChunkType, meg, read_ala, read_alo, write_ala, write_alo
from .alamo import verbs as alamo_verbs
from .alamo.compare import chunk_path_at
from .alamo.particles import entries as particle_entries
from .alamo.sniff import ROOT_TYPES, check_alamo
from .alithia import alm1
from .arma import P3dFormatError, read_p3d
from .arma import describe as p3d_describe
from .errors import FormatError, WrongFormatError

__all__ = ["FORMATS", "Format", "by_key", "for_extension", "identify", "other_kind",
           "recognise", "refuse_verb", "require", "VERBS", "describe",
           "wrong_format_error"]

Reader = Callable[[bytes, Optional[str]], Any]
Lines = Callable[[bytes, Optional[str]], list]

VERBS = ("info", "validate", "roundtrip", "dump", "convert-ala")


@dataclass(frozen=True, slots=True)
class Format:
    key: str                             # short id: "alo", "ala", "alm1", "alod", "p3d"
    engine: str                          # whose format: "Alamo", "Alithia", "ALOD", "Arma"
    name: str                            # what such a file is, with its article
    extensions: tuple                    # (".alo",)
    matches: Callable[[bytes], bool]     # the magic test, on the file's first 16 bytes
    read: Reader                         # (data, filename) -> the format's record
    describe: Lines                      # (data, filename) -> readable summary lines
    validate: Lines                      # (data, filename) -> problems, one string each
    write: Optional[Callable[[Any], bytes]] = None    # record -> bytes, if writable
    roundtrip: Optional[Callable[[bytes, Optional[str]], bytes]] = None
    detail: Optional[Callable[[bytes], str]] = None   # what the header says: "ODOL v73"
    dump: Optional[Callable[[bytes, Optional[str]], list]] = None      # structure tree
    convert: Optional[Callable] = None   # (data, filename, format) -> record (convert-ala)
    locate: Optional[Callable[[bytes, int], str]] = None    # the structure at an offset
    import_operator: Optional[str] = None     # bpy.ops name of its File > Import entry
    import_label: Optional[str] = None        # that entry's text in the menu
    export_operator: Optional[str] = None
    export_label: Optional[str] = None
    error: type = FormatError                 # what its readers raise
    info_json: Optional[Callable[[bytes, Optional[str]], dict]] = None   # more for info --json
    order: int = 0                            # identify() tries lower first (the contract)

    def what(self, data: bytes = b"") -> str:
        """What a file of this format is: ``an Arma binarized model (ODOL v73)``."""
        detail = self.detail(data) if self.detail and data else ""
        return f"{self.name} ({detail})" if detail else self.name

    @property
    def import_menu(self) -> Optional[str]:
        """``File > Import > Alamo Model (.alo)``, or None if Blender cannot import it."""
        return f"File > Import > {self.import_label}" if self.import_label else None

    def where(self, data: bytes, offset: int) -> str:
        """``offset 0x1c, chunk 0x400/0x401``: an offset and, where the format has a
        structure to name, the place that holds it."""
        place = f", chunk {self.locate(data, offset)}" if self.locate else ""
        return f"offset 0x{offset:x}{place}"

    def supports(self, verb: str) -> bool:
        """Whether the command line's ``verb`` works on this format."""
        if verb in ("info", "validate"):
            return True
        field = {"roundtrip": "roundtrip", "dump": "dump", "convert-ala": "convert"}[verb]
        return getattr(self, field) is not None


def _u32(data, at=0):
    head = bytes(data[at:at + 4])
    return struct.unpack("<I", head)[0] if len(head) == 4 else None


def _odol_version(data):
    version = _u32(data, 4)
    return f"ODOL v{version}" if version is not None else "ODOL"


def _alod_version(data):
    head = bytes(data[4:8])
    return f"version {struct.unpack('>I', head)[0]}" if len(head) == 4 else ""


FORMATS: tuple = (
    *particle_entries.make_formats(Format),     # issue 33; the contract's discovery replaces this
    Format("alo", "Alamo", "an Alamo model", (".alo",),
           lambda head: _u32(head) in ROOT_TYPES - {ChunkType.ANIMATION},
           read_alo, alamo_verbs.info_lines, alamo_verbs.problems, write=write_alo,
           roundtrip=alamo_verbs.roundtrip, dump=alamo_verbs.dump_tree, locate=chunk_path_at,
           import_operator="import_scene.alo", import_label="Alamo Model (.alo)",
           export_operator="export_scene.alo", export_label="Alamo Model (.alo)",
           error=AlamoFormatError),
    Format("ala", "Alamo", "an Alamo animation", (".ala",),
           lambda head: _u32(head) == ChunkType.ANIMATION,
           read_ala, alamo_verbs.info_lines, alamo_verbs.problems, write=write_ala,
           roundtrip=alamo_verbs.roundtrip, dump=alamo_verbs.dump_tree,
           convert=alamo_verbs.convert, locate=chunk_path_at,
           import_operator="import_anim.alamo_ala", import_label="Alamo Animation (.ala)",
           export_operator="export_anim.alamo_ala", export_label="Alamo Animation (.ala)",
           error=AlamoFormatError),
    Format("alm1", "Alithia", "an Alithia ALM1 model", (".alm",),
           lambda head: head.startswith(alm1.MAGIC),
           alm1.read_alm1, alm1.info_lines, alm1.problems, write=alm1.write_alm1,
           roundtrip=alm1.roundtrip,
           import_operator="import_scene.alm", import_label="Alithia Model (.alm)",
           export_operator="export_scene.alm", export_label="Alithia Model (.alm)",
           error=alm1.Alm1FormatError),
    Format("alod", "ALOD", "an ALOD model", (".alm",),
           lambda head: head.startswith(alod.MAGIC),
           alod.read_alod, alod.info_lines, alod.problems, write=alod.write_alod,
           roundtrip=alod.roundtrip, detail=_alod_version,
           import_operator="import_scene.alod", import_label="ALOD Model (.alm)",
           error=alod.AlodFormatError),
    Format("p3d", "Arma", "an Arma binarized model", (".p3d",),
           lambda head: head.startswith(b"ODOL"),
           read_p3d, p3d_describe.info_lines, p3d_describe.problems, detail=_odol_version,
           import_operator="import_scene.p3d", import_label="Arma Binarized Model (.p3d)",
           error=P3dFormatError),
    # MEG has no magic: a guess from its header, so it comes after every format that has one
    Format("meg", "Alamo", "a Petroglyph MEG archive", (".meg",), meg.looks_like_meg,
           meg.MegArchive, meg.info_lines, meg.problems, error=meg.MegFormatError),
)

# Files people open by mistake that no entry reads: told by name, not by their bytes.
OTHER_KINDS = (
    (b"\x89PNG", "a PNG image"), (b"DDS ", "a DDS texture"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"BM", "a BMP image"), (b"BLENDER", "a Blender file"), (b"PK\x03\x04", "a ZIP archive"),
    (b"MLOD", "an Arma source model (MLOD; io_alamo reads binarized ODOL models)"),
    (b"glTF", "a glTF binary (.glb)"), (b"Kaydara FBX", "an FBX model"),
)


def by_key(key: str) -> Format:
    """The entry with ``key`` ("alo", "ala", "alm1", "alod", "p3d", "meg")."""
    for fmt in FORMATS:
        if fmt.key == key:
            return fmt
    raise KeyError(key)


def for_extension(ext: str) -> tuple:
    """The entries whose files end in ``ext`` (".alm" has two)."""
    ext = ext.lower() if ext.startswith(".") else "." + ext.lower()
    return tuple(fmt for fmt in FORMATS if ext in fmt.extensions)


def identify(data: bytes) -> Optional[Format]:
    """The format ``data`` is in, by its magic (MEG archives: by their header), or None."""
    head = bytes(data[:64])
    for fmt in FORMATS:
        if fmt.matches(head):
            return fmt
    return None


def other_kind(data: bytes) -> Optional[str]:
    """What a file no entry reads is, when its first bytes say so (``a PNG image``)."""
    head = bytes(data[:16])
    return next((what for magic, what in OTHER_KINDS if head.startswith(magic)), None)


def recognise(data: bytes, filename: Optional[str] = None) -> Format:
    """The format ``data`` is in; :class:`NotAlamoError` (``not an Alamo file (starts with
    89 50 4e 47)``) when it is in none."""
    fmt = identify(data)
    if fmt is None:
        check_alamo(data, filename=filename)       # raises: no entry takes these bytes
        raise AssertionError("an Alamo root chunk type no entry matches")
    return fmt


def describe(data: bytes) -> Optional[str]:
    """What a file is, for messages: ``an Arma binarized model (ODOL v73)``, ``a PNG image``;
    None when nothing says (an empty file, unknown first bytes)."""
    fmt = identify(data)
    return fmt.what(data) if fmt is not None else other_kind(data)


def refuse_verb(data: bytes, filename: str, verb: str) -> Optional[WrongFormatError]:
    """The error for a command-line ``verb`` given a file whose format does not support it
    (``is an Arma binarized model (ODOL v73); dump works on Alamo .alo/.ala files only``),
    None when it does."""
    fmt = recognise(data, filename)
    if fmt.supports(verb):
        return None
    hint = "; its members: io-alamo meg list" if fmt.key == "meg" else ""
    return WrongFormatError(f"is {fmt.what(data)}; {verb} works on {_who_supports(verb)} only"
                            f"{hint}", filename=filename, found=fmt.key)


def _who_supports(verb):
    """``Alamo .alo/.ala files``: the formats a verb works on, by engine."""
    return _by_engine(lambda fmt: fmt.supports(verb))


def _by_engine(test):
    """``Alamo .alo/.ala, Alithia .alm and Arma .p3d files``: the entries passing ``test``."""
    engines = {}
    for fmt in FORMATS:
        if test(fmt):
            engines.setdefault(fmt.engine, []).extend(fmt.extensions)
    parts = [f"{engine} {'/'.join(dict.fromkeys(exts))}" for engine, exts in engines.items()]
    return (", ".join(parts[:-1]) + " and " if len(parts) > 1 else "") + parts[-1] + " files"


def require(data: bytes, filename: str, key: str) -> Format:
    """The entry ``key`` if ``data`` is in its format; else :class:`WrongFormatError` saying
    what the file is and which File > Import entry opens it (no chunk or magic jargon)."""
    wanted = by_key(key)
    fmt = identify(data)
    if fmt is wanted:
        return fmt
    what = describe(data)
    if fmt is not None and fmt.import_menu:
        hint = f"open it with {fmt.import_menu}"
    elif fmt is not None:
        hint = "io_alamo has no File > Import entry for it"
    else:
        hint = f"io_alamo's File > Import entries open {_by_engine(lambda f: f.import_label)}"
    if len(data) == 0:
        text = f"is empty, not {wanted.name}"
    elif what:
        text = f"is {what}, not {wanted.name}"
    else:
        shown = " ".join(f"{b:02x}" for b in bytes(data[:4]))
        text = f"is not {wanted.name} (it starts with {shown})"
    raise wrong_format_error(wanted)(f"{text}; {hint}", filename=filename,
                                     found=fmt.key if fmt else None)


_WRONG = {}


def wrong_format_error(fmt: Format) -> type:
    """The error :func:`require` raises for ``fmt``: a :class:`WrongFormatError` that is also
    the format's own error type, so that whoever catches that one catches it too."""
    if fmt.error not in _WRONG:
        _WRONG[fmt.error] = type(f"Wrong{fmt.error.__name__}", (WrongFormatError, fmt.error),
                                 {"__module__": __name__})
    return _WRONG[fmt.error]
