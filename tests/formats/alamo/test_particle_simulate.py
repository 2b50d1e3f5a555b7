"""The closed-form particle simulator against the specification's formulas, on emitters built
from the spec's fields (no file, no Blender)."""

import numpy as np
import pytest

from io_alamo.formats.alamo.particles import sampling as rnd
from io_alamo.formats.alamo.particles import simulate as sim

GROUP_FIELDS = ("min_x", "min_y", "min_z", "max_x", "max_y", "max_z", "side_length",
                "sphere_radius", "sphere_surface", "cylinder_radius", "cylinder_surface",
                "cylinder_height", "val_x", "val_y", "val_z")


class Group:
    def __init__(self, type=0, **values):
        self.type = type
        for name in GROUP_FIELDS:
            setattr(self, name, values.get(name, 0))


def exact(x=0.0, y=0.0, z=0.0):
    return Group(0, val_x=x, val_y=y, val_z=z)


def live(em, t, **kw):
    return sim.simulate([em], t, **kw)[0]


def stream(**kw):
    values = dict(num_particles_per_second=10, lifetime=2.0, velocity_group=exact(5, 0, 0))
    values.update(kw)
    return sim.Emitter(**values)


# --- emission --------------------------------------------------------------------------------

def test_stream_of_ten_per_second_living_two_seconds_at_five_units_per_second():
    em = stream()
    one = live(em, 1.0)
    assert len(one) == 11
    # born at 0, 0.1, ... 1.0 (the one born now shows): ages 1.0 ... 0, 5 units per second
    np.testing.assert_allclose(np.sort(one.position[:, 0]), 5 * np.arange(0, 11) / 10)
    np.testing.assert_allclose(one.position[:, 1:], 0)
    three = live(em, 3.0)
    assert len(three) == 20                      # steady: rate * lifetime
    np.testing.assert_allclose(np.sort(three.age), np.arange(0, 20) / 10)
    np.testing.assert_allclose(three.position[:, 0], 5 * three.age)
    assert three.position[:, 0].max() < 10


def test_two_bursts_of_five_one_second_apart():
    em = sim.Emitter(in_bursts=True, num_particles_per_burst=5, num_bursts=2, burst_delay=1.0,
                     lifetime=1.8)
    counts = [len(live(em, t)) for t in (0.5, 1.5, 2.5, 3.5)]
    assert counts == [5, 10, 5, 0]


def test_bursts_without_a_count_go_on():
    em = sim.Emitter(in_bursts=True, num_particles_per_burst=3, num_bursts=0, burst_delay=0.5,
                     lifetime=0.4)
    assert [len(live(em, t)) for t in (0.25, 10.25, 100.25)] == [3, 3, 3]


def test_initial_delay_skip_and_freeze():
    em = stream(initial_delay=1.0)
    assert len(live(em, 0.9)) == 0
    assert len(live(em, 1.5)) == 6               # born at 1.0, 1.1 ... 1.5
    skipped = stream(skip_time=1.5)              # as if 1.5 s had run already
    np.testing.assert_allclose(np.sort(live(skipped, 0.5).age), np.sort(live(em, 3.0).age))
    frozen = stream(freeze_time=1.0)
    a, b = live(frozen, 1.0), live(frozen, 5.0)
    assert len(a) == len(b) == 11
    np.testing.assert_allclose(a.position, b.position)


def test_randomised_lifetime_stays_in_the_specs_range_and_is_deterministic():
    em = stream(num_particles_per_second=1000, lifetime=2.0, randomized_lifetime=0.5)
    p = live(em, 10.0)
    assert p.lifetime.min() >= 1.0 - 1e-9 and p.lifetime.max() <= 2.0
    assert p.lifetime.std() > 0.2
    assert (p.age <= p.lifetime + 1e-9).all()
    q = live(em, 10.0)
    np.testing.assert_array_equal(p.position, q.position)
    # fewer than rate * lifetime live: the short-lived ones are gone
    assert 1000 < len(p) < 2000


# --- motion ----------------------------------------------------------------------------------

