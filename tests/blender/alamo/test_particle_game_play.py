"""The preview plays effects as FORMAT-NOTES' "Particle effects: how the game plays them" says
(issue 41 part 1), on spec-built files whose motion follows in closed form, in real headless
Blender: counts and places of the evaluated quads at set times."""

import numpy as np
import particle_build as pb

from io_alamo.blender.alamo.particle_preview import draw, nodes
from test_particle_preview import at, effect, instances, load, point_attribute

STILL = [{"type": 0}, {}, {}]


def test_inward_speed_pushes_out_and_adds_to_the_velocity(blender, tmp_path):
    # start 2 units out along +x, velocity group (0, 0, 1), inward speed +3: moves (3, 0, 1)
    em = pb.emitter("out", num_particles_per_second=10, lifetime=2.0, inward_speed=3.0,
                    groups=[{"type": 0, "val_z": 1.0}, {}, {"type": 0, "val_x": 2.0}])
    _, (obj,) = load(effect(tmp_path, em))
    at(1.0)
    places, _ = instances(obj)
    assert len(places) == 11                     # born at 0, 0.1 ... 1 s
    ages = np.arange(0, 11) / 10
    np.testing.assert_allclose(np.sort(places[:, 0]), 2 + 3 * ages, atol=1e-4)
    np.testing.assert_allclose(np.sort(places[:, 2]), ages, atol=1e-4)


def test_death_child_gives_one_burst_where_its_particle_died(blender, tmp_path):
    # FORMAT-NOTES: one particle dying at 1 s, a death child of endless bursts of 5 every
    # 0.5 s: 5 child particles at 2.2 s (its whole schedule would show 15)
    parent = pb.emitter("parent", in_bursts=1, num_particles_per_burst=1, num_bursts=1,
                        lifetime=1.0, death=1, groups=[{"type": 0, "val_x": 2.0}, {}, {}])
    child = pb.emitter("child", index=1, in_bursts=1, num_particles_per_burst=5, num_bursts=0,
                       burst_delay=0.5, lifetime=3.0, groups=[{"type": 0, "val_z": 1.0}, {}, {}])
    _, (p, c) = load(effect(tmp_path, parent, child))
    at(2.2)
    assert len(instances(p)[0]) == 0
    places, _ = instances(c)
    assert len(places) == 5
    # born at 1 s at x = 2, rising at 1 unit/s, no velocity of the parent's (frame 53 at
    # 24 frames/s: 2.2083 s)
    np.testing.assert_allclose(places, np.tile([2.0, 0.0, 53 / 24 - 1.0], (5, 1)), atol=1e-4)


def test_randomized_scale_only_shrinks(blender, tmp_path):
    em = pb.emitter("scaled", num_particles_per_second=200, lifetime=2.0, randomized_scale=0.5,
                    groups=STILL, tracks={"size": (4.0, 4.0, 0, [])})
    _, (obj,) = load(effect(tmp_path, em))
    at(1.0)
    _, sizes = instances(obj)
    assert len(sizes) == 201
    assert sizes.min() >= 2.0 - 1e-4 and sizes.max() <= 4.0 + 1e-4
    assert sizes.min() < 2.1 and sizes.max() > 3.9


def test_rotation_speed_turns_revolutions_counter_clockwise(blender, tmp_path):
    # a quarter revolution per second; bursts of one at 0 and 1 s: at 1.5 s the older quad
    # (age 1.5) is turned a quarter turn further than the younger (age 0.5), counter-clockwise
    # about the quad's normal (its front, which faces the viewer)
    import mathutils
    em = pb.emitter("spin", in_bursts=1, num_particles_per_burst=1, num_bursts=2,
                    burst_delay=1.0, lifetime=4.0, groups=STILL,
                    tracks={"rotation_speed": (0.25, 0.25, 0, [])})
    _, (obj,) = load(effect(tmp_path, em))
    at(1.5)
    euler = point_attribute(obj, nodes.ROTATION, 3)
    age = point_attribute(obj, draw.AGE)
    assert len(euler) == 2
    old, young = (np.array(mathutils.Euler(euler[i]).to_matrix()) for i in np.argsort(-age))
    quarter = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(young.T @ old, quarter, atol=1e-4)


def test_sprites_sharing_a_spawn_point_are_never_coplanar(blender, tmp_path):
    # two additive emitters at one point (an engine glow): the quads get distinct depth
    # offsets (their z scale), which Cycles needs to draw them cleanly
    a = pb.emitter("glow_a", in_bursts=1, num_particles_per_burst=3, num_bursts=1, lifetime=5.0,
                   groups=STILL)
    b = pb.emitter("glow_b", index=1, in_bursts=1, num_particles_per_burst=3, num_bursts=1,
                   lifetime=5.0, groups=STILL)
    _, objs = load(effect(tmp_path, a, b))
    at(1.0)
    depth = np.concatenate([point_attribute(o, nodes.SCALE, 3)[:, 2] for o in objs])
    assert len(depth) == 6 and (depth > 0).all()
    assert len(np.unique(np.round(depth, 7))) == 6
    assert depth.max() < 0.01 * 20                 # a fraction of the quad's 20-unit width
    for o in objs:                                 # the particles' places are kept
        places, sizes = instances(o)
        np.testing.assert_allclose(places, 0.0, atol=1e-5)
        np.testing.assert_allclose(sizes, 20.0, rtol=1e-5)


def test_an_effect_on_an_alt1_proxy_waits_for_alt1(blender, tmp_path):
    """The unit's damage state starts at ALT0: a ``p_..._ALT1`` proxy with no ALT0 (damage
    smoke) shows nothing until the unit is shown at ALT1, as the LOD/ALT panel shows it."""
    import bpy
    from test_particle_preview import import_alo, stream, unit_emitters, unit_model
    model = unit_model(tmp_path, "p_unit_smoke_ALT1")
    effect(tmp_path, stream(groups=[{}, {}, {}]), name="p_unit_smoke")
    result = import_alo(bpy.context, str(model))
    (em,) = unit_emitters(result)
    at(1.0)
    assert len(instances(em)[0]) == 0
    bpy.context.view_layer.objects.active = result.armature
    bpy.ops.alamo.lod_alt_show(alt=1)
    at(1.0)
    assert len(instances(em)[0]) == 11
    bpy.ops.alamo.lod_alt_show(alt=0)
    at(1.0)
    assert len(instances(em)[0]) == 0
