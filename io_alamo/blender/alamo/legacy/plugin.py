"""What the older ALAMO Blender plugin stored, read into plain records. Nothing here writes
to Blender: the in-place conversion and the export both start from these records.

Without that plugin installed its properties are plain ID properties: a material's
``shaderList`` group holding the shader's enum index, parameter and texture values under
their parameter names (``"None"`` for an unset texture), ``Hidden``/``HasCollision`` on
objects, ``Visible``, ``billboardMode`` and the proxy fields on bones, ``AnimationEndFrame``
on actions. It dropped the file's ``Root`` bone and named duplicate bones ``name.001``.
"""

import re
from dataclasses import dataclass, field

from ....formats.alamo import shaders

#: The plugin's shader enum, in enum order (0-28 the 2020 original, 29-37 the 2025 fork).
SHADERS = (
    "alDefault.fx", "BatchMeshAlpha.fx", "BatchMeshGloss.fx", "Grass.fx", "MeshAdditive.fx",
    "MeshAlpha.fx", "MeshAlphaScroll.fx", "MeshBumpColorize.fx", "MeshBumpColorizeVertex.fx",
    "MeshBumpColorizeDetail.fx", "MeshBumpLight.fx", "MeshCollision.fx", "MeshGloss.fx",
    "MeshGlossColorize.fx", "MeshShadowVolume.fx", "MeshShield.fx", "Nebula.fx", "Planet.fx",
    "RSkinAdditive.fx", "RSkinAlpha.fx", "RSkinBumpColorize.fx", "RSkinGloss.fx",
    "RSkinGlossColorize.fx", "RSkinShadowVolume.fx", "Skydome.fx", "TerrainMeshBump.fx",
    "TerrainMeshGloss.fx", "Tree.fx", "LightProxy.fx", "MeshBumpSpecColorize.fx",
    "MeshAdditiveOffset.fx", "MeshAdditiveVColor.fx", "MeshAlphaGloss.fx",
    "MeshBumpSpecGlowColorize.fx", "MeshBumpReflectColorize.fx", "MeshGlow.fx",
    "MeshAdditiveScalar.fx", "MeshBumpColorizeTile.fx",
)
TEXTURES = ("BaseTexture", "NormalTexture", "GlossTexture", "DetailTexture",
            "NormalDetailTexture", "SpecularTexture", "WaveTexture", "DistortionTexture",
            "CloudTexture", "CloudNormalTexture", "MaskTexture")
VECTORS = ("Emissive", "Diffuse", "Specular", "Colorization", "DebugColor", "UVOffset", "Color",
           "UVScrollRate", "DiffuseColor", "Diffuse1", "Atmosphere", "CityColor")
FLOATS = ("Shininess", "EdgeBrightness", "BaseUVScale", "WaveUVScale", "DistortUVScale",
          "BaseUVScrollRate", "WaveUVScrollRate", "DistortUVScrollRate", "BendScale",
          "CloudScrollRate", "CloudScale", "SFreq", "TFreq", "DistortionScale",
          "AtmospherePower", "MappingScale", "BlendSharpness", "UVOffsetX", "UVOffsetY",
          "UVScaleFactor")
UNSET_TEXTURE = "None"
BONE_KEYS = ("Visible", "billboardMode", "EnableProxy", "ProxyName", "proxyIsHidden",
             "altDecreaseStayHidden")
OBJECT_KEYS = ("Hidden", "HasCollision")
END_FRAME_KEY = "AnimationEndFrame"
SCENE_KEY = "ActiveSkeleton"
CONVERTED_KEY = "alamo_plugin_converted"    # on an armature object the conversion finished
ROOT = "Root"
_DUPLICATE = re.compile(r"^(.+)\.\d{3}$")
# what the plugin itself lost on import: a scene made with it cannot hold these
PLUGIN_LOSSES = ("lights, UV sets 2-4, stored normals and tangents and vertex colours are "
                 "not in a scene made with the ALAMO plugin (it drops them on import)")


@dataclass(slots=True)
class PluginProxy:
    name: str
    hidden: bool
    alt_decrease_stay_hidden: bool


@dataclass(slots=True)
class PluginBone:
    blender_name: str
    file_name: str                  # without the ".001" Blender added to duplicates
    visible: bool
    billboard: int
    proxy: PluginProxy = None


@dataclass(slots=True)
class PluginParam:
    name: str
    type: str                       # INT, FLOAT, FLOAT3, FLOAT4, TEXTURE (props.py's ids)
    value: object


@dataclass(slots=True)
class PluginMaterial:
    shader: str
    params: list = field(default_factory=list)       # PluginParam, in catalogue order
    defaulted: list = field(default_factory=list)    # names the plugin had no value for
    problems: list = field(default_factory=list)     # what could not be mapped


# --- detection -------------------------------------------------------------------------------

def _has_any(holder, keys):
    return any(holder.get(k) is not None for k in keys)


def is_plugin_armature(arm):
    """An armature object that was not converted yet and whose bones carry the plugin's
    properties, or, in a scene the plugin marked (its ``ActiveSkeleton`` choice), whose
    bones were made neither by io_alamo's import nor by a conversion."""
    if arm is None or arm.type != "ARMATURE" or arm.get(CONVERTED_KEY):
        return False
    bones = arm.data.bones
    if any(_has_any(b, BONE_KEYS) for b in bones):
        return True
    return (len(bones) > 0 and any(s.get(SCENE_KEY) is not None for s in arm.users_scene)
            and not any(b.alamo.blender_name for b in bones))


def is_plugin_material(mat):
    """A material with the plugin's shader choice and no io_alamo shader yet."""
    return mat is not None and not mat.alamo.shader and mat.get("shaderList") is not None


