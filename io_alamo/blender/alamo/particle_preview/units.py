"""Particle effects on units: the proxies of an imported model name the effects the game
attaches at their bones (``p_engine_glow`` loads ``P_ENGINE_GLOW.ALO``; ``p_smoke_ALT1``,
an ALT or LOD variant, loads ``P_SMOKE.ALO``). Those found beside
the model, in the mod's ``Data/Art/Models`` (any folder up from the model, or the user's
folders) or in the games' archives are shown at their proxies: they move with the animation
and hide with their bone's animated visibility. They are previews only: model export leaves
them out."""

import os

from ....formats.alamo import AlamoFormatError
from ....formats.alamo.naming import lod_alt
from ....formats.alamo.game_data import ArchiveSet
from ....formats.alamo.sniff import is_particle_file
from ...texture_lookup import FolderNames, TextureFinder, folders_above, texture_archives
from . import build
from .keys import EMITTER_KEY

__all__ = ["EMITTER_KEY", "EffectFinder", "show_on_unit"]

MODELS_IN_ARCHIVE = "DATA\\ART\\MODELS\\"
_MODEL_FOLDERS = (("Data", "Art", "Models"), ("Art", "Models"), ("Models",))


def _child_ci(folder, parts, names):
    current = folder
    for part in parts:
        real = names(current).get(part.lower())
        if real is None:
            return None
        current = os.path.join(current, real)
    return current if os.path.isdir(current) else None


class EffectFinder:
    """Finds the particle file a proxy names: beside the model, in every ``Data/Art/Models``
    up from it and in the user's folders, then in the archives."""

    def __init__(self, model_path, extra_folders=()):
        self._names = FolderNames()
        folders = [os.path.dirname(os.path.abspath(model_path))]
        for start in [model_path] + [os.path.join(f, "x") for f in extra_folders if f]:
            for current in folders_above(start):
                for parts in _MODEL_FOLDERS:
                    found = _child_ci(current, parts, self._names)
                    if found:
                        folders.append(found)
        self.folders = list(dict.fromkeys(f for f in folders if os.path.isdir(f)))
        self.archives = ArchiveSet(texture_archives(model_path, extra_folders))

    def find(self, proxy_name):
        """(bytes, label) of the particle effect ``proxy_name`` names, or None (not found,
        or a model rather than an effect)."""
        base = lod_alt(proxy_name.strip())[0]      # p_smoke_ALT1 shows p_smoke.alo
        if not base or "/" in base or "\\" in base:
            return None
        file_name = base if base.lower().endswith(".alo") else base + ".alo"
        for folder in self.folders:
            real = self._names(folder).get(file_name.lower())
            if real is None:
                continue
            path = os.path.join(folder, real)
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            return (data, path) if is_particle_file(data) else None
        found = self.archives.find(MODELS_IN_ARCHIVE + file_name.upper())
        if found is None:
            return None
        data = found[1].read(found[2])
        label = f"{found[0]}:{found[2].name}"
        return (data, label) if is_particle_file(data) else None


def show_on_unit(tx, collection, proxies, model_path, extra_folders, warn):
    """Show the effects ``proxies`` (imported proxy objects) name; returns the proxies that
    show one. An effect that cannot be read is reported and left out."""
    finder = EffectFinder(model_path, extra_folders)
    textures = {}
    shown = []
    for proxy in proxies:
        found = finder.find(proxy.alamo.name or proxy.name)
        if found is None:
            continue
        data, label = found
        folder_key = os.path.dirname(label)
        if folder_key not in textures:
            textures[folder_key] = build.image_finder(
                TextureFinder.for_model(label if os.path.isfile(label) else model_path,
                                        extra_folders), warn, tx)
        try:
            made = build.show_effect(tx, collection, proxy, data, os.path.basename(label),
                                     textures[folder_key])
        except AlamoFormatError as e:
            warn(f"particle effect {os.path.basename(label)!r} of proxy {proxy.name!r} not "
                 f"shown: {e}")
            continue
        if made:
            shown.append(proxy)
    return shown
