"""The error types every reader and writer raises for bad input (all formats), and how a
message drops the file name a line already starts with."""


class FormatError(ValueError):
    """A file (or an in-memory model about to be written) breaks its format.

    Carries where the problem is, so that a modder can find it with a hex editor:
    the file name, the byte offset and the place in the file's structure (for Alamo files the
    chunk path ``0x400[2]/0x10000/0x10007``; for other formats e.g. ``LOD 3/faces``).
    Every format io_alamo reads raises a subclass of this one type.
    """

    where_label = "in"       # how ``path`` is introduced in the message

    def __init__(self, message, *, offset=None, path="", filename=None):
        self.message = message
        self.offset = offset
        self.path = path
        self.filename = filename
        super().__init__(self._text())

    def _text(self):
        """``str()`` of the error has the shape of every message, ``FILE: what is wrong
        (where)``: the command line, the batch and Blender's reports all show it."""
        return self.line()

    def line(self, filename=None):
        """The error as the command line shows it, ``FILE: what is wrong (where)``:
        ``x.alo: chunk size 9 runs past the end of its parent (offset 0x1c, chunk 0x400)``."""
        name = self.filename or filename
        where = []
        if self.offset is not None:
            where.append(f"offset 0x{self.offset:x}")
        if self.path:
            where.append(f"{self.where_label} {self.path}")
        text = self.message + (f" ({', '.join(where)})" if where else "")
        return f"{name}: {text}" if name else text

    def with_filename(self, filename):
        """Return the same error naming ``filename`` (readers learn it late)."""
        if self.filename is None:
            self.filename = filename
            self.args = (self._text(),)
        return self


class ChunkFormatError(FormatError):
    """A chunked file (or an in-memory record about to be written) breaks its format; the
    place named is a chunk."""

    where_label = "chunk"


AlamoFormatError = ChunkFormatError      # Alamo's readers' name for it (170 uses)


class WrongFormatError(FormatError):
    """A good file of another format than the one asked for (or of none io_alamo reads):
    given to the wrong File > Import entry, or to a command-line verb its format lacks. The
    message says what the file is and where it goes; ``found`` is the registry key of its
    format, or None."""

    def __init__(self, message, *, found=None, **kwargs):
        self.found = found
        super().__init__(message, **kwargs)


def without_filename(error, path=None):
    """An error's text without the file name it starts with, for lines that already start
    with the name (``x.alo: offset 0x10, chunk 0x200: ...``, not ``x.alo: x.alo, ...``)."""
    text = str(error)
    names = {str(getattr(error, "filename", None) or ""), str(path or "")} - {""}
    for name in sorted(names, key=len, reverse=True):
        for sep in (", ", ": "):
            if text.startswith(name + sep):
                return text[len(name) + len(sep):]
    return text
