"""Universe at War start-place and velocity shapes in Blender (issue 41 part 2): a shape
creator's property groups are items of ``obj.alamo_uaw`` (the shape as a choice, its fields
shown by the panel only when the shape uses them); an edit reaches the file in its own bytes
only, the live preview follows it (a torus drawn as a torus), and the written file plays in
the viewer's ``particle_check`` with the preview's counts. Spec-built effects."""

import struct

import bpy
import numpy as np
import uaw_build as ub

from io_alamo.blender.alamo.particle_preview import refresh
from io_alamo.blender.alamo.particles_uaw import props as uaw_props
from io_alamo.formats.alamo.particles import read_particles
from io_alamo.formats.alamo.particles import uaw_params as up
from test_particle_preview import at, instances
from test_particles import export_selected, import_file
from test_uaw_effects import out_path, viewer_check, write


def item(obj, name):
    """The parameter item of ``obj`` named like the format layer (``position_shape``)."""
    found = [i for i in obj.alamo_uaw.params if i.label.split(": ", 1)[1] ==
             name.replace("_", " ")]
    assert len(found) == 1, name
    return found[0]


def sphere_emitter():
    creator = ub.shape_creator(40.0, 1.0, bursting=True,
                               position=ub.group(ub.SPHERE, radius=(0, 2)))
    return ub.emitter("ring", creator, lifetime=5.0)


def test_shapes_edit_preview_and_write_only_their_bytes(blender, tmp_path):
    path, data = write(tmp_path, [sphere_emitter(), ub.emitter("smoke")])
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
    system, (ring, _) = import_file(path)
    shape = item(ring, "position_shape")
    assert shape.shape_value == "SPHERE" and item(ring, "position_radius_max").float_value == 2
    shown = {i.field for i in uaw_props.shown(ring.alamo_uaw.params) if i.offset >= 0}
    assert {"shape", "radius_min", "radius_max"} <= shown and "torus_radius" not in shown
    at(1.0)
    assert np.linalg.norm(instances(ring)[0], axis=1).max() > 1.5       # a sphere of 2
    at(0.5)                                   # between bursts: the first burst's 40 show

    shape.shape_value = "TORUS"
    item(ring, "position_torus_radius").float_value = 3.0
    item(ring, "position_tube_radius").float_value = 0.5
    shown = {i.field for i in uaw_props.shown(ring.alamo_uaw.params) if i.offset >= 0}
    assert {"torus_radius", "tube_radius"} <= shown and "radius_max" not in shown
    refresh(scene)
    places = instances(ring)[0]
    assert len(places) == 40
    tube = np.hypot(np.hypot(places[:, 0], places[:, 1]) - 3.0, places[:, 2])
    assert tube.max() <= 0.5 + 1e-4 and tube.max() > 0.3                 # now a torus

    out = export_selected(system, out_path(tmp_path, path))
    changed = np.flatnonzero(np.frombuffer(out, np.uint8) != np.frombuffer(data, np.uint8))
    assert len(out) == len(data) and 0 < len(changed) <= 12
    (group,) = [p for p in up.emitter_parameters(read_particles(out).emitters[0])
                if p.name == "position_shape"]
    raw = bytes(group.chunk.data)
    assert struct.unpack_from("<I", raw, 0)[0] == up.SHAPES.index("torus")
    assert struct.unpack_from("<2f", raw, 96) == (3.0, 0.5)
    rows = viewer_check(out_path(tmp_path, path), (0.5,))
    if rows is not None:                      # the viewer plays it: 40 live, inside the torus
        live, lo, hi, _ = rows[(0.5, 0)]
        assert live == 40 and max(map(abs, lo + hi)) <= 3.5 + 1e-3


def test_a_hollow_flag_edit_reaches_the_file(blender, tmp_path):
    path, data = write(tmp_path, [sphere_emitter()])
    system, (ring,) = import_file(path)
    item(ring, "hollow_position").bool_value = True
    out = export_selected(system, out_path(tmp_path, path))
    changed = np.flatnonzero(np.frombuffer(out, np.uint8) != np.frombuffer(data, np.uint8))
    assert len(changed) == 1 and out[changed[0]] == 1
    at(1.0)
    np.testing.assert_allclose(np.linalg.norm(instances(ring)[0], axis=1), 2.0, rtol=1e-4)


def test_modifier_edits_preview_and_write_only_their_bytes(blender, tmp_path):
    velocity = ub.group(ub.DIRECTION, direction=(0, 0, 1), magnitude=(3, 3))
    modifiers = [ub.acceleration((0.0, 0.0, -2.0)), ub.keyed_size([(0.0, 0.5), (1.0, 1.5)])]
    path, data = write(tmp_path, [ub.emitter("up", ub.shape_creator(10.0, 1.0,
                                                                    velocity=velocity),
                                             lifetime=4.0, modifiers=modifiers)])
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
    system, (up_obj,) = import_file(path)
    at(1.0)
    places, sizes = instances(up_obj)
    age = np.sort(places[:, 2])          # z = 3a - a^2 rises with the age a below 1.5
    ages = np.arange(0, 11) / 10         # the one born exactly at 1 s shows too (age 0)
    np.testing.assert_allclose(age, 3 * ages - ages ** 2, atol=1e-4)
    np.testing.assert_allclose(np.sort(sizes), 2 * (0.5 + ages / 4), rtol=1e-4)

    item(up_obj, "acceleration").vector_value = (0.0, 0.0, 0.0)
    item(up_obj, "size_key_2").float_value = 3.5
    refresh(scene)
    places, sizes = instances(up_obj)
    np.testing.assert_allclose(np.sort(places[:, 2]), 3 * ages, atol=1e-4)
    np.testing.assert_allclose(np.sort(sizes), 2 * (0.5 + 3 * ages / 4), rtol=1e-4)

    out = export_selected(system, out_path(tmp_path, path))
    changed = np.flatnonzero(np.frombuffer(out, np.uint8) != np.frombuffer(data, np.uint8))
    assert len(out) == len(data) and 0 < len(changed) <= 12 + 4
    written = {p.name: p.value for p in up.emitter_parameters(read_particles(out).emitters[0])}
    assert written["acceleration"] == (0.0, 0.0, 0.0) and written["size_key_2"] == 3.5
    rows = viewer_check(out_path(tmp_path, path), (0.55,))
    if rows is not None:                               # 6 live, the top at 3 * 0.55
        live, _, hi, _ = rows[(0.55, 0)]
        assert live == 6 and abs(hi[2] - 1.65) < 0.1


def test_the_panel_draws_groups_vectors_and_keys(blender, tmp_path):
    from test_ui import Context, draw
    modifiers = [ub.acceleration((0.0, 0.0, -2.0)), ub.keyed_colour([(0.0, (1, 0, 0, 1)),
                                                                     (1.0, (0, 0, 1, 1))])]
    path, _ = write(tmp_path, [ub.emitter("ring", ub.shape_creator(
        5.0, 1.0, position=ub.group(ub.SPHERE, radius=(0, 2))), modifiers=modifiers)])
    _, (ring,) = import_file(path)
    bpy.context.view_layer.objects.active = ring
    panel = uaw_props.OBJECT_PT_alamo_uaw_emitter
    assert panel.poll(bpy.context)
    texts = draw(panel, Context(object=ring))
    assert any("plugin parameters" in t for t in texts)
    kinds = {i.kind for i in uaw_props.shown(ring.alamo_uaw.params)}
    assert {up.SHAPE, up.VECTOR, up.COLOUR, up.FLOAT, up.BOOL} <= kinds
