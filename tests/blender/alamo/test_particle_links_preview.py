"""Birth and death links and Universe at War's inherit velocity in the live preview (issue 41),
in real headless Blender: spec-built effects whose counts and places follow in closed form
(tests/formats/alamo/test_particle_links.py says why), read from the evaluated quads."""

import struct

import bpy
import numpy as np
import particle_build as pb
import uaw_build as ub

from io_alamo.formats.alamo.particles import read_particles
from io_alamo.formats.alamo.particles import uaw_params as up
from io_alamo.blender.alamo.particle_preview import refresh
from test_particle_preview import at, effect, instances, load
from test_particles import export_selected, import_file

ONE = dict(num_particles_per_second=1, lifetime=1.0)


def test_a_birth_child_shows_one_particle_per_living_parent(blender, tmp_path):
    # a11y-base-state's emitters 0 and 1: never the child's particle due at its parent's death
    _, (parent, child) = load(effect(tmp_path, pb.emitter("parent", birth=1, **ONE),
                                     pb.emitter("child", index=1, **ONE)))
    for t in (0.5, 1.0, 1.5, 2.0):
        at(t)
        assert (len(instances(parent)[0]), len(instances(child)[0])) == (1, 1)


def test_birth_and_death_links_to_one_child_both_play(blender, tmp_path):
    # the parent flies +z at 1 unit/s; the child (2 per second, living 1.5 s) runs while each
    # parent particle lives and gives one burst of 2 where it dies (z = 1 at 1 s, 2 s, ...)
    parent = pb.emitter("parent", birth=1, death=1, groups=[{"type": 0, "val_z": 1.0}, {}, {}],
                        **ONE)
    kid = pb.emitter("child", index=1, num_particles_per_second=2, lifetime=1.5,
                     groups=[{"type": 0}, {}, {}])
    _, (p, c) = load(effect(tmp_path, parent, kid))
    at(0.5)
    assert len(instances(c)[0]) == 2
    at(1.25)                    # birth children at 0, 0.5 | 1.0; the burst of 2 at 1 s
    places, _ = instances(c)
    assert len(places) == 5
    # still where they were born: the parent's place then (z = its age), the burst at z = 1
    np.testing.assert_allclose(np.sort(places[:, 2]), [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-4)
    assert np.sum(np.isclose(places[:, 2], 1.0, atol=1e-4)) == 2


def test_a_loop_of_links_stays_bounded(blender, tmp_path):
    # 0 births 1, 1 births 2, 2 births 1: without end in the game, a few levels in the preview
    _, objs = load(effect(tmp_path, pb.emitter("root", birth=1, **ONE),
                          pb.emitter("a", index=1, birth=2, **ONE),
                          pb.emitter("b", index=2, birth=1, **ONE)))
    at(1.5)
    counts = [len(instances(o)[0]) for o in objs]
    assert counts[0] == 1 and 0 < counts[1] < 100 and 0 < counts[2] < 100


def _trail_effect(cap):
    parent = ub.emitter("fire", ub.velocity_creator(34, ub.velocity_options(), 1.0, 1.0, ub.group(
        ub.DIRECTION, direction=(1, 0, 0), magnitude=(2, 2))), lifetime=4.0)
    trail = ub.emitter("trail", ub.velocity_creator(
        39, ub.velocity_options(True, True, 0.5, cap) + [(300, pb.cstr("fire"))]), lifetime=3.0)
    return ub.effect([parent, trail])


def param(obj, name):
    return next(p for p in obj.alamo_uaw.params if p.label.endswith(name.replace("_", " ")))


def test_uaw_inherit_velocity_plays_and_its_edit_reaches_the_file(blender, tmp_path):
    data = _trail_effect(0.75)
    path = tmp_path / "p_uaw_test.alo"
    path.write_bytes(data)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
    system, (f, trail) = import_file(path)
    at(1.25)
    # trails born at 0, 0.5, 1.0 where parent 0 was (x = 0, 1, 2) and at 1.0 from parent 1
    # (x = 0), drifting +x at the inherited 0.5 x 2 units/s, capped at 0.75
    def xs(speed):
        return np.sort([2 * s + speed * (1.25 - (b + s)) for b, s in
                        ((0, 0), (0, 0.5), (0, 1.0), (1, 0))])
    np.testing.assert_allclose(np.sort(instances(trail)[0][:, 0]), xs(0.75), atol=1e-4)
    param(trail, "max_inherited_velocity").float_value = 5.0
    refresh(scene)
    np.testing.assert_allclose(np.sort(instances(trail)[0][:, 0]), xs(1.0), atol=1e-4)
    param(trail, "inherit_velocity").bool_value = False
    refresh(scene)
    np.testing.assert_allclose(np.sort(instances(trail)[0][:, 0]), xs(0.0), atol=1e-4)
    param(trail, "inherit_velocity").bool_value = True
    (tmp_path / "out").mkdir()
    out = export_selected(system, tmp_path / "out" / path.name)
    assert len(out) == len(data)
    assert out.replace(struct.pack("<f", 5.0), struct.pack("<f", 0.75), 1) == data
    values = {p.name: p.value for p in up.emitter_parameters(read_particles(out).emitters[1])}
    assert values["max_inherited_velocity"] == 5.0 and values["inherit_velocity"]
