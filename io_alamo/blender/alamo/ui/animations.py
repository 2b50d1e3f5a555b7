"""The animations panel: the armature's actions with their frame range and rate; clicking one
plays it, Bind Pose stops it."""

import bpy
from bpy.props import BoolProperty, IntProperty, StringProperty

from ..actions import set_active_action, show_bind_pose
from ..exporter.ala import armature_actions
from ...armature import find_armature
from ...source import has_source
from .shared import SidebarPanel, register_factory


def _action_clicked(wm, context):
    arm = find_armature(context)
    if arm is None or not 0 <= wm.alamo_action_index < len(bpy.data.actions):
        return
    action = bpy.data.actions[wm.alamo_action_index]
    active = arm.animation_data.action if arm.animation_data else None
    if action != active and action in armature_actions(arm):
        set_active_action(arm, action, context.scene)


class ALAMO_OT_set_action(bpy.types.Operator):
    """Make this the armature's active animation and play it over the scene's frame range"""
    bl_idname = "alamo.set_action"
    bl_label = "Set Active Animation"
    bl_options = {"REGISTER", "UNDO"}

    action: StringProperty(name="Action", options={"HIDDEN", "SKIP_SAVE"})
    armature: StringProperty(name="Armature", options={"HIDDEN", "SKIP_SAVE"},
                             description="Armature object (default: the selected one)")
    set_scene: BoolProperty(name="Set Scene Range", default=True,
                            description="Set the scene's frame range (and, for imported "
                                        "animations, frame rate) to the animation's")

    def execute(self, context):
        arm = bpy.data.objects.get(self.armature) if self.armature else find_armature(context)
        action = bpy.data.actions.get(self.action)
        if arm is None or arm.type != "ARMATURE" or action is None:
            self.report({"ERROR"}, "an armature and an action are needed")
            return {"CANCELLED"}
        set_active_action(arm, action, context.scene if self.set_scene else None)
        return {"FINISHED"}


class ALAMO_OT_bind_pose(bpy.types.Operator):
    """Stop the animation and show the model's bind pose (the pose its file is built in)"""
    bl_idname = "alamo.bind_pose"
    bl_label = "Bind Pose"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        arm = find_armature(context)
        if arm is None:
            self.report({"ERROR"}, "no armature")
            return {"CANCELLED"}
        show_bind_pose(arm)
        return {"FINISHED"}


class ALAMO_UL_actions(bpy.types.UIList):
    """The armature's animations with their frame range and rate; clicking one plays it."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0):
        arm = find_armature(context)
        active = arm is not None and arm.animation_data is not None and \
            arm.animation_data.action == item
        row = layout.row(align=True)
        row.label(text=item.name, icon="PLAY" if active else "ACTION")
        start, end = item.frame_range
        fps = item.alamo.fps if item.alamo.fps > 0 and has_source(item) \
            else context.scene.render.fps / context.scene.render.fps_base
        sub = row.row()
        sub.alignment = "RIGHT"
        sub.label(text=f"{int(round(start))}-{int(round(end))}  {fps:g} fps")

    def filter_items(self, context, data, propname):
        actions = getattr(data, propname)
        arm = find_armature(context)
        mine = {a.as_pointer() for a in armature_actions(arm)} if arm is not None else set()
        flags = [self.bitflag_filter_item if a.as_pointer() in mine else 0 for a in actions]
        if self.filter_name:
            by_name = bpy.types.UI_UL_list.filter_items_by_name(
                self.filter_name, self.bitflag_filter_item, actions, "name",
                reverse=self.use_filter_invert)
            flags = [f & n for f, n in zip(flags, by_name)] if by_name else flags
        order = bpy.types.UI_UL_list.sort_items_by_name(actions, "name") \
            if self.use_filter_sort_alpha else []
        return flags, order


class VIEW3D_PT_alamo_animation(SidebarPanel, bpy.types.Panel):
    bl_label = "Alamo Animations"
    bl_order = 3

    @classmethod
    def poll(cls, context):
        return find_armature(context) is not None

    def draw(self, context):
        layout = self.layout
        arm = find_armature(context)
        layout.label(text=arm.name, icon="ARMATURE_DATA")
        layout.template_list("ALAMO_UL_actions", "", bpy.data, "actions",
                             context.window_manager, "alamo_action_index", rows=4)
        row = layout.row(align=True)
        row.operator(ALAMO_OT_bind_pose.bl_idname, icon="ARMATURE_DATA")
        row.operator("export_anim.alamo_ala", text="Export Animation", icon="EXPORT")


# The session's position in the actions list (not saved with the file).
WINDOW_MANAGER_PROPERTIES = (
    ("alamo_action_index", IntProperty(default=-1, update=_action_clicked)),
)

CLASSES = (ALAMO_OT_set_action, ALAMO_OT_bind_pose, ALAMO_UL_actions, VIEW3D_PT_alamo_animation)
register, unregister = register_factory(CLASSES, window_manager=WINDOW_MANAGER_PROPERTIES)
