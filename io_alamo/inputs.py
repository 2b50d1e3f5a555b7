"""The files a command was given: every verb that takes files (``info``, ``validate``,
``roundtrip``, ``batch ...``) also takes folders, walked recursively for the file types the
verb reads, and wildcards (``*.alo``, ``Models/**/*.ALO``), expanded here because Windows
shells pass them on as they are. Wildcards match any case, as Windows does, and like folders
give only the file types the verb reads (``Sample*`` skips the textures).

An ``ARCHIVE.meg:NAME`` member is passed on untouched. A folder or wildcard that gives no file
is reported by name; the order is the order given, files of a folder sorted."""

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Found", "expand", "has_wildcard", "nothing_found_line"]

_WILDCARD = re.compile(r"[*?[]")
# Windows junctions are entered by the walk but are no symlinks to scandir: there a file's
# real path is asked for one by one
_JUNCTIONS = os.name == "nt"


@dataclass(frozen=True, slots=True)
class Found:
    """A file to work on, and the folder it was found in (None for a file named directly or
    by a wildcard): the batch keeps the folder's structure below its output folder."""
    path: Path
    root: Path | None = None

    @property
    def relative(self):
        """Its path below the folder it was found in (its name for a file given directly)."""
        return self.path.relative_to(self.root) if self.root else Path(self.path.name)


def has_wildcard(text):
    return bool(_WILDCARD.search(text))


def _any_case(pattern):
    """``*.alo`` as ``*.[aA][lL][oO]``: a wildcard that matches any case on every system
    (character classes already in the pattern are kept as they are)."""
    out, k = [], 0
    while k < len(pattern):
        c = pattern[k]
        if c == "[":
            end = pattern.find("]", k + 2)
            if end > 0:
                out.append(pattern[k:end + 1])
                k = end + 1
                continue
        out.append(f"[{c.lower()}{c.upper()}]" if c.isalpha() and c.lower() != c.upper()
                   else c)
        k += 1
    return "".join(out)


def _folder_files(folder, suffixes):
    """``[(path, key)]``: the files below ``folder`` ending in ``suffixes`` (a symlink to a
    file counts; symlinked folders are not entered, as ``Path.rglob`` does not), sorted by
    their parts in any case, each with its :func:`_key`. One ``scandir`` per folder: the
    entries' types come with the listing, and a file's real path is the folder's real path
    and its place below it unless the file is itself a link."""
    real = os.path.realpath(folder)
    out = []

    def walk(here, parts):
        try:
            entries = list(os.scandir(here))
        except PermissionError:
            return
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                walk(e.path, parts + (e.name,))
            elif (suffixes is None or os.path.splitext(e.name)[1].lower() in suffixes) \
                    and e.is_file():
                rel = parts + (e.name,)
                key = _key(e.path) if e.is_symlink() or _JUNCTIONS else \
                    os.path.normcase(os.path.join(real, *rel))
                out.append(([part.lower() for part in rel], Path(folder, *rel), key))

    walk(os.fspath(folder), ())
    out.sort(key=lambda t: t[0])
    return [(path, key) for _, path, key in out]


def _key(path):
    """What tells two names of one file apart from two files: the real path, in the
    system's case."""
    return os.path.normcase(os.path.realpath(path))


def expand(items, suffixes=None, keep=None):
    """(``[Found]``, ``[item that gave nothing]``): the files of ``items`` (files, folders
    walked for files ending in ``suffixes`` (lower case; all files if None), wildcards),
    each file once. ``keep(item)`` True passes an item on as it is (archive members)."""
    found, empty, seen = [], [], set()

    def add(path, root=None, key=None):
        key = key or _key(path)
        if key not in seen:
            seen.add(key)
            found.append(Found(Path(path), root))

    for item in items:
        text = os.fspath(item)
        p = Path(text)
        if keep is not None and keep(text):
            found.append(Found(p))
        elif p.is_dir():
            files = _folder_files(p, suffixes)
            for f, key in files:
                add(f, p, key)
            if not files:
                empty.append(text)
        elif p.exists() or not has_wildcard(text):
            add(p)                    # a file (or a missing one: its reader says so)
        else:
            matches = sorted(glob.glob(_any_case(text), recursive=True), key=str.lower)
            files = []
            for m in matches:
                if os.path.isdir(m):
                    files += [f for f, _ in _folder_files(Path(m), suffixes)]
                elif suffixes is None or Path(m).suffix.lower() in suffixes:
                    files.append(Path(m))
            for f in files:
                add(f)
            if not files:
                empty.append(text)
    return found, empty


def nothing_found_line(item, suffixes=None):
    """``Models/: no .alo or .ala files found`` / ``*.alo: no file matches``."""
    kinds = (" or ".join(sorted(suffixes)) + " files") if suffixes else "files"
    if os.path.isdir(item):
        return f"{item}: no {kinds} found (folders are searched recursively)"
    return f"{item}: no file matches"
