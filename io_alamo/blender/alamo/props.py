"""Alamo data kept on Blender bones, objects and materials."""

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       FloatVectorProperty, IntProperty, PointerProperty, StringProperty)

from ...formats.alamo.model import Billboard, ParamType

BILLBOARD_ITEMS = [
    ("DISABLE", "Disabled", "No billboarding", int(Billboard.DISABLE)),
    ("PARALLEL", "Parallel", "Faces the camera, parallel to the view plane", int(Billboard.PARALLEL)),
    ("FACE", "Face", "Faces the camera position", int(Billboard.FACE)),
    ("Z_AXIS_VIEW", "Z Axis View", "Turns about its Z axis towards the camera", int(Billboard.Z_AXIS_VIEW)),
    ("Z_AXIS_LIGHT", "Z Axis Light", "Turns about its Z axis towards the light", int(Billboard.Z_AXIS_LIGHT)),
    ("Z_AXIS_WIND", "Z Axis Wind", "Turns about its Z axis with the wind", int(Billboard.Z_AXIS_WIND)),
    ("SUNLIGHT_GLOW", "Sunlight Glow", "Sun glow sprite", int(Billboard.SUNLIGHT_GLOW)),
    ("SUN", "Sun", "Sun sprite", int(Billboard.SUN)),
]

PARAM_TYPE_ITEMS = [
    ("INT", "Integer", "Whole number parameter", int(ParamType.INT)),
    ("FLOAT", "Float", "Number parameter", int(ParamType.FLOAT)),
    ("FLOAT3", "Float3", "Three-number parameter (vector or colour)", int(ParamType.FLOAT3)),
    ("FLOAT4", "Float4", "Four-number parameter (often a colour)", int(ParamType.FLOAT4)),
    ("TEXTURE", "Texture", "Texture file name", int(ParamType.TEXTURE)),
]

ROLE_ITEMS = [
    ("NONE", "None", "Not part of an Alamo model"),
    ("SKELETON", "Skeleton", "The model's armature"),
    ("MESH", "Mesh", "A mesh of the model"),
    ("LIGHT", "Light", "A light of the model"),
    ("PROXY", "Proxy", "A reference to another model or particle effect, loaded at a bone"),
    ("DAZZLE", "Dazzle", "A blinking camera-facing sprite"),
]


class AlamoBone(bpy.types.PropertyGroup):
    name: StringProperty(name="Name in File", description="The bone's name as the file has it "
                         "(Blender names must be unique; Alamo names need not be)")
    index: IntProperty(name="Index in File", default=-1,
                       description="The bone's index in the model's skeleton; -1 for a new bone")
    visible: BoolProperty(name="Visible", default=True,
                          description="Meshes and proxies attached to this bone are shown")
    billboard: EnumProperty(name="Billboard", items=BILLBOARD_ITEMS, default="DISABLE",
                            description="How the bone turns to face the camera")
    blender_name: StringProperty(name="Blender Name at Import", options={"HIDDEN"},
                                 description="Renaming the bone in Blender renames it in the file")
    matrix: FloatVectorProperty(name="File Matrix", size=12,
                                description="The bone's 3x4 matrix as read, relative to its "
                                            "parent (kept for lossless export)")


# called with the AlamoShaderParam whose value changed: the material preview puts itself here
# (alamo/preview), so it follows edits made from scripts too
PARAM_EDIT_HOOKS = []


def _param_edited(self, context):
    for hook in PARAM_EDIT_HOOKS:
        hook(self)


def _team_edited(self, context):
    self.id_data.update_tag()        # colorize previews read it through attribute nodes


class AlamoShaderParam(bpy.types.PropertyGroup):
    name: StringProperty(name="Name", description="Shader parameter name")
    type: EnumProperty(name="Type", items=PARAM_TYPE_ITEMS, default="FLOAT")
    int_value: IntProperty(name="Value")
    float_value: FloatProperty(name="Value", update=_param_edited)
    float3_value: FloatVectorProperty(name="Value", size=3, update=_param_edited)
    float4_value: FloatVectorProperty(name="Value", size=4, update=_param_edited)
    texture: StringProperty(name="Texture", description="Texture file name, as the game looks it up")


class AlamoMaterial(bpy.types.PropertyGroup):
    shader: StringProperty(name="Shader", description="Shader (.fx) the game renders this "
                           "material with")
    vertex_format: StringProperty(name="Vertex Format",
                                  description="Vertex format of the sub-mesh (e.g. alD3dVertNU2U3U3)")
    params: CollectionProperty(type=AlamoShaderParam, name="Shader Parameters")


# No methods on the property groups: Blender 4.2 crashes at exit when a registered
# PropertyGroup class has Python methods. Helpers live here instead.

def param_value(param):
    """The value of an AlamoShaderParam, by its type."""
    return {"INT": param.int_value, "FLOAT": param.float_value,
            "FLOAT3": tuple(param.float3_value), "FLOAT4": tuple(param.float4_value),
            "TEXTURE": param.texture}[param.type]


