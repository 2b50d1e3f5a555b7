"""Universe at War start-place and velocity shapes: the property groups' fields (and the
simple creators' sphere, box and torus sizes) decoded, each edit written into its own bytes
of its own value chunk, and the preview sampling every shape as the viewer's
``PropertyGroup::Sample`` does (torus, spherical-range angle limits, hollow), on spec-built
effects (tests/uaw_build.py)."""

import struct

import numpy as np
import pytest
import uaw_build as ub

from io_alamo.formats.alamo import AlamoFormatError
from io_alamo.formats.alamo.particles import read_particles, simulate as sim
from io_alamo.formats.alamo.particles import uaw_params as up
from io_alamo.formats.alamo.particles import uaw_play
from io_alamo.formats.alamo.particles.write import write_particles


def params(data, emitter=0):
    return {p.name: p for p in up.emitter_parameters(read_particles(data).emitters[emitter])}


def edit(data, **values):
    """``data`` with ``values`` ({parameter name: value}) laid on emitter 0."""
    system = read_particles(data)
    p = params(data)
    up.apply_edits(system, {}, {p[k].key: v for k, v in values.items()})
    return write_particles(system)


def starts(data, count, t=1e-3):
    """Where the particles of emitter 0 are at ``t`` (no velocity: where they start)."""
    (model,) = uaw_play.models(read_particles(data))
    p = sim.simulate([model], t)[0].position
    assert len(p) == count
    return p


def diff(a, b):
    assert len(a) == len(b)
    return [i for i in range(len(a)) if a[i] != b[i]]


def sphere_effect(radius=(0, 2), per=300.0, hollow=False, velocity=None):
    creator = ub.shape_creator(per, 1.0, bursting=True, hollow=(hollow, False),
                               position=ub.group(ub.SPHERE, radius=radius), velocity=velocity)
    return ub.effect([ub.emitter("s", creator, lifetime=5.0)])


def test_group_fields_decode_with_their_shape():
    data = sphere_effect((0.5, 2), velocity=ub.group(ub.DIRECTION, direction=(0, 0, 2),
                                                     magnitude=(3, 4)))
    p = params(data)
    assert p["position_shape"].value == up.SHAPES.index("sphere")
    assert (p["position_radius_min"].value, p["position_radius_max"].value) == (0.5, 2.0)
    assert p["velocity_shape"].value == up.SHAPES.index("direction")
    assert p["velocity_direction_z"].value == 2.0 and p["velocity_magnitude_max"].value == 4.0
    assert p["hollow_position"].value == 0 and p["position_radius_max"].offset == 40
    assert {n for n, _, _ in up.GROUP_LAYOUT} >= {f for fs in up.SHAPE_FIELDS.values()
                                                 for f in fs}


def test_a_group_field_edit_changes_only_its_four_bytes_and_the_preview_follows():
    data = sphere_effect((0, 2))
    assert np.linalg.norm(starts(data, 300), axis=1).max() > 1.5
    out = edit(data, position_radius_max=0.5)
    changed = diff(data, out)
    assert len(changed) <= 4 and changed[-1] - changed[0] < 4
    assert out.replace(struct.pack("<f", 0.5), struct.pack("<f", 2.0), 1) == data
    assert params(out)["position_radius_max"].value == 0.5
    assert np.linalg.norm(starts(out, 300), axis=1).max() <= 0.5 + 1e-9
    assert write_particles(read_particles(out)) == out


def test_a_shape_change_to_a_torus_writes_its_three_fields_and_draws_a_torus():
    data = sphere_effect()
    out = edit(data, position_shape=up.SHAPES.index("torus"), position_torus_radius=3.0,
               position_tube_radius=0.5)
    changed = diff(data, out)
    shape_at = params(data)["position_shape"]
    assert len(changed) <= 12                       # type, torus and tube radius: 4 bytes each
    assert params(out)["position_shape"].value == 6 and shape_at.offset == 0
    p = starts(out, 300)
    ring = np.hypot(p[:, 0], p[:, 1])
    tube = np.hypot(ring - 3.0, p[:, 2])            # distance to the torus' circle
    assert tube.max() <= 0.5 + 1e-9 and tube.max() > 0.4
    assert np.ptp(np.arctan2(p[:, 1], p[:, 0])) > 5.5   # all the way around Z
    hollow = edit(out, hollow_position=1)
    np.testing.assert_allclose(np.hypot(np.hypot(*starts(hollow, 300)[:, :2].T) - 3.0,
                                        starts(hollow, 300)[:, 2]), 0.5)


def test_spherical_range_keeps_to_its_angle_limits():
    # the file's angles: 0 the pole above, 1 the equator; 0 .. 0.5: 45 to 90 degrees up
    where = ub.group(ub.SPHERICAL_RANGE, angle=(0.0, 0.5), sphere_radius=(1.0, 2.0))
    creator = ub.shape_creator(400.0, 1.0, bursting=True, position=where)
    data = ub.effect([ub.emitter("cap", creator, lifetime=5.0)])
    p = starts(data, 400)
    r = np.linalg.norm(p, axis=1)
    up_angle = np.degrees(np.arcsin(p[:, 2] / r))
    assert r.min() >= 1 - 1e-9 and r.max() <= 2 + 1e-9
    assert up_angle.min() >= 45 - 1e-6 and up_angle.max() <= 90 + 1e-6
    assert up_angle.min() < 50 and up_angle.max() > 85
    wide = starts(edit(data, position_angle_max=2.0), 400)     # down to the pole below
    assert wide[:, 2].min() < -1.0


