"""The material panel: the Alamo shader and its parameters, with colour pickers and texture
fields.

The colour pickers and texture fields are view-only properties attached to the property
groups of props.py at registration: they read and write the stored values
(``float4_value``, ``texture``...), so export sees nothing new, and an edit made through them
updates the material preview."""

import bpy
from bpy.props import EnumProperty, FloatVectorProperty, IntProperty, StringProperty

from ....formats.alamo import shaders
from ..shading import (BLANK_VALUES, add_param, is_colour, missing_params, refresh_material_preview,
                       switch_shader)
from ..props import PARAM_TYPE_ITEMS, AlamoShaderParam
from .shared import register_factory, wrapped
from .textures import draw_texture_row

SHADER_ITEMS = [(s.name, s.name, f"{s.description or s.name} ({s.kind} shader)")
                for s in (shaders.find(n) for n in shaders.names())]


def _material(context, name):
    if name:
        return bpy.data.materials.get(name)
    return getattr(context, "material", None)


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
        refresh_material_preview(context, mat)
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
        add_param(mat.alamo, name, self.type, BLANK_VALUES[self.type])
        refresh_material_preview(context, mat)
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
        refresh_material_preview(context, mat)
        return {"FINISHED"}


# View-only properties attached to props.py's groups at registration (see the module doc).

def _param_edited(param):
    mat = param.id_data
    if isinstance(mat, bpy.types.Material):
        refresh_material_preview(bpy.context, mat)


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
            wrapped(layout, context, "A shader the catalogue does not know: its parameters "
                    "are kept as they are", "INFO")
        elif spec.description:
            layout.label(text=spec.description)
        if props.shader:
            self.draw_preview_note(layout, context, props.shader)
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

    def draw_preview_note(self, layout, context, shader):
        """Which preview recipe draws the shader, and where its team colour comes from."""
        family = shaders.family(shader)
        text = f"Preview: {family}"
        if family.endswith("colorize"):
            team = getattr(context.scene, "alamo_team", None)
            text += ", team colour " + ("from the sidebar" if team is not None and
                                         team.override else "from Colorization")
        layout.label(text=text, icon="MATERIAL")

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
            draw_texture_row(row, p, "texture_file", {"material": mat.name, "index": index})
        if known is None or (p.name.lower(), p.type) not in known:
            op = row.operator(ALAMO_OT_param_remove.bl_idname, text="", icon="X")
            op.material = mat.name
            op.index = index


CLASSES = (ALAMO_OT_set_shader, ALAMO_OT_param_add, ALAMO_OT_param_remove, MATERIAL_PT_alamo)
register, unregister = register_factory(CLASSES, VIEW_PROPERTIES)