def is_plugin_object(obj):
    """An object with the plugin's Hidden/HasCollision flags and no io_alamo role yet."""
    return obj.alamo.role == "NONE" and _has_any(obj, OBJECT_KEYS)


def has_plugin_data(obj):
    """An object with the plugin's flags or a material with its shader choice."""
    return is_plugin_object(obj) or any(is_plugin_material(s.material)
                                        for s in obj.material_slots)


def is_plugin_action(action):
    return action.get(END_FRAME_KEY) is not None and action.alamo.frames == 0


# --- bones -----------------------------------------------------------------------------------

def _enum_value(holder, key):
    """The value of one of the plugin's enum groups (``holder[key][key]``), int or name."""
    group = holder.get(key)
    if group is None:
        return None
    return group.get(key) if hasattr(group, "get") else group


def file_names(names):
    """The names as the file had them: a ``.001`` suffix goes when the name without it is
    also taken (the plugin let Blender number duplicate bone names; Alamo allows them)."""
    taken = set(names)
    out = []
    for name in names:
        m = _DUPLICATE.match(name)
        out.append(m.group(1) if m and m.group(1) in taken else name)
    return out


def object_file_name(name, taken):
    """The name a mesh of the plugin's scene had in its file: Blender numbered duplicate
    names (three meshes ``Crusher`` became ``Crusher``, ``Crusher.001``, ``Crusher.002``);
    the suffix goes when the name without it is ``taken`` (another object's)."""
    m = _DUPLICATE.match(name)
    return m.group(1) if m and m.group(1) in taken else name


def read_bones(arm):
    """PluginBone records of the armature's bones, in the armature's order."""
    bones = list(arm.data.bones)
    out = []
    for bone, file_name in zip(bones, file_names([b.name for b in bones])):
        billboard = _enum_value(bone, "billboardMode")
        proxy = None
        if bone.get("EnableProxy"):
            proxy = PluginProxy(str(bone.get("ProxyName") or file_name),
                                bool(bone.get("proxyIsHidden", 0)),
                                bool(bone.get("altDecreaseStayHidden", 0)))
        out.append(PluginBone(bone.name, file_name, bool(bone.get("Visible", 1)),
                              _billboard(billboard), proxy))
    return out


BILLBOARD_NAMES = ("Disable", "Parallel", "Face", "ZAxis View", "ZAxis Light", "ZAxis Wind",
                   "Sunlight Glow", "Sun")


def _billboard(value):
    if isinstance(value, str):
        return BILLBOARD_NAMES.index(value) if value in BILLBOARD_NAMES else 0
    return int(value) if value is not None and 0 <= int(value) < len(BILLBOARD_NAMES) else 0


def root_missing(bones):
    """True when none of the PluginBone records is the file's ``Root`` (the plugin drops it)."""
    return not any(b.file_name.lower() == ROOT.lower() for b in bones)


# --- materials -------------------------------------------------------------------------------

def shader_of(mat):
    """(shader name, problem or None) of the plugin's shader choice."""
    value = _enum_value(mat, "shaderList")
    if isinstance(value, str):
        spec = shaders.find(value)
        return (spec.name if spec else value), None
    if value is None:
        return SHADERS[0], None
    if 0 <= int(value) < len(SHADERS):
        return SHADERS[int(value)], None
    return SHADERS[0], (f"material {mat.name!r}: shader number {int(value)} is not in the "
                        f"plugin's list; {SHADERS[0]} is used")


def _stored(mat, name, ptype):
    """The plugin's value for a parameter as ``ptype``, or None when it has none."""
    value = mat.get(name)
    if value is None:
        return None
    if ptype == "TEXTURE":
        return str(value) if isinstance(value, str) and value not in ("", UNSET_TEXTURE) else None
    if isinstance(value, str):
        return None
    if ptype in ("FLOAT3", "FLOAT4"):
        size = 3 if ptype == "FLOAT3" else 4
        try:
            values = [float(x) for x in value]
        except TypeError:
            return None
        return values[:size] if len(values) >= size else None
    if hasattr(value, "__len__"):
        return None
    return int(value) if ptype == "INT" else float(value)


def _guessed_params(mat):
    """Every parameter the plugin stored, with its type from the plugin's own layout (for
    shaders the catalogue does not know)."""
    out = []
    for names, ptype in ((VECTORS, "FLOAT4"), (FLOATS, "FLOAT"), (TEXTURES, "TEXTURE")):
        for name in names:
            value = _stored(mat, name, ptype)
            if value is not None:
                out.append(PluginParam(name, ptype, value))
    return out


def read_material(mat):
    """The PluginMaterial of a Blender material that carries the plugin's shader choice:
    the catalogue's parameters of that shader, in its order, each with the plugin's value
    or else the catalogue default."""
    shader, problem = shader_of(mat)
    out = PluginMaterial(shader, problems=[problem] if problem else [])
    spec = shaders.find(shader)
    if spec is None:
        out.params = _guessed_params(mat)
        out.problems.append(f"material {mat.name!r}: shader {shader} is not in io_alamo's "
                            f"catalogue; the {len(out.params)} parameters the plugin stored "
                            "were written as they are (check them)")
        return out
    out.shader = spec.name
    for p in spec.params:
        value = _stored(mat, p.name, p.type)
        if value is None:
            value = p.default
            out.defaulted.append(p.name)
        out.params.append(PluginParam(p.name, p.type, value))
    return out


# --- objects and actions -------------------------------------------------------------------

def object_flags(obj):
    """(hidden, collision) the plugin stored on an object."""
    return bool(obj.get("Hidden", 0)), bool(obj.get("HasCollision", 0))


def end_frame(action):
    value = action.get(END_FRAME_KEY)
    return int(value) if value is not None else None