def find_param(material_props, name):
    """The first parameter called ``name`` (case-insensitive) of an AlamoMaterial, or None."""
    low = name.lower()
    return next((p for p in material_props.params if p.name.lower() == low), None)


class AlamoTeam(bpy.types.PropertyGroup):
    """The scene-wide team colour of the material previews (never written into a file)."""
    override: BoolProperty(name="Team Colour", update=_team_edited,
                           description="Show every colorize material in this team colour "
                                       "instead of its own Colorization (preview only)")
    color: FloatVectorProperty(name="Colour", subtype="COLOR_GAMMA", size=3, min=0.0,
                               max=1.0, default=(0.8, 0.1, 0.1), update=_team_edited,
                               description="Team colour, as the game's shader gets it")


# Values read from a file are never clamped: the properties that hold them have soft limits
# (the UI's slider range) only, no hard min/max (real dazzle phases go up to 1.5).
class AlamoObject(bpy.types.PropertyGroup):
    role: EnumProperty(name="Role", items=ROLE_ITEMS, default="NONE")
    name: StringProperty(name="Name in File", description="The object's name as the file has it")
    file_index: IntProperty(name="Index in File", default=-1,
                            description="Index of the mesh/light, proxy or dazzle in the file "
                                        "it was imported from; -1 for new objects")
    hidden: BoolProperty(name="Hidden", description="Initially hidden in the game")
    collision: BoolProperty(name="Collision", description="Mesh can be collided with "
                            "(its sub-meshes get collision trees)")
    alt_decrease_stay_hidden: BoolProperty(
        name="Alt Decrease Stay Hidden",
        description="Proxy stays hidden when the damage level (ALT) goes down again")
    # dazzles
    color: FloatVectorProperty(name="Colour", subtype="COLOR", size=3, soft_min=0.0, soft_max=1.0,
                               default=(1.0, 1.0, 1.0))
    radius: FloatProperty(name="Radius", default=1.0, soft_min=0.0,
                          description="World-space radius of the sprite")
    texture: StringProperty(name="Texture", description="Dazzle texture file name")
    tex_x: IntProperty(name="Cell X", soft_min=0, description="Column of the sprite in the texture grid")
    tex_y: IntProperty(name="Cell Y", soft_min=0, description="Row of the sprite in the texture grid")
    tex_size: IntProperty(name="Grid Size", default=1, soft_min=1,
                          description="The texture is a grid of this many cells per side")
    frequency: FloatProperty(name="Frequency", soft_min=0.0, description="Blinks per second (0: always on)")
    phase: FloatProperty(name="Phase", soft_min=0.0, soft_max=1.0, description="Offset into the blink cycle")
    bias: FloatProperty(name="Bias", default=1.0, soft_min=0.0, soft_max=1.0,
                        description="Fraction of each blink during which the dazzle shows")
    night_only: BoolProperty(name="Night Only", description="Shown only at night")
    # lights (raw file values; the Blender light shows an approximation)
    intensity: FloatProperty(name="Intensity", default=1.0)
    far_attenuation_start: FloatProperty(name="Attenuation Start", soft_min=0.0)
    far_attenuation_end: FloatProperty(name="Attenuation End", soft_min=0.0)
    hotspot: FloatProperty(name="Hotspot", subtype="ANGLE", description="Spot light inner cone")
    falloff: FloatProperty(name="Falloff", subtype="ANGLE", description="Spot light outer cone")


class AlamoPoseBone(bpy.types.PropertyGroup):
    visible: BoolProperty(name="Visible", default=True,
                          description="Animated visibility of the bone and what hangs on it")


class AlamoAction(bpy.types.PropertyGroup):
    frames: IntProperty(name="Frames", soft_min=0, description="Frame count of the .ala file")
    fps: FloatProperty(name="Frame Rate", soft_min=0.0, default=30.0,
                       description="Frames per second of the .ala file")
    format: EnumProperty(name="Format", default="2", items=[
        ("1", "#1 Empire at War", "Per-bone tracks (Star Wars: Empire at War)"),
        ("2", "#2 Forces of Corruption", "Per-frame blocks (Forces of Corruption and later)")],
        description="Animation file format to write")


CLASSES = (AlamoBone, AlamoShaderParam, AlamoMaterial, AlamoObject, AlamoPoseBone,
           AlamoAction, AlamoTeam)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Bone.alamo = PointerProperty(type=AlamoBone)
    bpy.types.Material.alamo = PointerProperty(type=AlamoMaterial)
    bpy.types.Object.alamo = PointerProperty(type=AlamoObject)
    bpy.types.PoseBone.alamo = PointerProperty(type=AlamoPoseBone)
    bpy.types.Action.alamo = PointerProperty(type=AlamoAction)
    bpy.types.Scene.alamo_team = PointerProperty(type=AlamoTeam)


def unregister():
    del bpy.types.Scene.alamo_team
    del bpy.types.Action.alamo
    del bpy.types.PoseBone.alamo
    del bpy.types.Object.alamo
    del bpy.types.Material.alamo
    del bpy.types.Bone.alamo
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
