"""Birth and death links as the game plays them (issue 41): every link its own instances (a
child of several parents, a parent of several children, birth and death to one child, chains),
a birth child emitting only while its particle lives, loops bounded and named by ``validate``,
Universe at War's several children per parent and its local / inherit velocity. Spec-built
effects (tests/particle_build.py, tests/uaw_build.py) through the format layer, counts and
places in closed form; some through the viewer's ``particle_check`` where it is a witness."""

import struct

import numpy as np
import particle_build as pb
import pytest
import uaw_build as ub

from io_alamo.formats.alamo.particles import read_particles, uaw_play
from io_alamo.formats.alamo.particles import simulate as sim
from io_alamo.formats.alamo.particles.describe import problems

ONE = dict(num_particles_per_second=1, lifetime=1.0)       # one particle a second, living 1 s


def system(*emitters):
    data, _ = pb.particle_system("p_links", emitters=list(emitters))
    return data, [sim.model_of(r, i) for i, r in enumerate(read_particles(data).emitters)]


def counts(models, t, **kw):
    return [len(p) for p in sim.simulate(models, t, **kw)]


def test_a_birth_child_emits_only_while_its_particle_lives():
    # a11y-base-state's emitters 0 and 1: the child (a stream of 1/s living 1 s) starts with
    # each parent particle (born every second, living 1 s). Its particle due exactly when the
    # parent dies is not emitted: the parent no longer lives (FORMAT-NOTES: "a birth child
    # emits while its particle lives"; DrKnickers' editors update the parent first and stop
    # the child). The viewer's particle_check shows 2 from 1 s on: its newest instances update
    # first, so a child emits at its parent's death time before the death is seen.
    _, models = system(pb.emitter("parent", birth=1, **ONE),
                       pb.emitter("child", index=1, **ONE))
    for t in (0.5, 1.0, 1.5, 2.0, 2.5, 7.25):
        assert counts(models, t) == [1, 1]
    child = sim.simulate(models, 1.5)[1]
    np.testing.assert_allclose(child.age, [0.5])            # the one born at 1 s (instance 1)
    # 4 per second living 0.6 s: instance k emits at k, k + 0.25, k + 0.5, k + 0.75
    _, models = system(pb.emitter("parent", birth=1, **ONE),
                       pb.emitter("child", index=1, num_particles_per_second=4, lifetime=0.6))
    assert counts(models, 1.2)[1] == 2                      # born 0.75 and 1.0
    assert counts(models, 1.5)[1] == 3                      # born 1.0, 1.25, 1.5


def test_a_child_of_two_parents_plays_both_links():
    # parent 0 births the child; parent 1 (one particle at 0 moving +x 2 units/s, dying at
    # 1 s) gives it one death burst of 2 (its stream's 2 per second) at x = 2
    _, models = system(pb.emitter("births", birth=2, **ONE),
                       pb.emitter("dies", index=1, death=2, in_bursts=1, num_particles_per_burst=1,
                                  num_bursts=1, lifetime=1.0,
                                  groups=[{"type": 0, "val_x": 2.0}, {}, {}]),
                       pb.emitter("child", index=2, num_particles_per_second=2, lifetime=2.0))
    # birth instances: parent k emits at k and k + 0.5 (2 per second while it lives)
    assert counts(models, 0.5) == [1, 1, 2]
    # 1.2 s: birth children 0, 0.5, 1.0 (ages < 2) and the death burst of 2 at 1 s
    assert counts(models, 1.2) == [1, 0, 5]
    child = sim.simulate(models, 1.2)[2]
    burst = child.age < 0.2 + 1e-9
    assert burst.sum() == 3                                 # 2 of the burst, 1 born at 1.0
    at_two = np.isclose(child.position[:, 0], 2.0)
    assert at_two.sum() == 2 and np.allclose(child.age[at_two], 0.2)


