"""Universe at War emitters on the particle simulator: each emitter's plugins mapped onto the
:class:`simulate.Emitter` model EaW emitters use, so that UaW effects preview with the same
closed-form simulator (spawning, lifetimes, motion, sizes, colours, death and trail links).

What the plugins mean is read in the alo-viewer's plugin code (read, never copied):
- shape creators (34 shape, 35 enhanced mesh, 39 enhanced trail, 43 aligned shape, 50 outward
  velocity shape): ``particles_per_interval`` every ``spawn_interval`` seconds when
  ``bursting``, else one particle every ``spawn_interval / particles_per_interval`` s, from
  ``start_delay``, while the emitter's time is below ``stop_time`` (0: for ever); position
  and velocity from property groups (105, 107); the death creator (40) gives one burst of
  ``particles_per_interval`` where a particle of the emitter it names (109) dies (when that
  emitter's killer has "spawn on age", parameter 3), the enhanced
  trail creator follows the particles of the one it names (300);
- simple creators (0-4): ``particles_per_second`` in random directions at ``speed``;
- killers (19-21, 44): ``lifetime`` seconds; its variation shortens it as FORMAT-NOTES says of
  EaW (a value above 1 is read as a percentage);
- constant size (57) ``size`` and linear size (7) ``start_size`` -> ``end_size`` between the
  life fractions ``start_time`` and ``end_time``: half the quad's width (the viewer halves an
  EaW width into them), the variation ``v`` a uniform ``1 +/- v``;
- constant colour (59) and linear colour (8): RGBA in 0..1;
- the renderer's texture, and its shader: additive when its name says so, else alpha.
Property groups (every shape, hollow or filled) sample as the viewer's do
(:mod:`uaw_shapes`); the simple sphere, box and torus creators start on their shape and fly
out at their speed. Blender-free: numpy only.
"""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from . import sampling as rnd
from . import simulate as sim
from . import uaw_shapes as shapes
from .uaw import chunk_text
from .uaw_params import (GROUP_PARAMS, PARENT_NAME_PARAMS, emitter_parameters, group_leaf,
                         key_list, plugin_parameters, plugins)



def decode_group(chunk, hollow=False):
    """The simulator's group of a UaW property group value chunk, or None."""
    leaf = group_leaf(chunk)
    return None if leaf is None else shapes.UawGroup.of_bytes(bytes(leaf.data), hollow)


def _values(emitter):
    """{name: value} of the emitter's editable parameters (the last plugin wins)."""
    return {p.name: p.value for p in emitter_parameters(emitter)}


def _spawning(values, out):
    ppi = float(values.get("particles_per_interval", 0.0))
    gap = float(values.get("spawn_interval", 1.0))
    delay = float(values.get("start_delay", 0.0))
    stop = float(values.get("stop_time", 0.0))
    out["initial_delay"] = max(delay, 0.0)
    out["skip_time"] = max(float(values.get("pre_simulate_seconds", 0.0)), 0.0)
    if values.get("bursting"):
        per, every = int(max(ppi, 0.0)), gap
    elif ppi > 0 and gap > 0:
        per, every = 1, gap / ppi
    else:
        out["num_particles_per_second"] = 0
        return
    if stop > 0 and every > 0:      # a stop time: a counted run (a stream as bursts of one)
        count = int(np.ceil((stop - delay) / every - 1e-9)) if stop > delay else 0
        out.update(in_bursts=True, num_particles_per_burst=per, burst_delay=every,
                   num_bursts=max(count, 0))
        if count <= 0:
            out["num_particles_per_burst"] = 0
    elif values.get("bursting"):
        out.update(in_bursts=True, num_particles_per_burst=per, burst_delay=every, num_bursts=0)
    else:
        out["num_particles_per_second"] = 1.0 / every


def _simple(values, out):
    """A simple creator: a stream; the point creator's particles fly in random directions at
    ``speed`` varied by ``+/- variation`` percent of itself, the sphere's, box's and torus's
    start on their shape and fly straight out from the emitter at ``speed``."""
    out["num_particles_per_second"] = max(float(values["particles_per_second"]), 0.0)
    speed = float(values.get("speed", 0.0))
    if "sphere_radius" in values:
        out["position_group"] = shapes.group("sphere", True, radius_max=values["sphere_radius"])
    elif "box_length" in values:
        half = [0.5 * float(values[f"box_{k}"]) for k in ("length", "width", "height")]
        out["position_group"] = shapes.group("range", **{f"min_{a}": -h for a, h in
                                                         zip("xyz", half)},
                                             **{f"max_{a}": h for a, h in zip("xyz", half)})
    elif "torus_radius" in values:
        out["position_group"] = shapes.group("torus", torus_radius=values["torus_radius"],
                                             tube_radius=values["tube_radius"])
    if "position_group" in out:
        out["inward_speed"] = speed                  # along emitter -> start, added
        return
    v = min(abs(float(values.get("speed_variation", 0.0))) / 100.0, 1.0)   # a percentage
    out["velocity_group"] = shapes.group("sphere", radius_min=speed * (1 - v),
                                         radius_max=speed * (1 + v))


