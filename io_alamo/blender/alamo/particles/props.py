"""The properties a particle system's objects carry: ``obj.alamo_particle_system`` on the
system's parent object and ``obj.alamo_emitter`` on each emitter's object, with the
specification's fields in snake_case (``lifetime``, ``num_particles_per_second``,
``gravity``, ...). ``obj.alamo_emitter.index`` is the emitter's index in the file, -1 on
objects that are not emitters."""

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       FloatVectorProperty, IntProperty, PointerProperty, StringProperty)

from ....formats.alamo.particles.records import (BLEND_MODES, EMIT_MODES, GROUND_INTERACTIONS,
                                                 GROUP_NAMES, GROUP_TYPES, INTERPOLATIONS,
                                                 PROPERTY_FIELDS, TRACK_NAMES)

# byte fields that are flags (shown as check boxes); the other bytes stay integers
FLAGS = {"in_bursts", "link_to_system", "rotation_direction", "randomized_is_grayscale",
         "is_not_billboarded", "affected_by_wind", "object_space_acceleration",
         "is_heat_particle", "is_weather_particle", "has_tail", "use_emitter_speed_mult",
         "wind_disturbance", "no_depth_test", "fixed_rotation"}
ENUMS = {"blend_mode": BLEND_MODES, "ground_interaction": GROUND_INTERACTIONS,
         "emit_mode": EMIT_MODES}
U32_MAX = 0xFFFFFFFF


def to_signed(value: int) -> int:
    return value - 2**32 if value >= 2**31 else value


def to_unsigned(value: int) -> int:
    return value & U32_MAX


# called with the emitter's object whenever one of its fields changes: the particle preview
# (issue 34) puts itself here, so an edit (in the panel or from a script) shows at once
EDIT_HOOKS = []


def emitter_edited(self, context):
    for hook in EDIT_HOOKS:
        hook(self.id_data)


def _items(names):
    return [(n.upper(), n.replace("_", " ").title(), "", i) for i, n in enumerate(names)]


def _property(name, codec, default):
    label = name.replace("_", " ").title()
    if name in FLAGS:
        return BoolProperty(name=label, default=bool(default), update=emitter_edited)
    if codec in ("u8", "u32"):
        # Blender ints are signed 32-bit: a uint32 of 2**31 or more shows as its two's
        # complement (0xFFFFFFFF, "no limit" in num_bursts, as -1)
        return IntProperty(name=label, default=to_signed(int(default)), update=emitter_edited)
    if codec == "f32":
        return FloatProperty(name=label, default=float(default), update=emitter_edited)
    return FloatVectorProperty(name=label, size=3 if codec == "f32x3" else 4,
                               default=tuple(default), update=emitter_edited)


class AlamoParticleKey(bpy.types.PropertyGroup):
    time: FloatProperty(name="Time", min=0.0, max=1.0, update=emitter_edited)
    value: FloatProperty(name="Value", update=emitter_edited)


class AlamoParticleTrack(bpy.types.PropertyGroup):
    first_key: FloatProperty(name="Start", description="The value at the particle's birth",
                             update=emitter_edited)
    last_key: FloatProperty(name="End", description="The value at the particle's death",
                            update=emitter_edited)
    interpolation: EnumProperty(name="Interpolation", items=_items(INTERPOLATIONS),
                                update=emitter_edited)
    keys: CollectionProperty(type=AlamoParticleKey)


class AlamoParticleGroup(bpy.types.PropertyGroup):
    type: EnumProperty(name="Shape", items=_items(GROUP_TYPES), update=emitter_edited)
    min: FloatVectorProperty(name="Min", size=3, update=emitter_edited)
    max: FloatVectorProperty(name="Max", size=3, update=emitter_edited)
    side_length: FloatProperty(name="Side Length", update=emitter_edited)
    sphere_radius: FloatProperty(name="Sphere Radius", update=emitter_edited)
    sphere_surface: BoolProperty(name="Sphere Surface Only", update=emitter_edited)
    cylinder_radius: FloatProperty(name="Cylinder Radius", update=emitter_edited)
    cylinder_surface: BoolProperty(name="Cylinder Surface Only", update=emitter_edited)
    cylinder_height: FloatProperty(name="Cylinder Height", update=emitter_edited)
    val: FloatVectorProperty(name="Value", size=3, update=emitter_edited)


def _emitter_annotations():
    notes = {
        "index": IntProperty(name="Index", default=-1, min=-1,
                             description="The emitter's index in the file; -1: not an emitter"),
        "texture": StringProperty(name="Texture", default="p_particle_master.tga",
                                  update=emitter_edited),
        "secondary_texture": StringProperty(name="Secondary Texture",
                                            default="p_particle_depth_master.tga"),
        "death": IntProperty(name="On Death", default=-1, min=-1,
                             description="Emitter spawned where each particle dies; -1 none",
                             update=emitter_edited),
        "birth": IntProperty(name="During Life", default=-1, min=-1,
                             description="Emitter spawned with each particle and moving with "
                                         "it; -1 none", update=emitter_edited),
        "image": PointerProperty(name="Image", type=bpy.types.Image,
                                 description="The texture's image, found like model textures",
                                 update=emitter_edited),
        "tracks": CollectionProperty(type=AlamoParticleTrack),
        "groups": CollectionProperty(type=AlamoParticleGroup),
    }
    for _, name, codec, default in PROPERTY_FIELDS:
        if name == "index":
            continue
        if name in ENUMS:
            notes[name] = EnumProperty(name=name.replace("_", " ").title(),
                                       items=_items(ENUMS[name]),
                                       default=ENUMS[name][default].upper(),
                                       update=emitter_edited)
        else:
            notes[name] = _property(name, codec, default)
    return notes


AlamoEmitterProps = type("AlamoEmitterProps", (bpy.types.PropertyGroup,),
                         {"__annotations__": _emitter_annotations(),
                          "__doc__": "An emitter's fields (the specification's names)."})


class AlamoParticleSystemProps(bpy.types.PropertyGroup):
    is_system: BoolProperty(name="Particle System", default=False)
    system_name: StringProperty(name="Name", description="Must match the file name")
    id: IntProperty(name="Editor ID", min=0)
    persist: BoolProperty(name="Persist", default=True,
                          description="Particles finish their lives after the system is gone")


CLASSES = (AlamoParticleKey, AlamoParticleTrack, AlamoParticleGroup, AlamoEmitterProps,
           AlamoParticleSystemProps)
TRACKS = TRACK_NAMES
GROUPS = GROUP_NAMES


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Object.alamo_emitter = PointerProperty(type=AlamoEmitterProps)
    bpy.types.Object.alamo_particle_system = PointerProperty(type=AlamoParticleSystemProps)


def unregister():
    del bpy.types.Object.alamo_particle_system
    del bpy.types.Object.alamo_emitter
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
