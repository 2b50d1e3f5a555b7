"""Records to properties and back: what import sets on ``obj.alamo_emitter`` and what export
reads from it. Values are moved whole; a value the properties cannot hold exactly as the file
did (a flag byte of 2, a colour key above 2**24) is written back as the file had it unless the
property was edited."""

import numpy as np

from ....formats.alamo.particles import codec
from ....formats.alamo.particles.records import NO_EMITTER, PROPERTY_FIELDS
from .props import ENUMS, FLAGS, to_signed, to_unsigned

_VECTORS = {"min": ("min_x", "min_y", "min_z"), "max": ("max_x", "max_y", "max_z"),
            "val": ("val_x", "val_y", "val_z")}
_FLAG_FIELDS = ("sphere_surface", "cylinder_surface")
_SCALARS = ("side_length", "sphere_radius", "cylinder_radius", "cylinder_height")


def _f32(value):
    return float(np.float32(value))


def emitter_to_props(e, p, index):
    p.index = index
    p.name = e.name
    p.texture, p.secondary_texture = e.texture, e.secondary_texture
    p.death = -1 if e.death == NO_EMITTER else to_signed(e.death)
    p.birth = -1 if e.birth == NO_EMITTER else to_signed(e.birth)
    for _, name, kind, _ in PROPERTY_FIELDS:
        if name == "index":
            continue
        value = getattr(e, name)
        if name in ENUMS:
            items = ENUMS[name]
            if value < len(items):
                setattr(p, name, items[value].upper())
        elif name in FLAGS:
            setattr(p, name, bool(value))
        elif kind in ("u8", "u32"):
            setattr(p, name, to_signed(int(value)))
        else:
            setattr(p, name, value)
    p.groups.clear()
    for g in e.groups:
        pg = p.groups.add()
        pg.type = _group_type(g.type, pg)
        for vec, names in _VECTORS.items():
            setattr(pg, vec, tuple(getattr(g, n) for n in names))
        for n in _SCALARS:
            setattr(pg, n, getattr(g, n))
        for n in _FLAG_FIELDS:
            setattr(pg, n, bool(getattr(g, n)))
    p.tracks.clear()
    for t in e.tracks:
        pt = p.tracks.add()
        pt.name = t.name
        pt.first_key, pt.last_key = float(t.first_key), float(t.last_key)
        if t.interpolation < 3:
            pt.interpolation = ("LINEAR", "COSINE", "STEP")[t.interpolation]
        n = len(t.keys)
        for _ in range(n):
            pt.keys.add()
        if n:
            pt.keys.foreach_set("time", t.keys["time"].astype(np.float32))
            pt.keys.foreach_set("value", t.keys["value"].astype(np.float32))


def _group_type(value, pg):
    items = [i.identifier for i in pg.bl_rna.properties["type"].enum_items]
    return items[value] if value < len(items) else items[0]


def _enum_index(p, name):
    return p.bl_rna.properties[name].enum_items[getattr(p, name)].value


def props_to_emitter(p, e):
    """Set the record ``e`` from the properties ``p``, changing only values that differ."""
    e.name = p.name
    e.texture, e.secondary_texture = p.texture, p.secondary_texture
    e.death = NO_EMITTER if p.death < 0 else p.death
    e.birth = NO_EMITTER if p.birth < 0 else p.birth
    for _, name, kind, _ in PROPERTY_FIELDS:
        if name == "index":
            e.index = max(p.index, 0)
            continue
        old = getattr(e, name)
        if name in ENUMS:
            new = _enum_index(p, name)
            if old >= len(ENUMS[name]):
                continue                        # a value the menu cannot show: kept
        elif name in FLAGS:
            new = old if bool(old) == getattr(p, name) else int(getattr(p, name))
        elif kind in ("u8", "u32"):
            new = to_unsigned(getattr(p, name))
        elif kind == "f32":
            new = old if codec.same(_f32(old), _f32(getattr(p, name))) else \
                _f32(getattr(p, name))
        else:
            value = tuple(_f32(v) for v in getattr(p, name))
            new = old if codec.same(tuple(_f32(v) for v in old), value) else value
        setattr(e, name, new)
    for g, pg in zip(e.groups, p.groups):
        _props_to_group(pg, g)
    for t, pt in zip(e.tracks, p.tracks):
        _props_to_track(pt, t)


def _props_to_group(pg, g):
    kind = _enum_index(pg, "type")
    if g.type < 5:
        g.type = kind
    for vec, names in _VECTORS.items():
        for n, v in zip(names, getattr(pg, vec)):
            _set_float(g, n, v)
    for n in _SCALARS:
        _set_float(g, n, getattr(pg, n))
    for n in _FLAG_FIELDS:
        if bool(getattr(g, n)) != getattr(pg, n):
            setattr(g, n, int(getattr(pg, n)))


def _set_float(rec, name, value):
    if not codec.same(_f32(getattr(rec, name)), _f32(value)):
        setattr(rec, name, _f32(value))


def _props_to_track(pt, t):
    if t.interpolation < 3:
        t.interpolation = _enum_index(pt, "interpolation")
    for n in ("first_key", "last_key"):
        new = getattr(pt, n)
        if t.is_colour:
            if float(getattr(t, n)) != new:
                setattr(t, n, int(round(min(max(new, 0), 255))))
        else:
            _set_float(t, n, new)
    n = len(pt.keys)
    times = np.zeros(n, np.float32)
    values = np.zeros(n, np.float32)
    if n:
        pt.keys.foreach_get("time", times)
        pt.keys.foreach_get("value", values)
    old = t.keys
    if len(old) == n and np.array_equal(old["time"].astype(np.float32).view(np.uint32),
                                        times.view(np.uint32)) \
            and np.array_equal(old["value"].astype(np.float32), values):
        return
    order = np.argsort(times, kind="stable")      # keys moved past others: in time order
    times, values = times[order], values[order]
    keys = np.zeros(n, t.key_dtype)
    keys["time"] = times
    keys["value"] = np.clip(np.rint(values), 0, 2**32 - 1) if t.is_colour else values
    t.keys = keys
