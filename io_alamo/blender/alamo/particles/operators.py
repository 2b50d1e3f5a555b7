"""Particle operators and their registration: Add > Alamo > Particle Emitter (a new emitter
under the selected particle system, or a new system with its first emitter), and the
Alamo Particle panel. Registers the particle properties first (see ``props``)."""

import bpy
from bpy.props import FloatProperty, StringProperty

from ....formats.alamo.particles import Emitter
from ..particle_preview import handlers as preview_handlers
from . import panel, props, track_ops, track_widgets
from .convert import emitter_to_props
from ....formats.alamo.particles.scale import (SCALED_GROUP_FIELDS, SCALED_GROUPS,
                                               SCALED_SCALARS, SCALED_TRACK, SCALED_VECTORS)
from .exporter import emitter_objects, system_object
from .keys import UAW_KEY
from .shapes import redraw_shape, shape_mesh
from .sync import mark_in_step, sync_scene

# the particle master sheet: 931 of 939 real emitters on it use its 64 cells (8 x 8)
SPRITE_SHEET, SPRITE_SHEET_CELLS = "p_particle_master.tga", 64


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
    if e.texture.lower() == SPRITE_SHEET:
        e.num_texture_elements = SPRITE_SHEET_CELLS
    e.sync_lifetime_group()
    obj = bpy.data.objects.new(name, shape_mesh(name, e.position_group))
    obj.parent = system_obj
    obj.display_type = "WIRE"
    obj.hide_render = True
    for coll in system_obj.users_collection[:1] or [context.collection]:
        coll.objects.link(obj)
    emitter_to_props(e, obj.alamo_emitter, index)
    mark_in_step(obj)
    return obj


class ALAMO_OT_add_particle_emitter(bpy.types.Operator):
    """Add a particle emitter to the selected particle effect, or a new particle effect with
    one emitter"""

    bl_idname = "alamo.add_particle_emitter"
    bl_label = "Particle Emitter"
    bl_options = {"REGISTER", "UNDO"}

    name: StringProperty(name="Name", default="emitter")

    @classmethod
    def poll(cls, context):
        system = system_object(context)
        if system is not None and system.get(UAW_KEY):
            cls.poll_message_set(f"{system.name!r} is a Universe at War effect: io_alamo "
                                 "writes it back as it was read and cannot add emitters to it")
            return False
        return True

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


def scale_emitter_props(p, factor):
    """Scale an emitter's fields (``obj.alamo_emitter``) as ``scale.scale_emitter`` scales a
    record: sizes, speeds, accelerations, tails, the velocity and position groups."""
    for name in SCALED_SCALARS:
        setattr(p, name, getattr(p, name) * factor)
    for name in SCALED_VECTORS:
        setattr(p, name, [v * factor for v in getattr(p, name)])
    for i in SCALED_GROUPS:
        g = p.groups[i]
        for name in SCALED_GROUP_FIELDS:
            vec, _, axis = name.rpartition("_")
            if vec in ("min", "max", "val"):
                values = list(getattr(g, vec))
                values["xyz".index(axis)] *= factor
                setattr(g, vec, values)
            else:
                setattr(g, name, getattr(g, name) * factor)
    for t in p.tracks:
        if t.name == SCALED_TRACK:
            t.first_key *= factor
            t.last_key *= factor
            for k in t.keys:
                k.value *= factor


class ALAMO_OT_scale_effect(bpy.types.Operator):
    """Scale the selected particle effect: its particles' sizes, speeds, accelerations, tails
    and the velocity and position groups of every emitter, in one step"""

    bl_idname = "alamo.scale_effect"
    bl_label = "Scale Effect"
    bl_options = {"REGISTER", "UNDO"}

    factor: FloatProperty(name="Factor", default=2.0, min=1e-4, max=1e4)

    @classmethod
    def poll(cls, context):
        system = system_object(context)
        if system is None:
            cls.poll_message_set("select a particle effect (or one of its emitters)")
            return False
        if system.get(UAW_KEY):
            cls.poll_message_set(f"{system.name!r} is a Universe at War effect: io_alamo "
                                 "writes it back as it was read and cannot scale it")
            return False
        return True

    def execute(self, context):
        system = system_object(context)
        emitters = emitter_objects(system)
        for obj in emitters:
            scale_emitter_props(obj.alamo_emitter, self.factor)
            obj.location = [v * self.factor for v in obj.location]   # moves scale too
            redraw_shape(obj)
        self.report({"INFO"}, f"{system.name}: {len(emitters)} emitters scaled by "
                              f"{self.factor:g}")
        return {"FINISHED"}


CLASSES = (ALAMO_OT_add_particle_emitter, ALAMO_OT_redraw_particle_shapes,
           ALAMO_OT_scale_effect) + track_ops.CLASSES


def register():
    props.register()
    for c in CLASSES:
        bpy.utils.register_class(c)
    panel.register()        # the Add > Alamo menu (ui/add.py) draws the operator
    preview_handlers.register()     # the live preview follows these properties' edits
    preview_handlers.watch(track_widgets.WATCHED)   # and the tracks' ramps and curves
    if sync_scene not in preview_handlers.BEFORE_REFRESH:
        preview_handlers.BEFORE_REFRESH.append(sync_scene)


def unregister():
    while sync_scene in preview_handlers.BEFORE_REFRESH:
        preview_handlers.BEFORE_REFRESH.remove(sync_scene)
    preview_handlers.unwatch(track_widgets.WATCHED)
    preview_handlers.unregister()
    panel.unregister()
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
    props.unregister()
