"""The object panel: an object's Alamo role and settings, the bone it hangs on, the LOD and
ALT its name gives it, and the visibility keys of its bone."""

import bpy
from bpy.props import FloatProperty

from ....formats.alamo import naming
from ..scale import ScaleError, scale_model
from ...armature import find_armature
from ..exporter.common import object_export_name as export_name
from ...tool_targets import target_bone
from .bones import draw_visibility_keys
from .shared import SidebarPanel, register_factory, wrapped
from .textures import draw_texture_row


def _draw_bone_link(layout, obj):
    """The bone an object hangs on (what the file connects it to)."""
    parent = obj.parent
    if parent is not None and parent.type == "ARMATURE" and obj.parent_type == "BONE":
        layout.prop_search(obj, "parent_bone", parent.data, "bones", text="Bone")
    elif parent is not None and parent.type == "ARMATURE":
        layout.label(text="On the armature (root bone, or its skinning)", icon="BONE_DATA")
    else:
        layout.label(text="On no bone: exported at the root bone", icon="INFO")


def _draw_lod_alt(layout, obj):
    _, lod, alt = naming.lod_alt(export_name(obj))
    if lod is None and alt is None:
        layout.label(text="Shown at every LOD and ALT")
    else:
        parts = ([f"LOD {lod}"] if lod is not None else []) + \
            ([f"ALT {alt}"] if alt is not None else [])
        layout.label(text="Only at " + ", ".join(parts), icon="MOD_DECIM")


class ALAMO_OT_scale_model(bpy.types.Operator):
    """Scale the unit in place: its rest skeleton, every mesh, light, proxy and dazzle on
    it, and the location keys of every action of the armature (the object scale ends at 1)"""
    bl_idname = "alamo.scale_model"
    bl_label = "Scale Model"
    bl_options = {"REGISTER", "UNDO"}

    factor: FloatProperty(name="Factor", default=1.0, min=1e-4, soft_min=0.01, soft_max=10.0,
                          description="How many times bigger the unit becomes")

    @classmethod
    def poll(cls, context):
        if find_armature(context) is None:
            cls.poll_message_set("Select an armature, or an object on one")
            return False
        return context.mode == "OBJECT"

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        try:
            text = scale_model(context, find_armature(context), self.factor)
        except ScaleError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, text)
        return {"FINISHED"}


class VIEW3D_PT_alamo_object(SidebarPanel, bpy.types.Panel):
    bl_label = "Alamo Object"
    bl_order = 0

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type in ("MESH", "EMPTY", "LIGHT", "ARMATURE")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        obj = context.object
        p = obj.alamo
        layout.prop(p, "role")
        name = export_name(obj)
        if name != obj.name:
            layout.label(text=f"Exported as {name}", icon="FILE")
        role = p.role
        if role == "SKELETON" or obj.type == "ARMATURE":
            layout.label(text=f"Skeleton of {len(obj.data.bones)} bones", icon="ARMATURE_DATA")
            layout.operator(ALAMO_OT_scale_model.bl_idname, icon="FULLSCREEN_ENTER")
            return
        if obj.type == "EMPTY" and role not in ("PROXY", "DAZZLE"):
            wrapped(layout, context, "Set the role to Proxy or Dazzle to export this empty",
                    "INFO")
            return
        _draw_bone_link(layout, obj)
        if role == "PROXY":
            wrapped(layout, context, "The name is the model or particle effect the game "
                    "loads here (without .alo)", "INFO")
            layout.prop(p, "hidden")
            layout.prop(p, "alt_decrease_stay_hidden")
            _draw_lod_alt(layout, obj)
        elif role == "DAZZLE":
            self.draw_dazzle(context, obj)
        elif obj.type == "LIGHT":
            self.draw_light(obj)
        elif obj.type == "MESH":
            layout.prop(p, "hidden")
            layout.prop(p, "collision")
            _draw_lod_alt(layout, obj)
        arm, bone = target_bone(context)
        if arm is not None and arm.mode != "EDIT":
            draw_visibility_keys(layout, arm, bone)

    def draw_dazzle(self, context, obj):
        layout = self.layout
        p = obj.alamo
        layout.prop(p, "color")
        layout.prop(p, "radius")
        col = layout.column(heading="Texture")
        draw_texture_row(col, p, "texture", {"object": obj.name})
        col = layout.column(align=True)
        col.prop(p, "tex_size")
        col.prop(p, "tex_x")
        col.prop(p, "tex_y")
        col = layout.column(align=True)
        col.prop(p, "frequency")
        col.prop(p, "phase")
        col.prop(p, "bias")
        layout.prop(p, "night_only")
        layout.prop(p, "hidden")

    def draw_light(self, obj):
        layout = self.layout
        p = obj.alamo
        layout.prop(obj.data, "type")
        layout.prop(obj.data, "color")
        if p.role != "LIGHT":
            # export takes the intensity from the power and the cones from the spot shape
            layout.prop(obj.data, "energy")
            wrapped(layout, bpy.context, "Set the role to Light to enter the game's own "
                    "intensity and cone angles", "INFO")
        else:
            layout.prop(p, "intensity")
            if obj.data.type == "SPOT":
                col = layout.column(align=True)
                col.prop(p, "hotspot")
                col.prop(p, "falloff")
        col = layout.column(align=True)
        col.prop(p, "far_attenuation_start")
        col.prop(p, "far_attenuation_end")


def menu_transform(self, context):
    """Object > Transform > Scale Alamo Model (found by F3 search too)."""
    self.layout.operator(ALAMO_OT_scale_model.bl_idname, text="Scale Alamo Model")


CLASSES = (ALAMO_OT_scale_model, VIEW3D_PT_alamo_object)
_register, _unregister = register_factory(CLASSES)


def register():
    _register()
    bpy.types.VIEW3D_MT_transform_object.append(menu_transform)


def unregister():
    bpy.types.VIEW3D_MT_transform_object.remove(menu_transform)
    _unregister()
