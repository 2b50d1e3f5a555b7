"""All of a system's emitters that run from the system, simulated in one pass: their schedules,
kept draws, starts and tracks concatenated into one set of rows, so a frame costs about the
same few dozen numpy calls whatever the number of emitters (``simulate.state`` makes them once
per emitter). Every emitter gets exactly the particles ``simulate.state`` gives it, bit for bit:
the formulas are the same, element by element, with each row's emitter's values; what cannot
be batched that way (emitters started by other emitters' particles, a schedule over the
simulator's cap, a track key time that is not a number) goes through ``simulate.state``.

``simulate(models, t, world_to_local, path=)`` is ``simulate.simulate`` with this pass; the links
between emitters stay in ``simulate``.

Blender-free: numpy only.
"""

import numpy as np

from . import draws as kept
from . import sampling as rnd
from . import simulate as sim
from .batch_tracks import Sampler, TrackSet

_PLANS = {}         # models' ids -> _Plan (holding the models, so their ids stay theirs)


def simulate(emitters, t, world_to_local=None, seed=0, path=None) -> list:
    """``simulate.simulate``, the emitters that run from the system in one pass."""
    return sim.simulate(emitters, t, world_to_local, seed, path, states=states)


def states(models, found, t, world_to_local=None, path=None) -> list:
    """``simulate.each_state``, the emitters whose one instance is the system's own in one
    pass (the others, linked ones, as ``each_state`` runs them; so do the world-translated
    ones of a system that moves, ``path``: their particles stay where they were born)."""
    batch = [i for i in range(len(models)) if _alone(found.get(i))
             and (path is None or models[i].link_to_system)]
    if len(batch) < 2:              # one emitter: its own pass is as short
        batch = []
    done = dict(zip(batch, _states([found[i][0][0] for i in batch],
                                   [found[i][0][1] for i in batch], t,
                                   world_to_local))) if batch else {}
    rest = [i for i in range(len(models)) if i not in done]
    done.update(zip(rest, sim.each_state([models[i] for i in rest],
                                         {k: found[i] for k, i in enumerate(rest)
                                          if i in found}, t, world_to_local, path)))
    return [done[i] for i in range(len(models))]


def _alone(entry):
    """Whether ``entry`` (an emitter's instances) is the system's own instance alone."""
    return entry is not None and len(entry) == 1 and entry[0][1].still and \
        len(entry[0][1]) == 1


def _kept(cache, key, make, limit=16):
    held = cache.get(key)
    if held is None:
        if len(cache) > limit:
            cache.clear()
        held = cache[key] = make()
    return held


class _Plan:
    """What a batch needs of its models, as arrays by emitter (made once per set of models:
    the preview keeps a model until it is edited)."""

    def __init__(self, models):
        self.models = models
        get = lambda name, kind=np.float64: np.array(    # noqa: E731
            [getattr(m, name) for m in models], kind)
        self.skip, self.freeze = get("skip_time"), get("freeze_time")
        self.delay = get("initial_delay")
        self.bursts = np.array([int(m.num_bursts) for m in models], np.int64)
        self.stream = ~get("in_bursts", bool)
        self.rate = np.array([float(m.num_particles_per_second) for m in models])
        self.per = np.array([max(int(m.num_particles_per_burst), 0) for m in models], np.int64)
        self.gap = np.array([float(m.burst_delay) for m in models])
        self.longest = np.array([max(float(m.lifetime), 0.0) for m in models])
        self.inward = get("inward_speed")
        self.speed_mult = np.array([float(m.emitter_speed_mult) if m.use_emitter_speed_mult
                                    else 0.0 for m in models])
        self.uses_speed = get("use_emitter_speed_mult", bool)
        self.outward = get("outward_acceleration")
        self.scale = np.array([float(m.randomized_scale) for m in models])
        self.spread = np.array([np.asarray(m.randomized_color, np.float64) * 100.0
                                for m in models]).reshape(len(models), 4)
        self.grey = get("randomized_is_grayscale", bool)
        self.direction = get("rotation_direction", bool)
        self.fixed = get("fixed_rotation", bool)
        self.elements = np.array([max(int(m.num_texture_elements), 1) for m in models],
                                 np.int64)
        self.tracks = {name: TrackSet([m.curve(name) for m in models]) for name in sim.TRACKS}
        self.usable = all(track.usable for track in self.tracks.values())
        self.turns = np.array([_fixed_turns(m) for m in models]).reshape(-1, 3)
        self._acc = {}
        self.columns = None         # (its tables' ids, _Columns) of the last frame

    def acceleration(self, world_to_local):
        """Each emitter's acceleration before the outward push (``simulate._start``)."""
        key = None if world_to_local is None else np.asarray(world_to_local, np.float64).tobytes()
        return _kept(self._acc, key, lambda: np.array(
            [_base(m, world_to_local) for m in self.models]).reshape(-1, 3), 8)


