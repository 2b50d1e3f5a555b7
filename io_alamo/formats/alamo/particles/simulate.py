"""The live particles of an Alamo particle system at a time t, in closed form (numpy, no loop per
particle), following ``alo-particle-format.md``.

Every particle is born at a time the emitter's schedule gives (a stream of
``num_particles_per_second``, or bursts of ``num_particles_per_burst`` every ``burst_delay``,
after ``initial_delay``; ``skip_time`` advances the clock, ``freeze_time`` stops it) and moves
under constant acceleration, so where it is at t needs no stepping:
``p = p0 + v0 age + a age^2 / 2``. Its random draws (lifetime, place, velocity, scale, colour,
rotation) come from a hash of its emitter, its emitter instance and its index, so a frame shows
the same particles whatever was shown before. Emitters linked at the birth or death of another
emitter's particles run one instance per such particle, from where (and while) it is.

Where the specification is wrong, this follows FORMAT-NOTES' "Particle effects: how the game
plays them" (the game as the alo-viewer and DrKnickers' editors witness it):
- ``inward_speed`` (mini 9): a positive value pushes the particle AWAY from the emitter, along
  the direction from the emitter to its start, and is ADDED to the velocity group's value (a
  particle starting at the emitter has no such direction and gets nothing);
- a death-linked emitter gives ONE burst where its particle died, at that moment, whatever its
  own schedule says (a burst emitter's ``num_particles_per_burst``, a stream's
  ``num_particles_per_second`` particles, as the viewer's death creator); a birth-linked one
  emits its own schedule while its particle lives; children inherit no velocity;
- randomized scale (mini 18) only shrinks: ``size * random(1 - r, 1)``; randomized lifetime
  only shortens: ``lifetime * random(1 - r, 1)``;
- the rotation-speed track is in revolutions per second, positive counter-clockwise on screen;
  with fixed rotation (mini 72) the particle keeps the start angle the track's first value
  gives (its fraction of a turn), which mini 23 (randomized rotation) varies by up to
  ``mini23 / first`` of itself, as the viewer does; mini 35 flips half the particles' turn.

Conventions left open (documented in the README):
- a particle is shown while ``0 <= age < lifetime``: one born exactly at t already is (stream
  particle 0 at t = 0, FORMAT-NOTES' "one at t = 0 without a delay"; the viewer's creators
  spawn at their time), one at the end of its life no longer is (the viewer's age killer:
  ``time >= stompTime``); so a stream of r per second shows floor(r*t) + 1 particles after t
  seconds, and r*lifetime once it is steady;
- burst ``j`` is at ``initial_delay + j * burst_delay`` (``num_bursts`` of them, or endless
  when 0); stream particle ``k`` at ``initial_delay + k / rate``;
- the state is computed in the emitter's own space (the system's space in Blender) at t
  (``world_to_local`` turns the world-space acceleration and gravity into that space); with a
  ``path`` of the system's world matrices, particles of emitters not linked to the system stay
  in the world where they were born, as the game's World Translater leaves them
  (translate.py), else they follow their emitter when it moves;
- ``outward_acceleration`` pushes along the direction from the emitter to the particle's start
  (its start velocity's when it starts at the emitter): exact for particles that move straight
  out, as the outward ones of a burst do.
"""

from dataclasses import dataclass, field, replace

import numpy as np

from . import draws as kept
from . import sampling as rnd
from . import translate
from .counting import TOL as _TOL, below as _below, ranges as _ranges, upto as _upto
from .link_graph import MAX_DEPTH, links, per_instance, reach as _reach
from .records import GROUP_FIELDS, NO_EMITTER, TRACK_NAMES

#: Cap on the particles one emitter may have alive (a bad file asking for millions stops here).
MAX_PARTICLES = 200_000
_EDGE = _TOL * 0.1      # a particle whose age is within this of its lifetime has died
TRACKS = TRACK_NAMES
_DEFAULT_TRACK = {"red": 255.0, "green": 255.0, "blue": 255.0, "alpha": 255.0, "size": 1.0,
                  "texture_index": 0.0, "rotation_speed": 0.0}


