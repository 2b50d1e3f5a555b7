"""Where particles stay when their effect moves (the game's translaters, translate.py): an
emitter not linked to the system (World Translater) leaves its particles in the world where
they were born; one linked to it (Emitter Translater) carries them with the effect. Closed
form, with the effect root's world matrices given as a path (no file, no Blender), and the
Universe at War translater plugins read from spec-built files."""

from types import SimpleNamespace

import numpy as np
import pytest
import uaw_build as ub
import particle_build as pb

from io_alamo.formats.alamo.particles import read_particles, uaw_play
from io_alamo.formats.alamo.particles import simulate as sim
from io_alamo.formats.alamo.particles.records import GROUP_FIELDS


def exact(x=0.0, y=0.0, z=0.0):
    """An exact group (type 0) at (x, y, z)."""
    values = {f: 0.0 for f in GROUP_FIELDS}
    values.update(type=0, val_x=x, val_y=y, val_z=z)
    return SimpleNamespace(**values)


def stream(**kw):
    """10 per second living 2 s, flying +x at 5 units/s unless ``kw`` says."""
    values = dict(num_particles_per_second=10, lifetime=2.0, velocity_group=exact(5, 0, 0))
    values.update(kw)
    return sim.Emitter(**values)

SPEED = 3.0         # the root flies +y at 3 units/s


def flying(times):
    """The root's world matrices at ``times``: at (0, 3 t, 0), not turned."""
    times = np.asarray(times, np.float64)
    out = np.tile(np.eye(4), (len(times), 1, 1))
    out[:, 1, 3] = SPEED * times
    return out


def turning(rate):
    """A root standing at (2, 0, 0) turning about z at ``rate`` radians per second."""
    def path(times):
        a = rate * np.asarray(times, np.float64)
        out = np.tile(np.eye(4), (len(a), 1, 1))
        out[:, 0, 0], out[:, 0, 1], out[:, 1, 0], out[:, 1, 1] = (np.cos(a), -np.sin(a),
                                                                  np.sin(a), np.cos(a))
        out[:, 0, 3] = 2.0
        return out
    return path


def rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def test_a_moving_emitter_leaves_its_particles_where_they_were_born():
    # a stream flying +x at 5 units/s from a root flying +y at 3: a particle born at b sits
    # at (5 age, 3 b, 0) in the world, so at (5 age, -3 age, 0) in the root's space at t
    parts = sim.simulate([stream()], 1.5, path=flying)[0]
    assert len(parts) == 16
    np.testing.assert_allclose(parts.position, np.stack(
        [5 * parts.age, -SPEED * parts.age, 0 * parts.age], axis=1), atol=1e-9)
    np.testing.assert_allclose(parts.velocity, np.tile([5.0, 0, 0], (16, 1)), atol=1e-12)
    world = parts.position + [0.0, SPEED * 1.5, 0.0]
    np.testing.assert_allclose(world[:, 1], SPEED * (1.5 - parts.age), atol=1e-9)


def test_linked_to_the_system_they_move_with_it_as_before():
    em = stream(link_to_system=True)
    moved = sim.simulate([em], 1.5, path=flying)[0]
    still = sim.simulate([em], 1.5)[0]
    for name in ("position", "velocity", "age", "size", "key"):
        assert np.array_equal(getattr(moved, name), getattr(still, name))
    np.testing.assert_allclose(moved.position[:, 1], 0.0)


def test_a_root_that_does_not_move_changes_nothing():
    """Bit for bit: a path standing still (anywhere, turned) gives today's arrays, links,
    gravity and accelerations included."""
    place = np.eye(4)
    place[:3, :3] = rz(0.7)
    place[:3, 3] = (1.0, -2.0, 5.0)
    standing = lambda times: np.tile(place, (len(times), 1, 1))     # noqa: E731
    ems = [stream(gravity=2.0, acceleration=(0.0, 1.0, 0.0), outward_acceleration=0.5,
                  death=1, lifetime=0.7),
           sim.Emitter(index=1, in_bursts=True, num_particles_per_burst=3,
                       velocity_group=exact(0, 0, 1), lifetime=3.0, birth=2),
           sim.Emitter(index=2, num_particles_per_second=4, lifetime=0.5)]
    w2l = rz(0.7).T
    for t in (0.9, 1.6, 2.5):
        for a, b in zip(sim.simulate(ems, t, world_to_local=w2l, path=standing),
                        sim.simulate(ems, t, world_to_local=w2l)):
            assert len(a) == len(b) and len(a) > 0
            for name in ("position", "velocity", "age", "lifetime", "key"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), (t, name)


