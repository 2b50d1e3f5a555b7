"""Finding the texture files a material names, case-insensitively, in the places modders keep
them. Only the file name of what a model says is used: ``..\\..\\x.dds`` or ``C:\\x.dds``
is looked up as ``x.dds`` inside the search folders, never anywhere else."""

import ntpath
import os

EXTENSIONS = (".dds", ".tga")
MAX_WALK_UP = 8


def texture_folders(model_path, extra_folders=()):
    """Beside the model, every ``Data/Art/Textures`` (or ``Art/Textures``, ``Textures``)
    found walking up from it, then the user's folders, in that order, without repeats."""
    folders = []
    here = os.path.dirname(os.path.abspath(model_path))
    folders.append(here)
    current = here
    for _ in range(MAX_WALK_UP):
        for parts in (("Data", "Art", "Textures"), ("Art", "Textures"), ("Textures",)):
            found = _find_path_ci(current, parts)
            if found:
                folders.append(found)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    folders += [f for f in extra_folders if f]
    seen, out = set(), []
    for f in folders:
        key = os.path.normcase(os.path.abspath(f))
        if key not in seen and os.path.isdir(f):
            seen.add(key)
            out.append(f)
    return out


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

    def __init__(self, folders):
        self.folders = list(folders)
        self._listing = {}

    def _names(self, folder):
        if folder not in self._listing:
            try:
                self._listing[folder] = {n.lower(): n for n in os.listdir(folder)}
            except OSError:
                self._listing[folder] = {}
        return self._listing[folder]

    def find(self, texture_name):
        """Path of the texture file, trying its own extension, then .dds and .tga; or None."""
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
        return None
