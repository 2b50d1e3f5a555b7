"""File > Import > Arma Binarized Model (.p3d), and drag and drop of .p3d files."""

import bpy
from bpy.props import BoolProperty

from ...formats.registry import by_key
from ..file_operators import (drop_handler, import_base, import_each, leave_edit_modes,
                              menu_entries, menu_registration)
from ..prefs import user_texture_folders
from ..progress import reports_progress
from .importer import P3dImportOptions, import_p3d

FORMAT = by_key("p3d")


class IMPORT_SCENE_OT_p3d(bpy.types.Operator, import_base(FORMAT)):
    """Import binarized Arma models (.p3d, ODOL v40-73): every LOD as an object"""

    bl_label = "Import Arma Binarized Model"

    hide_other_lods: BoolProperty(
        name="Show One LOD Only",
        description="Hide every LOD but the most detailed visual one",
        default=True)
    game_scale: BoolProperty(
        name="Game Scale",
        description="Scale from metres to the Alamo games' units (5 per metre, as their "
                    "infantry is tall); off keeps metres",
        default=True)
    on_ground: BoolProperty(
        name="Stand on the Ground",
        description="Raise or lower the unit so its lowest visible point (parts included) "
                    "is at the origin's height",
        default=True)
    import_parts: BoolProperty(
        name="Import Proxied Parts",
        description="Import the .p3d files the shown LOD's proxies name (wheels, frames, "
                    "turrets) as parts at their places, when found beside the model or in "
                    "the texture folders; the others stay empties",
        default=True)

    @reports_progress
    def execute(self, context):
        options = P3dImportOptions(hide_other_lods=self.hide_other_lods,
                                   texture_folders=user_texture_folders(context),
                                   game_scale=self.game_scale, on_ground=self.on_ground,
                                   import_parts=self.import_parts)
        leave_edit_modes(context)
        return import_each(self, self.paths(), lambda path, _: import_p3d(context, path, options))


ALAMO_FH_p3d = drop_handler("ALAMO_FH_p3d", "Arma binarized model", FORMAT)
menu_import = menu_entries((IMPORT_SCENE_OT_p3d, FORMAT.import_label))


CLASSES = (IMPORT_SCENE_OT_p3d, ALAMO_FH_p3d)

register, unregister = menu_registration(CLASSES, menu_import)
