"""``obj.alamo_uaw``: a Universe at War emitter's editable plugin parameters, one item per
parameter (where it is in the file, its type, its value), and the panel that edits them.
Only what the format layer can write is here (:mod:`...formats.alamo.particles.uaw_params`):
what is not listed is kept as the file has it and is not editable."""

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       FloatVectorProperty, IntProperty, IntVectorProperty, PointerProperty,
                       StringProperty)

from ....formats.alamo.particles import uaw_params as up

#: parameter type -> the property holding its value
VALUE_PROP = {up.FLOAT: "float_value", up.INT: "int_value", up.BOOL: "bool_value",
              up.COLOUR: "colour_value", up.TEXT: "text_value", up.SHAPE: "shape_value",
              up.VECTOR: "vector_value"}
_TUPLES = (up.COLOUR, up.VECTOR)
_SHAPE_ITEMS = [(name.upper(), name.replace("_", " ").title(), f"A {name.replace('_', ' ')} "
                 "property group", i) for i, name in enumerate(up.SHAPES)]


class AlamoUawParam(bpy.types.PropertyGroup):
    label: StringProperty(name="Parameter")
    plugin: IntProperty(name="Plugin Chunk", description="The plugin chunk's place in its "
                        "emitter")
    param: IntProperty(name="Parameter Id")
    kind: StringProperty(name="Type")
    float_value: FloatProperty(name="Value")
    int_value: IntProperty(name="Value")
    bool_value: BoolProperty(name="Value")
    colour_value: FloatVectorProperty(name="Value", size=4, subtype="COLOR", soft_min=0.0,
                                      soft_max=1.0)
    text_value: StringProperty(name="Value")
    shape_value: EnumProperty(name="Shape", items=_SHAPE_ITEMS)
    vector_value: FloatVectorProperty(name="Value", size=3, subtype="XYZ")
    offset: IntProperty(name="Offset", default=-1, description="A property group's field: "
                        "its place in the group's bytes (-1: a whole parameter)")
    field: StringProperty(name="Field", description="A property group's field name")


#: parameters edited through the EaW emitter's own fields (``obj.alamo_emitter``): the
#: first renderer's texture and the first killer's lifetime
MIRRORED = {"texture": "renderer", "lifetime": "killer"}


class AlamoUawEmitter(bpy.types.PropertyGroup):
    is_uaw: BoolProperty(name="Universe at War Emitter", default=False)
    source: IntProperty(name="Source Emitter", default=-1, description="The file's emitter "
                        "this one stands for (a copy keeps its original's)")
    params: CollectionProperty(type=AlamoUawParam)
    texture_at: IntVectorProperty(name="Texture Parameter", size=2, default=(-1, -1))
    lifetime_at: IntVectorProperty(name="Lifetime Parameter", size=2, default=(-1, -1))


def fill(props, emitter, fields):
    """Fill ``props`` (an ``AlamoUawEmitter``) from a format-layer ``UawEmitter``; its name,
    first texture and lifetime go to ``fields`` (``obj.alamo_emitter``), as EaW emitters'."""
    props.is_uaw = True
    fields.name = emitter.name
    props.params.clear()
    for p in up.emitter_parameters(emitter):
        mirror = f"{p.name}_at"
        if MIRRORED.get(p.name) == p.slot and tuple(getattr(props, mirror)) == (-1, -1):
            setattr(props, mirror, (p.plugin, p.param))
            setattr(fields, p.name, p.value)
            continue
        item = props.params.add()
        item.label, item.plugin, item.param, item.kind = p.label, p.plugin, p.param, p.kind
        item.offset = p.offset
        item.field = p.name.split("_", 1)[1] if p.offset >= 0 else ""
        value = tuple(p.value) if p.kind in _TUPLES else \
            up.SHAPES[p.value].upper() if p.kind == up.SHAPE else p.value
        setattr(item, VALUE_PROP[p.kind], value)


def value_of(item):
    value = getattr(item, VALUE_PROP[item.kind])
    if item.kind == up.SHAPE:
        return up.SHAPES.index(value.lower())
    return tuple(value) if item.kind in _TUPLES else value


def key_of(item, index):
    """The format layer's key of a parameter item of emitter ``index``."""
    head = (index, item.plugin, item.param)
    return head if item.offset < 0 else head + (item.offset,)


def shown(items):
    """The items the panel shows: a property group's fields only when its shape uses them."""
    shapes = {(i.plugin, i.param): i.shape_value.lower() for i in items if i.kind == up.SHAPE}
    return [i for i in items if (i.plugin, i.param) not in shapes or i.kind == up.SHAPE
            or i.field in up.SHAPE_FIELDS.get(shapes[(i.plugin, i.param)], ())]


def edits(props, fields, index):
    """(names, values) for :func:`uaw_params.apply_edits` of one emitter object (``props``
    its ``alamo_uaw``, ``fields`` its ``alamo_emitter``): every parameter's value (only those
    that differ from the file are written)."""
    values = {key_of(item, index): value_of(item) for item in props.params}
    for name in MIRRORED:
        at = tuple(getattr(props, f"{name}_at"))
        if at != (-1, -1):
            values[(index, *at)] = getattr(fields, name)
    return {index: fields.name}, values


def _is_uaw(context):
    return context.object is not None and context.object.alamo_uaw.is_uaw


class OBJECT_PT_alamo_uaw_emitter(bpy.types.Panel):
    """Object properties: a Universe at War emitter's name, texture, lifetime and other
    editable plugin parameters."""

    bl_space_type, bl_region_type, bl_context = "PROPERTIES", "WINDOW", "object"
    bl_label = "Alamo Particle (Universe at War)"
    poll = classmethod(lambda cls, context: _is_uaw(context))

    def draw(self, context):
        u, fields = context.object.alamo_uaw, context.object.alamo_emitter
        col = self.layout.column()
        col.prop(fields, "name")
        if tuple(u.texture_at) != (-1, -1):
            col.prop(fields, "texture")
        if tuple(u.lifetime_at) != (-1, -1):
            col.prop(fields, "lifetime")
        col.label(text=f"Emitter {context.object.alamo_emitter.index}: plugin parameters")
        for item in shown(u.params):
            col.prop(item, VALUE_PROP[item.kind], text=item.label)
        col.label(text="Other plugins and parameters are kept as the file has them")


CLASSES = (AlamoUawParam, AlamoUawEmitter, OBJECT_PT_alamo_uaw_emitter)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Object.alamo_uaw = PointerProperty(type=AlamoUawEmitter)


def unregister():
    del bpy.types.Object.alamo_uaw
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
