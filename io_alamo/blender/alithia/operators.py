"""File > Import / Export entries for ``.alm`` models (Alithia ALM1; ALOD by magic) and their
drag and drop. Thin: options in, import or export function, report out."""

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..file_operators import (
    FileListImport,
    ViewportDrop,
    export_reported,
    import_each,
    leave_edit_modes,
    menu_registration,
)
from ..progress import reports_progress
from .exporter import AlmExportOptions, export_alm
from .importer import AlmImportOptions, import_alm_file


class IMPORT_SCENE_OT_alm(bpy.types.Operator, FileListImport):
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

    @reports_progress
    def execute(self, context):
        leave_edit_modes(context)
        options = AlmImportOptions(set_scene_frame_rate=self.set_frame_rate)
        return import_each(self, self.paths(),
                           lambda path, _: import_alm_file(context, path, options))


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
    write_texture: BoolProperty(
        name="Write <name>.bmp", default=True,
        description="Write the image the mesh's material shows as <name>.bmp beside the model "
                    "(the engine refuses a model without it)")

    def execute(self, context):
        leave_edit_modes(context)
        options = AlmExportOptions(frames=self.frames, write_texture=self.write_texture)
        return export_reported(self, context,
                               lambda: export_alm(context, self.filepath, options))


class ALAMO_FH_alm(ViewportDrop, bpy.types.FileHandler):
    bl_idname = "ALAMO_FH_alm"
    bl_label = "ALM Model"
    bl_import_operator = "import_scene.alm"
    bl_file_extensions = ".alm"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_alm.bl_idname, text="Alithia / ALOD Model (.alm)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_alm.bl_idname, text="Alithia Model (.alm)")


CLASSES = (IMPORT_SCENE_OT_alm, EXPORT_SCENE_OT_alm, ALAMO_FH_alm)

register, unregister = menu_registration(CLASSES, menu_import, menu_export)
