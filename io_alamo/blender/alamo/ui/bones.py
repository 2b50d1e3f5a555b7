"""The bone panel: a bone's Alamo settings, keying its visibility, adding proxies, dazzles
and lights at it."""

import bpy
from bpy.props import EnumProperty, StringProperty

from ..visibility import key_visibility
from ...tool_targets import active_bone, target_bone
from .add import draw_add_buttons
from .shared import SidebarPanel, register_factory


class ALAMO_OT_key_visibility(bpy.types.Operator):
    """Key the visibility of the bone (and so of the meshes, proxies and dazzles on it) at the
    current frame"""
    bl_idname = "alamo.key_visibility"
    bl_label = "Key Visibility"
    bl_options = {"REGISTER", "UNDO"}

    state: EnumProperty(name="Visibility", default="CURRENT", options={"SKIP_SAVE"}, items=[
        ("CURRENT", "As Is", "Key the visibility the bone has now"),
        ("SHOW", "Shown", "Show the bone from this frame on"),
        ("HIDE", "Hidden", "Hide the bone from this frame on")])
    armature: StringProperty(name="Armature", options={"HIDDEN", "SKIP_SAVE"},
                             description="Armature object (default: the active bone's)")
    bone: StringProperty(name="Bone", options={"HIDDEN", "SKIP_SAVE"},
                         description="Bone to key (default: the active bone, or the bone the "
                                     "active object hangs on)")

    @classmethod
    def poll(cls, context):
        arm, _ = target_bone(context)
        if arm is None:
            cls.poll_message_set("Select a bone, or an object on a bone")
            return False
        if arm.mode == "EDIT":
            cls.poll_message_set("Leave Edit Mode to key visibility")
            return False
        return True

    def execute(self, context):
        arm, bone = target_bone(context)
        if self.armature:
            arm = bpy.data.objects.get(self.armature)
        bone = self.bone or bone
        if arm is None or arm.type != "ARMATURE" or bone not in arm.pose.bones:
            self.report({"ERROR"}, f"no bone {bone!r} to key")
            return {"CANCELLED"}
        visible = {"CURRENT": None, "SHOW": True, "HIDE": False}[self.state]
        frame = context.scene.frame_current
        key_visibility(arm, bone, frame, visible)
        shown = arm.pose.bones[bone].alamo.visible
        self.report({"INFO"}, f"bone {bone!r} {'shown' if shown else 'hidden'} from frame "
                              f"{frame}")
        return {"FINISHED"}


def draw_visibility_keys(layout, arm, bone):
    """The bone's current visibility and buttons keying it shown or hidden."""
    pb = arm.pose.bones.get(bone)
    if pb is None:
        return
    box = layout.box()
    box.label(text=f"Visibility of bone {bone}", icon="HIDE_OFF")
    box.prop(pb.alamo, "visible", text="Visible Now")
    row = box.row(align=True)
    for state, text, icon in (("SHOW", "Key Shown", "HIDE_OFF"),
                              ("HIDE", "Key Hidden", "HIDE_ON")):
        op = row.operator(ALAMO_OT_key_visibility.bl_idname, text=text, icon=icon)
        op.state = state
        op.armature = arm.name
        op.bone = bone


class VIEW3D_PT_alamo_bone(SidebarPanel, bpy.types.Panel):
    bl_label = "Alamo Bone"
    bl_order = 1

    @classmethod
    def poll(cls, context):
        return active_bone(context)[0] is not None

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        arm, name = active_bone(context)
        bone = arm.data.bones.get(name)
        if arm.mode == "EDIT" or bone is None:
            # Edit Mode works on copies of the bones: changes made here now would be lost
            layout.label(text="Leave Edit Mode to edit the bone's Alamo settings", icon="INFO")
        else:
            if bone.alamo.name and bone.alamo.name != bone.name:
                layout.label(text=f"In the file: {bone.alamo.name}", icon="FILE")
            layout.prop(bone.alamo, "visible", text="Visible at Rest")
            layout.prop(bone.alamo, "billboard")
            draw_visibility_keys(layout, arm, name)
        col = layout.column(align=True)
        col.label(text="Add at This Bone")
        draw_add_buttons(col.row(align=True), short=True)


CLASSES = (ALAMO_OT_key_visibility, VIEW3D_PT_alamo_bone)
register, unregister = register_factory(CLASSES)