def _curve(times, values):
    return rnd.Curve(np.asarray(times, np.float64), np.asarray(values, np.float64))


def _looks(values, out):
    curves = {}
    if "start_size" in values:
        a, b = 2.0 * float(values["start_size"]), 2.0 * float(values["end_size"])
        t0 = float(values.get("start_time", 0.0))
        t1 = float(values.get("end_time", 1.0))
        curves["size"] = _curve([0, t0, t1, 1], [a, a, b, b])
    elif "size" in values:
        width = 2.0 * float(values["size"])
        curves["size"] = _curve([0, 1], [width, width])
    v = abs(float(values.get("size_variation", 0.0)))
    if v and "size" in curves:           # 1 +/- v as a width * (1 - r .. 1)
        curves["size"] = rnd.Curve(curves["size"].times, curves["size"].values * (1 + v))
        out["randomized_scale"] = min(2 * v / (1 + v), 1.0)
    if "start_colour" in values:
        a = np.asarray(values["start_colour"], np.float64) * 255.0
        b = np.asarray(values["end_colour"], np.float64) * 255.0
        t0 = float(values.get("start_time", 0.0))
        t1 = float(values.get("end_time", 1.0))
        for i, name in enumerate(sim.TRACKS[:4]):
            curves[name] = _curve([0, t0, t1, 1], [a[i], a[i], b[i], b[i]])
    elif "colour" in values:
        c = np.asarray(values["colour"], np.float64) * 255.0
        for i, name in enumerate(sim.TRACKS[:4]):
            curves[name] = _curve([0, 1], [c[i], c[i]])
    out["curves"] = curves


def _smooth(times, values, steps=32):
    """A smooth-stepped key list (the viewer's ``cubic``: 3s^2 - 2s^3 between keys) as a
    dense linear one."""
    s = np.linspace(0.0, 1.0, steps + 1)[:-1]
    ease = 3 * s * s - 2 * s ** 3
    t = np.concatenate([a + (b - a) * s for a, b in zip(times[:-1], times[1:])] + [times[-1:]])
    v = np.concatenate([a + (b - a) * ease[:, None] for a, b in zip(values[:-1], values[1:])]
                       + [values[-1:]])
    return t, v