def test_falling_under_acceleration_is_minus_age_squared():
    em = stream(velocity_group=exact(), acceleration=(0.0, 0.0, -2.0))
    p = live(em, 1.7)
    np.testing.assert_allclose(p.position[:, 2], -p.age ** 2)
    g = live(stream(velocity_group=exact(), gravity=2.0), 1.7)
    np.testing.assert_allclose(g.position[:, 2], -g.age ** 2)


def test_world_and_object_space_acceleration():
    turn = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])   # world -> local
    world = live(stream(velocity_group=exact(), acceleration=(2.0, 0, 0)), 1.0,
                 world_to_local=turn)
    np.testing.assert_allclose(world.position[:, 1], -world.age ** 2)       # turned
    local = live(stream(velocity_group=exact(), acceleration=(2.0, 0, 0),
                        object_space_acceleration=True), 1.0, world_to_local=turn)
    np.testing.assert_allclose(local.position[:, 0], local.age ** 2)        # as written


def test_outward_acceleration_and_inward_speed():
    out = live(stream(velocity_group=exact(), position_group=exact(0, 0, 1),
                      outward_acceleration=4.0), 1.0)
    np.testing.assert_allclose(out.position[:, 2], 1 + 2 * out.age ** 2)
    # FORMAT-NOTES: a positive inward speed pushes AWAY from the emitter (along emitter ->
    # start) and is ADDED to the velocity group's value
    inward = live(stream(velocity_group=exact(1, 0, 2), position_group=exact(3, 0, 0),
                         inward_speed=2.0), 1.0)
    np.testing.assert_allclose(inward.position[:, 0], 3 + (1 + 2) * inward.age)
    np.testing.assert_allclose(inward.position[:, 2], 2 * inward.age)
    np.testing.assert_allclose(inward.velocity, np.tile([3.0, 0, 2.0], (len(inward), 1)))
    pulled = live(stream(velocity_group=exact(), position_group=exact(0, 4, 0),
                         inward_speed=-1.5), 1.0)        # negative: an implosion
    np.testing.assert_allclose(pulled.position[:, 1], 4 - 1.5 * pulled.age)
    at_emitter = live(stream(velocity_group=exact(0, 0, 5), inward_speed=7.0), 1.0)
    np.testing.assert_allclose(at_emitter.velocity, np.tile([0, 0, 5.0], (len(at_emitter), 1)))


def test_explosion_with_inward_speed_bursts_outward():
    # a sphere-surface burst of radius 1 with inward speed +103 (a real explosion's value):
    # every particle moves out along its own radius at 103 units/s, none through the centre
    em = sim.Emitter(in_bursts=True, num_particles_per_burst=50, num_bursts=1, lifetime=1.0,
                     position_group=Group(3, sphere_radius=1, sphere_surface=1),
                     inward_speed=103.0)
    p = live(em, 0.5)
    np.testing.assert_allclose(np.linalg.norm(p.position, axis=1), 1 + 103 * 0.5)


@pytest.mark.parametrize("group, check", [
    (Group(1, min_x=-1, min_y=2, min_z=3, max_x=1, max_y=4, max_z=3.5),
     lambda p: (p[:, 0] >= -1).all() and (p[:, 0] <= 1).all() and (p[:, 1] >= 2).all()
     and (p[:, 1] <= 4).all() and (p[:, 2] >= 3).all() and (p[:, 2] <= 3.5).all()),
    (Group(2, side_length=4), lambda p: (np.abs(p) <= 2).all() and (np.abs(p) > 1.5).any()),
    (Group(3, sphere_radius=3), lambda p: (np.linalg.norm(p, axis=1) <= 3 + 1e-9).all()
     and np.linalg.norm(p, axis=1).min() < 2),
    (Group(3, sphere_radius=3, sphere_surface=1),
     lambda p: np.allclose(np.linalg.norm(p, axis=1), 3)),
    (Group(4, cylinder_radius=2, cylinder_height=5),
     lambda p: (np.hypot(p[:, 0], p[:, 1]) <= 2 + 1e-9).all() and (p[:, 2] >= 0).all()
     and (p[:, 2] <= 5).all() and p[:, 2].max() > 4),
    (Group(4, cylinder_radius=2, cylinder_height=5, cylinder_surface=1),
     lambda p: np.allclose(np.hypot(p[:, 0], p[:, 1]), 2)),
])
def test_position_groups(group, check):
    p = live(stream(num_particles_per_second=500, velocity_group=exact(),
                    position_group=group), 1.0)
    assert len(p) == 501 and check(p.position)        # born at 0, 1/500 ... 1 s


