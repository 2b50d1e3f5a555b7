"""Every format io_alamo reads (and writes), as the engines declare them: the one place
that knows them, and that imports no engine by name.

Each engine's package declares its entries (:class:`~.entry.Format`) in modules named
``entries`` (``FORMATS``, and optionally ``CLI_VERBS`` and ``CONTENT``); this module finds
them under ``io_alamo.formats`` (``pkgutil.walk_packages``, sorted by dotted name) the first
time it is asked. The command line, the batch converter and the Blender operators ask it
what a file is and what can be done with it::

    fmt = identify(data)             # the Format whose magic ``data`` starts with, or None
    fmt = recognise(data, filename)  # the same, or the error that says what it is not
    require(data, filename, "p3d")   # WrongFormatError saying what the file is and which
                                     # File > Import entry opens it

A new format adds an ``entries`` module to its engine's package (``formats/<engine>/...``).
"""

import importlib
import pkgutil
from typing import Optional

from .entry import Format
from .errors import FormatError, WrongFormatError

__all__ = ["FORMATS", "Format", "by_key", "declared", "describe", "entry_modules",
           "for_extension", "identify", "other_kind", "recognise", "refuse_verb", "reload",
           "require", "VERBS", "wrong_format_error"]

VERBS = ("info", "validate", "roundtrip", "dump", "convert-ala")
_declared = {}


def entry_modules(package=__package__) -> list:
    """The dotted names of every module named ``entries`` under ``package`` (this one:
    ``io_alamo.formats``, wherever Blender installed it), sorted."""
    root = importlib.import_module(package)
    found = (name for _, name, _ in pkgutil.walk_packages(root.__path__, package + "."))
    return sorted(name for name in found if name.rpartition(".")[2] == "entries")


def _discover():
    formats, verbs, content = [], [], []
    for name in entry_modules():
        module = importlib.import_module(name)
        formats += getattr(module, "FORMATS", ())
        verbs += getattr(module, "CLI_VERBS", ())
        content += getattr(module, "CONTENT", ())
    order = sorted(range(len(formats)), key=lambda k: (formats[k].order, k))
    return {"FORMATS": tuple(formats[k] for k in order), "CLI_VERBS": tuple(verbs),
            "CONTENT": tuple(content)}


def declared(what: str) -> tuple:
    """What the engines declare: ``"FORMATS"`` (in the order :func:`identify` tries them),
    ``"CLI_VERBS"`` or ``"CONTENT"``."""
    if what in globals():                  # set by hand (a test's monkeypatch)
        return globals()[what]
    if not _declared:
        _declared.update(_discover())
    return _declared[what]


def reload():
    """Find the declared entries again (after a package was added to ``io_alamo.formats``'s
    path, as the tests' toy format is)."""
    _declared.clear()
    for name in ("FORMATS", "CLI_VERBS", "CONTENT"):
        globals().pop(name, None)


def __getattr__(name):
    if name in ("FORMATS", "CLI_VERBS", "CONTENT"):
        return declared(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Files people open by mistake that no entry reads: told by name, not by their bytes.
OTHER_KINDS = (
    (b"\x89PNG", "a PNG image"), (b"DDS ", "a DDS texture"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"BM", "a BMP image"), (b"BLENDER", "a Blender file"), (b"PK\x03\x04", "a ZIP archive"),
    (b"MLOD", "an Arma source model (MLOD; io_alamo reads binarized ODOL models)"),
    (b"glTF", "a glTF binary (.glb)"), (b"Kaydara FBX", "an FBX model"),
)


def by_key(key: str) -> Format:
    """The entry with ``key`` ("alo", "ala", "alm1", "alod", "p3d", "meg", ...)."""
    for fmt in declared("FORMATS"):
        if fmt.key == key:
            return fmt
    raise KeyError(key)


def for_extension(ext: str) -> tuple:
    """The entries whose files end in ``ext`` (".alm" has two)."""
    ext = ext.lower() if ext.startswith(".") else "." + ext.lower()
    return tuple(fmt for fmt in declared("FORMATS") if ext in fmt.extensions)


def identify(data: bytes) -> Optional[Format]:
    """The format ``data`` is in, by its magic (MEG archives: by their header), or None.
    Entries are tried in ascending ``order`` (ties: discovery order)."""
    head = bytes(data[:64])
    for fmt in declared("FORMATS"):
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
        if bytes(data[:7]) == b"BLENDER":    # a scene, not a game file: say so first
            raise FormatError("is a Blender file (.blend); io_alamo reads the games' files: "
                              "open it in Blender, or write its units as .alo with "
                              "io-alamo batch export", filename=filename)
        for entry in declared("FORMATS"):    # an entry may say why these bytes are not its own
            if entry.explain:
                entry.explain(data, filename)
        what = other_kind(data)
        raise FormatError(f"is {what}, which io_alamo does not read" if what else
                          "not a file io_alamo reads", filename=filename)
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
    return WrongFormatError(f"is {fmt.what(data)}; {verb} works on {_who_supports(verb)} only"
                            f"{fmt.refusal_hint}", filename=filename, found=fmt.key)


def _who_supports(verb):
    """``Alamo .alo/.ala files``: the formats a verb works on, by engine."""
    return _by_engine(lambda fmt: fmt.supports(verb))


def _by_engine(test):
    """``Alamo .alo/.ala, Alithia .alm and Arma .p3d files``: the entries passing ``test``."""
    engines = {}
    for fmt in declared("FORMATS"):
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
