"""Where a file's bytes come from besides a file on disk: the members of archives, as the
engines declare them (a :class:`~.entry.ContentSource` in an ``entries`` module's
``CONTENT``; Alamo's .meg is one). Neutral, like SourceIO's content providers: the command
line's ``ARCHIVE.meg:NAME``, the batch's ``--textures X.meg`` and the texture lookup ask
this module, which asks every declared source.

    data = read_input_bytes("Models.meg:DATA\\\\ART\\\\MODELS\\\\X.ALO")   # or a plain path
    search = ArchiveSearch(source_archives(game_folder))   # .find(name) -> (path, archive, entry)
"""

import os
import re

from . import registry
from .files import read_file_bytes

__all__ = ["ArchiveSearch", "data_archives", "data_folder", "is_archive_file", "member_label",
           "open_input", "read_input_bytes", "source_archives", "source_for", "sources",
           "split_member"]


def sources() -> tuple:
    """Every declared content source, in discovery order."""
    return registry.declared("CONTENT")


def source_for(path):
    """The content source whose archives end like ``path``, or None."""
    name = os.fspath(path).lower() if path else ""
    return next((s for s in sources() if name.endswith(tuple(s.extensions))), None)


def is_archive_file(path) -> bool:
    return bool(path) and source_for(path) is not None and os.path.isfile(path)


def split_member(spec):
    """(archive path, member name) of ``ARCHIVE.meg:NAME``, or None for a plain path."""
    if os.path.exists(spec):
        return None
    for source in sources():
        exts = "|".join(re.escape(e) for e in source.extensions)
        parts = re.split(rf"(?i)({exts}):", spec, maxsplit=1)
        if len(parts) == 3 and parts[2]:
            return parts[0] + parts[1], parts[2]
    return None


def read_input_bytes(spec):
    """The bytes of a file, or of a member given as ``ARCHIVE.meg:NAME``."""
    member = split_member(spec)
    if member is None:
        return read_file_bytes(spec)
    path, name = member
    archive = source_for(path).open(path)
    entry = archive.find(name)
    if entry is None:
        raise FileNotFoundError(f"{path}: no member '{name}' (io-alamo meg list {path} "
                                "lists them)")
    return archive.read(entry)


def open_input(path, verb):
    """(bytes, Format) of a file the command line was given (a file, or ARCHIVE.meg:NAME); a
    FormatError if it is in no format io_alamo reads (``not an Alamo file (starts with
    ...)``) or in one ``verb`` does not work on."""
    data = read_input_bytes(path)
    fmt = registry.recognise(data, path)
    if not fmt.supports(verb):
        raise registry.refuse_verb(data, path, verb)
    return data, fmt


def member_label(archive, name) -> str:
    """How a member is named in messages: ``Models.meg:DATA\\\\ART\\\\MODELS\\\\X.ALO``."""
    source = source_for(archive)
    return source.label(archive, name) if source else f"{archive}:{name}"


def data_folder(folder):
    """A game's ``Data`` folder at ``folder`` (as a content source knows it), or None."""
    return next((d for s in sources() if (d := s.data_folder(folder))), None)


def data_archives(data) -> list:
    """The archives a ``Data`` folder holds, every source's."""
    return [a for s in sources() for a in s.data_archives(data)]


def source_archives(location) -> list:
    """The archives a search location stands for (an archive, a game or ``Data`` folder)."""
    return [a for s in sources() for a in s.source_archives(location)]


class ArchiveSearch:
    """Names looked up in a list of archives of any declared kind, in order; the first
    holding a name wins. ``paths``, ``errors`` (archives that could not be read)."""

    def __init__(self, paths):
        self.paths = list(dict.fromkeys(os.fspath(p) for p in paths))
        kinds, known = {}, sources()
        for p in self.paths:
            source = source_for(p) or (known[0] if known else None)   # a listed odd name
            if source is not None:
                kinds.setdefault(source.name, (source, []))[1].append(p)
        self._searches = [source.search(group) for source, group in kinds.values()]

    @property
    def errors(self):
        return [e for s in self._searches for e in s.errors]

    def find(self, name):
        """(archive path, archive, entry) of the first archive holding ``name``, or None."""
        return next((f for s in self._searches if (f := s.find(name)) is not None), None)

    def entries(self):
        for s in self._searches:
            yield from s.entries()
