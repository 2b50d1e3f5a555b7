"""Modder-facing UI: the Alamo sidebar tab, material panel, Add menu entries, LOD/ALT
switching, validation and animation helpers.

Operators are thin; the work is done by the module-level functions next to them, which
scripts and tests can call too. The colour pickers and texture fields of the material panel
are view-only properties attached to the property groups of props.py at registration: they
read and write the stored values (``float4_value``, ``texture``...), so export sees nothing
new, and an edit made through them updates the material preview.
"""

import textwrap

import bpy
from bpy.props import (
    BoolProperty, CollectionProperty, EnumProperty, FloatVectorProperty, IntProperty,
    StringProperty,
)
from mathutils import Matrix

from .. import naming, shaders
from ..choices import SCOPE_ITEMS
from ..formats import AlamoFormatError
from . import compat
from .armature import find_armature
from .exp.ala import armature_actions
from .exp.alo import ExportError, ExportOptions, Problem, build_model
from .names import object_export_name as export_name
from .imp import materials
from .source import has_source
from .imp.alo import LIGHT_WATTS_PER_INTENSITY
from .imp.textures import texture_folders
from .prefs import user_texture_folders
from .shown import hidden_in_game
from .props import PARAM_TYPE_ITEMS, AlamoShaderParam, param_value

CATEGORY = "Alamo"
SHADER_ITEMS = [(s.name, s.name, f"{s.description or s.name} ({s.kind} shader)")
                for s in (shaders.find(n) for n in shaders.names())]


# --- what the tools work on -----------------------------------------------------------------

def active_bone(context):
    """(armature object, bone name) of the active armature's active bone, else (None, None)."""
    obj = context.object
    if obj is None or obj.type != "ARMATURE":
        return None, None
    bone = obj.data.edit_bones.active if obj.mode == "EDIT" else obj.data.bones.active
    return (obj, bone.name) if bone is not None else (None, None)


def target_bone(context):
    """(armature, bone name) the bone tools work on: the active bone of the active armature,
    else the bone the active object hangs on; (None, None) when there is neither."""
    arm, name = active_bone(context)
    if arm is not None:
        return arm, name
    obj = context.object
    if (obj is not None and obj.parent is not None and obj.parent.type == "ARMATURE"
            and obj.parent_type == "BONE" and obj.parent_bone in obj.parent.data.bones):
        return obj.parent, obj.parent_bone
    return None, None


def texture_search_folders(context):
    """Where typed texture names are looked for: beside the .blend file (and its mod's
    Data/Art/Textures), then the folders of the add-on preferences."""
    folders = texture_folders(bpy.data.filepath) if bpy.data.filepath else []
    return folders + user_texture_folders(context)


def _set_mode(context, obj, mode):
    if obj is not None and obj.mode != mode and context.view_layer.objects.active == obj:
        bpy.ops.object.mode_set(mode=mode)


# --- proxies, dazzles and lights at a bone --------------------------------------------------

def add_at_bone(context, arm, bone_name, role, name):
    """A new proxy, dazzle or light hanging on the bone, at the bone's head (where the game
    puts it), in the armature's collection."""
    bone = arm.data.bones[bone_name]
    data = None
    if role == "LIGHT":
        data = bpy.data.lights.new(name, "POINT")
        data.energy = LIGHT_WATTS_PER_INTENSITY
    obj = bpy.data.objects.new(name, data)
    collection = arm.users_collection[0] if arm.users_collection else context.scene.collection
    collection.objects.link(obj)
    obj.parent = arm
    obj.parent_type = "BONE"
    obj.parent_bone = bone_name
    obj.matrix_parent_inverse = Matrix.Identity(4)
    obj.matrix_basis = Matrix.Translation((0.0, -bone.length, 0.0))   # bone parents at the tail
    p = obj.alamo
    p.role = role
    if role == "PROXY":
        obj.empty_display_type = "ARROWS"
        obj.empty_display_size = max(bone.length, 0.05)
    elif role == "DAZZLE":
        obj.empty_display_type = "SPHERE"
        obj.empty_display_size = p.radius
        obj.color = (*p.color, 1.0)
    return obj


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
            _set_mode(context, arm, "OBJECT")
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


# --- shaders and their parameters -----------------------------------------------------------

def _add_param(props, name, ptype, value):
    item = props.params.add()
    item.name = name
    item.type = ptype
    if ptype == "INT":
        item.int_value = int(value)
    elif ptype == "FLOAT":
        item.float_value = float(value)
    elif ptype == "FLOAT3":
        item.float3_value = [float(x) for x in value]
    elif ptype == "FLOAT4":
        item.float4_value = [float(x) for x in value]
    else:
        item.texture = str(value)
    return item


