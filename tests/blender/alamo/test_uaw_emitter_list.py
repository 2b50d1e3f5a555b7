"""Universe at War emitters added (Shift+D), deleted and reordered in Blender (issue 41 part
2): the export rebuilds the effect's emitter list (``uaw_list.rebuild``) with every untouched
emitter's bytes, the death links fixed up; a copy edits and previews on its own; an EaW
emitter added to a UaW effect is refused by name. Written files go through particle_check
with the preview's counts. Spec-built effects (tests/uaw_build.py)."""

import bpy
import numpy as np
import uaw_build as ub

from io_alamo.formats.alamo.chunks import write_chunks
from io_alamo.formats.alamo.particles import read_particles, simulate as sim
from io_alamo.formats.alamo.particles import uaw_params as up
from io_alamo.formats.alamo.particles import uaw_play
from test_particle_edits import refused, run_on
from test_particle_preview import at, instances
from test_particles import export_selected, import_file
from test_uaw_effects import out_path, viewer_check, write


def effect(tmp_path):
    fire = ub.emitter("fire", ub.shape_creator(2.0, 1.0, bursting=True, velocity=ub.group(
        ub.DIRECTION, direction=(1, 0, 0), magnitude=(2, 2))), lifetime=1.0, spawn_on_death=True)
    sparks = ub.emitter("sparks", ub.death_creator("fire", 4.0), lifetime=5.0)
    smoke = ub.emitter("smoke", ub.shape_creator(5.0, 1.0), lifetime=2.0)
    glow = ub.emitter("glow", ub.shape_creator(1.0, 1.0), lifetime=9.0)
    return write(tmp_path, [fire, sparks, smoke, glow])


def emitter_bytes(data):
    return [write_chunks([e.chunk]) for e in read_particles(data).emitters]


def per_interval(obj):
    return next(i for i in obj.alamo_uaw.params if i.label.endswith("per interval"))


def test_delete_reorder_and_duplicate_rebuild_the_list(blender, tmp_path):
    path, data = effect(tmp_path)
    system, (fire, sparks, smoke, glow) = import_file(path)
    source = emitter_bytes(data)

    run_on(glow, bpy.ops.object.delete)                     # deleted
    out = export_selected(system, out_path(tmp_path, path))
    assert emitter_bytes(out) == source[:3]

    fire.alamo_emitter.index = 5                            # fire last
    out = export_selected(system, out_path(tmp_path, path))
    assert emitter_bytes(out) == [source[1], source[2], source[0]]
    assert uaw_play.models(read_particles(out))[2].death == 0   # fire -> sparks still

    copy = run_on(smoke, bpy.ops.object.duplicate)          # a second smoke emitter
    assert copy is not smoke and copy.alamo_uaw.is_uaw
    per_interval(copy).float_value = 9.0
    out = export_selected(system, out_path(tmp_path, path))
    written = read_particles(out)
    assert [e.name for e in written.emitters] == ["sparks", "smoke", "fire", copy.name]
    assert copy.name != "smoke"
    assert emitter_bytes(out)[:3] == [source[1], source[2], source[0]]
    values = {p.name: p.value for p in up.emitter_parameters(written.emitters[3])}
    assert values["particles_per_interval"] == 9.0
    assert per_interval(smoke).float_value == 5.0

    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
    at(1.5)
    models = uaw_play.models(written)
    ours = sim.simulate(models, 1.5)
    assert [len(instances(o)[0]) for o in (sparks, smoke, fire, copy)] == \
        [len(p) for p in ours] == [8, 8, 2, 14]     # 2 dead fire particles x 4 sparks
    rows = viewer_check(out_path(tmp_path, path), (1.5,))
    if rows is not None:
        assert [rows[(1.5, i)][0] for i in range(4)] == [len(p) for p in ours]


def test_an_eaw_emitter_added_to_a_uaw_effect_is_refused_by_name(blender, tmp_path):
    path, _ = effect(tmp_path)
    system, (fire, *_) = import_file(path)
    fire.alamo_uaw.is_uaw = False                           # an emitter without plugins
    out = out_path(tmp_path, path)
    refused(system, out, "fire: a Universe at War effect holds only")
    assert not out.exists()


def test_renaming_the_parent_renames_the_death_link(blender, tmp_path):
    path, data = effect(tmp_path)
    system, (fire, *_) = import_file(path)
    fire.alamo_emitter.name = "blaze"
    out = export_selected(system, out_path(tmp_path, path))
    written = read_particles(out)
    assert written.emitters[0].name == "blaze"
    assert uaw_play.models(written)[0].death == 1
    assert np.array_equal(emitter_bytes(out)[2], emitter_bytes(data)[2])