def test_birth_and_death_links_to_one_child_each_play():
    # one parent naming the same child for birth and death: its schedule (2/s, living 1.5 s)
    # while each parent particle lives, and one burst of 2 where it dies
    _, models = system(pb.emitter("parent", birth=1, death=1, **ONE),
                       pb.emitter("child", index=1, num_particles_per_second=2, lifetime=1.5))
    assert counts(models, 0.5) == [1, 2]                    # born 0 and 0.5
    assert counts(models, 1.2) == [1, 5]                    # 0, 0.5 | 1.0 | burst of 2 at 1
    assert counts(models, 1.5) == [1, 5]                    # 0.5 dies; 1.0, 1.5 | burst
    assert counts(models, 2.2) == [1, 7]                    # 1.0, 1.5 | 2.0 | bursts at 1, 2
    kids = sim.simulate(models, 1.2)[1]
    assert len(set(kids.key.tolist())) == 5                 # the two kinds draw apart


def test_a_grandchild_outlives_its_grandparent_particle():
    # 0 births 1 (2/s, living 0.5 s), whose deaths burst 2 (3 per second, living 1 s): at
    # 1.5 s the burst of the child particle that died at 1.0 (its parent particle, born at
    # 0, died at 1.0) still lives beside the burst of the one dying at 1.5
    _, models = system(pb.emitter("root", birth=1, **ONE),
                       pb.emitter("trail", index=1, death=2, num_particles_per_second=2,
                                  lifetime=0.5),
                       pb.emitter("pop", index=2, num_particles_per_second=3, lifetime=1.0))
    assert counts(models, 1.4) == [1, 1, 6]                 # bursts at 0.5 and 1.0
    assert counts(models, 1.5) == [1, 1, 6]                 # bursts at 1.0 and 1.5
    ages = sim.simulate(models, 1.5)[2].age
    np.testing.assert_allclose(np.sort(ages), [0, 0, 0, 0.5, 0.5, 0.5], atol=1e-9)


def viewer_rows(tmp_path, data, times, name="p_links.alo"):
    """``particle_check --times`` rows of the effect ``data`` ({(t, emitter): (live, min,
    max, size)}), or None when the viewer cannot be built here."""
    import particle_viewer
    if particle_viewer.exe() is None:
        return None
    path = tmp_path / name
    path.write_bytes(data)
    ok, line, rows = particle_viewer.run(path, times)
    assert ok, line
    return rows


def check_trail(models, speed, atol):
    """The trail child (emitter 1) of a parent streaming one a second along +x at 2 units/s,
    at 1.25 s: parent 0 (born 0) has trailed at 0, 0.5 and 1.0 s, parent 1 (born 1) at 1.0 s;
    each particle emitted where its parent was (x = 2 * its age s), then drifting at
    ``speed``. Returns (the particles, their sorted x)."""
    kids = sim.simulate(models, 1.25)[1]
    assert len(kids) == 4
    np.testing.assert_allclose(kids.velocity, np.tile([speed, 0, 0], (4, 1)), atol=atol)
    expected = np.sort([2 * s + speed * (1.25 - (b + s)) for b, s in
                        ((0, 0), (0, 0.5), (0, 1.0), (1, 0))])
    np.testing.assert_allclose(np.sort(kids.position[:, 0]), expected, atol=atol)
    return kids, expected


def eaw_flying_pair(use, mult, death=False):
    """An EaW parent streaming one a second, flying +x at 2 units/s, living 4 s, and its birth
    child (2 a second, living 3 s, at rest by itself) with mini 67 ``use`` and mini 40
    ``mult``; ``death``: a death child instead (one burst of 2), the parent living 1 s."""
    link = dict(death=1) if death else dict(birth=1)
    child = dict(in_bursts=1, num_particles_per_burst=2, num_bursts=1) if death else \
        dict(num_particles_per_second=2)
    return system(pb.emitter("parent", num_particles_per_second=1,
                             lifetime=1.0 if death else 4.0,
                             groups=[{"type": 0, "val_x": 2.0}, {}, {}], **link),
                  pb.emitter("child", index=1, lifetime=3.0, use_emitter_speed_mult=use,
                             emitter_speed_mult=mult, **child))


