"""What an engine declares about a format it reads (neutral; stdlib only).

Each engine's package has modules named ``entries`` (any depth under ``io_alamo.formats``)
declaring ``FORMATS = (Format(...), ...)`` and, optionally, ``CLI_VERBS = (CliVerb(...),
...)`` for command-line verbs only its files have. :mod:`.registry` finds them
(``pkgutil.walk_packages``, sorted by dotted name) and imports no engine by name::

    FORMATS = (Format("alm1", "Alithia", "an Alithia ALM1 model", (".alm",),
                      lambda head: head.startswith(b"ALM1"), read_alm1, info_lines, problems,
                      import_operator="import_scene.alm1", import_label="Alithia Model (.alm)"),)

Blender operators are named by string (the format layer never imports bpy); the Blender
layer finds an engine's ``operators`` modules (File menu) and ``batch`` modules (the batch
converter's steps, ``STEPS = {"alo": run_verb}``) the same way, under ``io_alamo.blender``.
"""

import struct
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .errors import FormatError

__all__ = ["BATCH_VERBS", "CliVerb", "ContentSource", "Format", "header_number"]

Reader = Callable[[bytes, Optional[str]], Any]
Lines = Callable[[bytes, Optional[str]], list]
# what the batch converter does with a format's files (Format.batch): "import" (file to
# .blend), "roundtrip" (import, export, compare), "export" (.blend back to this format),
# "convert" (batch export takes the format's files and writes them as an Alamo unit)
BATCH_VERBS = ("import", "export", "roundtrip", "convert")


@dataclass(frozen=True, slots=True)
class Format:
    key: str                             # short id: "alo", "ala", "alm1", "alod", "p3d"
    engine: str                          # whose format: "Alamo", "Alithia", "ALOD", "Arma"
    name: str                            # what such a file is, with its article
    extensions: tuple                    # (".alo",)
    matches: Callable[[bytes], bool]     # the magic test, on the file's first 64 bytes
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
    order: int = 0                            # identify() tries low first (ties: discovery)
    # (data, filename) -> raises the error that says why bytes no entry matches are not
    # this format's although they look like it (Alamo: "not an Alamo file (starts with ..)")
    explain: Optional[Callable[[bytes, Optional[str]], None]] = None
    refusal_hint: str = ""                    # added when a verb refuses the format's files
    write_hint: str = ""                      # how to write one when roundtrip cannot
    batch: tuple = ()                         # BATCH_VERBS the batch converter offers it
    dump_lines: Optional[Callable[[list], list]] = None     # dump's tree as text lines
    info_json: Optional[Callable[[bytes, Optional[str]], dict]] = None   # more for info --json
    # the dataclasses declaring its import's and export's options (:mod:`.options`): the File
    # menu operators' properties, the batch's flags and the preferences are made from them
    import_options: Optional[type] = None
    export_options: Optional[type] = None

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
        field = {"roundtrip": "roundtrip", "dump": "dump", "convert-ala": "convert"}.get(verb)
        return field is not None and getattr(self, field) is not None


@dataclass(frozen=True, slots=True)
class CliVerb:
    """A command-line verb an engine adds (``io-alamo convert-ala``, ``io-alamo meg``):
    ``add_parser(subparsers)`` adds its parser, whose ``run(args)`` default returns the exit
    status."""
    name: str
    add_parser: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class ContentSource:
    """A kind of archive files may come from (Alamo's .meg): the command line's
    ``ARCHIVE.meg:NAME`` and the texture lookup ask :mod:`.content`, which asks these."""
    name: str                                       # "MEG"
    extensions: tuple                               # (".meg",)
    open: Callable[[str], Any]                      # path -> archive: find(name), read(entry)
    search: Callable[[list], Any]                   # paths -> find(name) over them, in order
    label: Callable[[str, str], str]                # (archive, member) -> "X.meg:NAME"
    data_folder: Callable[[str], Optional[str]]     # a game's Data folder at a folder
    data_archives: Callable[[str], list]            # the archives a Data folder lists
    source_archives: Callable[[str], list]          # archives of an archive/game/Data path


def header_number(text, at=4, order="<", missing=""):
    """A ``Format.detail``: the u32 at offset ``at`` of the header (byte order ``order``)
    put into ``text`` (``"ODOL v{}"``), or ``missing`` when the file is too short."""
    def detail(data):
        head = bytes(data[at:at + 4])
        return text.format(struct.unpack(order + "I", head)[0]) if len(head) == 4 else missing
    return detail
