"""A game's (or a mod's) ``Data`` folder and the archives in it, Blender-free.

The games read a file from the loose ``Data`` tree first, then from the ``.meg`` archives their
``Data/MegaFiles.xml`` lists, mounted in that order and then the patch archives, a later
archive overriding an earlier one (as the game's own patches do). Here the archives of a
``Data`` folder are searched the other way round, the last mounted first (entries that do not
exist are skipped); without a list, every ``.meg`` in it, the last by name first.
:class:`ArchiveSet` looks names up in a list of archives in search order, the first holding a
name winning, opening each archive's index only when a look-up first needs it.
"""

import os
import re

from .naming import model_animation_names
from .meg import MegArchive, MegFormatError, normal_name

MEGAFILES_XML = "megafiles.xml"
MAX_XML_BYTES = 1 << 20                 # a real MegaFiles.xml is a few hundred bytes
_FILE_ENTRY = re.compile(r"<\s*file\s*>\s*([^<]*?)\s*<\s*/\s*file\s*>", re.IGNORECASE)


def child_ci(folder, name):
    """The entry ``name`` of ``folder`` in whatever case it has on disk, or None."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return None
    low = name.lower()
    match = next((n for n in sorted(entries) if n.lower() == low), None)
    return os.path.join(folder, match) if match is not None else None


def resolve_ci(root, relative):
    """``relative`` (``\\`` or ``/`` separated) under ``root``, each part matched in any case;
    None if a part is missing, is ``..`` or the path is absolute."""
    parts = [p for p in re.split(r"[\\/]+", relative.strip()) if p not in ("", ".")]
    if not parts or ".." in parts or re.match(r"^([A-Za-z]:|[\\/])", relative.strip()):
        return None
    current = root
    for part in parts:
        current = child_ci(current, part)
        if current is None:
            return None
    return current


def data_folder(folder):
    """The ``Data`` folder ``folder`` is (by name) or holds, or None."""
    if not folder or not os.path.isdir(folder):
        return None
    if os.path.basename(os.path.normpath(folder)).lower() == "data":
        return folder
    found = child_ci(folder, "Data")
    return found if found and os.path.isdir(found) else None


def listed_archives(data):
    """The archives ``Data/MegaFiles.xml`` lists, in its order, or None without the file.
    Paths in it are relative to the game folder (``Data\\Models.meg``) or to ``Data``; an
    entry found in neither is looked for by its file name in ``Data`` (a mod's list may name
    its archives from the game's folder); entries that do not exist are skipped."""
    xml = child_ci(data, MEGAFILES_XML)
    if xml is None or not os.path.isfile(xml):
        return None
    with open(xml, "rb") as f:
        raw = f.read(MAX_XML_BYTES)
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = raw.decode("utf-16", errors="replace")
    else:
        text = raw.decode("utf-8-sig", errors="replace")
    game = os.path.dirname(os.path.normpath(data))
    out = []
    for m in _FILE_ENTRY.finditer(text):
        rel = m.group(1)
        path = (resolve_ci(game, rel) or resolve_ci(data, rel)
                or resolve_ci(data, re.split(r"[\\/]", rel)[-1]))
        if path and os.path.isfile(path) and path not in out:
            out.append(path)
    return out


# Archives the game mounts after MegaFiles.xml's list, listed there or not.
PATCH_ARCHIVES = ("Patch.meg", "Patch2.meg", "64Patch.meg")


def data_archives(data):
    """The archives of a ``Data`` folder, in the order they are searched: the game mounts
    MegaFiles.xml's archives in their listed order and then its patch archives, and a later
    archive overrides an earlier one, so the last mounted is searched first. Without a list
    (a mod folder), every ``.meg`` in it, the last by name first."""
    mounted = listed_archives(data)
    if mounted:                         # a list naming no archive that exists counts as none
        for name in PATCH_ARCHIVES:
            patch = child_ci(data, name)
            if patch and os.path.isfile(patch) and patch not in mounted:
                mounted.append(patch)
        return mounted[::-1]
    try:
        names = sorted(os.listdir(data), key=str.lower, reverse=True)
    except OSError:
        return []
    return [os.path.join(data, n) for n in names
            if n.lower().endswith(".meg") and os.path.isfile(os.path.join(data, n))]


def is_archive_file(path):
    return bool(path) and str(path).lower().endswith(".meg") and os.path.isfile(path)


def source_archives(source):
    """The archives a search location stands for: a ``.meg`` itself, a ``Data`` folder's, a
    game or mod folder's (its ``Data``); [] for anything else."""
    if is_archive_file(source):
        return [os.fspath(source)]
    data = data_folder(source)
    return data_archives(data) if data else []


_indexes = {}                           # (path, size, mtime): MegArchive, the last few read
MAX_CACHED = 64


def open_archive(path):
    """The index of the archive at ``path``, read once while the file stays the same (a
    game's archives are searched again for every texture a material edit names)."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    meg = _indexes.get(key)
    if meg is None:
        meg = MegArchive(path)
        if len(_indexes) >= MAX_CACHED:
            _indexes.pop(next(iter(_indexes)))
        _indexes[key] = meg
    return meg


class ArchiveSet:
    """Names looked up in a list of archives, in order; the first holding a name wins. An
    archive that cannot be read is skipped and its error kept in :attr:`errors`."""

    def __init__(self, paths):
        self.paths = list(dict.fromkeys(os.fspath(p) for p in paths))
        self._opened = []               # (path, MegArchive) in order, opened so far
        self.errors = []

    def _archives(self):
        yield from self._opened
        while len(self._opened) + len(self.errors) < len(self.paths):
            path = self.paths[len(self._opened) + len(self.errors)]
            try:
                meg = open_archive(path)
            except (OSError, MegFormatError) as e:
                self.errors.append(e)
                continue
            self._opened.append((path, meg))
            yield path, meg

    def find(self, name):
        """(archive path, MegArchive, MegEntry) of the first archive holding ``name``."""
        key = normal_name(name)
        for path, meg in self._archives():
            e = meg.find(key)
            if e is not None:
                return path, meg, e
        return None

    def entries(self):
        """(archive path, MegArchive, MegEntry) of every member, first occurrence of each name
        only, archive by archive."""
        seen = set()
        for path, meg in self._archives():
            for e in meg.entries:
                key = normal_name(e.name)
                if key not in seen:
                    seen.add(key)
                    yield path, meg, e


# --- models inside a game's archives ---------------------------------------------------------

def model_members(archives):
    """(archive path, member name) of every model (``.ALO``) in an :class:`ArchiveSet`, the
    first archive holding a name winning, sorted by file name."""
    found = [(path, e.name) for path, _, e in archives.entries()
             if e.name.upper().endswith(".ALO")]
    return sorted(found, key=lambda pe: (pe[1].rpartition("\\")[2], pe[1]))


def animation_members(archives, model_name):
    """(the model's own ``<MODEL>_*.ALA`` members in its folder, {animation: the other model
    it is left to}), as :func:`io_alamo.formats.alamo.naming.model_animation_names` decides for files."""
    folder, _, base = normal_name(model_name).rpartition("\\")
    in_folder = {}
    for _, _, e in archives.entries():
        f, _, b = normal_name(e.name).rpartition("\\")
        if f == folder and b.endswith((".ALA", ".ALO")):
            in_folder[b] = e.name
    mine, left = model_animation_names(base, list(in_folder))
    return [in_folder[n] for n in mine], left
