"""The tracks as drawn ramps and curves, and the sprite-sheet cell picker (issue 41 part 3):
each test edits through the widget's own data (the ramp's stops, the curve's points: what the
panel's template_color_ramp / template_curve_mapping change), exports, reads the file back with
the format layer, finds the edit and checks that nothing else changed; written files go through
the viewer's particle loader."""

import bpy
import numpy as np
import particle_build as pb
import pytest
from test_particle_edits import assert_viewer_loads, effect, export, refused, same_except, select
from test_particles import import_file as import_effect

from io_alamo.blender.alamo.particle_preview import handlers, nodes
from io_alamo.blender.alamo.particles import track_widgets as tw
from io_alamo.formats.alamo.particles import read_particles

TRACKS = ("red", "green", "blue", "alpha", "size", "texture_index", "rotation_speed")


def tracked(tmp_path):
    """An effect whose first emitter has keys on every track (red's at other times than
    green's and blue's), a cosine size and a stepped 16-cell texture index."""
    tracks = {"red": (255, 40, 0, [(200, 0.25), (120, 0.5)]),
              "green": (128, 0, 0, [(64, 0.5)]), "blue": (0, 10, 0, [(30, 0.5)]),
              "alpha": (0, 0, 0, [(255, 0.2), (180, 0.7)]),
              "size": (2.0, 30.0, 1, [(12.5, 0.4)]),
              "texture_index": (0.0, 15.0, 2, [(3.0, 0.3), (9.0, 0.6)]),
              "rotation_speed": (0.0, 0.25, 0, [])}
    first = pb.emitter("fire", index=0, lifetime=2.0, num_particles_per_second=10,
                       num_texture_elements=16, tracks=tracks,
                       groups=[{"type": 0, "val_z": 1.0}, {}, {"type": 0}])
    second = pb.emitter("smoke", "p_smoke.tga", index=1, lifetime=3.0,
                        num_particles_per_second=4,
                        groups=[{"type": 0, "val_z": 2.0}, {}, {"type": 0}])
    return effect(tmp_path, "p_tracks", [first, second])


def widget(obj, name):
    return obj.alamo_emitter.track_widgets.nodes[name]


def unchanged(a, b, index, *names):
    """Tracks of emitter ``index`` equal in a and b but ``names``; every other field too."""
    for n in set(TRACKS) - set(names):
        x, y = a.emitters[index].track(n), b.emitters[index].track(n)
        assert (x.first_key, x.last_key, x.interpolation, x.keys.tolist()) == \
            (y.first_key, y.last_key, y.interpolation, y.keys.tolist()), n
    same_except(a, b, index)
    for x, y in zip(a.emitters[1:], b.emitters[1:]):
        assert [t.keys.tolist() for t in x.tracks] == [t.keys.tolist() for t in y.tracks]


def test_the_widgets_show_the_files_keys_and_untouched_export_is_identical(blender, tmp_path):
    path, data = tracked(tmp_path)
    system, emitters = import_effect(path)
    handlers.refresh(bpy.context.scene, force=True)
    ramp = widget(emitters[0], "colour").color_ramp
    # the union of the colour tracks' times, each channel on its own (linear) curve
    assert [round(e.position, 4) for e in ramp.elements] == [0.0, 0.25, 0.5, 1.0]
    srgb = tw.linear_to_srgb(np.array([e.color[:3] for e in ramp.elements])) * 255
    assert np.allclose(srgb, [[255, 128, 0], [200, 96, 15], [120, 64, 30], [40, 0, 10]],
                       atol=1e-3)
    alpha = widget(emitters[0], "alpha").color_ramp
    assert [round(e.alpha * 255, 3) for e in alpha.elements] == [0, 255, 180, 0]
    size = widget(emitters[0], "size").mapping.curves[0].points
    assert np.allclose([p.location[:] for p in size], [(0, 2), (0.4, 12.5), (1, 30)])
    assert {p.handle_type for p in size} == {"AUTO_CLAMPED"}          # cosine: smooth
    assert "cosine" in tw.widget_note(widget(emitters[0], "size"),
                                      [emitters[0].alamo_emitter.tracks[4]])
    assert "steps" in tw.widget_note(widget(emitters[0], "texture_index"),
                                     [emitters[0].alamo_emitter.tracks[5]])
    export(system, tmp_path / "o.alo")
    assert (tmp_path / "o.alo").read_bytes() == data