def switch_shader(mat, name):
    """Give the material the shader ``name``; returns the names of the parameters whose values
    were kept.

    A catalogue shader gets its parameters in its order: values of parameters of the same
    name and type are kept, the others start at the catalogue's defaults; parameters the
    shader does not have are dropped (kept when it is the shader the material already has).
    A shader the catalogue does not know keeps every parameter as it is."""
    props = mat.alamo
    spec = shaders.find(name)
    old = [(p.name, p.type, param_value(p)) for p in props.params]
    if spec is None:
        props.shader = name.strip()
        return [n for n, _, _ in old]
    same = shaders.find(props.shader) is spec
    values = {}
    for n, t, v in old:
        values.setdefault((n.lower(), t), v)
    wanted = {(p.name.lower(), p.type) for p in spec.params}
    props.shader = spec.name
    props.params.clear()
    kept = []
    for p in spec.params:
        value = values.get((p.name.lower(), p.type))
        if value is None:
            value = p.default
        else:
            kept.append(p.name)
        _add_param(props, p.name, p.type, value)
    if same:
        for n, t, v in old:
            if (n.lower(), t) not in wanted:
                _add_param(props, n, t, v)
    formats = {spec.vertex_format}
    if spec.skinned and shaders.find(spec.skinned):
        formats.add(shaders.find(spec.skinned).vertex_format)
    if not same and props.vertex_format and props.vertex_format not in formats:
        props.vertex_format = ""         # export picks the new shader's format
    return kept


def missing_params(mat):
    """Catalogue parameters of the material's shader that the material lacks."""
    spec = shaders.find(mat.alamo.shader)
    if spec is None:
        return []
    have = {(p.name.lower(), p.type) for p in mat.alamo.params}
    return [p.name for p in spec.params if (p.name.lower(), p.type) not in have]


def _material(context, name):
    if name:
        return bpy.data.materials.get(name)
    return getattr(context, "material", None)


def _preview(context, mat):
    materials.refresh_preview(mat, texture_search_folders(context))


class ALAMO_OT_set_shader(bpy.types.Operator):
    """Give the material an Alamo shader. Parameters both shaders have keep their values; new
    ones start at the shader's defaults"""
    bl_idname = "alamo.set_shader"
    bl_label = "Set Alamo Shader"
    bl_options = {"REGISTER", "UNDO"}
    bl_property = "shader"

    shader: EnumProperty(name="Shader", items=SHADER_ITEMS, options={"SKIP_SAVE"},
                         description="Shader the game renders the material with")
    shader_name: StringProperty(name="Shader File", options={"SKIP_SAVE"},
                                description="Any shader file name (a mod's own .fx, say); "
                                            "used instead of the list when given")
    material: StringProperty(name="Material", options={"HIDDEN", "SKIP_SAVE"},
                             description="Material to change (default: the active one)")

    def invoke(self, context, event):
        if self.properties.is_property_set("shader") or self.shader_name:
            return self.execute(context)
        mat = _material(context, self.material)
        if mat is not None:
            self.shader_name = mat.alamo.shader
        return context.window_manager.invoke_props_dialog(self)

    def draw(self, context):
        self.layout.prop(self, "shader_name")

    def execute(self, context):
        mat = _material(context, self.material)
        if mat is None:
            self.report({"ERROR"}, "no material to give a shader")
            return {"CANCELLED"}
        name = self.shader_name.strip() or self.shader
        if not name:
            self.report({"ERROR"}, "no shader name given")
            return {"CANCELLED"}
        kept = switch_shader(mat, name)
        _preview(context, mat)
        self.report({"INFO"}, f"{mat.name}: {mat.alamo.shader}"
                              + (f" (kept {', '.join(kept)})" if kept else ""))
        return {"FINISHED"}


class ALAMO_OT_param_add(bpy.types.Operator):
    """Add a shader parameter (for shaders the catalogue does not know)"""
    bl_idname = "alamo.param_add"
    bl_label = "Add Shader Parameter"
    bl_options = {"REGISTER", "UNDO"}

    material: StringProperty(name="Material", options={"HIDDEN", "SKIP_SAVE"})
    param_name: StringProperty(name="Name", description="Parameter name as the shader has it")
    type: EnumProperty(name="Type", items=PARAM_TYPE_ITEMS, default="FLOAT")

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)

    def draw(self, context):
        self.layout.prop(self, "param_name")
        self.layout.prop(self, "type")

    def execute(self, context):
        mat = _material(context, self.material)
        name = self.param_name.strip()
        if mat is None or not name:
            self.report({"ERROR"}, "a material and a parameter name are needed")
            return {"CANCELLED"}
        _add_param(mat.alamo, name, self.type,
                   {"INT": 0, "FLOAT": 0.0, "FLOAT3": (0, 0, 0), "FLOAT4": (0, 0, 0, 0),
                    "TEXTURE": ""}[self.type])
        _preview(context, mat)
        return {"FINISHED"}