def test_velocity_group_sphere_surface_gives_one_speed():
    p = live(stream(num_particles_per_second=100, lifetime=10,
                    velocity_group=Group(3, sphere_radius=4, sphere_surface=1)), 2.0)
    np.testing.assert_allclose(np.linalg.norm(p.velocity, axis=1), 4)
    np.testing.assert_allclose(np.linalg.norm(p.position, axis=1), 4 * p.age)


# --- tracks ----------------------------------------------------------------------------------

def curve(first, last, keys=(), interpolation=0):
    times = [0.0] + [t for t, _ in keys] + [1.0]
    values = [first] + [v for _, v in keys] + [last]
    return rnd.Curve(times, values, interpolation)


def test_track_interpolations_follow_the_spec():
    x = np.linspace(0, 1, 11)
    lin = curve(0, 10, [(0.5, 20)])
    np.testing.assert_allclose(lin(x), np.where(x <= 0.5, 40 * x, 20 - 20 * (x - 0.5)))
    cos = curve(0, 10, interpolation=1)
    np.testing.assert_allclose(cos(x), 10 * (1 - np.cos(np.pi * x)) / 2)
    step = curve(1, 5, [(0.5, 3)], interpolation=2)
    np.testing.assert_allclose(step(np.array([0, 0.49, 0.5, 0.99, 1.0])), [1, 1, 3, 3, 5])
    for c in (lin, cos, curve(2, 6)):
        fine = np.linspace(0, 1, 200001)
        np.testing.assert_allclose(c.integral(np.array([1.0]))[0], float(np.sum((c(fine)[1:] + c(fine)[:-1]) / 2 * np.diff(fine))),
                                   rtol=1e-6)
    np.testing.assert_allclose(step.integral(np.array([0.75])), [0.5 * 1 + 0.25 * 3])


def test_size_colour_and_alpha_tracks_at_chosen_ages():
    em = stream(curves={"size": curve(2, 6), "red": curve(255, 0), "alpha": curve(0, 255),
                        "green": curve(100, 100), "blue": curve(0, 200, interpolation=1)})
    p = live(em, 3.0)
    x = p.age / p.lifetime
    np.testing.assert_allclose(p.size, 2 + 4 * x)
    np.testing.assert_allclose(p.color[:, 0], 1 - x)
    np.testing.assert_allclose(p.color[:, 1], 100 / 255)
    np.testing.assert_allclose(p.color[:, 2], 200 * (1 - np.cos(np.pi * x)) / 2 / 255)
    np.testing.assert_allclose(p.color[:, 3], x)


def test_randomised_scale_and_colour_within_the_specs_ranges():
    em = stream(num_particles_per_second=400, curves={"size": curve(10, 10),
                                                      "red": curve(100, 100)},
                randomized_scale=0.25, randomized_color=(0.5, 0.0, 0.0, 0.0))
    p = live(em, 1.0)
    # FORMAT-NOTES: randomized scale only shrinks, size * random(1 - r, 1)
    assert p.size.min() >= 7.5 - 1e-9 and p.size.max() <= 10 + 1e-9
    assert p.size.min() < 7.6 and p.size.max() > 9.9
    red = p.color[:, 0] * 255
    assert red.min() >= 100 - 1e-6 and red.max() <= 150 + 1e-6 and red.max() > 140
    np.testing.assert_allclose(p.color[:, 1:3], 1.0)          # capped at 255
    grey = live(stream(num_particles_per_second=50, curves={c: curve(0, 0) for c in ("red", "green", "blue")},
                       randomized_color=(1, 1, 1, 0), randomized_is_grayscale=True), 1.0)
    np.testing.assert_allclose(grey.color[:, 0], grey.color[:, 1])
    np.testing.assert_allclose(grey.color[:, 0], grey.color[:, 2])


