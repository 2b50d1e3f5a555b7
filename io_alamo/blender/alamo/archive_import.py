"""File > Import > Alamo Model from Game Archives: a model straight from the games' .meg files.

The games' folders come from the add-on preferences (Forces of Corruption, Empire at War). A
search list offers every model (``.ALO``) inside their archives; the chosen one is imported as
from a loose file (its bytes are kept: an unedited model exports back byte for byte), with its
``<MODEL>_*.ALA`` animations from the same archives and its textures from the loose folders and
the archives. Forces of Corruption falls back to Empire at War's archives, as the game does.
Export always writes loose files (a mod overrides archive files with loose ones).
"""

import os
from dataclasses import replace

import bpy
from bpy.props import EnumProperty

from ...formats.alamo.game_data import (ArchiveSet, animation_members, data_folder, model_members,
                                        source_archives)
from ...formats.alamo.meg import member_label
from ..file_operators import import_each, leave_edit_modes, options_base
from ..prefs import preference, user_texture_folders
from ..progress import reports_progress
from .importer.alo import AloImportOptions, import_alamo

GAMES = (("FOC", "Forces of Corruption"), ("EAW", "Empire at War"))
FALLBACK = {"FOC": ("EAW",), "EAW": ()}
SEPARATOR = "|"                      # between the game's key and the member name


class GameArchives:
    """The archives of the games' folders: per game, its own and (for lookups) its
    fallbacks'."""

    def __init__(self, folders):
        self.folders = dict(folders)
        self.own = {key: source_archives(folder) for key, folder in self.folders.items()}

    def lookup(self, key):
        """An ArchiveSet of the game's archives, then its fallback games'."""
        paths = list(self.own.get(key, []))
        for other in FALLBACK.get(key, ()):
            paths += self.own.get(other, [])
        return ArchiveSet(paths)

    def data_folders(self, key):
        out = [data_folder(self.folders[k]) or self.folders[k]
               for k in (key,) + FALLBACK.get(key, ()) if k in self.folders]
        return [f for f in out if f]

    def empty_games(self):
        """Messages for the games whose folder holds no archives."""
        labels = dict(GAMES)
        return [f"{labels[k]}: no archives (.meg) in {folder} (a game folder or its Data folder "
                "is expected)" for k, folder in self.folders.items() if not self.own.get(k)]

    def models(self):
        """[(identifier, file name, description)] of every model, game by game."""
        out = []
        for key, label in GAMES:
            if not self.own.get(key):
                continue
            for path, name in model_members(ArchiveSet(self.own[key])):
                base = name.rpartition("\\")[2]
                out.append((f"{key}{SEPARATOR}{name}", f"{base} ({label})",
                            f"{label}: {os.path.basename(path)}, {name}"))
        return out


def game_folders(context):
    """{"FOC": folder, "EAW": folder} of the games set in the preferences."""
    folders = (("FOC", preference(context, "foc_folder")),
               ("EAW", preference(context, "eaw_folder")))
    return {key: bpy.path.abspath(folder) for key, folder in folders if folder}


def import_from_archives(context, game_key, member, folders, options=None):
    """Import the model ``member`` (``DATA\\ART\\MODELS\\X.ALO``) of the game ``game_key``
    ("FOC" or "EAW") whose folders are ``folders`` ({key: folder}); returns the AloImportResult."""
    options = options or AloImportOptions()
    games = GameArchives(folders)
    archives = games.lookup(game_key)
    found = archives.find(member)
    if found is None:
        raise FileNotFoundError(f"no model {member} in the archives of {folders.get(game_key)}")
    path, meg, entry = found
    animations, left = [], {}
    if options.import_animations:
        names, left = animation_members(archives, entry.name)
        for name in names:
            a_path, a_meg, a_entry = archives.find(name)
            animations.append((member_label(a_path, a_entry.name), a_meg.read(a_entry)))
    options = replace(options, texture_folders=games.data_folders(game_key)
                      + list(options.texture_folders))
    result = import_alamo(context, member_label(path, entry.name), options,
                          data=meg.read(entry), animations=animations)
    result.left_animations = left            # as for loose files: others' animations named
    return result


_cache = {"key": None, "items": [], "empty": []}


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def model_items(self, context):
    """The enum's items: the models of the games set in the preferences (cached while the
    folders and their archives stay the same: Blender needs the strings kept alive, and
    listing archives takes a moment)."""
    folders = game_folders(context) if context else {}
    games = GameArchives(folders)
    key = tuple(sorted(folders.items())) + tuple(
        (p, _stamp(p)) for paths in games.own.values() for p in paths)
    if key != _cache["key"]:
        _cache["items"] = [(ident, name, desc, k)
                           for k, (ident, name, desc) in enumerate(games.models())]
        _cache["empty"] = games.empty_games()
        _cache["key"] = key
    return _cache["items"]


def why_no_models(context):
    """(why the list is empty or None, warnings about game folders without archives)."""
    if not game_folders(context):
        return ("Set the games' folders in the add-on preferences (Empire at War, Forces of "
                "Corruption)"), []
    items = model_items(None, context)
    if not items:
        return "No models found in the games' archives", list(_cache["empty"])
    return None, list(_cache["empty"])


class IMPORT_SCENE_OT_alamo_from_archives(bpy.types.Operator, options_base(AloImportOptions)):
    """Import a model from the games' archives (.meg), with its animations and textures; the
    game folders are set in the add-on preferences"""

    bl_idname = "import_scene.alamo_from_archives"
    bl_label = "Import Alamo Model from Game Archives"
    bl_options = {"REGISTER", "UNDO"}
    bl_property = "model"

    model: EnumProperty(name="Model", items=model_items,
                        description="The model (searched by its file name)")

    def invoke(self, context, event):
        problem, warnings = why_no_models(context)
        for text in warnings:
            self.report({"WARNING"}, text)
        if problem:
            self.report({"ERROR"}, problem)
            return {"CANCELLED"}
        context.window_manager.invoke_search_popup(self)
        return {"RUNNING_MODAL"}

    @reports_progress
    def execute(self, context):
        if not self.model or SEPARATOR not in self.model:
            self.report({"ERROR"}, "No model chosen")
            return {"CANCELLED"}
        game, member = self.model.split(SEPARATOR, 1)
        options = self.declared_options(texture_folders=user_texture_folders(context))
        leave_edit_modes(context)
        folders = game_folders(context)
        return import_each(self, [member], lambda m, _: import_from_archives(
            context, game, m, folders, options), more_lines=lambda result: result.left_notes())


MENU_LABEL = "Alamo Model from Game Archives"


CLASSES = (IMPORT_SCENE_OT_alamo_from_archives,)