@dataclass
class Emitter:
    """What the simulator needs of one emitter, in the specification's names (built from a
    format record or the Blender properties with :func:`model_of`)."""

    index: int = 0
    in_bursts: bool = False
    num_particles_per_second: float = 10.0
    num_particles_per_burst: int = 1
    num_bursts: int = 0
    burst_delay: float = 1.0
    initial_delay: float = 0.0
    skip_time: float = 0.0
    freeze_time: float = 0.0
    lifetime: float = 1.0
    randomized_lifetime: float = 0.0
    inward_speed: float = 0.0
    acceleration: tuple = (0.0, 0.0, 0.0)
    object_space_acceleration: bool = False
    outward_acceleration: float = 0.0
    gravity: float = 0.0
    randomized_scale: float = 0.0
    randomized_color: tuple = (0.0, 0.0, 0.0, 0.0)
    randomized_is_grayscale: bool = False
    randomized_rotation: float = 0.0
    rotation_direction: bool = False
    fixed_rotation: bool = False
    num_texture_elements: int = 1
    use_emitter_speed_mult: bool = False
    emitter_speed_mult: float = 0.0
    velocity_group: object = None
    position_group: object = None
    curves: dict = field(default_factory=dict)      # track name -> sampling.Curve
    birth: int = NO_EMITTER
    death: int = NO_EMITTER
    # links the child names (UaW trail and death creators): ((parent index, on_death), ...)
    started_by: tuple = ()
    # UaW's creators: the velocity of the particle that started the instance inherited
    # (``emitter_speed_mult`` times, at most ``max_inherited_speed``), even at its death;
    # the velocity group in world space instead of the emitter's ("local velocity" off)
    inherit_velocity: bool = False
    max_inherited_speed: float = float("inf")
    world_velocity: bool = False
    # the particles move with the effect (EaW mini 8, UaW's Emitter Translater), else they
    # stay in the world where they were born (World Translater): see translate.py
    link_to_system: bool = False
    # how the particles are drawn (not simulated): kept with the model for the display
    blend_mode: int = 1
    is_heat_particle: bool = False
    is_not_billboarded: bool = False
    has_tail: bool = False
    tail_size: float = 0.0
    texture: str = ""

    def key(self) -> tuple:
        """Everything the particles depend on, as plain values (equal keys, equal particles)."""
        groups = tuple(None if g is None else g.key() if hasattr(g, "sample") else
                       tuple(float(getattr(g, f, 0)) for f in GROUP_FIELDS)
                       for g in (self.velocity_group, self.position_group))
        curves = tuple((name, c.times.tobytes(), c.values.tobytes(), c.interpolation)
                       for name, c in sorted(self.curves.items()))
        return tuple(getattr(self, name) for name in _SCALARS) + (groups, curves)

    def curve(self, name):
        found = self.curves.get(name)
        if found is None:
            value = _DEFAULT_TRACK[name]
            found = rnd.Curve([0.0, 1.0], [value, value])
        return found


_SCALARS = tuple(name for name in Emitter.__dataclass_fields__
                 if name not in ("velocity_group", "position_group", "curves"))


def model_of(record, index=None) -> Emitter:
    """An :class:`Emitter` from any object with the specification's field names (a format
    record's emitter): its groups (``groups[0]`` velocity, ``groups[2]`` position, or
    ``velocity_group``/``position_group``) and tracks (``tracks`` in the spec's order)."""
    values = {name: getattr(record, name) for name in _SCALARS if hasattr(record, name)}
    if index is not None:
        values["index"] = index
    groups = getattr(record, "groups", None)
    values["velocity_group"] = getattr(record, "velocity_group", None) or (
        groups[0] if groups else None)
    values["position_group"] = getattr(record, "position_group", None) or (
        groups[2] if groups else None)
    tracks = getattr(record, "tracks", None) or ()
    values["curves"] = {name: rnd.Curve.of_track(track) for name, track in zip(TRACKS, tracks)}
    return Emitter(**values)


