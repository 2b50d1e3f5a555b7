"""The sidebar entry for scenes made with the older ALAMO plugin: a short panel, shown only
when the scene holds such data, with the one-click conversion."""

import bpy

from ..legacy.convert import convert_scene, scene_has_plugin_data
from .shared import CATEGORY


class ALAMO_OT_convert_legacy_scene(bpy.types.Operator):
    """Write the ALAMO plugin's shaders, parameters, textures, flags, bone settings, proxies
    and animation end frames into io_alamo's own properties, so the Alamo panels can edit
    them (the plugin's data is left in place)"""

    bl_idname = "alamo.convert_legacy_scene"
    bl_label = "Convert Scene from the ALAMO Plugin"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return context.scene is not None and scene_has_plugin_data(context.scene)

    def execute(self, context):
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        report = convert_scene(context)
        for text in report.problems:
            self.report({"WARNING"}, text)
        self.report({"INFO"}, report.summary())
        return {"FINISHED"}


class VIEW3D_PT_alamo_legacy(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY
    bl_label = "Made with the ALAMO Plugin"
    bl_order = 5

    @classmethod
    def poll(cls, context):
        return context.scene is not None and scene_has_plugin_data(context.scene)

    def draw(self, context):
        col = self.layout.column(align=True)
        col.label(text="This scene has data of the older", icon="INFO")
        col.label(text="ALAMO plugin. Export reads it; to edit", icon="BLANK1")
        col.label(text="it in the Alamo panels, convert it:", icon="BLANK1")
        self.layout.operator(ALAMO_OT_convert_legacy_scene.bl_idname, icon="FILE_REFRESH")


CLASSES = (ALAMO_OT_convert_legacy_scene, VIEW3D_PT_alamo_legacy)

register, unregister = bpy.utils.register_classes_factory(CLASSES)
