"""File > Import > Arma Binarized Model (.p3d), and drag and drop of .p3d files."""

import os

import bpy
from bpy.props import BoolProperty, StringProperty

from ..formats.errors import FormatError
from .imp.p3d import P3dImportOptions, import_p3d
from .operators import _FileListImport


class IMPORT_SCENE_OT_p3d(bpy.types.Operator, _FileListImport):
    """Import binarized Arma models (.p3d, ODOL v40-73): every LOD as an object"""

    bl_idname = "import_scene.p3d"
    bl_label = "Import Arma Binarized Model"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".p3d"
    filter_glob: StringProperty(default="*.p3d", options={"HIDDEN"})

    hide_other_lods: BoolProperty(
        name="Show First LOD Only",
        description="Hide every LOD but the first visual one",
        default=True)

    def execute(self, context):
        options = P3dImportOptions(hide_other_lods=self.hide_other_lods)
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        done = 0
        for path in self.paths():
            try:
                result = import_p3d(context, path, options)
            except FormatError as e:
                self.report({"ERROR"}, str(e))
                continue
            except OSError as e:
                self.report({"ERROR"}, f"{path}: {e}")
                continue
            done += 1
            for w in result.warnings:
                self.report({"WARNING"}, f"{os.path.basename(path)}: {w}")
            self.report({"INFO"}, f"{os.path.basename(path)}: {result.summary()}")
        return {"FINISHED"} if done else {"CANCELLED"}


class ALAMO_FH_p3d(bpy.types.FileHandler):
    bl_idname = "ALAMO_FH_p3d"
    bl_label = "Arma binarized model"
    bl_import_operator = "import_scene.p3d"
    bl_file_extensions = ".p3d"

    @classmethod
    def poll_drop(cls, context):
        return context.area is not None and context.area.type == "VIEW_3D"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_p3d.bl_idname, text="Arma Binarized Model (.p3d)")


_classes = (IMPORT_SCENE_OT_p3d, ALAMO_FH_p3d)


def register():
    for cls in _classes:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
