"""Universe at War effects (0x1500) in Blender (issue 41 part 2): each emitter an object with
``alamo_emitter.index`` and its plugin parameters (``alamo_uaw``); unedited export
byte-identical; an edit changes only its bytes; the live preview plays them (closed form);
deleting an emitter others start from is refused by name; an effect on a unit's proxy plays
at its bone. Spec-built effects (tests/uaw_build.py); written files go through the viewer's particle_check."""

import struct

import bpy
import numpy as np
import pytest
import uaw_build as ub

from io_alamo.formats.alamo.particles import read_particles
from io_alamo.formats.alamo.particles import uaw_params as up
from io_alamo.blender.alamo.particle_preview import refresh
from test_particle_preview import at, instances, ten_at_the_engine, unit_model
from test_particle_edits import refused, select
from test_particles import export_selected, import_file


def fire(**kw):
    velocity = ub.group(ub.DIRECTION, direction=(0, 0, 1), magnitude=(3, 3))
    return ub.emitter("fire", ub.shape_creator(10.0, 1.0, velocity=velocity), **kw)


def write(tmp_path, emitters, name="p_uaw_test"):
    data = ub.effect(emitters, name)
    path = tmp_path / f"{name}.alo"
    path.write_bytes(data)
    return path, data


def out_path(tmp_path, path):
    (tmp_path / "out").mkdir(exist_ok=True)
    return tmp_path / "out" / path.name


def viewer_check(path, times=(0.5, 1.0)):
    import particle_viewer
    if particle_viewer.exe() is None:
        return None
    ok, line, rows = particle_viewer.run(path, times)
    assert ok, line
    return rows


def param(obj, name):
    return next(p for p in obj.alamo_uaw.params if p.label.endswith(name.replace("_", " ")))


def test_each_emitter_an_object_with_its_parameters(blender, tmp_path):
    path, data = write(tmp_path, [fire(lifetime=2.0, texture="p_fire.tga"),
                                  ub.emitter("smoke", texture="p_smoke.tga", size=1.5)])
    system, emitters = import_file(path)
    assert [o.alamo_emitter.index for o in emitters] == [0, 1]
    assert [o.alamo_emitter.name for o in emitters] == ["fire", "smoke"]
    assert all(o.alamo_uaw.is_uaw and o.parent is system for o in emitters)
    assert emitters[0].alamo_emitter.lifetime == 2.0
    assert emitters[1].alamo_emitter.texture == "p_smoke.tga"
    assert param(emitters[1], "size").float_value == 1.5
    assert tuple(param(emitters[0], "colour").colour_value) == (1.0, 0.5, 0.25, 1.0)
    assert export_selected(system, out_path(tmp_path, path)) == data


def test_edits_change_only_their_bytes(blender, tmp_path):
    path, data = write(tmp_path, [fire(lifetime=2.0), ub.emitter("smoke")])
    system, (f, s) = import_file(path)
    f.alamo_emitter.lifetime = 3.5
    out = export_selected(system, out_path(tmp_path, path))
    changed = np.flatnonzero(np.frombuffer(out, np.uint8) != np.frombuffer(data, np.uint8))
    assert len(out) == len(data) and 0 < len(changed) <= 4
    assert out.replace(struct.pack("<f", 3.5), struct.pack("<f", 2.0), 1) == data
    f.alamo_emitter.lifetime = 2.0
    param(f, "particles_per_interval").float_value = 20.0
    out = export_selected(system, out_path(tmp_path, path))
    assert out.replace(struct.pack("<f", 20.0), struct.pack("<f", 10.0), 1) == data
    param(f, "particles_per_interval").float_value = 10.0
    s.alamo_emitter.name = "smoke_thick"
    s.alamo_emitter.texture = "p_smoke_other.tga"
    out = export_selected(system, out_path(tmp_path, path))
    again = read_particles(out)
    assert [e.name for e in again.emitters] == ["fire", "smoke_thick"]
    assert again.emitters[1].textures == ["p_smoke_other.tga"]
    assert {p.name: p.value for p in up.emitter_parameters(again.emitters[0])} == \
        {p.name: p.value for p in up.emitter_parameters(read_particles(data).emitters[0])}
    rows = viewer_check(out_path(tmp_path, path))
    if rows is not None:
        assert rows[(1.0, 0)][0] == 10


def test_the_preview_plays_and_follows_an_edit(blender, tmp_path):
    path, _ = write(tmp_path, [fire(lifetime=2.0)])
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
    _, (f,) = import_file(path)
    at(1.0)
    places, sizes = instances(f)
    assert len(places) == 11                 # born at 0, 0.1 ... 1 s
    np.testing.assert_allclose(np.sort(places[:, 2]), 3 * np.arange(0, 11) / 10, atol=1e-4)
    np.testing.assert_allclose(sizes, 1.0, rtol=1e-5)        # the plugin's size 0.5: a half
    param(f, "particles_per_interval").float_value = 20.0
    refresh(scene)
    assert len(instances(f)[0]) == 21                       # born at 0, 0.05 ... 1 s
    rows = viewer_check(path, (1.0,))
    if rows is not None:                                     # the viewer's count at 1 s
        assert rows[(1.0, 0)][0] == 10


def test_deleting_a_linked_parent_is_refused_by_name(blender, tmp_path):
    parent = ub.emitter("fire", ub.shape_creator(2.0, 1.0), lifetime=1.0, spawn_on_death=True)
    path, _ = write(tmp_path, [parent, ub.emitter("sparks", ub.death_creator("fire"))])
    system, (f, s) = import_file(path)
    select(f)
    bpy.ops.object.delete()
    out = out_path(tmp_path, path)
    refused(system, out, "'sparks'", "'fire', which is no longer in the effect")
    assert not out.exists()


def test_a_uaw_effect_plays_at_a_units_proxy(blender, tmp_path):
    model = unit_model(tmp_path, "p_uaw_glow")
    write(tmp_path, [ub.emitter("glow", ub.shape_creator(10.0, 1.0), lifetime=2.0)],
          name="p_uaw_glow")
    ten_at_the_engine(model)


def test_eaw_fields_a_uaw_emitter_cannot_hold_are_refused_by_name(blender, tmp_path):
    path, _ = write(tmp_path, [fire()])
    system, (f,) = import_file(path)
    out = out_path(tmp_path, path)
    assert export_selected(system, out) == path.read_bytes()      # nothing set: fine
    f.alamo_emitter.gravity = 9.8
    with pytest.raises(RuntimeError, match="fire: a Universe at War emitter has no place "
                                           "for gravity"):
        export_selected(system, out)
