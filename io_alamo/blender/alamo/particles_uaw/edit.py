"""Universe at War emitters as objects: made on import (a mesh object per emitter, its
``alamo_emitter.index``, name, texture and image, its parameters in ``obj.alamo_uaw``), laid
back onto the file's chunks on export (only edited values change), and the preview's model of
each (the file as edited, through :mod:`...formats.alamo.particles.uaw_play`)."""

import bpy

from ....formats.alamo.particles import read_particles, uaw_list, uaw_params, uaw_play
from ....formats.alamo.particles.records import PROPERTY_FIELDS
from ...results import ExportError
from ...source import content_key, get_source
from ..particles.keys import SOURCE_EMITTER_KEY, SOURCE_KEY
from ..particles.sync import live_emitters, sync_system
from . import props as uaw_props

_models = {}                                 # system object name -> (key, [Emitter])


def emitter_object(tx, coll, parent, emitter, index, image_for):
    """The object of UaW emitter ``index`` (a mesh, so the preview draws it)."""
    name = emitter.name or f"emitter {index}"
    obj = tx.add(bpy.data.objects.new(name, tx.add(bpy.data.meshes.new(name))))
    obj.parent = parent
    obj.display_type = "WIRE"
    obj[SOURCE_EMITTER_KEY] = index
    obj.alamo_uaw.source = index
    coll.objects.link(obj)
    p = obj.alamo_emitter
    p.index = index
    p.texture = ""
    uaw_props.fill(obj.alamo_uaw, emitter, p)
    p.image = image_for(p.texture) if p.texture else None
    return obj


def uaw_children(system_obj):
    """The system's emitter objects in the scene, in file order (the EaW emitters' order)."""
    return live_emitters(system_obj)


def source_of(obj):
    """The file's emitter an object stands for: its own (imported) or, for a copy (Shift+D),
    the one it was copied from; None for an emitter the file has no plugins for."""
    if not obj.alamo_uaw.is_uaw:
        return None
    k = obj.get(SOURCE_EMITTER_KEY)
    if isinstance(k, int):
        return k
    return obj.alamo_uaw.source if obj.alamo_uaw.source >= 0 else None


def _collect(system_obj):
    """(order, names, values, objects) of the system's emitter objects: the file's emitter
    each place takes, the places' names and parameter values (keys by place)."""
    names, values = {}, {}
    objs = uaw_children(system_obj)
    order = [source_of(o) for o in objs]
    for place, obj in enumerate(objs):
        if order[place] is not None:
            n, v = uaw_props.edits(obj.alamo_uaw, obj.alamo_emitter, place)
            names.update(n)
            values.update(v)
    return order, names, values, objs


def _all_edits(system_obj, count):
    """(order, names, values) to write; an ExportError naming the object when an emitter is
    not one of the file's (an EaW emitter added to a UaW effect) or holds EaW fields."""
    order, names, values, objs = _collect(system_obj)
    for obj, k in zip(objs, order):
        if k is None or k >= count:
            raise ExportError([f"{obj.name}: a Universe at War effect holds only its own "
                               f"emitters (plugins); duplicate one of them (Shift+D) to add "
                               f"an emitter"], [obj])
        lost = unwritable(obj)
        if lost:
            raise ExportError([f"{obj.name}: a Universe at War emitter has no place for "
                               f"{', '.join(lost)} (its plugins hold other parameters: edit "
                               f"those in its Universe at War panel)"], [obj])
    if not objs:
        raise ExportError([f"{system_obj.name}: all the emitters of this Universe at War "
                           f"effect were deleted; it needs at least one"], [system_obj])
    return order, names, values


def _default(rna):
    if getattr(rna, "is_array", False) or getattr(rna, "array_length", 0):
        return tuple(rna.default_array)
    return rna.default


def unwritable(obj):
    """The EaW emitter fields (``obj.alamo_emitter``) set on a UaW emitter object that its
    file has no place for: a texture or lifetime without the plugin parameter, any other
    EaW field changed from what the import left (its default)."""
    fields, u = obj.alamo_emitter, obj.alamo_uaw
    lost = []
    if tuple(u.texture_at) == (-1, -1) and fields.texture:
        lost.append("texture")
    props = fields.bl_rna.properties
    for name in (n for _, n, _, _ in PROPERTY_FIELDS if n in props and n != "index"):
        if name == "lifetime" and tuple(u.lifetime_at) != (-1, -1):
            continue
        value = getattr(fields, name)
        value = tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) \
            else value
        if value != _default(props[name]):
            lost.append(name)
    return lost


def _edited(system, order, names, values):
    """A new system: ``system``'s emitters in ``order``, renamed, links fixed, values set."""
    new = uaw_list.rebuild(system, order, names)
    uaw_params.apply_edits(new, {}, values)
    return new


def build(system_obj, system):
    """The system to write: ``system`` (read from the kept bytes) with the objects' emitters
    deleted, duplicated, reordered, renamed and edited as the scene holds them."""
    sync_system(system_obj)          # copies apart, indices renumbered, names in step
    order, names, values = _all_edits(system_obj, len(system.emitters))
    try:
        return _edited(system, order, names, values)
    except Exception as e:       # noqa: BLE001 - AlamoFormatError, named with the system
        raise ExportError([f"{system_obj.name}: {e}"], [system_obj]) from None


def model_from_uaw(obj):
    """The simulator's model of a UaW emitter object as edited, or None for other objects."""
    u = getattr(obj, "alamo_uaw", None) if obj is not None else None
    if u is None or not u.is_uaw or obj.parent is None:
        return None
    root = obj.parent
    data = get_source(root, SOURCE_KEY)
    if data is None:
        return None
    order, names, values, objs = _collect(root)
    key = (content_key(data), tuple(order), tuple(sorted(values.items())),
           tuple(sorted(names.items())))
    held = _models.get(root.name)
    if held is None or held[0] != key:
        system = read_particles(bytes(data))
        try:
            found = uaw_play.models(_edited(system, order, names, values))
        except Exception:        # noqa: BLE001 - the preview shows each as the file has it
            found = uaw_play.models(system)
            found = [found[k] if k is not None and k < len(found) else None for k in order]
        held = _models[root.name] = (key, found)
    place = next((i for i, o in enumerate(objs) if o == obj), None)
    if place is None or place >= len(held[1]) or held[1][place] is None:
        return None
    model = held[1][place]
    model.index = obj.alamo_emitter.index
    return model
