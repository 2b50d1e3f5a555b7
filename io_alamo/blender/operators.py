"""File > Import entries and drag and drop. Thin: options in, import function, report out."""

import os

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..choices import AS_IMPORTED_FORMAT_ITEMS, SCOPE_ITEMS
from ..formats import AlamoFormatError
from .armature import AnimationTargetError, find_armature
from .exp.ala import AnimationExportOptions, export_ala
from .exp.alo import ExportError, ExportOptions, export_alo
from .imp.ala import AnimationImportOptions, import_ala
from .imp.alo import ImportOptions, import_alo
from .prefs import default_ala_format, user_texture_folders
from .progress import advance, expect, reports_progress

class _FileListImport(ImportHelper):
    """Several files at once (multi-selection, or a drop of several files), and drops that
    import at once instead of opening the file browser."""

    files: CollectionProperty(type=bpy.types.OperatorFileListElement,
                              options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})

    def paths(self):
        if self.files and self.directory:
            return [os.path.join(self.directory, f.name) for f in self.files if f.name]
        return [self.filepath]

    def invoke(self, context, event):
        if self.files or (self.filepath and os.path.isfile(self.filepath)):
            return self.execute(context)          # drag and drop: import right away
        return ImportHelper.invoke(self, context, event)


class IMPORT_SCENE_OT_alo(bpy.types.Operator, _FileListImport):
    """Import Petroglyph Alamo models (.alo): skeleton, meshes, materials, lights, proxies
    and dazzles"""

    bl_idname = "import_scene.alo"
    bl_label = "Import Alamo Model"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".alo"
    filter_glob: StringProperty(default="*.alo", options={"HIDDEN"})

    merge_vertices: BoolProperty(
        name="Merge Vertices",
        description="Merge vertices that share a position (and skinning) for easier editing. "
                    "Off keeps the file's vertices one to one, which exports back unchanged",
        default=False)
    import_animations: BoolProperty(
        name="Import Animations",
        description="Also import the model's animations found beside it (<MODEL>_*.ala)",
        default=True)

    @reports_progress
    def execute(self, context):
        options = ImportOptions(merge_vertices=self.merge_vertices,
                                texture_folders=user_texture_folders(context),
                                import_animations=self.import_animations)
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        done = 0
        expect(len(self.paths()))
        for path in self.paths():
            advance()
            try:
                result = import_alo(context, path, options)
            except AlamoFormatError as e:
                self.report({"ERROR"}, str(e))
                continue
            except OSError as e:
                self.report({"ERROR"}, f"{path}: {e}")
                continue
            done += 1
            for w in result.warnings:
                self.report({"WARNING"}, f"{os.path.basename(path)}: {w}")
            self.report({"INFO"}, f"{os.path.basename(path)}: {result.summary()}")
            for line in result.left_notes():
                self.report({"INFO"}, f"{os.path.basename(path)}: {line}")
        return {"FINISHED"} if done else {"CANCELLED"}


class IMPORT_ANIM_OT_ala(bpy.types.Operator, _FileListImport):
    """Import Petroglyph Alamo animations (.ala, both formats) as actions of the selected
    armature"""

    bl_idname = "import_anim.alamo_ala"
    bl_label = "Import Alamo Animation"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".ala"
    filter_glob: StringProperty(default="*.ala", options={"HIDDEN"})

    set_frame_rate: BoolProperty(
        name="Set Scene Frame Rate",
        description="Set the scene's frame rate and range from the (first) animation",
        default=True)

    @reports_progress
    def execute(self, context):
        try:
            armature = find_armature(context, required=True)
        except AnimationTargetError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        if context.object is not None and context.object.mode not in ("OBJECT", "POSE"):
            bpy.ops.object.mode_set(mode="OBJECT")
        done = 0
        expect(len(self.paths()))
        for path in self.paths():
            advance()
            options = AnimationImportOptions(set_scene_frame_rate=self.set_frame_rate and not done,
                                             set_scene_range=not done)
            try:
                result = import_ala(context, armature, path, options)
            except (AlamoFormatError, OSError) as e:
                self.report({"ERROR"}, str(e))
                continue
            done += 1
            for w in result.warnings:
                self.report({"WARNING"}, f"{os.path.basename(path)}: {w}")
            self.report({"INFO"}, f"{os.path.basename(path)}: {result.summary()}")
        return {"FINISHED"} if done else {"CANCELLED"}


