"""Universe at War modifiers: acceleration, attract acceleration, keyed size and keyed colour
previewed as the viewer's simulation plays them (closed form on spec-built effects), their
plain values and each key's time and value editable in their own bytes; vortex, linear speed
and speed limit editable (kept, not played)."""

import struct

import numpy as np
import pytest
import uaw_build as ub

from io_alamo.formats.alamo.particles import read_particles, simulate as sim
from io_alamo.formats.alamo.particles import uaw_play
from io_alamo.formats.alamo.particles.write import write_particles
from test_uaw_shapes import edit, params


def changed(a, b):
    assert len(a) == len(b)
    return [i for i in range(len(a)) if a[i] != b[i]]


def upward(modifiers, lifetime=4.0, per=10.0, size=0.5):
    """10 particles a second from the emitter, flying up at 3 units/s."""
    velocity = ub.group(ub.DIRECTION, direction=(0, 0, 1), magnitude=(3, 3))
    creator = ub.shape_creator(per, 1.0, velocity=velocity)
    return ub.effect([ub.emitter("up", creator, lifetime=lifetime, size=size,
                                 modifiers=modifiers)])


def play(data, t):
    return sim.simulate(uaw_play.models(read_particles(data)), t)[0]


def test_acceleration_bends_the_path_and_edits_in_its_twelve_bytes():
    data = upward([ub.acceleration((1.0, 0.0, -2.0))])
    one = play(data, 2.0)
    age = one.age
    np.testing.assert_allclose(one.position[:, 2], 3 * age - age ** 2, atol=1e-9)
    np.testing.assert_allclose(one.position[:, 0], 0.5 * age ** 2, atol=1e-9)
    assert params(data)["acceleration"].value == (1.0, 0.0, -2.0)
    out = edit(data, acceleration=(0.0, 0.0, -6.0))
    diff = changed(data, out)
    assert 0 < len(diff) <= 12 and diff[-1] - diff[0] < 12
    two = play(out, 2.0)
    np.testing.assert_allclose(two.position[:, 2], 3 * two.age - 3 * two.age ** 2, atol=1e-9)
    np.testing.assert_allclose(two.position[:, 0], 0.0, atol=1e-9)


def test_attract_acceleration_pushes_out_from_the_emitter():
    creator = ub.shape_creator(50.0, 1.0, bursting=True,
                               position=ub.group(ub.SPHERE, radius=(1, 1)))
    data = ub.effect([ub.emitter("shell", creator, lifetime=5.0,
                                 modifiers=[ub.attract(4.0)])])
    one = play(data, 1.5)
    assert len(one) == 100                       # bursts at 0 and 1 s: ages 1.5 and 0.5
    np.testing.assert_allclose(np.linalg.norm(one.position, axis=1), 1 + 2 * one.age ** 2)
    inward = play(edit(data, attract_acceleration=-0.2), 1.5)
    np.testing.assert_allclose(np.linalg.norm(inward.position, axis=1),
                               1 - 0.1 * inward.age ** 2)


def test_keyed_size_plays_over_the_life_and_each_key_edits_in_place():
    data = upward([ub.keyed_size([(0.0, 0.5), (1.0, 1.5)])], lifetime=4.0)
    p = params(data)
    assert (p["size_key_2_time"].value, p["size_key_2"].value) == (1.0, 1.5)
    one = play(data, 2.0)
    np.testing.assert_allclose(one.size, 2 * (0.5 + one.age / 4.0), atol=1e-6)  # half widths
    out = edit(data, size_key_2=3.5)
    diff = changed(data, out)
    assert 0 < len(diff) <= 4
    assert out.replace(struct.pack("<f", 3.5), struct.pack("<f", 1.5), 1) == data
    two = play(out, 2.0)
    np.testing.assert_allclose(two.size, 2 * (0.5 + 3.0 * two.age / 4.0), atol=1e-6)
    smooth = play(edit(data, smooth_sizes=1), 2.0)
    s = smooth.age / 4.0
    np.testing.assert_allclose(smooth.size, 2 * (0.5 + (3 * s * s - 2 * s ** 3)), atol=3e-3)


def test_keyed_colour_plays_over_the_life_and_each_key_edits_in_place():
    red, blue = (1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 1.0, 0.5)
    data = upward([ub.keyed_colour([(0.0, red), (0.5, blue)])], lifetime=4.0)
    one = play(data, 3.0)
    f = np.clip(one.age / 4.0 / 0.5, 0, 1)[:, None]
    np.testing.assert_allclose(one.color, (1 - f) * red + f * np.array(blue), atol=1e-3)
    out = edit(data, colour_key_1=(0.0, 1.0, 0.0, 1.0), colour_key_2_time=1.0)
    assert len(changed(data, out)) <= 16 + 4
    two = play(out, 3.0)
    f = (two.age / 4.0)[:, None]
    np.testing.assert_allclose(two.color, (1 - f) * [0, 1, 0, 1] + f * np.array(blue),
                               atol=1e-3)


def test_unplayed_modifiers_are_editable_and_kept():
    vortex = [13, [(200, struct.pack("<3f", 0, 0, 1)), (201, ub.f32(2.0)), (202, b"\x00")]]
    limit = [42, [(100, ub.f32(0.5)), (101, ub.f32(9.0))]]
    data = upward([vortex, limit])
    assert write_particles(read_particles(data)) == data
    p = params(data)
    assert p["vortex_speed"].value == 2.0 and p["max_speed"].value == 9.0
    out = edit(data, vortex_speed=5.0, max_speed=4.0)
    assert len(changed(data, out)) <= 8
    assert params(out)["vortex_speed"].value == 5.0 and params(out)["max_speed"].value == 4.0


def test_modifiers_load_in_the_viewer_and_play_as_the_preview(tmp_path):
    import particle_viewer
    if particle_viewer.exe() is None:
        pytest.skip("particle_check cannot be built here")
    data = upward([ub.acceleration((0.0, 0.0, -2.0)), ub.keyed_size([(0.0, 0.5), (1.0, 1.5)])],
                  lifetime=2.0)
    out = edit(data, acceleration=(1.0, 0.0, -1.0))
    path = tmp_path / "p_uaw_modifiers.alo"
    path.write_bytes(out)
    ok, line, rows = particle_viewer.run(path, [0.55, 1.55, 3.05])
    assert ok, line
    for t in (0.55, 1.55, 3.05):
        ours = play(out, t)
        live, lo, hi, size_mean = rows[(t, 0)]
        assert live == len(ours)
        assert hi[2] == pytest.approx(ours.position[:, 2].max(), abs=0.15)   # the top
        assert hi[0] == pytest.approx(ours.position[:, 0].max(), abs=0.15)   # blown along x
        # the viewer's size is the plugin's (half the width)
        assert float(size_mean) == pytest.approx(ours.size.mean() / 2, rel=0.05)
