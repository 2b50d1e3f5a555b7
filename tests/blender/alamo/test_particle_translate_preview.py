"""A moving effect leaves its particles in the world where they were born (issue 41: the
game's World Translater, emitters with ``link_to_system`` 0) and carries them with it when
the emitter is linked to the system (``link_to_system`` 1), in real headless Blender: the
quads of the evaluated depsgraph, in world coordinates, at frames reached by jumping,
stepping backwards and one frame alone; on an effect object keyed to move, and on a unit
whose proxy bone is animated."""

from pathlib import Path

import bpy
import numpy as np
import pytest
import particle_build as pb
from test_particle_preview import at, effect, import_alo, instances, load, unit_emitters, \
    unit_model

from io_alamo.blender.compat import action_fcurves

FPS = 24
SPEED = 3.0            # the keyed object flies +y at 3 units per second


def stream(**kw):
    """10 per second living 2 s, flying +x at 5 units/s."""
    props = dict(num_particles_per_second=10, lifetime=2.0)
    props.update(kw)
    return pb.emitter("smoke", groups=[{"type": 0, "val_x": 5.0}, {}, {}], **props)


def fly(obj, path='location', index=1, frames=(1, 1 + 4 * FPS), values=(0.0, 4 * SPEED)):
    """Key ``obj``'s ``path[index]`` linearly between two frames (3 units/s by default)."""
    owner = obj if path == 'location' else obj.pose.bones[path]
    for frame, value in zip(frames, values):
        owner.location[index] = value
        owner.keyframe_insert("location", index=index, frame=frame)
    holder = obj.animation_data.action
    for fc in action_fcurves(holder):
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"


def world_expected(t, ages, linked, origin=(0.0, 0.0, 0.0)):
    """Where the quads should be at system time t: born at b = t - age where the effect then
    was, 5 units/s along +x since; linked: where the effect is now."""
    o = np.asarray(origin)
    y = SPEED * (t - (0.0 if linked else 1.0) * ages)
    return np.stack([o[0] + 5 * ages, o[1] + y, o[2] + 0 * ages], axis=1)


def sorted_rows(a):
    return a[np.lexsort(a.T[::-1])]


def check(em, t, linked, origin=(0.0, 0.0, 0.0)):
    places, _ = instances(em)
    born = np.arange(0, int(np.floor(t * 10 + 1e-9)) + 1) / 10.0
    ages = t - born[t - born < 2.0 - 1e-9]
    assert len(places) == len(ages), (t, len(places))
    np.testing.assert_allclose(sorted_rows(places),
                               sorted_rows(world_expected(t, ages, linked, origin)), atol=2e-4)


def test_an_effect_keyed_to_move_leaves_a_trail_and_a_linked_one_carries_it(blender,
                                                                            tmp_path):
    for linked in (0, 1):
        bpy.ops.wm.read_homefile(use_empty=True)
        system, (em,) = load(effect(tmp_path, stream(link_to_system=linked)))
        assert system.parent is None
        fly(system)
        for t in (1.5, 0.5, 1.0, 3.0, 2.25):     # jumps, and backwards
            at(t)
            check(em, t, bool(linked))


def test_a_unit_whose_proxy_bone_moves_leaves_the_trail_in_the_world(blender, tmp_path):
    model = unit_model(tmp_path)                 # proxy on the Engine bone at (4, 0, 2)
    effect(tmp_path, stream(), name="p_unit_glow")
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = FPS, 1.0, 1
    result = import_alo(bpy.context, str(model))
    (em,) = unit_emitters(result)
    arm = result.armature
    arm.animation_data_create()
    fly(arm, "Engine")                           # the bone flies +y at 3 units/s
    at(2.0)
    check(em, 2.0, False, origin=(4.0, 0.0, 2.0))
    # the whole unit moving too (the armature object keyed at 6 units/s): 9 units/s in all
    arm.keyframe_insert("location", index=1, frame=1)
    arm.location.y = 4 * 2 * SPEED
    arm.keyframe_insert("location", index=1, frame=1 + 4 * FPS)
    for fc in action_fcurves(arm.animation_data.action):
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"
    at(1.0)
    places, _ = instances(em)
    born = np.arange(0, 11) / 10.0
    expected = np.stack([4.0 + 5 * (1.0 - born), 3 * SPEED * born, np.full(11, 2.0)], axis=1)
    np.testing.assert_allclose(sorted_rows(places), sorted_rows(expected), atol=2e-4)