@pytest.mark.parametrize("use, mult", [(1, 1.0), (1, 0.5), (0, 1.0), (1, 0.0)])
def test_an_eaw_birth_child_takes_its_parents_speed_only_with_mini_67(tmp_path, use, mult):
    # mini 67 (use emitter speed mult) with mini 40: the viewer's parentLinkStrength (0x43 and
    # 0x28: "inherit velocity" of its trail creator, no cap), DrKnickers' "parent speed
    # inherit", the spec's "inherit the emitter's parent's velocity times the multiplier".
    # Without it (FORMAT-NOTES: children inherit no velocity) the child starts at rest where
    # its parent particle is.
    data, models = eaw_flying_pair(use, mult)
    kids, expected = check_trail(models, 2.0 * mult if use else 0.0, atol=1e-9)
    rows = viewer_rows(tmp_path, data, (1.25,))
    if rows is None:
        pytest.skip("particle_check cannot be built here")
    live, lo, hi, _ = rows[(1.25, 1)]
    assert live == len(kids)
    # the newest particle (born at 1 s with parent 1, at the emitter) agrees exactly; the
    # others lag a frame behind their parent in the viewer (its children update first)
    assert lo[0] == pytest.approx(expected[0], abs=1e-4)
    assert hi[0] == pytest.approx(expected[-1], abs=0.1)


def test_an_eaw_death_child_stays_where_its_particle_died_even_with_mini_67(tmp_path):
    # the viewer's death burst keeps none of the dying particle's speed, with or without
    # mini 67: at 1.5 s its two particles stay at x = 2 (where parent 0 died at 1 s), as the
    # preview's
    for use in (1, 0):
        data, models = eaw_flying_pair(use, 1.0, death=True)
        kids = sim.simulate(models, 1.5)[1]
        assert len(kids) == 2
        np.testing.assert_allclose(kids.position, np.tile([2.0, 0, 0], (2, 1)), atol=1e-9)
        rows = viewer_rows(tmp_path, data, (1.5,))
        if rows is None:
            continue
        live, lo, hi, _ = rows[(1.5, 1)]
        assert live == 2 and lo == hi and lo[0] == pytest.approx(2.0, abs=0.05)


def test_self_links_and_unreached_loops_never_run_and_validate_says_so():
    _, models = system(pb.emitter("self", birth=0, **ONE))
    assert counts(models, 1.5) == [0]
    data, models = system(pb.emitter("root", **ONE),
                          pb.emitter("a", index=1, death=2, **ONE),
                          pb.emitter("b", index=2, death=1, **ONE))
    assert counts(models, 3.5) == [1, 0, 0]
    said = [str(p) for p in problems(data)]
    assert any("emitter 1 ('a')" in s and "the game never shows it" in s for s in said)
    assert any("emitter 2 ('b')" in s and "the game never shows it" in s for s in said)


def test_a_loop_a_root_reaches_is_bounded_and_named():
    # 0 births 1, 1 births 2, 2 births 1 again, with no delay: every particle at once starts
    # another instance (the game spawns without end); the preview follows MAX_DEPTH levels
    data, models = system(pb.emitter("root", birth=1, num_particles_per_second=50,
                                     lifetime=1.0),
                          pb.emitter("a", index=1, birth=2, num_particles_per_second=50,
                                     lifetime=1.0),
                          pb.emitter("b", index=2, birth=1, num_particles_per_second=50,
                                     lifetime=1.0))
    found = sim.instances(models, 2.0)
    assert sorted(found) == [0, 1, 2]
    a, b = counts(models, 2.0)[1:]
    assert 0 < a <= sim.MAX_PARTICLES and 0 < b <= sim.MAX_PARTICLES
    said = [str(p) for p in problems(data)]
    assert any("1 -> 2 -> 1 form a loop" in s for s in said)