class ALAMO_OT_param_remove(bpy.types.Operator):
    """Remove this shader parameter from the material"""
    bl_idname = "alamo.param_remove"
    bl_label = "Remove Shader Parameter"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    material: StringProperty(name="Material", options={"HIDDEN", "SKIP_SAVE"})
    index: IntProperty(name="Index", min=0, options={"HIDDEN"})

    def execute(self, context):
        mat = _material(context, self.material)
        if mat is None or not 0 <= self.index < len(mat.alamo.params):
            return {"CANCELLED"}
        mat.alamo.params.remove(self.index)
        _preview(context, mat)
        return {"FINISHED"}


# --- textures: a name, an image of the file, or a file on disk ------------------------------

class _TextureTarget:
    """A texture string: the parameter ``index`` of ``material``, or with no material the
    dazzle texture of ``object`` (default: the active object)."""

    material: StringProperty(name="Material", options={"HIDDEN", "SKIP_SAVE"})
    index: IntProperty(name="Parameter Index", default=-1, options={"HIDDEN", "SKIP_SAVE"})
    object: StringProperty(name="Object", options={"HIDDEN", "SKIP_SAVE"})

    def target(self, context):
        if self.material:
            mat = bpy.data.materials.get(self.material)
            if mat is None or not 0 <= self.index < len(mat.alamo.params):
                return None, None
            return mat.alamo.params[self.index], mat
        obj = bpy.data.objects.get(self.object) if self.object else context.object
        return (obj.alamo, None) if obj is not None else (None, None)

    def assign(self, context, image):
        holder, mat = self.target(context)
        if holder is None:
            self.report({"ERROR"}, "nothing to put the texture on")
            return {"CANCELLED"}
        holder.texture = materials.image_file_name(image)
        if mat is not None:
            _preview(context, mat)
        return {"FINISHED"}


_image_items = []      # Blender needs the strings of dynamic enum items kept alive


def _images(self, context):
    _image_items[:] = [(img.name, img.name, materials.image_file_name(img))
                       for img in bpy.data.images if materials.is_texture_image(img)] \
        or [("", "No Images", "Open or import an image first")]
    return _image_items


class ALAMO_OT_texture_pick_image(bpy.types.Operator, _TextureTarget):
    """Use an image of this Blender file: its file name becomes the texture name"""
    bl_idname = "alamo.texture_pick_image"
    bl_label = "Pick Image"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}
    bl_property = "image"

    image: EnumProperty(name="Image", items=_images, options={"SKIP_SAVE"})

    def execute(self, context):
        image = bpy.data.images.get(self.image) if self.image else None
        if image is None:
            self.report({"ERROR"}, "no image chosen")
            return {"CANCELLED"}
        return self.assign(context, image)


class ALAMO_OT_texture_browse(bpy.types.Operator, _TextureTarget):
    """Choose a texture file (.dds, .tga): its file name becomes the texture name and the
    image is loaded for the preview"""
    bl_idname = "alamo.texture_browse"
    bl_label = "Choose Texture File"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    filepath: StringProperty(name="File", subtype="FILE_PATH", options={"SKIP_SAVE"})
    filter_glob: StringProperty(default="*.dds;*.tga;*.png;*.jpg", options={"HIDDEN"})

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        try:
            image = bpy.data.images.load(self.filepath, check_existing=True)
        except RuntimeError as e:
            self.report({"ERROR"}, f"cannot read {self.filepath}: {e}")
            return {"CANCELLED"}
        return self.assign(context, image)


# View-only properties attached to props.py's groups at registration (see the module doc).

def _param_edited(param):
    mat = param.id_data
    if isinstance(mat, bpy.types.Material):
        _preview(bpy.context, mat)


def _get_color4(self):
    return tuple(self.float4_value)


def _set_color4(self, value):
    self.float4_value = value
    _param_edited(self)


def _get_color3(self):
    return tuple(self.float3_value)


def _set_color3(self, value):
    self.float3_value = value
    _param_edited(self)


def _get_texture(self):
    return self.texture


def _set_texture(self, value):
    self.texture = value
    _param_edited(self)


VIEW_PROPERTIES = (
    (AlamoShaderParam, "color4", FloatVectorProperty(
        name="Colour", size=4, subtype="COLOR_GAMMA", soft_min=0.0, soft_max=1.0,
        get=_get_color4, set=_set_color4,
        description="Colour and alpha, as the shader gets them")),
    (AlamoShaderParam, "color3", FloatVectorProperty(
        name="Colour", size=3, subtype="COLOR_GAMMA", soft_min=0.0, soft_max=1.0,
        get=_get_color3, set=_set_color3, description="Colour, as the shader gets it")),
    (AlamoShaderParam, "texture_file", StringProperty(
        name="Texture", get=_get_texture, set=_set_texture,
        description="Texture file name as the game looks it up in Data/Art/Textures "
                    "(e.g. MyShip.dds)")),
)

COLOUR_NAMES = {"emissive", "diffuse", "diffuse1", "specular", "colorization", "color",
                "debugcolor", "atmosphere", "citycolor"}


