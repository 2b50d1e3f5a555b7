"""The one-pass simulator (``particles/batch.py``) gives every emitter exactly what the
per-emitter simulator gives it, bit for bit: on spec-built effects covering every schedule,
group, track interpolation and random spread, on Universe at War effects, on the preview
benchmark's 20 emitters and on the corpus-particles effects, at many times (forwards, so the
kept draw tables grow, and backwards)."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import particle_build as pb
import uaw_build as ub
from io_alamo.formats.alamo.particles import batch, read_particles, uaw_play
from io_alamo.formats.alamo.particles import sampling as rnd
from io_alamo.formats.alamo.particles import simulate as sim
from io_alamo.formats.alamo.particles.uaw import UawParticleSystem

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus-particles"
FIELDS = ("position", "velocity", "age", "lifetime", "size", "color", "rotation",
          "texture_index", "key")
TIMES = [0.0, 0.01, 0.1, 0.25, 1 / 3, 0.5, 0.999, 1.0, 1.5, 2.0, 2.5, 3.0, 4.25, 6.0, 9.5,
         0.75, 0.2, 7.0]


class Group:
    def __init__(self, type=0, **values):
        self.type = type
        for name in sim.GROUP_FIELDS:
            setattr(self, name, values.get(name, 0))


def _group(r):
    kind = int(r.integers(0, 5))
    return Group(kind, min_x=-r.random(), max_x=r.random() * 3, min_y=-2.0, max_y=1.0,
                 min_z=0.0, max_z=r.random(), side_length=r.random() * 4,
                 sphere_radius=1 + r.random() * 5, sphere_surface=int(r.integers(0, 2)),
                 cylinder_radius=r.random() * 2, cylinder_surface=int(r.integers(0, 2)),
                 cylinder_height=r.random(), val_x=r.normal(), val_y=r.normal(),
                 val_z=r.normal() * 3)


def _curve(r, name):
    pick = int(r.integers(0, 5))
    if pick == 0:                       # constant (zero for the rotation speed)
        value = 0.0 if name == "rotation_speed" else float(r.random() * 200)
        return rnd.Curve([0.0, 1.0], [value, value])
    count = int(r.integers(0, 5))
    times = np.concatenate(([0.0], np.sort(r.random(count)), [1.0]))
    if pick == 1 and count:
        times[2:2 + min(count, 1)] = times[1]       # a repeated key time
    values = r.normal(size=len(times)) * (3.0 if name != "texture_index" else 4.0) + (
        100.0 if name in sim.TRACKS[:4] else 2.0)
    return rnd.Curve(times, values, int(r.integers(0, 3)))


def _emitter(r, index):
    bursts = bool(r.integers(0, 2))
    return sim.Emitter(
        index=index, in_bursts=bursts, num_particles_per_second=float(r.choice([0, 7.5, 40, 3])),
        num_particles_per_burst=int(r.integers(0, 30)), num_bursts=int(r.integers(0, 4)),
        burst_delay=float(r.choice([0.0, 0.5, 1.25])), initial_delay=float(r.choice([0, 0.3])),
        skip_time=float(r.choice([0.0, 0.0, 1.1])), freeze_time=float(r.choice([0, 0, 2.2])),
        lifetime=float(r.choice([0.0, 0.8, 2.0, 3.5])),
        randomized_lifetime=float(r.choice([0.0, 0.4])), inward_speed=float(r.choice([0, 0, 3])),
        acceleration=tuple(r.normal(size=3)), object_space_acceleration=bool(r.integers(0, 2)),
        outward_acceleration=float(r.choice([0.0, -1.5, 2.0])), gravity=float(r.choice([0, 9.8])),
        randomized_scale=float(r.choice([0.0, 0.5])),
        randomized_color=tuple(float(v) for v in r.choice([0.0, 0.3], size=4)),
        randomized_is_grayscale=bool(r.integers(0, 2)),
        randomized_rotation=float(r.choice([0.0, 0.2])), rotation_direction=bool(r.integers(0, 2)),
        fixed_rotation=bool(r.integers(0, 2)), num_texture_elements=int(r.choice([1, 4, 16])),
        use_emitter_speed_mult=bool(r.integers(0, 2)), emitter_speed_mult=float(r.normal()),
        velocity_group=_group(r) if r.random() < 0.8 else None,
        position_group=_group(r) if r.random() < 0.8 else None,
        curves={name: _curve(r, name) for name in sim.TRACKS if r.random() < 0.85})


def _spec_built(seed, count=24):
    def make():
        r = np.random.default_rng(seed)
        return [_emitter(r, i) for i in range(count)]
    return make


def _from_file(data):
    def make():
        system = read_particles(data)
        if isinstance(system, UawParticleSystem):
            return uaw_play.models(system)
        return [sim.model_of(e, i) for i, e in enumerate(system.emitters)]
    return make


def _bench_effect():
    data, _ = pb.particle_system("p_bench_many", [pb.emitter(
        f"e{i}", index=i, num_particles_per_second=75, lifetime=2.0,
        groups=[{"type": 3, "sphere_radius": 5.0 + i}, {}, {"type": 0, "val_x": float(i)}],
        tracks={"size": (1.0, 3.0, 0, [])}) for i in range(20)])
    return data


def _uaw_effect():
    return ub.effect([
        ub.emitter("a", ub.shape_creator(30.0, 0.5, bursting=True, delay=0.2,
                                         velocity=ub.group(ub.SPHERE, magnitude=(1, 4))),
                   variation=0.3, modifiers=[ub.keyed_size([(0, 1), (0.4, 3), (1, 0.5)], True),
                                             ub.acceleration((0, 0, -3))]),
        ub.emitter("b", ub.simple_creator(3, 20.0, 2.0, 0.5, sizes=(2.0, 1.0, 3.0)),
                   modifiers=[ub.keyed_colour([(0, (1, 0, 0, 1)), (1, (0, 0, 1, 0))]),
                              ub.attract(0.5)]),
        ub.emitter("c", ub.shape_creator(12.0, position=ub.group(ub.TORUS, torus=(3, 1))),
                   lifetime=1.2)])


def _same(a, b, where):
    assert type(a) is type(b) and a.emitter == b.emitter and len(a) == len(b), where
    assert a.truncated == b.truncated, where
    for name in FIELDS:
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.dtype == y.dtype and x.shape == y.shape, (where, name)
        assert x.tobytes() == y.tobytes(), (where, name)
    if len(a) and a.draws is not None:          # the display's draws (depth offsets)
        assert b.draws is not None, where
        assert a.draws.uniform(rnd.CH_DEPTH).tobytes() == \
            b.draws.uniform(rnd.CH_DEPTH).tobytes(), where


def _check(make, times=TIMES, world_to_local=None, path=None):
    one, many = make(), make()          # separate models: nothing kept is shared
    shown = 0
    for t in times:
        want = sim.simulate(one, t, world_to_local, path=path)
        got = batch.simulate(many, t, world_to_local, path=path)
        assert len(want) == len(got)
        for i, (a, b) in enumerate(zip(want, got)):
            _same(a, b, (t, i))
            shown += len(a)
    return shown


def _turned():
    c, s = np.cos(0.7), np.sin(0.7)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ np.diag([1.0, 2.0, 0.5])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_batched_equals_per_emitter_on_spec_built_effects(seed):
    assert _check(_spec_built(seed)) > 1000
    assert _check(_spec_built(seed + 10), world_to_local=_turned()) > 1000


def _moving(times):
    """An effect root flying +y at 3 units/s while it turns about z at 0.5 radians/s."""
    a = 0.5 * np.asarray(times, np.float64)
    out = np.tile(np.eye(4), (len(a), 1, 1))
    out[:, 0, 0], out[:, 0, 1], out[:, 1, 0], out[:, 1, 1] = (np.cos(a), -np.sin(a),
                                                              np.sin(a), np.cos(a))
    out[:, 1, 3] = 3.0 * np.asarray(times, np.float64)
    return out


def test_batched_equals_per_emitter_on_a_moving_effect_with_both_translaters():
    """On a moving root the world-translated emitters (link_to_system 0) stay where their
    particles were born and the linked ones ride along: the one pass gives each what the
    per-emitter run gives (and some of each kind are shown)."""
    def make():
        r = np.random.default_rng(7)
        return [replace(_emitter(r, i), link_to_system=bool(i % 2)) for i in range(12)]
    assert _check(make, path=_moving) > 500
    moved = sim.simulate(make(), 1.5, path=_moving)
    still = sim.simulate(make(), 1.5)
    differ = [i for i, (a, b) in enumerate(zip(moved, still))
              if len(a) and a.position.tobytes() != b.position.tobytes()]
    assert differ and all(i % 2 == 0 for i in differ)


def test_batched_equals_per_emitter_on_a_played_bench_effect():
    frames = [f / 30 for f in range(62, 62 + 48)] + [f / 30 for f in range(0, 200, 7)]
    assert _check(_from_file(_bench_effect()), frames) > 3000 * 40


def test_batched_equals_per_emitter_on_universe_at_war_effects():
    assert _check(_from_file(_uaw_effect()), [t / 7 for t in range(40)]) > 100


def test_links_still_run_and_the_linked_emitters_are_left_to_the_simulator():
    data, _ = pb.linked_system()
    assert _check(_from_file(data), [t / 10 for t in range(60)]) > 0


def test_capped_and_unusual_emitters_match_too():
    def make():
        return [sim.Emitter(index=0, num_particles_per_second=1e9, lifetime=1.0),
                sim.Emitter(index=1, num_particles_per_second=float("nan")),
                sim.Emitter(index=2, in_bursts=True, num_particles_per_burst=0),
                sim.Emitter(index=3, lifetime=float("nan")),
                sim.Emitter(index=4, curves={"size": rnd.Curve([0.0, np.nan, 1.0],
                                                                [1.0, 2.0, 3.0])}),
                sim.Emitter(index=5, in_bursts=True, burst_delay=0.0, num_bursts=3,
                            num_particles_per_burst=4, lifetime=1.0)]
    _check(make, [0.0, 0.5, 1.0, 1.5])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no corpus-particles")
@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.[aA][lL][oO]"))
                         if CORPUS.is_dir() else [])
def test_batched_equals_per_emitter_on_corpus_effects(name):
    _check(_from_file((CORPUS / name).read_bytes()), [t / 10 for t in range(0, 80, 3)])