def test_spherical_range_hollow_lies_on_its_bounding_faces():
    where = ub.group(ub.SPHERICAL_RANGE, angle=(0.0, 1.0), sphere_radius=(1.0, 2.0))
    creator = ub.shape_creator(400.0, 1.0, bursting=True, position=where, hollow=(True, False))
    p = starts(ub.effect([ub.emitter("cap", creator, lifetime=5.0)]), 400)
    r = np.linalg.norm(p, axis=1)
    on_sphere = np.isclose(r, 1.0) | np.isclose(r, 2.0)
    # the limit "cones": the equator's is the flat base, the pole's the Z axis
    on_base = np.isclose(p[:, 2], 0.0, atol=1e-9)
    on_axis = np.isclose(np.hypot(p[:, 0], p[:, 1]), 0.0, atol=1e-9)
    assert (on_sphere | on_base | on_axis).all()
    assert on_sphere.any() and on_base.any() and on_axis.any()


def test_direction_and_cylinder_velocities_as_the_viewer_samples_them():
    velocity = ub.group(ub.DIRECTION, direction=(0, 3, 4), magnitude=(2, 6))
    data = sphere_effect((0, 0), velocity=velocity)
    (model,) = uaw_play.models(read_particles(data))
    one = sim.simulate([model], 0.5)[0]             # between bursts: only the first shows
    speed = np.linalg.norm(one.position, axis=1) / 0.5
    np.testing.assert_allclose(one.position / np.linalg.norm(one.position, axis=1)[:, None],
                               [[0, 0.6, 0.8]] * 300)
    assert speed.min() >= 2 - 1e-6 and speed.max() <= 6 + 1e-6 and np.ptp(speed) > 3
    hollow = edit(data, hollow_velocity=1)
    (model,) = uaw_play.models(read_particles(hollow))
    ends = np.linalg.norm(sim.simulate([model], 0.5)[0].position, axis=1) / 0.5
    assert set(np.round(ends, 6)) == {2.0, 6.0}


@pytest.mark.parametrize("pid, sizes, check", [
    (2, (1.5,), lambda p: np.allclose(np.linalg.norm(p, axis=1), 1.5)),
    (3, (2.0, 4.0, 6.0), lambda p: (np.abs(p) <= [1, 2, 3]).all() and np.abs(p).max() > 2.5),
    (4, (3.0, 0.5), lambda p: np.hypot(np.hypot(p[:, 0], p[:, 1]) - 3, p[:, 2]).max() <= 0.5),
])
def test_simple_creators_start_on_their_shape_and_fly_out(pid, sizes, check):
    def at_one_second(speed):
        creator = ub.simple_creator(pid, 100.0, speed=speed, sizes=sizes)
        (model,) = uaw_play.models(read_particles(ub.effect([ub.emitter("s", creator,
                                                                        lifetime=5.0)])))
        return sim.simulate([model], 0.995)[0]     # 100 born, the next one not yet
    still, moving = at_one_second(0.0), at_one_second(2.0)
    assert len(still) == 100 and check(still.position)          # speed 0: where they start
    flown = moving.position - still.position                    # same particles, same starts
    along = np.sum(flown * still.position, axis=1) / np.linalg.norm(still.position, axis=1)
    np.testing.assert_allclose(along, np.linalg.norm(flown, axis=1), atol=1e-9)  # outward
    np.testing.assert_allclose(np.sort(np.linalg.norm(flown, axis=1)),
                               np.sort(2.0 * moving.age), atol=1e-9)


def test_simple_creator_sizes_edit_in_place():
    data = ub.effect([ub.emitter("box", ub.simple_creator(3, 10.0, sizes=(2.0, 4.0, 6.0)))])
    p = params(data)
    assert (p["box_length"].value, p["box_width"].value, p["box_height"].value) == (2, 4, 6)
    out = edit(data, box_width=8.0)
    changed = diff(data, out)
    assert len(changed) <= 4 and params(out)["box_width"].value == 8.0


def test_an_unknown_shape_is_refused():
    data = sphere_effect()
    system = read_particles(data)
    key = params(data)["position_shape"].key
    with pytest.raises(AlamoFormatError, match="shape"):
        up.apply_edits(system, {}, {key: 9})


def test_shape_edits_load_in_the_viewer_and_play_as_the_preview(tmp_path):
    import particle_viewer
    if particle_viewer.exe() is None:
        pytest.skip("particle_check cannot be built here")
    data = sphere_effect((0, 2), per=50.0)
    out = edit(data, position_shape=up.SHAPES.index("torus"), position_torus_radius=3.0,
               position_tube_radius=0.5)
    path = tmp_path / "p_uaw_torus.alo"
    path.write_bytes(out)
    ok, line, rows = particle_viewer.run(path, [0.5, 1.5])    # between bursts: the viewer's
    assert ok, line                                             # clock is unsure at one
    models = uaw_play.models(read_particles(out))
    for t in (0.5, 1.5):
        ours = sim.simulate(models, t)[0]
        live, lo, hi, _ = rows[(t, 0)]
        assert live == len(ours)
        # the viewer's bounds: the torus' (radius 3.5 around Z, 0.5 high)
        assert max(abs(v) for v in lo[:2] + hi[:2]) == pytest.approx(3.5, abs=0.3)
        assert max(abs(lo[2]), abs(hi[2])) <= 0.5 + 1e-3
        assert np.abs(ours.position[:, :2]).max() == pytest.approx(3.5, abs=0.3)
