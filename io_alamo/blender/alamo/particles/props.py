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
                                                 PROPERTY_FIELDS)

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


def _items(names):
    return [(n.upper(), n.replace("_", " ").title(), "", i) for i, n in enumerate(names)]


def _property(name, codec, default):
    label = name.replace("_", " ").title()
    if name in FLAGS:
        return BoolProperty(name=label, default=bool(default))
    if codec in ("u8", "u32"):
        # Blender ints are signed 32-bit: a uint32 of 2**31 or more shows as its two's
        # complement (0xFFFFFFFF, "no limit" in num_bursts, as -1)
        return IntProperty(name=label, default=to_signed(int(default)))
    if codec == "f32":
        return FloatProperty(name=label, default=float(default))
    return FloatVectorProperty(name=label, size=3 if codec == "f32x3" else 4,
                               default=tuple(default))


class AlamoParticleKey(bpy.types.PropertyGroup):
    time: FloatProperty(name="Time", min=0.0, max=1.0)
    value: FloatProperty(name="Value")


class AlamoParticleTrack(bpy.types.PropertyGroup):
    first_key: FloatProperty(name="Start", description="The value at the particle's birth")
    last_key: FloatProperty(name="End", description="The value at the particle's death")
    interpolation: EnumProperty(name="Interpolation", items=_items(INTERPOLATIONS))
    keys: CollectionProperty(type=AlamoParticleKey)


class AlamoParticleGroup(bpy.types.PropertyGroup):
    type: EnumProperty(name="Shape", items=_items(GROUP_TYPES))
    min: FloatVectorProperty(name="Min", size=3)
    max: FloatVectorProperty(name="Max", size=3)
    side_length: FloatProperty(name="Side Length")
    sphere_radius: FloatProperty(name="Sphere Radius")
    sphere_surface: BoolProperty(name="Sphere Surface Only")
    cylinder_radius: FloatProperty(name="Cylinder Radius")
    cylinder_surface: BoolProperty(name="Cylinder Surface Only")
    cylinder_height: FloatProperty(name="Cylinder Height")
    val: FloatVectorProperty(name="Value", size=3)


def _emitter_annotations():
    notes = {
        "index": IntProperty(name="Index", default=-1, min=-1,
                             description="The emitter's index in the file; -1: not an emitter"),
        "texture": StringProperty(name="Texture", default="p_particle_master.tga"),
        "secondary_texture": StringProperty(name="Secondary Texture",
                                            default="p_particle_depth_master.tga"),
        "death": IntProperty(name="On Death", default=-1, min=-1,
                             description="Emitter spawned where each particle dies; -1 none"),
        "birth": IntProperty(name="During Life", default=-1, min=-1,
                             description="Emitter spawned with each particle and moving with "
                                         "it; -1 none"),
        "birth_emitter": PointerProperty(
            name="During Life", type=bpy.types.Object,
            description="The emitter spawned with each particle and moving with it (follows "
                        "the emitter through duplicates, reorders and deletes)"),
        "death_emitter": PointerProperty(
            name="On Death", type=bpy.types.Object,
            description="The emitter spawned where each particle dies (follows the emitter "
                        "through duplicates, reorders and deletes)"),
        "image": PointerProperty(name="Image", type=bpy.types.Image,
                                 description="The texture's image, found like model textures"),
        "tracks": CollectionProperty(type=AlamoParticleTrack),
        "track_widgets": PointerProperty(
            name="Track Widgets", type=bpy.types.NodeTree, options={"HIDDEN"},
            description="The hidden node group whose ramps and curves draw the tracks"),
        "cell_key": IntProperty(
            name="Picked Key", default=-1, min=-2,
            description="The texture-index key the cell picker sets: -1 the start, -2 the "
                        "end, 0, 1, ... the keys between"),
        "groups": CollectionProperty(type=AlamoParticleGroup),
    }
    for _, name, codec, default in PROPERTY_FIELDS:
        if name == "index":
            continue
        if name in ENUMS:
            notes[name] = EnumProperty(name=name.replace("_", " ").title(),
                                       items=_items(ENUMS[name]),
                                       default=ENUMS[name][default].upper())
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