def is_colour(param):
    """Whether a FLOAT3/FLOAT4 parameter holds a colour (rather than UV offsets, rates...)."""
    name = param.name.lower()
    return name in COLOUR_NAMES or name.endswith(("color", "colour"))


# --- LOD and ALT ----------------------------------------------------------------------------

def lod_alt_objects(context):
    """[(object, LOD or None, ALT or None)] of the model's meshes and proxies whose names
    carry _LOD<n> or _ALT<n>, and of those the game does not draw (hidden, collision, shadow
    volumes, on hidden bones). The model: the active object's armature and what hangs on it (or the scene's
    only armature); without one, every object of the view layer."""
    arm = find_armature(context)
    objs = arm.children_recursive if arm is not None else context.view_layer.objects
    out = []
    for obj in objs:
        if obj.type == "MESH" or obj.alamo.role == "PROXY":
            _, lod, alt = naming.lod_alt(export_name(obj))
            if lod is not None or alt is not None or hidden_in_game(obj):
                out.append((obj, lod, alt))
    return out


def shown_lod_alt(entries):
    """(LOD, ALT) shown now: each when exactly one is visible, else None."""
    lods, alts = set(), set()
    for obj, lod, alt in entries:
        if not obj.hide_get():
            if lod is not None:
                lods.add(lod)
            if alt is not None:
                alts.add(alt)
    return (lods.pop() if len(lods) == 1 else None), (alts.pop() if len(alts) == 1 else None)


def _show(obj, shown):
    obj.hide_render = not shown
    try:
        obj.hide_set(not shown)
    except RuntimeError:              # not in the view layer (an excluded collection)
        pass


def show_lod_alt(entries, lod=-1, alt=-1, show_all=False):
    """Show what the game shows at one LOD and ALT, in the viewport and in renders: objects
    whose LOD and ALT are those (or that have none), unless hidden in the file; the others
    are hidden. -1 keeps the level shown now (the most detailed LOD and ALT0 when unclear);
    levels beyond the model's are clamped as the game does. ``show_all`` shows every level
    at once, with the meshes the game never draws, for editing. Returns the (LOD, ALT)
    shown."""
    lods = sorted({l for _, l, _ in entries if l is not None})
    alts = sorted({a for _, _, a in entries if a is not None})
    now_lod, now_alt = shown_lod_alt(entries)
    if lod < 0:
        lod = now_lod if now_lod is not None else (lods[-1] if lods else 0)
    if alt < 0:
        alt = now_alt if now_alt is not None else 0
    lod = min(lod, lods[-1]) if lods else 0
    alt = min(alt, alts[-1]) if alts else 0
    for obj, l, a in entries:
        _show(obj, show_all or ((l is None or l == lod) and (a is None or a == alt)
                                and not hidden_in_game(obj)))
    return lod, alt


class ALAMO_OT_lod_alt_show(bpy.types.Operator):
    """Show one level of detail (LOD) and one damage level (ALT) of the model, as the game
    would, in the viewport and in renders"""
    bl_idname = "alamo.lod_alt_show"
    bl_label = "Show LOD and ALT"
    bl_options = {"REGISTER", "UNDO"}

    lod: IntProperty(name="LOD", default=-1, min=-1, options={"SKIP_SAVE"},
                     description="Level of detail to show (higher is more detailed); -1 keeps "
                                 "the one shown")
    alt: IntProperty(name="ALT", default=-1, min=-1, options={"SKIP_SAVE"},
                     description="Damage level to show (0 is undamaged); -1 keeps the one "
                                 "shown")
    show_all: BoolProperty(name="Show All", options={"SKIP_SAVE"},
                           description="Show every LOD and ALT at once, with hidden, "
                                       "collision and shadow meshes, for editing")

    def execute(self, context):
        entries = lod_alt_objects(context)
        if not entries:
            self.report({"INFO"}, "no mesh or proxy name has _LOD or _ALT in it, and the "
                        "game draws every mesh")
            return {"CANCELLED"}
        lod, alt = show_lod_alt(entries, self.lod, self.alt, self.show_all)
        self.report({"INFO"}, "Showing every LOD and ALT" if self.show_all else
                    f"Showing LOD {lod}, ALT {alt}")
        return {"FINISHED"}


# --- validation -----------------------------------------------------------------------------

class AlamoProblemObject(bpy.types.PropertyGroup):
    """The name of an object a problem is about (in the built-in ``name``)."""


class AlamoProblem(bpy.types.PropertyGroup):
    level: EnumProperty(name="Level", items=[
        ("ERROR", "Error", "Stops the export"),
        ("WARNING", "Warning", "The export works, but check this")])
    text: StringProperty(name="Problem")
    objects: CollectionProperty(type=AlamoProblemObject)
    elements_selected: BoolProperty(name="Elements Selected")


