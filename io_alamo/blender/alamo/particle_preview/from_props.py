"""The simulator's model of an emitter imported for editing, read from its properties
(``obj.alamo_emitter``, the specification's fields): what makes an edit show at once."""

import numpy as np

from ....formats.alamo.particles import sampling, simulate
from ...results import ExportError
from ..particles.placement import GROUP_TYPES_WITH_OFFSET, moved_group_values

_GROUP_VECTORS = {"min": ("min_x", "min_y", "min_z"), "max": ("max_x", "max_y", "max_z"),
                  "val": ("val_x", "val_y", "val_z")}
_GROUP_SCALARS = ("side_length", "sphere_radius", "sphere_surface", "cylinder_radius",
                  "cylinder_surface", "cylinder_height")
_SKIP = {"index", "birth", "death", "velocity_group", "position_group", "curves"}


class _Group:
    """A property group's values, as the simulator reads them."""

    def __init__(self, pg):
        self.type = pg.bl_rna.properties["type"].enum_items[pg.type].value
        for vec, names in _GROUP_VECTORS.items():
            for name, value in zip(names, getattr(pg, vec)):
                setattr(self, name, float(value))
        for name in _GROUP_SCALARS:
            setattr(self, name, float(getattr(pg, name)))


def _moved(obj, group):
    """The position group moved by the emitter object's move, as the export writes it (a
    move the file cannot hold, which the export refuses, is not shown)."""
    names = GROUP_TYPES_WITH_OFFSET.get(group.type, ())
    try:
        moved = moved_group_values(obj, group.type, {n: getattr(group, n) for n in names})
    except ExportError:
        return group
    for n in names:
        setattr(group, n, moved[n])
    return group


def _curve(track):
    n = len(track.keys)
    times = np.zeros(n, np.float32)
    values = np.zeros(n, np.float32)
    if n:
        track.keys.foreach_get("time", times)
        track.keys.foreach_get("value", values)
    interpolation = track.bl_rna.properties["interpolation"].enum_items[
        track.interpolation].value
    return sampling.Curve(np.concatenate(([0.0], times, [1.0])),
                          np.concatenate(([track.first_key], values, [track.last_key])),
                          interpolation)


def _value(p, name):
    value = getattr(p, name)
    rna = p.bl_rna.properties[name]
    if rna.type == "ENUM":
        return rna.enum_items[value].value
    if rna.type in ("FLOAT", "INT") and getattr(rna, "array_length", 0):
        return tuple(value)
    return value


_cache = {}             # obj pointer -> (fingerprint, model): rebuilt only after an edit


def _stored(obj):
    """The emitter properties' stored values as plain data (one C call), or None where
    Blender does not give them: with the object's own transform (a move shifts the position
    group), what the model is made from; unset fields are their (fixed) defaults."""
    system = getattr(obj, "bl_system_properties_get", None)    # Blender 5.0 keeps them apart
    group = (system() if system is not None else obj).get("alamo_emitter")
    if group is None or not hasattr(group, "to_dict"):
        return None
    return (group.to_dict(), tuple(map(tuple, obj.matrix_parent_inverse)),
            tuple(map(tuple, obj.matrix_basis)))


def model_from_props(obj):
    """A ``simulate.Emitter`` of ``obj``'s emitter properties, or None when it has none; kept
    between frames while the properties and the object's transform stay the same."""
    p = getattr(obj, "alamo_emitter", None) if obj is not None else None
    if p is None or p.index < 0:
        return None
    fingerprint = _stored(obj)
    held = _cache.get(obj.as_pointer())
    if fingerprint is not None and held is not None and held[0] == fingerprint:
        return held[1]
    model = _build(obj, p)
    if fingerprint is not None:
        if len(_cache) > 4096:
            _cache.clear()
        _cache[obj.as_pointer()] = (fingerprint, model)
    return model


def _build(obj, p):
    fields = simulate.Emitter.__dataclass_fields__
    values = {name: _value(p, name) for name in fields
              if name not in _SKIP and name in p.bl_rna.properties}
    values["index"] = p.index
    values["birth"] = p.birth if p.birth >= 0 else simulate.NO_EMITTER
    values["death"] = p.death if p.death >= 0 else simulate.NO_EMITTER
    groups = list(p.groups)
    values["velocity_group"] = _Group(groups[0]) if len(groups) > 0 else None
    values["position_group"] = _moved(obj, _Group(groups[2])) if len(groups) > 2 else None
    values["curves"] = {t.name: _curve(t) for t in p.tracks if t.name in simulate.TRACKS}
    return simulate.Emitter(**values)