def test_one_frame_alone_in_a_fresh_session_shows_the_trail(blender, tmp_path):
    """Nothing before the frame was shown: a saved file opened at frame 49 (2 s)."""
    system, (em,) = load(effect(tmp_path, stream()))
    fly(system)
    name = em.name
    saved = tmp_path / "moving.blend"
    bpy.context.scene.frame_set(1)
    bpy.ops.wm.save_as_mainfile(filepath=str(saved))
    bpy.ops.wm.open_mainfile(filepath=str(saved))
    scene = bpy.context.scene
    scene.frame_set(1 + 2 * FPS)
    em = scene.objects[name]
    check(em, 2.0, False)


def test_a_still_effect_is_drawn_as_before(blender, tmp_path):
    """An effect whose root is keyed but does not move: the rigid preview's places."""
    system, (em,) = load(effect(tmp_path, stream()))
    fly(system, values=(0.0, 0.0))
    for t in (0.5, 1.5):
        at(t)
        places, _ = instances(em)
        ages = t - np.arange(0, int(round(t * 10)) + 1) / 10.0
        np.testing.assert_allclose(np.sort(places[:, 0]), np.sort(5 * ages), atol=1e-4)
        np.testing.assert_allclose(places[:, 1:], 0.0, atol=1e-6)


CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"


@pytest.mark.parametrize("name, action", [("NV_SwampSpeeder_U.alo", "NV_SwampSpeeder_U_Move_00"),
                                          ("RB_TLTower.alo", "RB_TLTower_Build_00"),
                                          ("EV_AT-Barge_D.alo", "EV_AT-Barge_D_Die_00")])
def test_past_matrices_of_real_units_proxies_are_blenders(blender, name, action):
    """Every proxy of a real unit playing one of its animations: the matrices worked out from
    the animation data at frames never shown are those Blender shows there."""
    from io_alamo.blender.alamo.actions import set_active_action
    from io_alamo.blender.alamo.particle_preview import paths
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"{path} is not here")
    arm = import_alo(bpy.context, str(path)).armature
    set_active_action(arm, bpy.data.actions[action])
    scene = bpy.context.scene
    proxies = [o for o in scene.objects if o.parent == arm and o.alamo.role == "PROXY"]
    assert proxies
    scene.frame_set(scene.frame_start)
    fps = scene.render.fps / scene.render.fps_base
    frames = [scene.frame_start + k for k in (0, 3, 7, 12, 20)]
    found = {o.name: paths.root_path(scene, o) for o in proxies}
    moving = [o for o in proxies if found[o.name] is not None]
    assert moving, "no proxy moves in this animation"
    want = {}
    for f in frames:
        scene.frame_set(f)
        want[f] = {o.name: np.array(o.matrix_world) for o in moving}
    times = (np.array(frames, np.float64) - scene.frame_start) / fps
    for o in moving:
        got = found[o.name](times)
        for f, m in zip(frames, got):
            np.testing.assert_allclose(m, want[f][o.name], atol=2e-4, err_msg=(o.name, f))


@pytest.mark.parametrize("pid, linked", [(27, False), (26, True)])
def test_uaw_world_translater_leaves_the_trail_emitter_translater_carries_it(blender, tmp_path,
                                                                            pid, linked):
    import uaw_build as ub
    from test_particles import import_file
    em = ub.emitter("smoke", ub.shape_creator(10.0, 1.0, velocity=ub.group(
        ub.DIRECTION, direction=(1, 0, 0), magnitude=(5, 5))), lifetime=2.0)
    em["plugins"] = [(slot, pb.plugin(pid) if slot == 0x2 else spec)
                     for slot, spec in em["plugins"]]
    name = f"p_uaw_trail{pid}"
    path = tmp_path / f"{name}.alo"
    path.write_bytes(ub.effect([em], name))
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = FPS, 1.0, 1
    system, (obj,) = import_file(path)
    fly(system)
    for t in (1.5, 0.75):
        at(t)
        check(obj, t, linked)
