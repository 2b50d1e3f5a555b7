"""Universe at War emitters as objects: made on import (a mesh object per emitter, its
``alamo_emitter.index``, name, texture and image, its parameters in ``obj.alamo_uaw``), laid
back onto the file's chunks on export (only edited values change), and the preview's model of
each (the file as edited, through :mod:`...formats.alamo.particles.uaw_play`)."""

import bpy

from ....formats.alamo.particles import read_particles, uaw_params, uaw_play
from ....formats.alamo.particles.records import PROPERTY_FIELDS
from ...results import ExportError
from ...source import get_source
from ..particles.keys import SOURCE_EMITTER_KEY, SOURCE_KEY
from . import props as uaw_props

_models = {}                                 # system object name -> (key, [Emitter])


def emitter_object(tx, coll, parent, emitter, index, image_for):
    """The object of UaW emitter ``index`` (a mesh, so the preview draws it)."""
    name = emitter.name or f"emitter {index}"
    obj = tx.add(bpy.data.objects.new(name, tx.add(bpy.data.meshes.new(name))))
    obj.parent = parent
    obj.display_type = "WIRE"
    obj[SOURCE_EMITTER_KEY] = index
    coll.objects.link(obj)
    p = obj.alamo_emitter
    p.index = index
    p.texture = ""
    uaw_props.fill(obj.alamo_uaw, emitter, p)
    p.image = image_for(p.texture) if p.texture else None
    return obj


def uaw_children(system_obj):
    return sorted((o for o in system_obj.children if o.alamo_uaw.is_uaw),
                  key=lambda o: o.alamo_emitter.index)


def _collect(system_obj):
    """(names, values, objects, their source places) of the system's UaW emitter objects."""
    names, values = {}, {}
    objs = uaw_children(system_obj)
    sources = [o.get(SOURCE_EMITTER_KEY) for o in objs]
    for obj, k in zip(objs, sources):
        if isinstance(k, int):
            n, v = uaw_props.edits(obj.alamo_uaw, obj.alamo_emitter, k)
            names.update(n)
            values.update(v)
    return names, values, objs, sources


def _all_edits(system_obj, count):
    """The edits to write; an ExportError naming the objects when the scene's emitters are
    no longer the file's (added, deleted, duplicated, reordered: not written yet)."""
    names, values, objs, sources = _collect(system_obj)
    if len(sources) != count or sorted(s for s in sources if isinstance(s, int)) != \
            list(range(count)):
        raise ExportError([f"{system_obj.name}: Universe at War emitters cannot be added, "
                           f"deleted or duplicated yet (the file has {count}, the scene "
                           f"{len(objs)}); only their parameters are written"], objs)
    for obj, k in zip(objs, sources):
        lost = unwritable(obj)
        if lost:
            raise ExportError([f"{obj.name}: a Universe at War emitter has no place for "
                               f"{', '.join(lost)} (its plugins hold other parameters: edit "
                               f"those in its Universe at War panel)"], [obj])
        if obj.alamo_emitter.index != k:
            raise ExportError([f"{obj.name}: Universe at War emitters cannot be reordered "
                               f"yet (index {obj.alamo_emitter.index}, file place {k})"], [obj])
    return names, values


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


def build(system_obj, system):
    """``system`` (read from the kept bytes) with the objects' edits laid on."""
    names, values = _all_edits(system_obj, len(system.emitters))
    try:
        uaw_params.apply_edits(system, names, values)
    except Exception as e:       # noqa: BLE001 - AlamoFormatError, named with the system
        raise ExportError([f"{system_obj.name}: {e}"], [system_obj]) from None
    return system


def model_from_uaw(obj):
    """The simulator's model of a UaW emitter object as edited, or None for other objects."""
    u = getattr(obj, "alamo_uaw", None) if obj is not None else None
    if u is None or not u.is_uaw or obj.parent is None:
        return None
    root = obj.parent
    data = get_source(root, SOURCE_KEY)
    if data is None:
        return None
    names, values, _, _ = _collect(root)
    key = (len(data), hash(bytes(data[:256])), tuple(sorted(values.items())),
           tuple(sorted(names.items())))
    held = _models.get(root.name)
    if held is None or held[0] != key:
        system = read_particles(bytes(data))
        try:
            uaw_params.apply_edits(system, names, values)
        except Exception:        # noqa: BLE001 - the preview shows the file as it was
            system = read_particles(bytes(data))
        held = _models[root.name] = (key, uaw_play.models(system))
    k = obj.get(SOURCE_EMITTER_KEY)
    found = held[1]
    if not isinstance(k, int) or not 0 <= k < len(found):
        return None
    model = found[k]
    model.index = obj.alamo_emitter.index
    return model