class EXPORT_SCENE_OT_alo(bpy.types.Operator, ExportHelper):
    """Export the armature and what hangs on it as a Petroglyph Alamo model (.alo)"""

    bl_idname = "export_scene.alo"
    bl_label = "Export Alamo Model"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".alo"
    filter_glob: StringProperty(default="*.alo", options={"HIDDEN"})

    scope: EnumProperty(
        name="Export", default="ARMATURE",
        items=SCOPE_ITEMS)
    apply_modifiers: BoolProperty(
        name="Apply Modifiers", default=True,
        description="Write meshes with their modifiers applied (Armature modifiers excepted)")
    own_bones: BoolProperty(
        name="Bones for Loose Objects", default=False,
        description="Give objects that hang on no bone a bone of their own, so they can be "
                    "animated; off bakes their transform into the root")
    animations: BoolProperty(
        name="Export Animations", default=False,
        description="Also write every action of the armature as <MODEL>_<ACTION>.ala beside "
                    "the model")
    ala_format: EnumProperty(name="Animation Format", default="0", items=AS_IMPORTED_FORMAT_ITEMS)

    @reports_progress
    def execute(self, context):
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        options = ExportOptions(scope=self.scope, apply_modifiers=self.apply_modifiers,
                                own_bones=self.own_bones, animations=self.animations,
                                ala_format=int(self.ala_format) or None,
                                new_ala_format=int(default_ala_format(context)))
        try:
            result = export_alo(context, self.filepath, options)
        except ExportError as e:
            for o in context.view_layer.objects:
                o.select_set(o in e.objects)
            for p in e.problems:
                self.report({"ERROR"}, p)
            return {"CANCELLED"}
        except (AlamoFormatError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for w in result.warnings:
            self.report({"WARNING"}, w)
        c = result.counts
        self.report({"INFO"}, f"{os.path.basename(self.filepath)}: {c['bones']} bones, "
                              f"{c['meshes']} meshes, {c['lights']} lights, {c['proxies']} "
                              f"proxies, {c['dazzles']} dazzles"
                              + (f", {len(result.animations)} animations"
                                 if self.animations else ""))
        return {"FINISHED"}



class EXPORT_ANIM_OT_ala(bpy.types.Operator, ExportHelper):
    """Export the active action of the selected armature as a Petroglyph Alamo animation
    (.ala)"""

    bl_idname = "export_anim.alamo_ala"
    bl_label = "Export Alamo Animation"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".ala"
    filter_glob: StringProperty(default="*.ala", options={"HIDDEN"})

    format: EnumProperty(name="Format", default="0", items=AS_IMPORTED_FORMAT_ITEMS)
    frame_range: EnumProperty(
        name="Frame Range", default="ACTION",
        items=[("ACTION", "Action", "The action's frame range"),
               ("SCENE", "Scene", "The scene's frame range")])
    frame_rate: EnumProperty(
        name="Frame Rate", default="ACTION",
        items=[("ACTION", "Action", "The rate the animation was imported with (else the "
                "scene's)"),
               ("SCENE", "Scene", "The scene's frame rate")])

    @classmethod
    def poll(cls, context):
        try:
            arm = find_armature(context, required=True)
        except AnimationTargetError:
            return False
        return arm.animation_data is not None and arm.animation_data.action is not None

    def invoke(self, context, event):
        arm = find_armature(context, required=True)
        if not self.filepath and arm.animation_data and arm.animation_data.action:
            self.filepath = arm.animation_data.action.name + self.filename_ext
        return super().invoke(context, event)

    @reports_progress
    def execute(self, context):
        try:
            arm = find_armature(context, required=True)
        except AnimationTargetError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        action = arm.animation_data.action if arm.animation_data else None
        if action is None:
            self.report({"ERROR"}, f"armature {arm.name!r} has no active action to export")
            return {"CANCELLED"}
        if context.object is not None and context.object.mode not in ("OBJECT", "POSE"):
            bpy.ops.object.mode_set(mode="OBJECT")
        options = AnimationExportOptions(format=int(self.format) or None,
                                         new_format=int(default_ala_format(context)),
                                         frame_range=self.frame_range,
                                         frame_rate=self.frame_rate)
        try:
            result = export_ala(context, arm, action, self.filepath, options)
        except ExportError as e:
            for p in e.problems:
                self.report({"ERROR"}, p)
            return {"CANCELLED"}
        except (AlamoFormatError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for w in result.warnings:
            self.report({"WARNING"}, w)
        self.report({"INFO"}, f"{os.path.basename(self.filepath)}: {result.summary()}")
        return {"FINISHED"}


class ALAMO_FH_alo(bpy.types.FileHandler):
    bl_idname = "ALAMO_FH_alo"
    bl_label = "Alamo Model"
    bl_import_operator = "import_scene.alo"
    bl_file_extensions = ".alo"

    @classmethod
    def poll_drop(cls, context):
        return context.area is not None and context.area.type == "VIEW_3D"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_alo.bl_idname, text="Alamo Model (.alo)")
    self.layout.operator(IMPORT_ANIM_OT_ala.bl_idname, text="Alamo Animation (.ala)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_alo.bl_idname, text="Alamo Model (.alo)")
    self.layout.operator(EXPORT_ANIM_OT_ala.bl_idname, text="Alamo Animation (.ala)")


CLASSES = (IMPORT_SCENE_OT_alo, IMPORT_ANIM_OT_ala, EXPORT_SCENE_OT_alo, EXPORT_ANIM_OT_ala,
           ALAMO_FH_alo)


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