@dataclass
class Particles:
    """The live particles of one emitter at one time, one row each. ``color`` is sRGBA in
    0..1 as the game blends it; ``rotation`` in radians about the view axis (counter-clockwise
    positive); ``texture_index`` the sprite-sheet element."""

    emitter: int
    position: np.ndarray
    velocity: np.ndarray
    age: np.ndarray
    lifetime: np.ndarray
    size: np.ndarray
    color: np.ndarray
    rotation: np.ndarray
    texture_index: np.ndarray
    key: np.ndarray
    truncated: bool = False
    draws: object = None        # their random draws (draws.Draws), for the display's own
    rows: object = None         # (batch.Rows, slice): their rows among a whole batch's

    def __len__(self):
        return len(self.age)


@dataclass
class _Carriers:
    """Emitter instances: when each starts and stops emitting (system time), its key, and
    how the point it emits from moves: ``p0 + v0 (t - t0) + acc (t - t0)^2 / 2``."""

    start: np.ndarray
    end: np.ndarray
    key: np.ndarray
    p0: np.ndarray
    v0: np.ndarray
    acc: np.ndarray
    t0: np.ndarray
    still: bool = False         # the system's own instance: at the origin, never moving
    world: object = None        # rows whose points are world-fixed (translate.py), or None

    @classmethod
    def root(cls, key):
        z = np.zeros((1, 3))
        return cls(np.zeros(1), np.full(1, np.inf), np.array([key], np.uint64), z, z, z,
                   np.zeros(1), True)

    def __len__(self):
        return len(self.start)

    def place(self, which, when):
        if self.still:          # zeros, as the formula gives them (broadcast, not per row)
            return self.p0, self.v0
        dt = (when - self.t0[which])[:, None]
        return (self.p0[which] + self.v0[which] * dt + 0.5 * self.acc[which] * dt * dt,
                self.v0[which] + self.acc[which] * dt)


@dataclass
class _Born:
    """Particles of a set of instances: which instance, index in it, age, system birth time,
    lifetime and key."""

    inst: np.ndarray
    index: np.ndarray
    age: np.ndarray
    birth: np.ndarray
    lifetime: np.ndarray
    key: np.ndarray
    truncated: bool = False
    draws: object = None


def _clocks(em, carriers, t):
    """Each instance's emitter clock at system time t (skip added, freeze applied) and the
    clock at which it stops emitting (its particle's death: what is born then is not)."""
    clock = t - carriers.start + em.skip_time
    if em.freeze_time > 0.0:
        clock = np.minimum(clock, em.freeze_time)
    return clock, carriers.end - carriers.start + em.skip_time