def test_validate_is_quiet_on_links_the_game_plays():
    for ems in ([pb.emitter("child", **ONE), pb.emitter("parent", index=1, birth=0, death=0,
                                                        **ONE)],
                [pb.emitter("parent", birth=1, death=2, **ONE),
                 pb.emitter("b", index=1, **ONE), pb.emitter("d", index=2, **ONE)]):
        data, _ = system(*ems)
        assert problems(data) == []


# --- Universe at War ------------------------------------------------------------------------

def burst_parent(**kw):
    return ub.emitter("fire", ub.shape_creator(1.0, 10.0, bursting=True, velocity=ub.group(
        ub.DIRECTION, direction=(1, 0, 0), magnitude=(2, 2))), lifetime=1.0,
        spawn_on_death=True, **kw)


def test_uaw_every_death_child_of_a_parent_plays():
    # two death creators naming "fire": both burst where its particle died (x = 2 at 1 s)
    data = ub.effect([burst_parent(), ub.emitter("sparks", ub.death_creator("fire", 4.0), 5.0),
                      ub.emitter("smoke", ub.death_creator("fire", 3.0), 5.0)])
    models = uaw_play.models(read_particles(data))
    assert models[0].death == 1 and models[2].started_by == ((0, True),)
    _, sparks, smoke = sim.simulate(models, 2.0)
    assert (len(sparks), len(smoke)) == (4, 3)
    np.testing.assert_allclose(smoke.position, np.tile([2.0, 0, 0], (3, 1)), atol=1e-6)


def test_uaw_two_death_children_against_the_viewer(tmp_path):
    import particle_viewer
    if particle_viewer.exe() is None:
        pytest.skip("particle_check cannot be built here")
    data = ub.effect([burst_parent(), ub.emitter("sparks", ub.death_creator("fire", 4.0), 5.0),
                      ub.emitter("smoke", ub.death_creator("fire", 3.0), 5.0)])
    path = tmp_path / "p_uaw_test.alo"
    path.write_bytes(data)
    ok, line, rows = particle_viewer.run(path, (1.5, 3.0))
    assert ok, line
    models = uaw_play.models(read_particles(data))
    for t in (1.5, 3.0):
        assert [rows[(t, i)][0] for i in range(3)] == counts(models, t) == [0, 4, 3]


def flying_parent():
    """A shape creator's stream of one a second flying +x at 2 units/s, living 4 s."""
    return ub.emitter("fire", ub.velocity_creator(34, ub.velocity_options(), 1.0, 1.0, ub.group(
        ub.DIRECTION, direction=(1, 0, 0), magnitude=(2, 2))), lifetime=4.0)


def test_uaw_inherit_velocity_takes_the_parents_scaled_and_capped():
    # the parent flies +x at 2 units/s; a trail child (2 per second) inherits 0.5 x its speed,
    # at most 0.75: (0.75, 0, 0); with a cap of 5: (1, 0, 0); without inheriting: at rest
    parent = flying_parent()
    for inherit, cap, speed in ((True, 0.75, 0.75), (True, 5.0, 1.0), (False, 5.0, 0.0)):
        trail = ub.emitter("trail", ub.velocity_creator(
            39, ub.velocity_options(True, inherit, 0.5, cap) + [(300, pb.cstr("fire"))]),
            lifetime=3.0)
        models = uaw_play.models(read_particles(ub.effect([parent, trail])))
        assert models[0].birth == 1
        check_trail(models, speed, atol=1e-6)


