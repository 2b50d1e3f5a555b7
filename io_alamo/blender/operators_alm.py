"""File > Import / Export entries for ``.alm`` models (Alithia ALM1; ALOD by magic) and their
drag and drop. Thin: options in, import or export function, report out."""

import os

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..formats.errors import FormatError
from .exp.alm import AlmExportOptions, export_alm
from .exp.alo import ExportError
from .imp.alm import AlmImportOptions, import_alm_file
from .operators import _FileListImport


class IMPORT_SCENE_OT_alm(bpy.types.Operator, _FileListImport):
    """Import .alm models: Alithia engine models (morph animation as shape keys)"""

    bl_idname = "import_scene.alm"
    bl_label = "Import ALM Model"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".alm"
    filter_glob: StringProperty(default="*.alm", options={"HIDDEN"})

    set_frame_rate: BoolProperty(
        name="Set Scene Frame Rate",
        description="Play the model's frames at the engine's 20 frames per second, one per "
                    "scene frame (off: spread over the scene's own rate)",
        default=True)

    def execute(self, context):
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        options = AlmImportOptions(set_scene_frame_rate=self.set_frame_rate)
        done = 0
        for path in self.paths():
            try:
                result = import_alm_file(context, path, options)
            except (FormatError, OSError) as e:
                self.report({"ERROR"}, str(e))
                continue
            done += 1
            for w in result.warnings:
                self.report({"WARNING"}, f"{os.path.basename(path)}: {w}")
            self.report({"INFO"}, f"{os.path.basename(path)}: {result.summary()}")
        return {"FINISHED"} if done else {"CANCELLED"}


class EXPORT_SCENE_OT_alm(bpy.types.Operator, ExportHelper):
    """Export the active mesh as an Alithia engine model (.alm), one frame per shape key"""

    bl_idname = "export_scene.alm"
    bl_label = "Export Alithia Model"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".alm"
    filter_glob: StringProperty(default="*.alm", options={"HIDDEN"})

    frames: EnumProperty(
        name="Frames", default="SHAPE_KEYS",
        items=[("SHAPE_KEYS", "Shape Keys", "One frame per shape key, the basis first"),
               ("SCENE", "Scene Range", "The mesh as it looks (modifiers, armature, shape "
                "keys) at 20 frames per second over the scene's frame range")])

    def execute(self, context):
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        try:
            result = export_alm(context, self.filepath, AlmExportOptions(frames=self.frames))
        except ExportError as e:
            for p in e.problems:
                self.report({"ERROR"}, p)
            return {"CANCELLED"}
        except (FormatError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for w in result.warnings:
            self.report({"WARNING"}, w)
        self.report({"INFO"}, f"{os.path.basename(self.filepath)}: {result.summary()}")
        return {"FINISHED"}


class ALAMO_FH_alm(bpy.types.FileHandler):
    bl_idname = "ALAMO_FH_alm"
    bl_label = "ALM Model"
    bl_import_operator = "import_scene.alm"
    bl_file_extensions = ".alm"

    @classmethod
    def poll_drop(cls, context):
        return context.area is not None and context.area.type == "VIEW_3D"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_alm.bl_idname, text="Alithia / ALOD Model (.alm)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_alm.bl_idname, text="Alithia Model (.alm)")


CLASSES = (IMPORT_SCENE_OT_alm, EXPORT_SCENE_OT_alm, ALAMO_FH_alm)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
