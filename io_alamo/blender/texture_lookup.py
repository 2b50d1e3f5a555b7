"""Finding the texture files a material names, case-insensitively, in the places modders keep
them. Only the file name of what a model says is used: ``..\\..\\x.dds`` or ``C:\\x.dds``
is looked up as ``x.dds`` inside the search folders, never anywhere else.

After the loose folders come the games' archives: those of each ``Data`` folder found walking
up from the model, then those the search locations stand for (a ``.meg``, a ``Data`` folder, a
game folder), where a texture is the member ``DATA\\ART\\TEXTURES\\<NAME>`` (any case).
Blender-free: :func:`io_alamo.blender.texture_images.load_texture` makes the image."""

import ntpath
import os
from dataclasses import dataclass

from ..formats.alamo.game_data import ArchiveSet, data_archives, data_folder, source_archives
from ..formats.alamo.meg import member_label

EXTENSIONS = (".dds", ".tga")
TEXTURES_IN_ARCHIVE = "DATA\\ART\\TEXTURES\\"     # where the games look textures up
MAX_WALK_UP = 8


def folders_above(path, levels=MAX_WALK_UP):
    """The folder of ``path`` and the folders above it, nearest first, at most ``levels``
    above it."""
    current = os.path.dirname(os.path.abspath(path))
    yield current
    for _ in range(levels):
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent
        yield current


class FolderNames:
    """Each folder's entries by lower-case name, listed once (a folder that cannot be listed
    has none): what case-insensitive look-ups in the same folders share."""

    def __init__(self):
        self._listing = {}

    def __call__(self, folder):
        if folder not in self._listing:
            try:
                self._listing[folder] = {n.lower(): n for n in os.listdir(folder)}
            except OSError:
                self._listing[folder] = {}
        return self._listing[folder]


def texture_folders(model_path, extra_folders=()):
    """Beside the model, every ``Data/Art/Textures`` (or ``Art/Textures``, ``Textures``)
    found walking up from it, then the user's folders, in that order, without repeats."""
    folders = [os.path.dirname(os.path.abspath(model_path))]
    for current in folders_above(model_path, MAX_WALK_UP - 1):
        for parts in (("Data", "Art", "Textures"), ("Art", "Textures"), ("Textures",)):
            found = _find_path_ci(current, parts)
            if found:
                folders.append(found)
    folders += [f for f in extra_folders if f]
    for f in extra_folders:                 # a game's or a mod's Data folder: its loose textures
        data = data_folder(f) if f else None
        found = _find_path_ci(data, ("Art", "Textures")) if data else None
        if found:
            folders.append(found)
    seen, out = set(), []
    for f in folders:
        key = os.path.normcase(os.path.abspath(f))
        if key not in seen and os.path.isdir(f):
            seen.add(key)
            out.append(f)
    return out


def texture_archives(model_path, extra_folders=()):
    """The archives searched after the loose folders: each ``Data`` folder's found walking up
    from the model (nearest first), then those of the user's locations, without repeats."""
    out = []
    for current in folders_above(model_path):
        data = data_folder(current)
        if data:
            out += data_archives(data)
    for f in extra_folders:
        out += source_archives(f) if f else []
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class ArchiveTexture:
    """A texture found inside a game archive."""
    archive: str            # the .meg's path
    name: str               # the member, e.g. DATA\\ART\\TEXTURES\\W_TEST.DDS
    reader: object = None   # the ArchiveSet that found it

    def read(self):
        found = self.reader.find(self.name)
        return found[1].read(found[2])

    @property
    def file_name(self):
        return self.name.rpartition("\\")[2]

    @property
    def loose_path(self):
        """Where the game would read it as a loose file: the member's path under the folder
        that holds the archive's ``Data`` folder (what *Unpack* writes to)."""
        game = os.path.dirname(os.path.dirname(os.path.abspath(self.archive)))
        return os.path.join(game, *[p for p in self.name.split("\\") if p not in ("", "..")])

    def __str__(self):
        return member_label(self.archive, self.name)


def _find_path_ci(root, parts):
    current = root
    for part in parts:
        try:
            names = os.listdir(current)
        except OSError:
            return None
        match = next((n for n in names if n.lower() == part.lower()), None)
        if match is None:
            return None
        current = os.path.join(current, match)
        if not os.path.isdir(current):
            return None
    return current


class TextureFinder:
    """Looks texture names up in a list of folders; each folder is listed once."""

    def __init__(self, folders, archives=()):
        """``folders`` may also hold ``.meg`` files and game or ``Data`` folders: their
        archives are searched after ``archives``, once every loose folder has been."""
        self.folders = [f for f in folders if not (f and os.path.isfile(f))]
        more = [a for f in folders if f for a in source_archives(f)]
        self.archives = ArchiveSet(list(archives) + more)
        self._names = FolderNames()

    @classmethod
    def for_model(cls, model_path, extra_folders=()):
        """The finder an import uses: see :func:`texture_folders`, :func:`texture_archives`."""
        return cls([f for f in texture_folders(model_path, extra_folders)],
                   texture_archives(model_path, extra_folders))

    @property
    def searched(self):
        """'N folders and M archives', for messages."""
        text = f"{len(self.folders)} folders"
        if self.archives.paths:
            text += f" and {len(self.archives.paths)} archives"
        errors = self.archives.errors
        if errors:
            text += f"; {len(errors)} archives could not be read: {errors[0]}"
        return text

    def find(self, texture_name):
        """Path of the texture file, trying its own extension, then .dds and .tga, in the
        loose folders, then an :class:`ArchiveTexture` from the archives; or None."""
        base = ntpath.basename(texture_name.replace("/", "\\")).strip()
        if not base or base in (".", ".."):
            return None
        stem, ext = os.path.splitext(base)
        candidates = [base] + [stem + e for e in EXTENSIONS if e != ext.lower()]
        for folder in self.folders:
            names = self._names(folder)
            for c in candidates:
                real = names.get(c.lower())
                if real is not None:
                    path = os.path.join(folder, real)
                    if os.path.isfile(path):
                        return path
        for c in _archive_names(texture_name) + candidates:
            found = self.archives.find(TEXTURES_IN_ARCHIVE + c)
            if found is not None:
                return ArchiveTexture(found[0], found[2].name, self.archives)
        return None


def _archive_names(texture_name):
    """A name with folders (``Units\\X.dds``) is first looked for as it is below
    ``DATA\\ART\\TEXTURES`` (with .dds and .tga standing in for each other), when it neither
    climbs out nor is absolute; then by its file name."""
    rel = texture_name.replace("/", "\\").strip()
    parts = rel.split("\\")
    if len(parts) < 2 or ".." in parts or "" in parts or ntpath.splitdrive(rel)[0]:
        return []
    stem, ext = os.path.splitext(rel)
    return [rel] + [stem + e for e in EXTENSIONS if e != ext.lower()]