def _schedule(em, clock, stop, back):
    """(instance, particle index, emitter-clock birth) of particles born at or before
    ``clock`` (one born exactly then included), before ``stop`` and no earlier than
    ``clock - back``."""
    delay = em.initial_delay
    if not em.in_bursts:
        rate = float(em.num_particles_per_second)
        if rate <= 0.0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        hi = np.minimum(_upto((clock - delay) * rate), _below((stop - delay) * rate))
        lo = _below((clock - back - delay) * rate)
        hi = np.minimum(hi, lo + MAX_PARTICLES + 1)
        inst, k = _ranges(lo, hi)
        return inst, k, delay + k / rate
    per = max(int(em.num_particles_per_burst), 0)
    bursts = int(em.num_bursts)
    gap = float(em.burst_delay)
    if gap <= 0.0:      # every burst at once
        hi = np.where((clock - delay >= -_TOL) & (stop - delay > _TOL), max(bursts, 1), 0)
        lo = np.where(clock - back - delay > _TOL, hi, 0)
    else:
        hi = np.minimum(_upto((clock - delay) / gap), _below((stop - delay) / gap))
        lo = _below((clock - back - delay) / gap)
        if bursts > 0:
            hi = np.minimum(hi, bursts)
        hi = np.minimum(hi, lo + MAX_PARTICLES // max(per, 1) + 1)
    inst, burst = _ranges(lo, hi)
    inst, burst = np.repeat(inst, per), np.repeat(burst, per)
    k = burst * per + np.tile(np.arange(per), len(burst) // max(per, 1))
    return inst, k, delay + burst * max(gap, 0.0)


def born(em, carriers, t, extra=0.0) -> _Born:
    """Particles of every instance alive at t (``extra`` > 0: also those dead for up to that
    long, for the emitters their deaths start)."""
    clock, stop = _clocks(em, carriers, t)
    longest = max(float(em.lifetime), 0.0)
    inst, index, when = _schedule(em, clock, stop, longest + extra)
    if len(carriers) == 1 and len(index):       # one instance: its draws kept by index
        table = kept.table(em, int(carriers.key[0]), int(index[0]), int(index[-1]) + 1)
        rows = index - table.first
        draws = kept.Draws(table.keys[rows], table, rows)
    else:
        draws = kept.Draws(kept.keys_of(carriers.key[inst], index))
    life = draws.life(longest, float(em.randomized_lifetime))
    age = np.maximum(clock[inst] - when, 0.0)       # born exactly now: age 0 (not -1e-16)
    keep = age < life + extra - _EDGE              # alive while 0 <= age < lifetime
    truncated = int(keep.sum()) > MAX_PARTICLES
    if truncated:
        keep &= np.cumsum(keep) <= MAX_PARTICLES
    birth = carriers.start[inst] + when - em.skip_time
    draws = draws.subset(keep)
    return _Born(inst[keep], index[keep], age[keep], birth[keep], life[keep], draws.keys,
                 truncated, draws)


def _unit(v):
    length = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, length, out=np.zeros_like(v), where=length > 0)


def _start(em, parts, carriers, world_to_local):
    """Start place, start velocity and acceleration of each particle (emitter space)."""
    draws = parts.draws
    n = len(parts.key)
    p0 = (draws.group(em.position_group, rnd.CH_POSITION)
          if em.position_group is not None else np.zeros((n, 3)))
    v0 = (draws.group(em.velocity_group, rnd.CH_VELOCITY)
          if em.velocity_group is not None else np.zeros((n, 3)))
    if em.inward_speed:       # positive: away from the emitter, added to the group's velocity
        v0 = v0 + _unit(p0) * float(em.inward_speed)
    origin, carrier_velocity = carriers.place(parts.inst, parts.birth)
    to_local = np.eye(3) if world_to_local is None else np.asarray(world_to_local, np.float64)
    if em.world_velocity:       # a world-space velocity: into the emitter's space
        v0 = v0 @ to_local.T
    if em.use_emitter_speed_mult or em.inherit_velocity:
        v0 = v0 + _inherited(em, carrier_velocity)
    base = np.asarray(em.acceleration, np.float64)
    if not em.object_space_acceleration:
        base = to_local @ base
    base = base + to_local @ np.array([0.0, 0.0, -float(em.gravity)])
    acc = np.broadcast_to(base, (n, 3)).copy()
    if em.outward_acceleration:
        out = np.where(np.linalg.norm(p0, axis=1, keepdims=True) > 0, _unit(p0), _unit(v0))
        acc += out * float(em.outward_acceleration)
    return origin + p0, v0, acc


def _sampler(em, x):
    """``at(track name)``: the emitter's track at ``x`` (its integral with ``integral``),
    tracks with the same key times sharing one search of ``x`` among them."""
    found = {}

    def at(name, integral=False):
        curve = em.curve(name)
        if curve.constant and not integral:
            return curve(x)
        segments = found.get(curve.times_key)
        if segments is None:
            segments = found[curve.times_key] = curve.segments(x)
        return curve.integral(x, segments) if integral else curve(x, segments)
    return at


def _looks(em, parts):
    """Size, sRGBA colour (0..1), rotation and sprite element at each particle's age."""
    draws, x = parts.draws, np.divide(parts.age, parts.lifetime, out=np.ones_like(parts.age),
                                      where=parts.lifetime > 0)
    at = _sampler(em, x)
    scale = 1.0 - float(em.randomized_scale) * draws.uniform(rnd.CH_SCALE)   # only shrinks
    size = at("size") * scale
    color = _colour(em, draws, at, len(x))
    sign = None
    if em.rotation_direction:
        sign = np.where(draws.uniform(rnd.CH_DIRECTION) < 0.5, -1.0, 1.0)
    spin = em.curve("rotation_speed")
    if em.fixed_rotation:        # a fixed start angle, in turns, varied by mini 23
        first = float(spin(np.zeros(1))[0])
        turns = np.full_like(x, first - np.trunc(first))
        if first > 0.0 and em.randomized_rotation:
            spread = abs(float(em.randomized_rotation)) / first
            turns = turns * (1.0 + spread * (2.0 * draws.uniform(rnd.CH_ROTATION) - 1.0))
    else:                        # revolutions per second over the particle's life
        turns = at("rotation_speed", integral=True) * parts.lifetime
    rotation = 2.0 * np.pi * turns      # counter-clockwise positive, as seen
    if sign is not None:
        rotation = rotation * sign
    elements = max(int(em.num_texture_elements), 1)
    cell = em.curve("texture_index")
    # a constant track: its one element worked out once, the same number for every particle
    index = np.floor((cell.values[:1] if cell.constant else at("texture_index")) + 0.5)
    texture_index = np.clip(np.where(index != index, 0.0, index), 0, elements - 1).astype(np.int32)
    if cell.constant:
        texture_index = np.repeat(texture_index, len(x))
    return size, color, rotation, texture_index


def _colour(em, draws, at, n):
    """sRGBA (0..1) of ``n`` particles: the tracks, the random spread added, clipped."""
    spread = np.asarray(em.randomized_color, np.float64) * 100.0
    tracks = [em.curve(name) for name in TRACKS[:4]]
    if not spread.any() and all(c.constant for c in tracks):    # one colour, worked out once
        one = np.array([[c.values[0] for c in tracks]])
        return np.repeat(np.clip(one, 0.0, 255.0) / 255.0, n, axis=0)
    rgba = np.stack([at(name) for name in TRACKS[:4]], axis=1)
    if spread.any():
        u = np.stack([draws.uniform(rnd.CH_COLOUR + i) for i in range(4)], axis=1)
        if em.randomized_is_grayscale:
            u[:, 1] = u[:, 2] = u[:, 0]
        rgba = rgba + u * spread
    return np.clip(rgba, 0.0, 255.0) / 255.0


def state(em, carriers, t, world_to_local=None, parts=None, path=None) -> Particles:
    """The live particles of ``em``'s instances at system time t (``path``: the effect
    root's world matrices at given times, for where world-translated particles stay)."""
    parts = born(em, carriers, t) if parts is None else parts
    if not len(parts.age):
        return empty(em.index)
    p0, v0, acc, _ = translate.to_now(em, parts, carriers,
                                      _start(em, parts, carriers, world_to_local),
                                      world_to_local, path, t)
    age = parts.age[:, None]
    position = p0 + v0 * age + 0.5 * acc * age * age
    velocity = v0 + acc * age
    size, color, rotation, texture_index = _looks(em, parts)
    return Particles(em.index, position, velocity, parts.age, parts.lifetime, size, color,
                     rotation, texture_index, parts.key, parts.truncated, parts.draws)


def one_burst(child: Emitter) -> Emitter:
    """The model a death-linked ``child`` runs from each dead particle: one burst at once
    (its burst size, or its stream's particles per second), no delay, skip or freeze."""
    count = (int(child.num_particles_per_burst) if child.in_bursts
             else int(round(float(child.num_particles_per_second))))
    return replace(child, in_bursts=True, num_bursts=1, num_particles_per_burst=max(count, 0),
                   burst_delay=1.0, initial_delay=0.0, skip_time=0.0, freeze_time=0.0)


def _inherited(em, carrier_velocity):
    """The velocity a particle takes from the particle that started its instance: along it,
    ``emitter_speed_mult`` times its speed, at most ``max_inherited_speed`` (UaW's inherit
    velocity; EaW's emitter speed multiplier has no cap)."""
    scaled = carrier_velocity * float(em.emitter_speed_mult)
    cap = float(em.max_inherited_speed)
    if not cap < np.inf:
        return scaled
    speed = np.linalg.norm(carrier_velocity, axis=1, keepdims=True)
    return _unit(carrier_velocity) * np.minimum(speed * float(em.emitter_speed_mult), cap)


def _spawned(em, carriers, t, world_to_local, on_death, extra, salt, moving=False,
             path=None):
    """Instances started by ``em``'s particles (at their birth or death) that may still
    matter at t (``extra``: how long after a particle's death); ``moving``: a death burst
    keeps the dying particle's velocity (to inherit), else it stands still."""
    parts = born(em, carriers, t, extra=extra)
    if on_death:
        dead = parts.age >= parts.lifetime - _EDGE
        parts = _Born(parts.inst[dead], parts.index[dead], parts.lifetime[dead],
                      parts.birth[dead], parts.lifetime[dead], parts.key[dead],
                      draws=parts.draws.subset(dead))
    p0, v0, acc, world = translate.to_now(em, parts, carriers,
                                          _start(em, parts, carriers, world_to_local),
                                          world_to_local, path, t)
    keys = rnd.child_keys(parts.key, salt)
    if on_death:        # where it died (one burst, at once: the point needs no motion)
        age = parts.lifetime[:, None]
        where = p0 + v0 * age + 0.5 * acc * age * age
        start = parts.birth + parts.lifetime
        zero = np.zeros_like(acc)
        speed = v0 + acc * age if moving else zero
        return _Carriers(start, np.full(len(start), np.inf), keys, where, speed, zero, start,
                         world=world)
    return _Carriers(parts.birth, parts.birth + parts.lifetime, keys, p0, v0, acc, parts.birth,
                     world=world)


_FIELDS = ("start", "end", "key", "p0", "v0", "acc", "t0")
_ROOTS = {}


def _root(seed, index):
    """Emitter ``index``'s own instance, the system's (kept: the same on every frame; its
    arrays read-only)."""
    found = _ROOTS.get((seed, index))
    if found is None:
        if len(_ROOTS) > 4096:
            _ROOTS.clear()
        found = _Carriers.root(rnd.mix(np.array([seed * 1000 + index + 1], np.uint64))[0])
        for name in _FIELDS:
            getattr(found, name).flags.writeable = False
        _ROOTS[(seed, index)] = found
    return found


def _merge(a, b):
    if a is None:
        return b
    return _Carriers(*(np.concatenate([getattr(a, f), getattr(b, f)]) for f in _FIELDS),
                     world=translate.merged(a, b, len(a), len(b)))


def _capped(c, em, extra):
    """``c`` with no more instances than keep ``em``'s particles near ``MAX_PARTICLES`` (a
    link loop or a huge fan-out would otherwise ask for billions)."""
    each = per_instance(em, extra)
    most = int(MAX_PARTICLES // each) if each == each and each > 1.0 else MAX_PARTICLES
    if len(c) <= max(most, 1):
        return c
    return _Carriers(*(getattr(c, f)[:max(most, 1)] for f in _FIELDS),
                     world=None if c.world is None else c.world[:max(most, 1)])


def instances(emitters, t, world_to_local=None, seed=0, path=None) -> dict:
    """``{emitter: [(model, carriers), ...]}``: the instances of every emitter at t. An
    emitter no link starts runs one instance from the system. Linked ones run one instance per
    particle of each parent, level by level, every link its own (a birth link the child's own
    schedule while its particle lives, a death link one burst where it died); an emitter
    started only by itself or by a loop no root reaches never runs (as in the viewer's and
    the editors' simulations), and a loop a root reaches is followed ``MAX_DEPTH`` levels
    deep (in the game it never ends)."""
    models = list(emitters)
    found = links(models)
    started = {child for _, child, _ in found}
    both = {(p, c) for p, c, d in found if d and (p, c, False) in found}
    reach = _reach(models, found)
    out = {i: [(em, _root(seed, i))] for i, em in enumerate(models) if i not in started}
    level = dict(out)
    kinds = {}
    for _ in range(MAX_DEPTH):
        made = {}
        for parent, child, on_death in found:
            salt = 7000 + models[child].index + (100_000 if (parent, child) in both
                                                 and on_death else 0)
            for model, carriers in level.get(parent, ()):
                new = _spawned(model, carriers, t, world_to_local, on_death, reach[child],
                               salt, models[child].inherit_velocity, path)
                if len(new):
                    made[(child, on_death)] = _merge(made.get((child, on_death)), new)
        level = {}
        for (child, on_death), carriers in made.items():
            model = kinds.setdefault((child, on_death), one_burst(models[child]) if on_death
                                     else models[child])
            carriers = _capped(carriers, model, reach[child])
            level.setdefault(child, []).append((model, carriers))
            out.setdefault(child, []).append((model, carriers))
        if not level:
            break
    return out


def _joined(index, parts):
    """One :class:`Particles` of several sets of the same emitter's particles."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return empty(index)
    if len(parts) == 1:
        return parts[0]
    cat = {f: np.concatenate([getattr(p, f) for p in parts]) for f in
           ("position", "velocity", "age", "lifetime", "size", "color", "rotation",
            "texture_index", "key")}
    over = len(cat["key"]) > MAX_PARTICLES
    if over:
        cat = {f: v[:MAX_PARTICLES] for f, v in cat.items()}
    return Particles(index, truncated=over or any(p.truncated for p in parts),
                     draws=kept.Draws(cat["key"]), **cat)


def simulate(emitters, t, world_to_local=None, seed=0, path=None, states=None) -> list:
    """The live particles of every emitter of a system at t seconds after its start: a list
    of :class:`Particles` in the order of ``emitters`` (:class:`Emitter` models). Emitters
    that another's particles start run only from those (:func:`instances`); the others run
    from the system. ``path``: ``path(times) -> (n, 4, 4)`` world matrices of the system's
    root at system times; with it, particles of world-translated emitters stay in the world
    where they were born (translate.py); without it, every particle moves with the system.
    ``states``: what gives the particles once every emitter's instances are known
    (:func:`each_state`'s arguments and result; ``batch.states`` runs the emitters that run
    from the system in one pass)."""
    models = list(emitters)
    found = instances(models, t, world_to_local, seed, path)
    return (states or each_state)(models, found, t, world_to_local, path)


def each_state(models, found, t, world_to_local=None, path=None) -> list:
    """The particles of every model (by position) from its instances ``found`` (as
    :func:`instances` gives them), joined per emitter."""
    return [_joined(em.index, [state(model, carriers, t, world_to_local, path=path)
                               for model, carriers in found.get(i, ())])
            for i, em in enumerate(models)]


def empty(index=0) -> Particles:
    """No particles."""
    z = np.zeros(0)
    return Particles(index, np.zeros((0, 3)), np.zeros((0, 3)), z, z, z, np.zeros((0, 4)), z,
                     np.zeros(0, np.int32), np.zeros(0, np.uint64))
