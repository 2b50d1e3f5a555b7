"""The preview's kept models follow the file's whole content: an effect file edited in its
middle (same name, same length, same first 256 bytes), imported again after the first import
was deleted, plays as the new file says, not as the models kept from the first (EaW effects
on a unit's proxy, read through ``systems._file_models``; Universe at War effects, read
through ``particles_uaw.edit.model_from_uaw``)."""

import bpy
import numpy as np
import particle_build as pb
import uaw_build as ub
from test_particle_preview import at, effect, import_alo, instances, unit_emitters, unit_model
from test_particle_translate_preview import check, fly
from test_particles import import_file

SPEEDS = (5.0, 7.0)     # the two files differ only in this float, past their first 256 bytes


def _differ_past_the_head(a, b):
    assert len(a) == len(b) and a[:256] == b[:256] and a != b


def _sorted_x(places):
    return np.sort(places[:, 0])


def test_a_unit_effect_edited_in_its_middle_plays_the_new_file(blender, tmp_path):
    files, xs = [], []
    for speed in SPEEDS:
        folder = tmp_path / f"speed{int(speed)}"
        model = unit_model(folder)        # the same names in both: unit, Engine, p_unit_glow
        stream = pb.emitter("stream", groups=[{"type": 0, "val_x": speed}, {}, {}],
                            num_particles_per_second=10, lifetime=2.0)
        files.append(effect(folder, stream, name="p_unit_glow").read_bytes())
        bpy.ops.wm.read_factory_settings(use_empty=True)      # the first import deleted
        scene = bpy.context.scene
        scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
        (em,) = unit_emitters(import_alo(bpy.context, str(model)))
        at(1.0)
        places, _ = instances(em)
        assert len(places) == 11
        xs.append(_sorted_x(places) - 4.0)                    # the Engine bone is at x = 4
    _differ_past_the_head(*files)
    assert xs[0].max() > 1.0
    np.testing.assert_allclose(xs[1], xs[0] * SPEEDS[1] / SPEEDS[0], atol=1e-4)


def test_a_uaw_effect_edited_in_its_middle_plays_the_new_file(blender, tmp_path):
    """The translater is no editable parameter: only the file's bytes tell 27 (particles
    left in the world, a trail) from 26 (carried with the moving effect)."""
    files = []
    for pid, linked in ((27, False), (26, True)):
        em = ub.emitter("smoke", ub.shape_creator(10.0, 1.0, velocity=ub.group(
            ub.DIRECTION, direction=(1, 0, 0), magnitude=(5, 5))), lifetime=2.0)
        em["plugins"] = [(slot, pb.plugin(pid) if slot == 0x2 else spec)
                         for slot, spec in em["plugins"]]
        folder = tmp_path / f"translater{pid}"
        folder.mkdir()
        path = folder / "p_uaw_cache.alo"
        path.write_bytes(ub.effect([em], "p_uaw_cache"))
        files.append(path.read_bytes())
        bpy.ops.wm.read_factory_settings(use_empty=True)      # the first import deleted
        scene = bpy.context.scene
        scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
        system, (obj,) = import_file(path)
        fly(system)
        at(1.5)
        check(obj, 1.5, linked)
    _differ_past_the_head(*files)