def _fixed_turns(em):
    """(start angle in turns, spread of mini 23, whether it is spread) of a fixed-rotation
    emitter (``simulate._looks``)."""
    if not em.fixed_rotation:
        return (0.0, 0.0, 0.0)
    first = float(em.curve("rotation_speed")(np.zeros(1))[0])
    if first > 0.0 and em.randomized_rotation:
        return (first - np.trunc(first), abs(float(em.randomized_rotation)) / first, 1.0)
    return (first - np.trunc(first), 0.0, 0.0)


def _base(em, world_to_local):
    to_local = np.eye(3) if world_to_local is None else np.asarray(world_to_local, np.float64)
    base = np.asarray(em.acceleration, np.float64)
    if not em.object_space_acceleration:
        base = to_local @ base
    return base + to_local @ np.array([0.0, 0.0, -float(em.gravity)])


def _schedule(plan, t):
    """Per emitter: its clock at t, and the first and last + 1 of the bursts (a stream's
    particles) alive or about to be, with ``simulate._schedule``'s formulas."""
    clock = t - np.zeros(1) + plan.skip
    clock = np.where(plan.freeze > 0.0, np.minimum(clock, plan.freeze), clock)
    stop = np.full(1, np.inf) - np.zeros(1) + plan.skip
    back = plan.longest + 0.0
    delay = plan.delay
    with np.errstate(all="ignore"):
        rate = plan.rate
        s_hi = np.minimum(sim._upto((clock - delay) * rate), sim._below((stop - delay) * rate))
        s_lo = sim._below((clock - back - delay) * rate)
        s_hi = np.minimum(s_hi, s_lo + sim.MAX_PARTICLES + 1)
        live = rate > 0.0
        s_lo, s_hi = np.where(live, s_lo, 0), np.where(live, s_hi, 0)
        gap = plan.gap
        g_hi = np.minimum(sim._upto((clock - delay) / gap), sim._below((stop - delay) / gap))
        g_lo = sim._below((clock - back - delay) / gap)
        g_hi = np.where(plan.bursts > 0, np.minimum(g_hi, plan.bursts), g_hi)
        g_hi = np.minimum(g_hi, g_lo + sim.MAX_PARTICLES // np.maximum(plan.per, 1) + 1)
        z_hi = np.where((clock - delay >= -sim._TOL) & (stop - delay > sim._TOL),
                        np.maximum(plan.bursts, 1), 0)
        z_lo = np.where(clock - back - delay > sim._TOL, z_hi, 0)
    lo = np.where(plan.stream, s_lo, np.where(gap <= 0.0, z_lo, g_lo))
    hi = np.where(plan.stream, s_hi, np.where(gap <= 0.0, z_hi, g_hi))
    return clock, lo, np.maximum(hi, lo)


class _Columns:
    """The kept draw tables of a batch's emitters (``draws.table``, by emitter position),
    their columns concatenated, made on first use."""

    def __init__(self, plan, tables):
        self.plan, self.tables = plan, tables
        sizes = np.zeros(len(plan.models), np.int64)
        self.first = np.zeros(len(plan.models), np.int64)
        for e, table in tables.items():
            sizes[e], self.first[e] = len(table.keys), table.first
        self.offset = np.cumsum(sizes) - sizes
        self.sizes = sizes
        self.columns = {}

    def column(self, name, each, width=None):
        """``each(model, draws of the whole table)`` of every emitter, one after the other
        (None: zeros)."""
        found = self.columns.get(name)
        if found is None:
            parts = []
            for e, table in sorted(self.tables.items()):
                got = each(self.plan.models[e], kept.Draws(table.keys, table, slice(None)))
                if got is None:
                    got = np.zeros(len(table.keys) if width is None else (len(table.keys), width))
                parts.append(got)
            found = self.columns[name] = np.concatenate(parts) if parts else np.zeros(
                0 if width is None else (0, width))
        return found


def _rows(plan, t):
    """(emitter, particle index, emitter-clock birth, clock) of every scheduled particle of
    the batch's emitters, and the emitters a batch cannot take (over the cap)."""
    clock, lo, hi = _schedule(plan, t)
    unit = np.where(plan.stream, 1, plan.per)
    count = (hi - lo) * unit
    over = count > sim.MAX_PARTICLES
    count = np.where(over, 0, count)
    e = np.repeat(np.arange(len(count)), count)
    p = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    u = unit[e]
    burst = lo[e] + p // np.maximum(u, 1)
    k = burst * u + p % np.maximum(u, 1)
    with np.errstate(all="ignore"):
        when = np.where(plan.stream[e], plan.delay[e] + k / plan.rate[e],
                        plan.delay[e] + burst * np.maximum(plan.gap[e], 0.0))
    return e, k, when, clock, lo * unit, hi * unit, count, over


def _states(models, carriers, t, world_to_local):
    """``simulate.state`` of each of ``models`` run from the system (its instance in
    ``carriers``), in one pass."""
    keys = [int(c.key[0]) for c in carriers]
    plan = _kept(_PLANS, tuple(map(id, models)), lambda: _Plan(models), 64)
    if not plan.usable:
        return [sim.state(m, c, t, world_to_local) for m, c in zip(models, carriers)]
    e, k, when, clock, first, stop, count, over = _rows(plan, t)
    tables = {i: kept.table(models[i], keys[i], int(first[i]), int(stop[i]))
              for i in np.flatnonzero(count).tolist()}
    key = tuple((i, id(tb)) for i, tb in tables.items())   # the held ones keep theirs alive
    if plan.columns is None or plan.columns[0] != key:          # one set per plan: the last
        plan.columns = (key, _Columns(plan, tables))
    columns = plan.columns[1]
    rows = columns.offset[e] + k - columns.first[e]
    life = columns.column("life", lambda m, d: d.life(max(float(m.lifetime), 0.0),
                                                       float(m.randomized_lifetime)))[rows]
    age = np.maximum(clock[e] - when, 0.0)
    keep = age < life + 0.0 - sim._EDGE
    e, k, rows, age, life = e[keep], k[keep], rows[keep], age[keep], life[keep]
    p0, v0, acc = _start(plan, columns, e, rows, world_to_local)
    at = age[:, None]
    position = p0 + v0 * at + 0.5 * acc * at * at
    velocity = v0 + acc * at
    size, color, rotation, cells = _looks(plan, columns, e, rows, age, life)
    found = columns.column("keys", lambda m, d: d.keys)[rows]
    whole = Rows(age, life, size, color, rotation, cells, columns, rows)
    ends = np.searchsorted(e, np.arange(len(models) + 1))
    out = []
    for i, em in enumerate(models):
        if over[i]:
            out.append(sim.state(em, carriers[i], t, world_to_local))
            continue
        s = slice(ends[i], ends[i + 1])
        if s.start == s.stop:
            out.append(sim.empty(em.index))
            continue
        draws = kept.Draws(found[s], tables[i], rows[s] - columns.offset[i])
        out.append(sim.Particles(em.index, position[s], velocity[s], age[s], life[s], size[s],
                                 color[s], rotation[s], cells[s], found[s], False, draws,
                                 (whole, s)))
    return out


class Rows:
    """A batch's particles of all its emitters, one after the other (each emitter's
    ``Particles`` are a slice of these): the display takes its arrays whole instead of
    joining the emitters' again."""

    def __init__(self, age, lifetime, size, color, rotation, texture_index, columns, rows):
        self.age, self.lifetime, self.size, self.color = age, lifetime, size, color
        self.rotation, self.texture_index = rotation, texture_index
        self._columns, self._rows = columns, rows

    def uniform(self, channel):
        """``sampling.uniform`` of every row for ``channel`` (as each emitter's draws)."""
        return _uniform(self._columns, channel)[self._rows]


def joined(parts_list):
    """(the batch's :class:`Rows`, which of its rows) that ``parts_list`` (simulate.Particles)
    are, one after the other (a slice, or an index where some of the batch's emitters are
    left out or come in another order), or None when they are not all of one batch."""
    first = getattr(parts_list[0], "rows", None) if parts_list else None
    if first is None:
        return None
    whole, start = first[0], first[1].start
    stop, runs = start, []
    for parts in parts_list:
        held = getattr(parts, "rows", None)
        if held is None or held[0] is not whole:
            return None
        if held[1].start != stop:
            runs.append(np.arange(start, stop))
            start = held[1].start
        stop = held[1].stop
    if not runs:
        return whole, slice(start, stop)
    return whole, np.concatenate(runs + [np.arange(start, stop)])


def _group(m, d, which, channel):
    group = getattr(m, which)
    return None if group is None else d.group(group, channel)


def _start(plan, columns, e, rows, world_to_local):
    """``simulate._start`` of the rows."""
    p0 = columns.column("position", lambda m, d: _group(m, d, "position_group",
                                                        rnd.CH_POSITION), 3)[rows]
    v0 = columns.column("velocity", lambda m, d: _group(m, d, "velocity_group",
                                                        rnd.CH_VELOCITY), 3)[rows]
    inward = plan.inward[e]
    if (inward != 0.0).any():
        v0 = np.where((inward != 0.0)[:, None], v0 + sim._unit(p0) * inward[:, None], v0)
    if plan.uses_speed.any():
        mult = plan.speed_mult[e][:, None]
        v0 = np.where(plan.uses_speed[e][:, None], v0 + np.zeros((1, 3)) * mult, v0)
    acc = plan.acceleration(world_to_local)[e]
    outward = plan.outward[e]
    if (outward != 0.0).any():
        out = np.where(np.linalg.norm(p0, axis=1, keepdims=True) > 0, sim._unit(p0),
                       sim._unit(v0))
        acc = np.where((outward != 0.0)[:, None], acc + out * outward[:, None], acc)
    return np.zeros((1, 3)) + p0, v0, acc


def _uniform(columns, channel):
    return columns.column(("u", channel), lambda m, d: d.uniform(channel))


def _looks(plan, columns, e, rows, age, life):
    """``simulate._looks`` of the rows."""
    x = np.divide(age, life, out=np.ones_like(age), where=life > 0)
    at = Sampler(plan.tracks, x, e)
    scale = 1.0 - plan.scale[e] * _uniform(columns, rnd.CH_SCALE)[rows]
    size = at("size") * scale
    rgba = np.stack([at(name) for name in sim.TRACKS[:4]], axis=1)
    spread = plan.spread[e]
    if spread.any():
        u = np.stack([_uniform(columns, rnd.CH_COLOUR + i)[rows] for i in range(4)], axis=1)
        grey = plan.grey[e]
        u[grey, 1] = u[grey, 2] = u[grey, 0]
        rgba = np.where(spread.any(axis=1)[:, None], rgba + u * spread, rgba)
    color = np.clip(rgba, 0.0, 255.0) / 255.0
    turns = at("rotation_speed", integral=True) * life
    fixed = plan.fixed[e]
    if fixed.any():
        start, spread, spreads = plan.turns[e].T
        held = start
        if spreads.any():
            held = np.where(spreads > 0, held * (1.0 + spread * (
                2.0 * _uniform(columns, rnd.CH_ROTATION)[rows] - 1.0)), held)
        turns = np.where(fixed, held, turns)
    rotation = 2.0 * np.pi * turns
    direction = plan.direction[e]
    if direction.any():
        sign = np.where(_uniform(columns, rnd.CH_DIRECTION)[rows] < 0.5, -1.0, 1.0)
        rotation = np.where(direction, rotation * sign, rotation)
    index = np.floor(at("texture_index") + 0.5)
    cells = np.clip(np.where(index != index, 0.0, index), 0,
                    plan.elements[e] - 1).astype(np.int32)
    return size, color, rotation, cells
