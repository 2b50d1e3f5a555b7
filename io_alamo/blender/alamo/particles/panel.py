"""The Alamo Particle panel (Object properties): the system's fields on its parent object,
an emitter's fields on each emitter object, grouped as the particle editors group them."""

import bpy

from ....formats.alamo.particles.records import PROPERTY_FIELDS
from .keys import UAW_KEY
from .placement import placement_problem
from .props import GROUPS
from .track_panel import draw_tracks

SECTIONS = (
    ("Emission", ("in_bursts", "num_particles_per_second", "num_particles_per_burst",
                  "num_bursts", "burst_delay", "initial_delay", "emit_mode", "emit_offset",
                  "link_to_system", "use_emitter_speed_mult", "emitter_speed_mult")),
    ("Life", ("lifetime", "randomized_lifetime", "freeze_time", "skip_time")),
    ("Motion", ("inward_speed", "acceleration", "object_space_acceleration",
                "outward_acceleration", "gravity", "ground_interaction", "bounciness",
                "affected_by_wind", "wind_disturbance")),
    ("Look", ("blend_mode", "primitive_type", "num_texture_elements", "randomized_scale",
              "randomized_rotation", "rotation_direction", "fixed_rotation",
              "randomized_color", "randomized_is_grayscale", "is_not_billboarded",
              "has_tail", "tail_size", "no_depth_test", "is_heat_particle")),
    ("Weather", ("is_weather_particle", "weather_cube_size", "weather_cube_distance")),
)
SHOWN = {n for _, names in SECTIONS for n in names}
OTHER = tuple(n for _, n, _, _ in PROPERTY_FIELDS if n not in SHOWN and n != "index")


class OBJECT_PT_alamo_particle(bpy.types.Panel):
    bl_label = "Alamo Particle"
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "object"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and (obj.alamo_particle_system.is_system or (
            obj.alamo_emitter.index >= 0 and not obj.alamo_uaw.is_uaw))   # UaW: particles_uaw

    def draw(self, context):
        layout = self.layout
        obj = context.object
        if obj.alamo_particle_system.is_system:
            ps = obj.alamo_particle_system
            col = layout.column()
            if obj.get(UAW_KEY):        # written back as read: nothing here can be edited
                col.label(text="Universe at War effect: written back as it was read",
                          icon="LOCKED")
                col.enabled = False
            col.prop(ps, "system_name")
            col.prop(ps, "persist")
            col.prop(ps, "id")
            if not obj.get(UAW_KEY):
                layout.operator("alamo.add_particle_emitter", icon="PARTICLES")
                layout.operator("alamo.scale_effect", icon="FULLSCREEN_ENTER")
            return
        p = obj.alamo_emitter
        col = layout.column()
        problem = placement_problem(obj)
        if problem:                     # the export will refuse it: said where it is made
            layout.label(text=problem, icon="ERROR")
        col.prop(p, "name")
        col.prop(p, "index")
        col.prop(p, "texture")
        col.prop(p, "image")
        col.prop(p, "secondary_texture")
        col.prop(p, "birth_emitter")
        col.prop(p, "death_emitter")
        for title, names in SECTIONS + (("Unnamed in the spec", OTHER),):
            box = layout.box()
            box.label(text=title)
            for n in names:
                box.prop(p, n)
        for name, g in zip(GROUPS, p.groups):
            box = layout.box()
            box.label(text=f"{name.title()} group")
            box.prop(g, "type")
            kind = g.type
            fields = {"EXACT": ("val",), "BOX": ("min", "max"), "CUBE": ("side_length",),
                      "SPHERE": ("sphere_radius", "sphere_surface"),
                      "CYLINDER": ("cylinder_radius", "cylinder_height", "cylinder_surface")}
            for f in fields.get(kind, ()):
                box.prop(g, f)
            if name == "position":
                box.operator("alamo.redraw_particle_shapes", icon="FILE_REFRESH")
        draw_tracks(layout, p)

def register():
    bpy.utils.register_class(OBJECT_PT_alamo_particle)


def unregister():
    bpy.utils.unregister_class(OBJECT_PT_alamo_particle)