def validate(context, options=None):
    """The export's checks, without writing anything: Problem records, errors first; none
    when the model is ready to export."""
    try:
        result = build_model(context, options or ExportOptions())
    except ExportError as e:
        if e.details:
            return sorted(e.details, key=lambda p: p.level != "ERROR")
        return [Problem("ERROR", t, [o.name for o in e.objects]) for t in e.problems]
    except AlamoFormatError as e:
        return [Problem("ERROR", str(e))]
    return list(result.problems)


def store_problems(wm, problems):
    wm.alamo_problems.clear()
    for p in problems:
        item = wm.alamo_problems.add()
        item.level = p.level
        item.text = p.text
        item.elements_selected = p.elements_selected
        for name in p.objects:
            item.objects.add().name = name
    errors = sum(p.level == "ERROR" for p in problems)
    warnings = len(problems) - errors
    wm.alamo_validation = (f"{errors} error{'s' * (errors != 1)}, "
                           f"{warnings} warning{'s' * (warnings != 1)}" if problems
                           else "No problems: ready to export")
    wm.alamo_problem_index = -1


def select_problem(context, problem, show_elements=False):
    """Select the objects a problem is about and make the first one active; with
    ``show_elements``, open a mesh in Edit Mode when the faulty vertices were selected."""
    vl = context.view_layer
    objs = [vl.objects.get(o.name) for o in problem.objects]
    objs = [o for o in objs if o is not None]
    if not objs:
        return []
    _set_mode(context, context.object, "OBJECT")
    for o in context.selected_objects:
        o.select_set(False)
    for o in objs:
        o.select_set(True)
    vl.objects.active = objs[0]
    if show_elements and objs[0].type == "MESH" and problem.elements_selected:
        bpy.ops.object.mode_set(mode="EDIT")
        context.tool_settings.mesh_select_mode = (True, False, False)
    return objs


def _problem_clicked(wm, context):
    if 0 <= wm.alamo_problem_index < len(wm.alamo_problems):
        select_problem(context, wm.alamo_problems[wm.alamo_problem_index])


class ALAMO_OT_validate(bpy.types.Operator):
    """Run the export's checks without writing a file and list what would stop the export
    or should be looked at"""
    bl_idname = "alamo.validate"
    bl_label = "Validate"
    bl_options = {"REGISTER"}

    scope: EnumProperty(name="Check", items=SCOPE_ITEMS, default="ARMATURE")

    def execute(self, context):
        obj = context.object
        if obj is not None and obj.mode not in ("OBJECT", "POSE"):
            _set_mode(context, obj, "OBJECT")      # edits of Edit Mode reach the mesh data
        problems = validate(context, ExportOptions(scope=self.scope))
        wm = context.window_manager
        store_problems(wm, problems)
        self.report({"WARNING" if problems else "INFO"}, wm.alamo_validation)
        return {"FINISHED"}


class ALAMO_OT_select_problem(bpy.types.Operator):
    """Select what this problem is about (a mesh whose vertices are at fault opens in Edit
    Mode with them selected)"""
    bl_idname = "alamo.select_problem"
    bl_label = "Select Problem Objects"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(name="Index", min=0, options={"HIDDEN"})

    def execute(self, context):
        wm = context.window_manager
        if not 0 <= self.index < len(wm.alamo_problems):
            return {"CANCELLED"}
        problem = wm.alamo_problems[self.index]
        if not select_problem(context, problem, show_elements=True):
            self.report({"INFO"}, "this problem is about no object of the view layer")
            return {"CANCELLED"}
        return {"FINISHED"}


# --- animation ------------------------------------------------------------------------------

def key_visibility(arm, bone_name, frame, visible=None):
    """Key the bone's animated visibility (what the .ala stores; it shows or hides everything
    on the bone) at ``frame``, set to ``visible`` first unless None; keys are constant, as the
    game switches visibility. Returns the F-curve."""
    pb = arm.pose.bones[bone_name]
    if visible is not None:
        pb.alamo.visible = visible
    path = pb.path_from_id() + ".alamo.visible"
    arm.keyframe_insert(path, frame=frame, group=bone_name)
    fc = next(f for f in compat.action_fcurves(arm.animation_data.action)
              if f.data_path == path)
    for k in fc.keyframe_points:
        k.interpolation = "CONSTANT"
    return fc


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


def set_active_action(arm, action, scene=None):
    """Make ``action`` the armature's action (on Blender 4.4+ with a slot of it); with a scene,
    its frame range (and an imported animation's frame rate) become the scene's."""
    ad = arm.animation_data or arm.animation_data_create()
    if ad.action != action:
        ad.action = action
    if compat.HAS_SLOTTED_ACTIONS and ad.action_slot is None and len(action.slots):
        slots = list(ad.action_suitable_slots) or list(action.slots)
        ad.action_slot = slots[0]
    if scene is not None:
        start, end = action.frame_range
        scene.frame_start = int(round(start))
        scene.frame_end = max(int(round(end)), scene.frame_start)
        fps = float(action.alamo.fps)
        if fps > 0 and has_source(action):
            scene.render.fps = max(1, int(round(fps)))
            scene.render.fps_base = scene.render.fps / fps
    wm = bpy.context.window_manager
    index = bpy.data.actions.find(action.name)
    if wm is not None and index >= 0 and wm.alamo_action_index != index:
        wm.alamo_action_index = index


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


