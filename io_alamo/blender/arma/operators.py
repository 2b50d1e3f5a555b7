"""File > Import > Arma Binarized Model (.p3d), and drag and drop of .p3d files."""

import bpy

from ...formats.registry import by_key
from ..file_operators import (drop_handler, import_base, import_each, leave_edit_modes,
                              menu_entries, menu_registration)
from ..prefs import user_texture_folders
from ..progress import reports_progress
from .importer import import_p3d

FORMAT = by_key("p3d")


class IMPORT_SCENE_OT_p3d(bpy.types.Operator, import_base(FORMAT)):
    """Import binarized Arma models (.p3d, ODOL v40-73): every LOD as an object"""

    bl_label = "Import Arma Binarized Model"

    @reports_progress
    def execute(self, context):
        options = self.declared_options(texture_folders=user_texture_folders(context))
        leave_edit_modes(context)
        return import_each(self, self.paths(), lambda path, _: import_p3d(context, path, options))


ALAMO_FH_p3d = drop_handler("ALAMO_FH_p3d", "Arma binarized model", FORMAT)
menu_import = menu_entries((IMPORT_SCENE_OT_p3d, FORMAT.import_label))


CLASSES = (IMPORT_SCENE_OT_p3d, ALAMO_FH_p3d)

register, unregister = menu_registration(CLASSES, menu_import)