def test_uaw_local_velocity_turns_with_the_emitter_world_velocity_does_not():
    # velocity (1, 0, 0); the effect turned 90 degrees about z (world_to_local its inverse):
    # local velocity stays (1, 0, 0) in the effect's space (+y in the world); world velocity
    # is +x in the world, so (0, -1, 0) in the effect's space
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    for local, expected in ((True, [1, 0, 0]), (False, [0, -1, 0])):
        velocity = ub.group(ub.DIRECTION, direction=(1, 0, 0), magnitude=(1, 1))
        em = ub.emitter("fire", ub.velocity_creator(34, ub.velocity_options(local), 2.0, 1.0,
                                                    velocity))
        (model,) = uaw_play.models(read_particles(ub.effect([em])))
        assert model.world_velocity is (not local)
        parts = sim.simulate([model], 0.75, world_to_local=turn.T)[0]
        assert len(parts) == 2
        np.testing.assert_allclose(parts.velocity, np.tile(expected, (2, 1)), atol=1e-6)
        np.testing.assert_allclose(parts.position, np.outer(parts.age, expected), atol=1e-6)


def test_uaw_velocity_options_are_editable_in_their_bytes():
    from io_alamo.formats.alamo.particles import uaw_params as up
    em = ub.emitter("fire", ub.velocity_creator(34, ub.velocity_options(True, True, 0.5, 2.0)))
    data = ub.effect([em])
    params = {p.name: p for p in up.emitter_parameters(read_particles(data).emitters[0])}
    assert params["local_velocity"].value is True or params["local_velocity"].value == 1
    assert params["inherited_velocity_scale"].value == 0.5
    assert params["max_inherited_velocity"].value == 2.0
    assert struct.pack("<f", 0.5) in data


def test_uaw_inherited_speed_against_the_viewer(tmp_path):
    # the viewer's trail particle born at 1 s with the parent born then (at the emitter) has
    # drifted 0.25 s at the inherited speed: x = 0.1875 (capped at 0.75) or 0.25 (0.5 x 2);
    # the others lag a frame behind their parent in the viewer (children update first)
    import particle_viewer
    if particle_viewer.exe() is None:
        pytest.skip("particle_check cannot be built here")
    parent = flying_parent()
    for cap, speed in ((0.75, 0.75), (5.0, 1.0)):
        trail = ub.emitter("trail", ub.velocity_creator(
            39, ub.velocity_options(True, True, 0.5, cap) + [(300, pb.cstr("fire"))]),
            lifetime=3.0)
        data = ub.effect([parent, trail])
        path = tmp_path / "p_uaw_test.alo"
        path.write_bytes(data)
        ok, line, rows = particle_viewer.run(path, (1.25,))
        assert ok, line
        live, lo, hi, _ = rows[(1.25, 1)]
        kids = sim.simulate(uaw_play.models(read_particles(data)), 1.25)[1]
        assert live == len(kids) == 4
        assert lo[0] == pytest.approx(speed * 0.25, abs=1e-4)
        assert kids.position[:, 0].min() == pytest.approx(speed * 0.25, abs=1e-9)
        assert hi[0] == pytest.approx(kids.position[:, 0].max(), abs=0.1)


def test_uaw_children_that_cannot_fire_never_run_and_validate_says_why(tmp_path):
    # a death creator whose parent's killer does not "spawn on age", one naming itself and one
    # naming an emitter not in the effect: the viewer never runs them, nor does the preview
    quiet = ub.emitter("fire", ub.shape_creator(4.0, 10.0, bursting=True), lifetime=3.0)
    data = ub.effect([quiet, ub.emitter("sparks", ub.death_creator("fire", 4.0), 5.0),
                      ub.emitter("selfie", ub.death_creator("selfie", 4.0), 5.0),
                      ub.emitter("orphan", ub.death_creator("nobody", 4.0), 5.0)])
    models = uaw_play.models(read_particles(data))
    assert counts(models, 2.0) == [4, 0, 0, 0]
    said = [str(p) for p in problems(data)]
    assert any("'sparks'" in s and "does not \"spawn on age\"" in s for s in said)
    assert any("'selfie'" in s and "started only by itself" in s for s in said)
    assert any("'orphan'" in s and "not in the effect" in s for s in said)
    rows = viewer_rows(tmp_path, data, (2.0,), "p_uaw_test.alo")
    if rows is None:
        return
    assert [rows[(2.0, i)][0] for i in range(4)] == [4, 0, 0, 0]