def show_bind_pose(arm):
    """The file's bind pose, as after import: no active animation, every bone at rest (and
    shown as the file's bone says). The actions stay."""
    ad = arm.animation_data
    if ad is not None and ad.action is not None:
        ad.action = None
    for pb in arm.pose.bones:
        pb.location = (0.0, 0.0, 0.0)
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        pb.rotation_euler = (0.0, 0.0, 0.0)
        pb.rotation_axis_angle = (0.0, 0.0, 1.0, 0.0)
        pb.scale = (1.0, 1.0, 1.0)
        pb.alamo.visible = pb.bone.alamo.visible
    wm = bpy.context.window_manager
    if wm is not None:
        wm.alamo_action_index = -1


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


# --- lists ----------------------------------------------------------------------------------

class ALAMO_UL_problems(bpy.types.UIList):
    """The findings of the last validation; clicking one selects its objects."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0):
        row = layout.row(align=True)
        row.label(text=item.text, icon="ERROR" if item.level == "ERROR" else "INFO")
        if len(item.objects):
            op = row.operator(ALAMO_OT_select_problem.bl_idname, text="",
                              icon="RESTRICT_SELECT_OFF", emboss=False)
            op.index = index


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


# --- panels ---------------------------------------------------------------------------------

def _wrapped(layout, context, text, icon="NONE"):
    width = context.region.width if getattr(context, "region", None) else 300
    col = layout.column(align=True)
    for k, line in enumerate(textwrap.wrap(text, max(20, int(width / 7)))):
        col.label(text=line, icon=icon if k == 0 else "BLANK1")


def _draw_bone_link(layout, obj):
    """The bone an object hangs on (what the file connects it to)."""
    parent = obj.parent
    if parent is not None and parent.type == "ARMATURE" and obj.parent_type == "BONE":
        layout.prop_search(obj, "parent_bone", parent.data, "bones", text="Bone")
    elif parent is not None and parent.type == "ARMATURE":
        layout.label(text="On the armature (root bone, or its skinning)", icon="BONE_DATA")
    else:
        layout.label(text="On no bone: exported at the root bone", icon="INFO")


def _draw_lod_alt(layout, obj):
    _, lod, alt = naming.lod_alt(export_name(obj))
    if lod is None and alt is None:
        layout.label(text="Shown at every LOD and ALT")
    else:
        parts = ([f"LOD {lod}"] if lod is not None else []) + \
            ([f"ALT {alt}"] if alt is not None else [])
        layout.label(text="Only at " + ", ".join(parts), icon="MOD_DECIM")


def _draw_texture_row(layout, holder, prop, op_props):
    row = layout.row(align=True)
    row.prop(holder, prop, text="")
    pick = row.operator_menu_enum(ALAMO_OT_texture_pick_image.bl_idname, "image", text="",
                                  icon="IMAGE_DATA")
    browse = row.operator(ALAMO_OT_texture_browse.bl_idname, text="", icon="FILEBROWSER")
    for op in (pick, browse):
        for k, v in op_props.items():
            setattr(op, k, v)


class VIEW3D_PT_alamo_object(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY
    bl_label = "Alamo Object"
    bl_order = 0

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type in ("MESH", "EMPTY", "LIGHT", "ARMATURE")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        obj = context.object
        p = obj.alamo
        layout.prop(p, "role")
        name = export_name(obj)
        if name != obj.name:
            layout.label(text=f"Exported as {name}", icon="FILE")
        role = p.role
        if role == "SKELETON" or obj.type == "ARMATURE":
            layout.label(text=f"Skeleton of {len(obj.data.bones)} bones", icon="ARMATURE_DATA")
            return
        if obj.type == "EMPTY" and role not in ("PROXY", "DAZZLE"):
            _wrapped(layout, context, "Set the role to Proxy or Dazzle to export this empty",
                     "INFO")
            return
        _draw_bone_link(layout, obj)
        if role == "PROXY":
            _wrapped(layout, context, "The name is the model or particle effect the game "
                     "loads here (without .alo)", "INFO")
            layout.prop(p, "hidden")
            layout.prop(p, "alt_decrease_stay_hidden")
            _draw_lod_alt(layout, obj)
        elif role == "DAZZLE":
            self.draw_dazzle(context, obj)
        elif obj.type == "LIGHT":
            self.draw_light(obj)
        elif obj.type == "MESH":
            layout.prop(p, "hidden")
            layout.prop(p, "collision")
            _draw_lod_alt(layout, obj)
        arm, bone = target_bone(context)
        if arm is not None and arm.mode != "EDIT":
            _draw_visibility_keys(layout, arm, bone)

    def draw_dazzle(self, context, obj):
        layout = self.layout
        p = obj.alamo
        layout.prop(p, "color")
        layout.prop(p, "radius")
        col = layout.column(heading="Texture")
        _draw_texture_row(col, p, "texture", {"object": obj.name})
        col = layout.column(align=True)
        col.prop(p, "tex_size")
        col.prop(p, "tex_x")
        col.prop(p, "tex_y")
        col = layout.column(align=True)
        col.prop(p, "frequency")
        col.prop(p, "phase")
        col.prop(p, "bias")
        layout.prop(p, "night_only")
        layout.prop(p, "hidden")

    def draw_light(self, obj):
        layout = self.layout
        p = obj.alamo
        layout.prop(obj.data, "type")
        layout.prop(obj.data, "color")
        if p.role != "LIGHT":
            # export takes the intensity from the power and the cones from the spot shape
            layout.prop(obj.data, "energy")
            _wrapped(layout, bpy.context, "Set the role to Light to enter the game's own "
                     "intensity and cone angles", "INFO")
        else:
            layout.prop(p, "intensity")
            if obj.data.type == "SPOT":
                col = layout.column(align=True)
                col.prop(p, "hotspot")
                col.prop(p, "falloff")
        col = layout.column(align=True)
        col.prop(p, "far_attenuation_start")
        col.prop(p, "far_attenuation_end")


def _draw_visibility_keys(layout, arm, bone):
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


class VIEW3D_PT_alamo_bone(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY
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
            _draw_visibility_keys(layout, arm, name)
        col = layout.column(align=True)
        col.label(text="Add at This Bone")
        row = col.row(align=True)
        row.operator(ALAMO_OT_add_proxy.bl_idname, text="Proxy", icon="EMPTY_ARROWS")
        row.operator(ALAMO_OT_add_dazzle.bl_idname, text="Dazzle", icon="LIGHT_SUN")
        row.operator(ALAMO_OT_add_light.bl_idname, text="Light", icon="LIGHT_POINT")


class VIEW3D_PT_alamo_lod_alt(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY
    bl_label = "LOD and Damage (ALT)"
    bl_order = 2

    def draw(self, context):
        layout = self.layout
        entries = lod_alt_objects(context)
        if not entries:
            layout.label(text="No _LOD, _ALT, hidden or shadow meshes")
            return
        lods = sorted({l for _, l, _ in entries if l is not None})
        alts = sorted({a for _, _, a in entries if a is not None})
        now_lod, now_alt = shown_lod_alt(entries)
        every = all(not o.hide_get() for o, _, _ in entries)
        for label, levels, now, prop in (("LOD", lods, now_lod, "lod"),
                                         ("ALT", alts, now_alt, "alt")):
            if not levels:
                continue
            row = layout.row(align=True)
            row.label(text=label)
            for level in levels:
                op = row.operator(ALAMO_OT_lod_alt_show.bl_idname, text=str(level),
                                  depress=not every and level == now)
                setattr(op, prop, level)
        op = layout.operator(ALAMO_OT_lod_alt_show.bl_idname, text="Show All",
                             icon="HIDE_OFF", depress=every)
        op.show_all = not every             # pressed again: back to what the game shows


class VIEW3D_PT_alamo_animation(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY
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
        row.operator("export_anim.alamo_ala", text="Export Active Animation", icon="EXPORT")


class VIEW3D_PT_alamo_validate(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY
    bl_label = "Check Before Export"
    bl_order = 4

    def draw(self, context):
        layout = self.layout
        wm = context.window_manager
        layout.operator(ALAMO_OT_validate.bl_idname, icon="CHECKMARK")
        if not wm.alamo_validation:
            return
        if not len(wm.alamo_problems):
            layout.label(text=wm.alamo_validation, icon="CHECKMARK")
            return
        layout.label(text=wm.alamo_validation)
        layout.template_list("ALAMO_UL_problems", "", wm, "alamo_problems", wm,
                             "alamo_problem_index", item_dyntip_propname="text", rows=3)
        if 0 <= wm.alamo_problem_index < len(wm.alamo_problems):
            p = wm.alamo_problems[wm.alamo_problem_index]
            _wrapped(layout.box(), context, p.text, "ERROR" if p.level == "ERROR" else "INFO")


class MATERIAL_PT_alamo(bpy.types.Panel):
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "material"
    bl_label = "Alamo"

    @classmethod
    def poll(cls, context):
        return getattr(context, "material", None) is not None

    def draw(self, context):
        layout = self.layout
        mat = context.material
        props = mat.alamo
        spec = shaders.find(props.shader)
        row = layout.row(align=True)
        row.context_pointer_set("material", mat)
        op = row.operator_menu_enum(ALAMO_OT_set_shader.bl_idname, "shader",
                                    text=props.shader or "Choose a Shader",
                                    icon="SHADING_RENDERED")
        op.material = mat.name
        op = row.operator(ALAMO_OT_set_shader.bl_idname, text="", icon="GREASEPENCIL")
        op.material = mat.name
        if not props.shader:
            layout.label(text="No Alamo shader: exported with alDefault.fx", icon="INFO")
        elif spec is None:
            _wrapped(layout, context, "A shader the catalogue does not know: its parameters "
                     "are kept as they are", "INFO")
        elif spec.description:
            layout.label(text=spec.description)
        if props.vertex_format:
            layout.label(text=f"Vertex format: {props.vertex_format}", icon="MESH_DATA")
        known = {(p.name.lower(), p.type) for p in spec.params} if spec else None
        col = layout.column()
        for i, p in enumerate(props.params):
            self.draw_param(col, mat, p, i, known)
        row = layout.row(align=True)
        if spec is not None and missing_params(mat):
            op = row.operator(ALAMO_OT_set_shader.bl_idname, text="Add Missing Parameters",
                              icon="ADD")
            op.shader_name = spec.name
            op.material = mat.name
        if spec is None and props.shader:
            op = row.operator(ALAMO_OT_param_add.bl_idname, text="Add Parameter", icon="ADD")
            op.material = mat.name

    def draw_param(self, layout, mat, p, index, known):
        split = layout.split(factor=0.35)
        split.label(text=p.name)
        row = split.row(align=True)
        if p.type == "INT":
            row.prop(p, "int_value", text="")
        elif p.type == "FLOAT":
            row.prop(p, "float_value", text="")
        elif p.type == "FLOAT3":
            row.prop(p, "color3" if is_colour(p) else "float3_value", text="")
        elif p.type == "FLOAT4":
            row.prop(p, "color4" if is_colour(p) else "float4_value", text="")
        else:
            _draw_texture_row(row, p, "texture_file", {"material": mat.name, "index": index})
        if known is None or (p.name.lower(), p.type) not in known:
            op = row.operator(ALAMO_OT_param_remove.bl_idname, text="", icon="X")
            op.material = mat.name
            op.index = index


class VIEW3D_MT_alamo_add(bpy.types.Menu):
    bl_idname = "VIEW3D_MT_alamo_add"
    bl_label = "Alamo"

    def draw(self, context):
        layout = self.layout
        layout.operator(ALAMO_OT_add_proxy.bl_idname, icon="EMPTY_ARROWS")
        layout.operator(ALAMO_OT_add_dazzle.bl_idname, icon="LIGHT_SUN")
        layout.operator(ALAMO_OT_add_light.bl_idname, icon="LIGHT_POINT")


def menu_add(self, context):
    self.layout.menu(VIEW3D_MT_alamo_add.bl_idname, icon="EMPTY_ARROWS")


CLASSES = (
    AlamoProblemObject, AlamoProblem,
    ALAMO_OT_add_proxy, ALAMO_OT_add_dazzle, ALAMO_OT_add_light,
    ALAMO_OT_set_shader, ALAMO_OT_param_add, ALAMO_OT_param_remove,
    ALAMO_OT_texture_pick_image, ALAMO_OT_texture_browse,
    ALAMO_OT_lod_alt_show, ALAMO_OT_validate, ALAMO_OT_select_problem,
    ALAMO_OT_key_visibility, ALAMO_OT_set_action, ALAMO_OT_bind_pose,
    ALAMO_UL_problems, ALAMO_UL_actions,
    VIEW3D_PT_alamo_object, VIEW3D_PT_alamo_bone, VIEW3D_PT_alamo_lod_alt,
    VIEW3D_PT_alamo_animation, VIEW3D_PT_alamo_validate, MATERIAL_PT_alamo,
    VIEW3D_MT_alamo_add,
)

# The session's validation results and list positions (not saved with the file).
WINDOW_MANAGER_PROPERTIES = (
    ("alamo_problems", CollectionProperty(type=AlamoProblem)),
    ("alamo_problem_index", IntProperty(default=-1, update=_problem_clicked)),
    ("alamo_validation", StringProperty()),
    ("alamo_action_index", IntProperty(default=-1, update=_action_clicked)),
)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    for owner, name, prop in VIEW_PROPERTIES:
        setattr(owner, name, prop)
    for name, prop in WINDOW_MANAGER_PROPERTIES:
        setattr(bpy.types.WindowManager, name, prop)
    bpy.types.VIEW3D_MT_add.append(menu_add)


def unregister():
    bpy.types.VIEW3D_MT_add.remove(menu_add)
    for name, _ in reversed(WINDOW_MANAGER_PROPERTIES):
        delattr(bpy.types.WindowManager, name)
    for owner, name, _ in reversed(VIEW_PROPERTIES):
        delattr(owner, name)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
