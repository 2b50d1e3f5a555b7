"""Adding proxies, dazzles and lights at a bone: operators and the Add menu entries."""

import bpy
from bpy.props import StringProperty

from ..add import add_at_bone
from ...tool_targets import set_mode, target_bone
from .shared import register_factory


class _AddAtBone:
    bl_options = {"REGISTER", "UNDO"}
    role = ""

    bone: StringProperty(name="Bone", options={"HIDDEN", "SKIP_SAVE"},
                         description="Bone to attach to (default: the active bone)")

    @classmethod
    def poll(cls, context):
        if target_bone(context)[0] is None:
            cls.poll_message_set("Select an armature's bone (or an object on a bone) first")
            return False
        return True

    def execute(self, context):
        arm, bone = target_bone(context)
        bone = self.bone or bone
        if arm.mode == "EDIT":                 # bones made in Edit Mode exist after leaving it
            set_mode(context, arm, "OBJECT")
        if bone not in arm.data.bones:
            self.report({"ERROR"}, f"armature {arm.name!r} has no bone {bone!r}")
            return {"CANCELLED"}
        obj = add_at_bone(context, arm, bone, self.role, self.name)
        if context.mode == "OBJECT":
            for o in context.selected_objects:
                o.select_set(False)
            context.view_layer.objects.active = obj
        obj.select_set(True)
        self.report({"INFO"}, f"{self.role.title()} {obj.name!r} added at bone {bone!r}")
        return {"FINISHED"}


class ALAMO_OT_add_proxy(bpy.types.Operator, _AddAtBone):
    """Add a proxy at the active bone: the game loads the model or particle effect it names
    there"""
    bl_idname = "alamo.add_proxy"
    bl_label = "Alamo Proxy"
    role = "PROXY"

    name: StringProperty(name="Name", default="p_proxy",
                         description="File name (without .alo) of the model or particle effect "
                                     "to load; add _ALT<n> to show it only at damage level n")


class ALAMO_OT_add_dazzle(bpy.types.Operator, _AddAtBone):
    """Add a dazzle at the active bone: a blinking sprite that always faces the camera"""
    bl_idname = "alamo.add_dazzle"
    bl_label = "Alamo Dazzle"
    role = "DAZZLE"

    name: StringProperty(name="Name", default="Dazzle",
                         description="Name of the dazzle (starting with FC_ gives it the "
                                     "owner's faction colour)")


class ALAMO_OT_add_light(bpy.types.Operator, _AddAtBone):
    """Add a light at the active bone"""
    bl_idname = "alamo.add_light"
    bl_label = "Alamo Light"
    role = "LIGHT"

    name: StringProperty(name="Name", default="Light", description="Name of the light")


def draw_add_buttons(layout, short=False):
    """The three add operators as buttons (``short``: labelled Proxy, Dazzle, Light)."""
    for op, icon in ((ALAMO_OT_add_proxy, "EMPTY_ARROWS"), (ALAMO_OT_add_dazzle, "LIGHT_SUN"),
                     (ALAMO_OT_add_light, "LIGHT_POINT")):
        if short:
            layout.operator(op.bl_idname, text=op.role.title(), icon=icon)
        else:
            layout.operator(op.bl_idname, icon=icon)


class VIEW3D_MT_alamo_add(bpy.types.Menu):
    bl_idname = "VIEW3D_MT_alamo_add"
    bl_label = "Alamo"

    def draw(self, context):
        draw_add_buttons(self.layout)
        self.layout.operator("alamo.add_particle_emitter", icon="PARTICLES")   # issue 33


def menu_add(self, context):
    self.layout.menu(VIEW3D_MT_alamo_add.bl_idname, icon="EMPTY_ARROWS")


CLASSES = (ALAMO_OT_add_proxy, ALAMO_OT_add_dazzle, ALAMO_OT_add_light, VIEW3D_MT_alamo_add)
_register, _unregister = register_factory(CLASSES)


def register():
    _register()
    bpy.types.VIEW3D_MT_add.append(menu_add)


def unregister():
    bpy.types.VIEW3D_MT_add.remove(menu_add)
    _unregister()