def test_a_colour_ramp_edit_reaches_the_colour_tracks_only(blender, tmp_path):
    path, data = tracked(tmp_path)
    system, emitters = import_effect(path)
    handlers.refresh(bpy.context.scene, force=True)
    ramp = widget(emitters[0], "colour").color_ramp
    ramp.elements[2].color = (*tw.srgb_to_linear([1.0, 0.0, 100 / 255]), 1.0)   # moved key
    ramp.elements.new(0.75).color = (*tw.srgb_to_linear([0.0, 1.0, 0.0]), 1.0)  # added key
    ramp.elements.remove(ramp.elements[1])                                       # deleted key
    ramp.interpolation = "CONSTANT"                                              # step
    back = export(system, tmp_path / "o.alo")
    orig = read_particles(data)
    for name, want in (("red", [255, 0]), ("green", [0, 255]), ("blue", [100, 0])):
        t = back.emitters[0].track(name)
        assert t.keys["time"].tolist() == [0.5, 0.75] and t.keys["value"].tolist() == want
        assert t.interpolation == 2
    assert (back.emitters[0].track("red").first_key, back.emitters[0].track("red").last_key) \
        == (255, 40)
    unchanged(orig, back, 0, "red", "green", "blue")
    assert_viewer_loads(tmp_path / "o.alo", path)


def test_alpha_ramp_and_size_curve_edits_arrive_and_move_delete_add(blender, tmp_path):
    path, data = tracked(tmp_path)
    system, emitters = import_effect(path)
    handlers.refresh(bpy.context.scene, force=True)
    alpha = widget(emitters[0], "alpha").color_ramp
    alpha.elements[2].position = 0.9                    # moved in time
    alpha.elements[2].alpha = 0.5
    mapping = widget(emitters[0], "size").mapping
    points = mapping.curves[0].points
    points.remove(points[1])                            # delete the 0.4 key
    points.new(0.5, 25.0)                               # add one
    points[0].location = (0.0, 4.0)                     # move the start value
    mapping.update()
    back = export(system, tmp_path / "o.alo")
    a = back.emitters[0].track("alpha")
    assert a.keys["time"].tolist() == [np.float32(0.2), np.float32(0.9)]
    assert a.keys["value"].tolist() == [255, 128]
    s = back.emitters[0].track("size")
    assert (s.first_key, s.last_key, s.interpolation) == (4.0, 30.0, 1)
    assert s.keys["time"].tolist() == [0.5] and s.keys["value"].tolist() == [25.0]
    unchanged(read_particles(data), back, 0, "alpha", "size")
    assert_viewer_loads(tmp_path / "o.alo", path)


def test_fields_edits_redraw_the_widget_and_a_saved_blend_keeps_widget_edits(blender,
                                                                             tmp_path):
    path, data = tracked(tmp_path)
    system, emitters = import_effect(path)
    handlers.refresh(bpy.context.scene, force=True)
    p = emitters[0].alamo_emitter
    p.tracks[6].last_key = 0.5                        # a field: the curve follows it
    handlers.refresh(bpy.context.scene, force=True)
    pts = widget(emitters[0], "rotation_speed").mapping.curves[0].points
    assert tuple(pts[-1].location) == (1.0, 0.5)
    pts.new(0.5, 0.1)                                 # edited in the widget, not yet synced
    widget(emitters[0], "rotation_speed").mapping.update()
    blend, name = tmp_path / "saved.blend", system.name
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    system = bpy.data.objects[name]
    back = export(system, tmp_path / "o.alo")
    r = back.emitters[0].track("rotation_speed")
    assert r.last_key == 0.5 and np.allclose(r.keys["value"], [0.1]) and \
        r.keys["time"].tolist() == [0.5]
    unchanged(read_particles(data), back, 0, "rotation_speed")


def test_a_ramp_the_file_cannot_hold_is_refused_naming_the_emitter(blender, tmp_path):
    path, _ = tracked(tmp_path)
    system, emitters = import_effect(path)
    handlers.refresh(bpy.context.scene, force=True)
    widget(emitters[0], "alpha").color_ramp.interpolation = "B_SPLINE"
    message = refused(system, tmp_path / "o.alo", emitters[0].name)
    assert "B-Spline" in message
    assert not (tmp_path / "o.alo").exists()


def test_a_duplicated_emitter_gets_widgets_of_its_own(blender, tmp_path):
    path, data = tracked(tmp_path)
    system, emitters = import_effect(path)
    handlers.refresh(bpy.context.scene, force=True)
    select(emitters[0])
    bpy.ops.object.duplicate()
    copy = bpy.context.object
    handlers.refresh(bpy.context.scene, force=True)
    assert copy.alamo_emitter.track_widgets != emitters[0].alamo_emitter.track_widgets
    widget(copy, "size").mapping.curves[0].points[-1].location = (1.0, 40.0)
    back = export(system, tmp_path / "o.alo")
    assert [e.name for e in back.emitters] == ["fire", "smoke", "fire.001"]  # the copy: last
    assert [e.track("size").last_key for e in back.emitters[::2]] == [30.0, 40.0]