def test_rotation_is_the_integral_of_the_speed_track_in_turns_counter_clockwise():
    em = stream(curves={"rotation_speed": curve(2.0, 0.0)})
    p = live(em, 3.0)
    x = p.age / p.lifetime
    # speed 2 (1 - x) revolutions/s over a 2 s life: 2 * 2 (x - x^2 / 2) turns, positive =
    # counter-clockwise on screen (FORMAT-NOTES)
    np.testing.assert_allclose(p.rotation, 2 * np.pi * 4 * (x - x * x / 2))
    one = live(stream(curves={"rotation_speed": curve(0.25, 0.25)}), 1.0)
    np.testing.assert_allclose(one.rotation, np.pi / 2 * one.age)    # a quarter turn a second
    both = live(stream(num_particles_per_second=200, rotation_direction=1,
                       randomized_rotation=0.5, curves={"rotation_speed": curve(1, 1)}), 1.001)
    ratio = both.rotation / (2 * np.pi * both.age)
    assert (ratio < 0).any() and (ratio > 0).any()
    np.testing.assert_allclose(np.abs(ratio), 1.0)      # mini 23 leaves the speed alone


def test_fixed_rotation_angle_varied_by_mini_23():
    fixed = live(stream(fixed_rotation=1, curves={"rotation_speed": curve(0.25, 3)}), 1.0)
    np.testing.assert_allclose(fixed.rotation, 2 * np.pi * 0.25)     # a quarter turn, kept
    varied = live(stream(num_particles_per_second=300, fixed_rotation=1,
                         randomized_rotation=0.125, curves={"rotation_speed": curve(0.25, 3)}),
                  1.0)
    turns = varied.rotation / (2 * np.pi)        # 0.25 * (1 +/- 0.125 / 0.25)
    assert turns.min() >= 0.125 - 1e-9 and turns.max() <= 0.375 + 1e-9
    assert turns.min() < 0.14 and turns.max() > 0.36


def test_texture_index_track_picks_sprite_elements():
    em = stream(num_texture_elements=16, curves={"texture_index": curve(0, 15)})
    p = live(em, 3.05)
    x = p.age / p.lifetime
    np.testing.assert_array_equal(p.texture_index, np.clip(np.floor(15 * x + 0.5), 0, 15))
    assert p.texture_index.max() == 15 and p.texture_index.min() <= 1
    capped = live(stream(num_texture_elements=4, curves={"texture_index": curve(9, 9)}), 1.0)
    assert (capped.texture_index == 3).all()


# --- emitters started by particles -----------------------------------------------------------

def test_birth_emitter_follows_its_particle_and_stops_with_it():
    parent = stream(num_particles_per_second=1, lifetime=2.0, velocity_group=exact(10, 0, 0),
                    birth=1)
    child = sim.Emitter(index=1, num_particles_per_second=10, lifetime=0.5,
                        velocity_group=exact())
    first, second = sim.simulate([parent, child], 1.55)
    assert len(first) == 2                       # born at 0 and 1
    # the child emits from where the parent particle was at each child birth
    # parent 0 (born at 0): children born at 1.1 ... 1.5 where it was, x = 11 ... 15;
    # parent 1 (born at 1): children born at 1.1 ... 1.5, 0.1 ... 0.5 s into its life, x = 1 ... 5
    np.testing.assert_allclose(np.sort(second.position[:, 0]), [1, 2, 3, 4, 5,
                                                                  11, 12, 13, 14, 15])
    later = sim.simulate([parent, child], 30.0)[1]
    assert len(later) == 10                      # 2 live parents x 5 live children each


def test_death_emitter_starts_where_the_particle_dies():
    parent = stream(num_particles_per_second=1, lifetime=1.0, velocity_group=exact(0, 0, 3),
                    death=1, num_bursts=0)
    boom = sim.Emitter(index=1, in_bursts=True, num_particles_per_burst=4, num_bursts=1,
                       burst_delay=1.0, lifetime=0.5, velocity_group=exact())
    _, sparks = sim.simulate([parent, boom], 1.25)
    assert len(sparks) == 4                      # the first parent died at 1.0, at z = 3
    np.testing.assert_allclose(sparks.position, np.tile([0, 0, 3.0], (4, 1)))
    _, none = sim.simulate([parent, boom], 0.9)
    assert len(none) == 0


