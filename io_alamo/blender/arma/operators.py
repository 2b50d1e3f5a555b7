"""File > Import > Arma Binarized Model (.p3d), and drag and drop of .p3d files."""

import bpy
from bpy.props import BoolProperty, StringProperty

from ..file_operators import (
    FileListImport,
    ViewportDrop,
    import_each,
    leave_edit_modes,
    menu_registration,
)
from ..prefs import user_texture_folders
from ..progress import reports_progress
from .importer import P3dImportOptions, import_p3d


class IMPORT_SCENE_OT_p3d(bpy.types.Operator, FileListImport):
    """Import binarized Arma models (.p3d, ODOL v40-73): every LOD as an object"""

    bl_idname = "import_scene.p3d"
    bl_label = "Import Arma Binarized Model"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".p3d"
    filter_glob: StringProperty(default="*.p3d", options={"HIDDEN"})

    hide_other_lods: BoolProperty(
        name="Show One LOD Only",
        description="Hide every LOD but the most detailed visual one",
        default=True)

    @reports_progress
    def execute(self, context):
        options = P3dImportOptions(hide_other_lods=self.hide_other_lods,
                                   texture_folders=user_texture_folders(context))
        leave_edit_modes(context)
        return import_each(self, self.paths(), lambda path, _: import_p3d(context, path, options))


class ALAMO_FH_p3d(ViewportDrop, bpy.types.FileHandler):
    bl_idname = "ALAMO_FH_p3d"
    bl_label = "Arma binarized model"
    bl_import_operator = "import_scene.p3d"
    bl_file_extensions = ".p3d"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_p3d.bl_idname, text="Arma Binarized Model (.p3d)")


CLASSES = (IMPORT_SCENE_OT_p3d, ALAMO_FH_p3d)

register, unregister = menu_registration(CLASSES, menu_import)