def test_the_cell_picker_sets_the_picked_key_and_the_preview_follows_the_texture(blender,
                                                                               tmp_path):
    from test_particle_edits import _image_file
    path, data = tracked(tmp_path)
    system, emitters = import_effect(path)
    select(emitters[0])
    assert bpy.ops.alamo.particle_pick_cell(cell=7, slot=1) == {"FINISHED"}      # key 0.6
    assert bpy.ops.alamo.particle_pick_cell(cell=12, slot=-2) == {"FINISHED"}    # the end
    assert emitters[0].alamo_emitter.cell_key == -2
    with pytest.raises(RuntimeError, match="cell 16"):                             # no cell 16
        bpy.ops.alamo.particle_pick_cell(cell=16, slot=0)
    sheet = _image_file(tmp_path, "p_sheet", (0, 1, 0, 1))
    emitters[0].alamo_emitter.texture = "p_sheet.tga"
    handlers.refresh(bpy.context.scene, force=True)
    assert emitters[0].alamo_emitter.image == sheet
    mat = nodes.modifier_input(emitters[0], "Material")
    images = [n.image for n in mat.node_tree.nodes if n.bl_idname == "ShaderNodeTexImage"]
    assert images == [sheet]                          # the preview draws the new sheet
    back = export(system, tmp_path / "o.alo")
    t = back.emitters[0].track("texture_index")
    assert t.keys["value"].tolist() == [3.0, 7.0] and t.last_key == 12.0
    assert t.interpolation == 2 and back.emitters[0].texture == "p_sheet.tga"
    unchanged(read_particles(data), back, 0, "texture_index")
    assert_viewer_loads(tmp_path / "o.alo", path)


def test_the_panel_draws_the_widgets_the_picker_and_what_they_cannot_show(blender, tmp_path):
    from test_ui import Layout, draw

    from io_alamo.blender.alamo.particles.panel import OBJECT_PT_alamo_particle

    def template(self, data, prop, **kw):
        assert prop in data.bl_rna.properties, prop
        drawn.append((data.name, prop))

    drawn = []
    Layout.template_color_ramp = Layout.template_curve_mapping = template
    Layout.icon = lambda self, data: 0
    Layout.template_icon = lambda self, icon_value=0, scale=1.0: drawn.append("image")
    try:
        path, _ = tracked(tmp_path)
        _, emitters = import_effect(path)
        select(emitters[0])
        texts = draw(OBJECT_PT_alamo_particle)
        assert drawn == [("colour", "color_ramp"), ("alpha", "color_ramp"), ("size", "mapping"),
                         ("texture_index", "mapping"), ("rotation_speed", "mapping")]
        assert "Sprite sheet: 16 cells, 4 x 4" in texts
        assert any("steps" in t for t in texts) and any("cosine" in t for t in texts)
        widget(emitters[0], "rotation_speed").mapping.curves[0].points[0].handle_type = "AUTO"
        assert any("handle types are not written" in t for t in draw(OBJECT_PT_alamo_particle))
        widget(emitters[0], "colour").color_ramp.interpolation = "CARDINAL"
        texts = draw(OBJECT_PT_alamo_particle)
        assert any(t.startswith("Export refuses") and "Cardinal" in t for t in texts)
    finally:
        del Layout.template_color_ramp, Layout.template_curve_mapping, Layout.icon, \
            Layout.template_icon


def test_more_keys_than_a_ramp_holds_are_left_to_the_fields(blender, tmp_path):
    keys = [(int(i * 6), (i + 1) / 42) for i in range(40)]
    first = pb.emitter("many", index=0, lifetime=1.0, num_particles_per_second=5,
                       tracks={"alpha": (0, 255, 0, keys)},
                       groups=[{"type": 0}, {}, {"type": 0}])
    path, data = effect(tmp_path, "p_many", [first])
    system, emitters = import_effect(path)
    handlers.refresh(bpy.context.scene, force=True)
    (seen,) = [s for n, _, s in tw.widgets(emitters[0].alamo_emitter) if n.name == "alpha"]
    assert seen.widget_seen == ""                     # no ramp: the panel says to use the keys
    emitters[0].alamo_emitter.tracks[3].keys[0].value = 7.0
    back = export(system, tmp_path / "o.alo")
    assert back.emitters[0].track("alpha").keys["value"].tolist()[:2] == [7, 6]
    unchanged(read_particles(data), back, 0, "alpha")
