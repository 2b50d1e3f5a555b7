"""Particle operators and their registration: Add > Alamo > Particle Emitter (a new emitter
under the selected particle system, or a new system with its first emitter), and the
Alamo Particle panel. Registers the particle properties first (see ``props``)."""

import bpy
from bpy.props import StringProperty

from ....formats.alamo.particles import Emitter
from ..particle_preview import handlers as preview_handlers
from . import panel, props
from .convert import emitter_to_props
from .exporter import emitter_objects, system_object
from .shapes import redraw_shape, shape_mesh


def new_system(context, name="p_new_effect"):
    """A new, empty particle system object in the active collection."""
    obj = bpy.data.objects.new(name, None)
    obj.empty_display_type = "SPHERE"
    obj.empty_display_size = 0.5
    obj.alamo_particle_system.is_system = True
    obj.alamo_particle_system.system_name = name
    context.collection.objects.link(obj)
    obj.location = context.scene.cursor.location
    return obj


def new_emitter(context, system_obj, name="emitter"):
    """A new emitter object under ``system_obj``: the particle editors' defaults, the next
    index."""
    index = len(emitter_objects(system_obj))
    e = Emitter(name=name, index=index)
    e.sync_lifetime_group()
    obj = bpy.data.objects.new(name, shape_mesh(name, e.position_group))
    obj.parent = system_obj
    obj.display_type = "WIRE"
    obj.hide_render = True
    for coll in system_obj.users_collection[:1] or [context.collection]:
        coll.objects.link(obj)
    emitter_to_props(e, obj.alamo_emitter, index)
    return obj


class ALAMO_OT_add_particle_emitter(bpy.types.Operator):
    """Add a particle emitter to the selected particle effect, or a new particle effect with
    one emitter"""

    bl_idname = "alamo.add_particle_emitter"
    bl_label = "Particle Emitter"
    bl_options = {"REGISTER", "UNDO"}

    name: StringProperty(name="Name", default="emitter")

    def execute(self, context):
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        system = system_object(context) or new_system(context)
        obj = new_emitter(context, system, self.name)
        for o in context.view_layer.objects:
            o.select_set(False)
        obj.select_set(True)
        context.view_layer.objects.active = obj
        return {"FINISHED"}


class ALAMO_OT_redraw_particle_shapes(bpy.types.Operator):
    """Redraw the selected emitters' shapes from their position groups"""

    bl_idname = "alamo.redraw_particle_shapes"
    bl_label = "Redraw Shapes"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        done = sum(redraw_shape(o) for o in {*context.selected_objects, context.object}
                   if o is not None)
        self.report({"INFO"}, f"{done} emitter shapes redrawn")
        return {"FINISHED"}


CLASSES = (ALAMO_OT_add_particle_emitter, ALAMO_OT_redraw_particle_shapes)


def register():
    props.register()
    for c in CLASSES:
        bpy.utils.register_class(c)
    panel.register()        # the Add > Alamo menu (ui/add.py) draws the operator
    preview_handlers.register()     # the live preview follows these properties' edits


def unregister():
    preview_handlers.unregister()
    panel.unregister()
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
    props.unregister()