def test_death_child_gives_one_burst_where_its_particle_died():
    # FORMAT-NOTES' example: one particle dying at 1 s, a death child of endless bursts of 5
    # every 0.5 s: the game shows 5 child particles at 2.2 s (the whole schedule would be 15)
    parent = sim.Emitter(in_bursts=True, num_particles_per_burst=1, num_bursts=1, lifetime=1.0,
                         velocity_group=exact(2, 0, 0), death=1)
    child = sim.Emitter(index=1, in_bursts=True, num_particles_per_burst=5, num_bursts=0,
                        burst_delay=0.5, lifetime=3.0, velocity_group=exact(0, 0, 1))
    first, kids = sim.simulate([parent, child], 2.2)
    assert len(first) == 0 and len(kids) == 5
    # born at 1 s at x = 2 (where the parent died), no inherited velocity: z = age
    np.testing.assert_allclose(kids.age, 1.2)
    np.testing.assert_allclose(kids.position, np.tile([2.0, 0, 1.2], (5, 1)))
    assert len(sim.simulate([parent, child], 3.9)[1]) == 5
    assert len(sim.simulate([parent, child], 4.1)[1]) == 0    # their 3 s are over, no more
    # a stream death child gives its per-second count once
    stream_child = sim.Emitter(index=1, num_particles_per_second=7, lifetime=3.0)
    assert len(sim.simulate([parent, stream_child], 2.2)[1]) == 7


def test_huge_rates_are_capped():
    p = live(stream(num_particles_per_second=4_000_000_000, lifetime=100.0), 50.0)
    assert len(p) <= sim.MAX_PARTICLES and p.truncated


# --- the boundary: a particle born exactly at t ---------------------------------------------

def test_a_particle_born_exactly_at_t_shows_and_one_dying_at_t_does_not():
    # FORMAT-NOTES: stream particle k is born at initial_delay + k / rate, "one at t = 0
    # without a delay"; the viewer's age killer removes a particle once time >= its death. So
    # a particle lives for 0 <= age < lifetime, and a stream of 4 a second living 1.5 s shows
    # floor(4 t) + 1 particles until steady, then exactly 4 * 1.5 = 6 at every birth time.
    em = stream(num_particles_per_second=4, lifetime=1.5, velocity_group=exact(2, 0, 0))
    for k in range(13):
        t = k / 4
        p = live(em, t)
        assert len(p) == min(k + 1, 6), t
        assert p.age.min() == 0.0 and p.position[:, 0].min() == 0.0    # the newborn, at 0
        assert p.age.max() < 1.5
        between = live(em, t + 0.125)
        assert len(between) == min(k + 1, 6), t + 0.125
    # with a delay nothing shows before it, the first particle at it
    delayed = stream(num_particles_per_second=4, lifetime=1.5, initial_delay=0.5)
    assert [len(live(delayed, t)) for t in (0.0, 0.25, 0.5, 0.75)] == [0, 0, 1, 2]
    # three bursts of 5 every 0.5 s from 0.25 s, living 0.5 s: at each burst the new five
    # show and the last five have just died; after the third, none
    bursts = sim.Emitter(in_bursts=True, num_particles_per_burst=5, num_bursts=3,
                         burst_delay=0.5, initial_delay=0.25, lifetime=0.5)
    counts = [len(live(bursts, t)) for t in (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75)]
    assert counts == [0, 5, 5, 5, 5, 5, 5, 0]
    ages = [live(bursts, t).age for t in (0.25, 0.75, 1.25)]
    assert all((a == 0.0).all() for a in ages)
    # a death child's burst shows at the very moment its particle dies (and the parent not)
    parent = sim.Emitter(in_bursts=True, num_particles_per_burst=1, num_bursts=1, lifetime=1.0,
                         velocity_group=exact(0, 0, 3), death=1)
    child = sim.Emitter(index=1, in_bursts=True, num_particles_per_burst=4, num_bursts=1,
                        lifetime=0.5, velocity_group=exact())
    assert [len(p) for p in sim.simulate([parent, child], 0.0)] == [1, 0]
    at_death = sim.simulate([parent, child], 1.0)
    assert [len(p) for p in at_death] == [0, 4]
    np.testing.assert_allclose(at_death[1].position, np.tile([0, 0, 3.0], (4, 1)))
    assert [len(p) for p in sim.simulate([parent, child], 1.5)] == [0, 0]