def test_a_turning_root_turns_start_velocity_and_object_space_acceleration_not_gravity():
    rate, t, g = 0.8, 1.25, 4.0
    em = stream(gravity=g, acceleration=(1.0, 0.0, 0.0), object_space_acceleration=True,
                velocity_group=exact(1, 0, 0))
    w2l = rz(rate * t).T                      # the root's rotation now, inverted
    parts = sim.simulate([em], t, world_to_local=w2l, path=turning(rate))[0]
    assert len(parts) == 13
    a = parts.age
    local = np.stack([a + 0.5 * a * a, 0 * a, 0 * a], axis=1)     # born-frame motion
    turn = np.stack([rz(-rate * x) for x in a])                   # D = M(t)^-1 M(b)
    expected = np.einsum("nij,nj->ni", turn, local) + np.outer(0.5 * a * a, [0, 0, -g])
    np.testing.assert_allclose(parts.position, expected, atol=1e-9)
    # a world-space acceleration is the same world vector whenever the particle was born
    em = stream(acceleration=(0.0, 2.0, 0.0), velocity_group=None)
    parts = sim.simulate([em], t, world_to_local=w2l, path=turning(rate))[0]
    np.testing.assert_allclose(parts.position, np.outer(0.5 * parts.age ** 2,
                                                        w2l @ [0.0, 2.0, 0.0]), atol=1e-9)


def parent_and_child(child_linked):
    """One particle born at 0 flying +x at 1 unit/s, dying at 1 s; its death burst of 3
    standing where it died, living 5 s."""
    return [sim.Emitter(index=0, in_bursts=True, num_particles_per_burst=1, num_bursts=1,
                        velocity_group=exact(1, 0, 0), lifetime=1.0, death=1),
            sim.Emitter(index=1, in_bursts=True, num_particles_per_burst=3, lifetime=5.0,
                        link_to_system=child_linked)]


def test_a_death_burst_starts_where_its_world_particle_died():
    # the parent particle stays in the world: it dies at (1, 0, 0) (born at the root's place
    # at 0); at t = 2 the root is at (0, 6, 0): the burst sits at (1, -6, 0) in its space
    kids = sim.simulate(parent_and_child(False), 2.0, path=flying)[1]
    np.testing.assert_allclose(kids.position, np.tile([1.0, -2 * SPEED, 0.0], (3, 1)),
                               atol=1e-9)
    # a child linked to the system starts there (the root then at (0, 3, 0)) and moves with
    # the root afterwards: (1, -3, 0) in the root's space whenever it is seen
    for t in (1.5, 2.0, 4.0):
        kids = sim.simulate(parent_and_child(True), t, path=flying)[1]
        np.testing.assert_allclose(kids.position, np.tile([1.0, -SPEED, 0.0], (3, 1)),
                                   atol=1e-9)


def test_a_birth_child_of_a_world_particle_trails_from_where_it_was():
    # a trail of 2 per second behind the parent flying +x at 1 unit/s (world-translated, both)
    ems = [sim.Emitter(index=0, in_bursts=True, num_particles_per_burst=1, num_bursts=1,
                       velocity_group=exact(1, 0, 0), lifetime=3.0, birth=1),
           sim.Emitter(index=1, num_particles_per_second=2, lifetime=5.0)]
    kids = sim.simulate(ems, 2.0, path=flying)[1]
    births = np.sort(2.0 - kids.age)
    np.testing.assert_allclose(births, [0.0, 0.5, 1.0, 1.5, 2.0], atol=1e-9)
    order = np.argsort(2.0 - kids.age)
    # each was left at the parent's world place then, (b, 0, 0), seen from the root at (0, 6, 0)
    np.testing.assert_allclose(kids.position[order], np.stack(
        [births, np.full(5, -2 * SPEED), np.zeros(5)], axis=1), atol=1e-9)


@pytest.mark.parametrize("pid, linked", [(26, True), (27, False)])
def test_uaw_emitter_translater_carries_world_translater_leaves(pid, linked):
    em = ub.emitter("fire", ub.shape_creator(10.0, 1.0, velocity=ub.group(
        ub.DIRECTION, direction=(1, 0, 0), magnitude=(2, 2))), lifetime=2.0)
    em["plugins"] = [(slot, pb.plugin(pid) if slot == 0x2 else spec)
                     for slot, spec in em["plugins"]]
    (model,) = uaw_play.models(read_particles(ub.effect([em])))
    assert model.link_to_system is linked
    parts = sim.simulate([model], 1.0, path=flying)[0]
    assert len(parts) == 11
    drift = 0.0 if linked else -SPEED
    np.testing.assert_allclose(parts.position, np.stack(
        [2 * parts.age, drift * parts.age, 0 * parts.age], axis=1), atol=1e-6)


def test_eaw_link_to_system_is_read_from_the_file():
    data, _ = pb.particle_system("p_test", [pb.emitter("a", num_particles_per_second=1),
                                            pb.emitter("b", num_particles_per_second=1,
                                                       link_to_system=1)])
    a, b = (sim.model_of(e, i) for i, e in enumerate(read_particles(data).emitters))
    assert (bool(a.link_to_system), bool(b.link_to_system)) == (False, True)