def _keys(pid, params, smooth):
    """(times, values (n, k)) of a keyed modifier's list in life fractions 0..1, held flat
    before the first and after the last key as the viewer's cursor does; None if empty."""
    found = key_list(pid, params)
    if found is None or found[2] == 0:
        return None
    chunk, kind, count, stride = found
    rows = np.frombuffer(bytes(chunk.data), "<f4", offset=4).reshape(count, stride // 4)
    times, values = rows[:, 0].astype(np.float64), rows[:, 1:].astype(np.float64)
    if count > 1 and smooth:
        times, values = _smooth(times, values)
    times = np.clip(np.maximum.accumulate(times), 0.0, 1.0)
    times = np.concatenate([[0.0], times, [1.0]])
    values = np.concatenate([values[:1], values, values[-1:]])
    return times, values


def _modifiers(emitter, out):
    """The modifiers the closed-form simulator plays, in file order as the viewer applies
    them: acceleration (a constant vector, world or emitter space; it replaces what an
    attraction set), attract acceleration (away from the emitter, positive out: here along
    the start direction, fixed at birth), keyed size (half widths) and keyed colour over the
    particle's life (they replace the constant or linear ones). Vortex, linear speed, speed
    limit, keyed acceleration and the modifiers the viewer does not simulate are kept and
    editable but not played."""
    curves = out.setdefault("curves", {})
    for _, slot, pid, params in plugins(emitter.chunk):
        if slot != "modifier":
            continue
        values = {p.name: p.value for p in plugin_parameters(pid, params)}
        if pid == 10 and "acceleration" in values:
            out.update(acceleration=tuple(values["acceleration"]), outward_acceleration=0.0,
                       object_space_acceleration=bool(values.get("acceleration_local")))
        elif pid == 11 and "attract_acceleration" in values:
            out.update(acceleration=(0.0, 0.0, 0.0),
                       outward_acceleration=float(values["attract_acceleration"]))
        elif pid == 15:
            keys = _keys(pid, params, values.get("smooth_sizes"))
            if keys is not None:
                v = abs(float(values.get("keyed_size_variation", 0.0)))
                curves["size"] = _curve(keys[0], 2.0 * keys[1][:, 0] * (1 + v))
                out["randomized_scale"] = min(2 * v / (1 + v), 1.0)
        elif pid == 17:
            keys = _keys(pid, params, values.get("smooth_colours"))
            if keys is not None:
                for i, name in enumerate(sim.TRACKS[:4]):
                    curves[name] = _curve(keys[0], 255.0 * keys[1][:, i])


def _groups(emitter, out):
    for _, slot, pid, params in plugins(emitter.chunk):
        if slot != "creator":
            continue
        where, speed = GROUP_PARAMS.get(pid, (None, None))
        hollow = {k: bool(bytes(params[k].data)[:1] == b"\x01") for k in (106, 108, 102, 104)
                  if k in params and not params[k].is_container}
        if where is not None:
            out["position_group"] = decode_group(params.get(where),
                                                 hollow.get(where + 1, False))
        if speed is not None:
            out["velocity_group"] = decode_group(params.get(speed),
                                                 hollow.get(speed + 1, False))
        parent = PARENT_NAME_PARAMS.get(pid)
        if parent is not None and parent in params and not params[parent].is_container:
            out["_parent"] = (chunk_text(params[parent]), pid == 40)


def model(emitter, index=None) -> sim.Emitter:
    """The simulator's model of a :class:`UawEmitter` (links filled in by :func:`models`)."""
    values = _values(emitter)
    out = {"index": emitter.index if index is None else index}
    if "particles_per_second" in values:             # a simple creator
        _simple(values, out)
    elif "particles_per_interval" in values:
        _spawning(values, out)
    else:
        out["num_particles_per_second"] = 0          # a creator the preview does not know
    if "lifetime" in values:
        out["lifetime"] = max(float(values["lifetime"]), 0.0)
        var = abs(float(values.get("lifetime_variation", 0.0)))
        out["randomized_lifetime"] = min(var / 100.0 if var > 1.0 else var, 1.0)
    _velocity(values, out)
    _looks(values, out)
    _modifiers(emitter, out)
    _groups(emitter, out)
    _translater(emitter, out)
    out.pop("_parent", None)
    textures = [v for k, v in values.items() if k == "texture"]
    out["texture"] = textures[0] if textures else ""
    shader = _shader(emitter)
    out["blend_mode"] = 1 if "additive" in shader.lower() else 2
    return sim.Emitter(**out)


def _shader(emitter):
    for _, slot, _, params in plugins(emitter.chunk):
        if slot == "renderer":
            for c in params.values():
                if not c.is_container and bytes(c.data).lower().rstrip(b"\0").endswith(b".fx"):
                    return chunk_text(c)
    return ""


def models(system) -> list:
    """The simulator's models of every emitter of a :class:`UawParticleSystem`, with the
    death and trail links their creators name set on the emitters they name. As in the
    viewer, every child of a parent plays (its parents keep a list of them: the first of
    each kind goes on the parent's link, the others name their parent in ``started_by``);
    a child naming itself never runs, nor one whose parent is not in the effect or never
    fires it (a death creator whose parent's killer does not "spawn on age")."""
    out = [model(e, i) for i, e in enumerate(system.emitters)]
    for i, p, on_death in _named_parents(system):
        fires = p is not None and (not on_death or p == i or _values(
            system.emitters[p]).get("spawn_on_death"))
        kind = "death" if on_death else "birth"
        if not fires:
            out[i] = replace(out[i], in_bursts=False, num_particles_per_second=0)
        elif p != i and getattr(out[p], kind) == sim.NO_EMITTER:
            setattr(out[p], kind, i)
        else:
            out[i].started_by += ((p, on_death),)
    return out


def link_records(system) -> list:
    """Per emitter, what ``validate``'s link rules read (name, the links it names, and
    whether its parent can fire it), without building the whole models."""
    out = [SimpleNamespace(name=e.name or "", birth=sim.NO_EMITTER, death=sim.NO_EMITTER,
                           started_by=(), silent=None) for e in system.emitters]
    for i, p, on_death in _named_parents(system):
        if p is None:
            out[i].silent = "the emitter its creator names is not in the effect"
        elif on_death and p != i and not _values(system.emitters[p]).get("spawn_on_death"):
            out[i].silent = (f"emitter {p} ({out[p].name!r}), whose deaths it bursts at, "
                             "does not \"spawn on age\" (its killer's parameter 3)")
        else:
            out[i].started_by += ((p, on_death),)
    return out


def _named_parents(system):
    """(child, parent index or None, on death) of every emitter whose creator names one."""
    names = {}
    for i, e in enumerate(system.emitters):
        names.setdefault((e.name or "").lower(), i)
    for i, e in enumerate(system.emitters):
        found = {}
        _groups(e, found)
        parent = found.get("_parent")
        if parent is not None:
            yield i, names.get(parent[0].lower()), parent[1]


def _velocity(values, out):
    """The creator's velocity options: "local velocity" off puts the velocity group in the
    world's frame (the viewer turns it by the emitter's transform only when on); "inherit
    velocity" adds the velocity of the particle that started the instance (a trail or death
    creator's parent; a root instance has none), along it, ``scale`` times its speed, at most
    ``max`` (the viewer's ``min(speed * scale, max)``)."""
    if "local_velocity" in values:
        out["world_velocity"] = not values["local_velocity"]
    if values.get("inherit_velocity"):
        cap = float(values.get("max_inherited_velocity", np.inf))
        out.update(inherit_velocity=True,
                   emitter_speed_mult=float(values.get("inherited_velocity_scale", 1.0)),
                   max_inherited_speed=cap if cap == cap else np.inf)


def _translater(emitter, out):
    """Emitter Translater (26): the particles move with the emitter; World Translater (27),
    or none: they stay in the world where they were born (the viewer's translaters)."""
    for _, slot, pid, _ in plugins(emitter.chunk):
        if slot == "translater":
            out["link_to_system"] = pid == 26
