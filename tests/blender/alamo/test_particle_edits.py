"""Particle edits land in the file or are refused aloud (issue 39, points 8-13; issue 41
part 3's Scale Effect and emitter links): each test makes the edit through the operators on a
spec-built effect (or a corpus one), reads the written file back with the format layer, finds
the edit (or the refusal naming the object) and checks nothing else changed. Written effects
go through the viewer's particle loader (``particle_check``) when the source passes it."""

import subprocess
from pathlib import Path

import bpy
import numpy as np
import particle_build as pb
import pytest
from test_particles import import_file as import_effect

from io_alamo.blender.alamo.particle_preview import handlers, systems
from io_alamo.blender.alamo.particles import exporter
from io_alamo.formats.alamo.particles import read_particles
from io_alamo.formats.alamo.particles.records import NO_EMITTER

ROOT = Path(__file__).resolve().parents[3]
PARTICLES = ROOT.parent / "shared" / "corpus-particles"


# --- helpers --------------------------------------------------------------------------------

def particle_check():
    """The viewer's particle loader (built beside alo_check by tests/alo_viewer.py), or
    None when it cannot be built here."""
    import alo_viewer
    if alo_viewer.viewer() is None:
        return None
    exe = alo_viewer.BUILD / "particle_check"
    if not exe.exists():
        subprocess.run(["make", "-C", str(alo_viewer.BUILD), "particle_check"],
                       capture_output=True, text=True)
    return exe if exe.exists() else None


def loads_in_viewer(path):
    """Whether the viewer's particle loader takes ``path`` (None: no loader here)."""
    exe = particle_check()
    if exe is None:
        return None
    run = subprocess.run([str(exe), str(path)], capture_output=True, text=True, timeout=120)
    return run.stdout.startswith("OK ")


def assert_viewer_loads(written, source):
    """A written effect loads in the viewer's particle loader wherever its source did."""
    if loads_in_viewer(source) is False:
        return
    assert loads_in_viewer(written) in (True, None), f"particle_check refuses {written}"


def effect(tmp_path, name="p_edit", emitters=None):
    """A spec-built effect without unknown chunks (the viewer loads it): 0 spawns 1 during
    its particles' lives and 2 at their deaths; groups of every kind."""
    emitters = emitters or [
        pb.emitter("head", index=0, lifetime=2.0, gravity=9.5, num_particles_per_second=12,
                   birth=1, death=2, acceleration=(0.0, 0.5, 1.0), has_tail=1,
                   tail_size=3.0, inward_speed=2.0,
                   groups=[{"type": 3, "sphere_radius": 4.0}, {},
                           {"type": 4, "cylinder_radius": 2.0, "cylinder_height": 8.0}],
                   tracks={"size": (1.0, 16.0, 0, [(8.0, 0.5)])}),
        pb.emitter("sparks", index=1, lifetime=0.5, num_particles_per_second=20,
                   groups=[{"type": 2, "side_length": 3.0}, {},
                           {"type": 1, "min_x": -1.0, "max_x": 1.0, "max_z": 2.0}]),
        pb.emitter("smoke", "p_smoke.tga", index=2, lifetime=4.0, num_particles_per_second=2,
                   groups=[{"type": 0, "val_z": 3.0}, {}, {"type": 0, "val_x": 0.5}])]
    data, _ = pb.particle_system(name, emitters)
    path = tmp_path / f"{name}.alo"
    path.write_bytes(data)
    return path, data


def run_on(obj, operator):
    """The preview drawn, then ``operator`` (bpy.ops.object.duplicate, ...) run on ``obj``
    alone, as a modder does it in the viewport; returns the active object after it."""
    handlers.refresh(bpy.context.scene, force=True)
    select(obj)
    assert operator() == {"FINISHED"}
    return bpy.context.object


def select(*objs):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objs[0] if objs else None


def export(system, path, **options):
    select(system)
    assert bpy.ops.export_scene.alo(filepath=str(path), **options) == {"FINISHED"}
    return read_particles(Path(path).read_bytes())


def refused(system, path, *names, **options):
    """Export refused (RuntimeError from the operator in the background) naming ``names``."""
    select(system)
    with pytest.raises(RuntimeError) as err:
        bpy.ops.export_scene.alo(filepath=str(path), **options)
    for name in names:
        assert repr(name) in str(err.value) or name in str(err.value), str(err.value)
    return str(err.value)


def same_except(a, b, index, *fields):
    """Emitters of systems ``a`` and ``b`` equal in every property but ``fields`` of
    emitter ``index``."""
    assert len(a.emitters) == len(b.emitters)
    for i, (x, y) in enumerate(zip(a.emitters, b.emitters)):
        px, py = x.properties(), y.properties()
        for f in (fields if i == index else ()):
            px.pop(f, None)
            py.pop(f, None)
        assert px == py, i
        if i != index:
            assert [g.values() for g in x.groups] == [g.values() for g in y.groups]


# --- point 8: nothing selected, scopes, kinds ------------------------------------------------

@pytest.mark.parametrize("scope", ["ARMATURE", "SELECTION", "VISIBLE", "SCENE"])
def test_model_export_with_only_an_effect_writes_the_effect(blender, tmp_path, scope):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    light = bpy.data.objects.new("Light", bpy.data.lights.new("Light", "POINT"))
    bpy.context.collection.objects.link(light)         # the startup scene's light: no model
    emitters[1].alamo_emitter.lifetime = 0.75
    select()                                           # click on empty space
    assert bpy.ops.export_scene.alo(filepath=str(path), scope=scope) == {"FINISHED"}
    back = read_particles(path.read_bytes())
    assert [e.name for e in back.emitters] == ["head", "sparks", "smoke"]
    assert back.emitters[1].lifetime == 0.75
    same_except(read_particles(data), back, 1, "lifetime")
    assert_viewer_loads(path, tmp_path / "p_edit.alo")


def test_several_effects_and_nothing_else_are_refused_by_name(blender, tmp_path):
    path, data = effect(tmp_path)
    import_effect(path)
    other, _ = effect(tmp_path, "p_other")
    import_effect(other)
    select()
    with pytest.raises(RuntimeError, match="'p_edit'.*'p_other'|'p_other'.*'p_edit'"):
        bpy.ops.export_scene.alo(filepath=str(path))
    assert path.read_bytes() == data


def test_a_model_never_replaces_an_effect_without_confirming(blender, tmp_path):
    path, data = effect(tmp_path)
    import_effect(path)
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.object
    select(cube)
    with pytest.raises(RuntimeError, match="holds a particle effect.*Replace Another Kind"):
        bpy.ops.export_scene.alo(filepath=str(path), scope="SELECTION")
    assert path.read_bytes() == data                   # untouched
    assert bpy.ops.export_scene.alo(filepath=str(path), scope="SELECTION",
                                    replace_other_kind=True) == {"FINISHED"}
    assert path.read_bytes()[:4] != data[:4]           # a model now, as confirmed


def test_an_effect_never_replaces_a_model_without_confirming(blender, tmp_path):
    bpy.ops.mesh.primitive_cube_add()
    model = tmp_path / "p_edit.alo"
    select(bpy.context.object)
    assert bpy.ops.export_scene.alo(filepath=str(model), scope="SELECTION") == {"FINISHED"}
    written = model.read_bytes()
    src = tmp_path / "src"
    src.mkdir()
    path, _ = effect(src)
    system, _ = import_effect(path)
    refused(system, model, "holds a model")
    assert model.read_bytes() == written
    export(system, model, replace_other_kind=True)


# --- point 9: emitter moves, Scale Effect, the effect object's scale --------------------------

def test_moving_an_emitter_moves_its_position_group(blender, tmp_path):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    emitters[1].location = (2.0, 0.0, 0.5)             # a box group
    emitters[2].location = (0.0, -1.0, 0.0)            # an exact group
    handlers.refresh(bpy.context.scene, force=True)
    # the preview draws the particles where the file will start them
    model = systems.models(system, {o.alamo_emitter.index: o for o in emitters})[1]
    assert model.position_group.min_x == pytest.approx(1.0)
    (tmp_path / "out").mkdir()
    back = export(system, tmp_path / "out" / "p_edit.alo")
    g = back.emitters[1].position_group
    assert (g.min_x, g.max_x, g.min_z, g.max_z) == (1.0, 3.0, 0.5, 2.5)
    g = back.emitters[2].position_group
    assert (g.val_x, g.val_y, g.val_z) == (0.5, -1.0, 0.0)
    orig = read_particles(data)
    assert [g.values() for g in back.emitters[0].groups] == \
        [g.values() for g in orig.emitters[0].groups]
    assert back.emitters[1].properties() == orig.emitters[1].properties()
    assert_viewer_loads(tmp_path / "out" / "p_edit.alo", path)


def test_moves_the_file_cannot_hold_are_refused_naming_the_emitter(blender, tmp_path):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    emitters[0].location = (1.0, 0.0, 0.0)             # a cylinder: centred on the emitter
    refused(system, path, "head", "cannot hold the move")
    emitters[0].location = (0.0, 0.0, 0.0)
    emitters[1].rotation_euler = (0.0, 0.0, 0.5)
    refused(system, path, "sparks", "rotated or scaled")
    assert path.read_bytes() == data


def test_scale_effect_and_the_effect_objects_scale_write_the_same(blender, tmp_path):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    system.scale = (2.0, 2.0, 2.0)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    scaled = export(system, tmp_path / "a" / "p_edit.alo")
    system.scale = (1.0, 1.0, 1.0)
    select(system)
    assert bpy.ops.alamo.scale_effect(factor=2.0) == {"FINISHED"}
    operated = export(system, tmp_path / "b" / "p_edit.alo")
    assert (tmp_path / "a" / "p_edit.alo").read_bytes() == \
        (tmp_path / "b" / "p_edit.alo").read_bytes()
    orig = read_particles(data)
    e, o = operated.emitters[0], orig.emitters[0]
    assert (e.gravity, e.inward_speed, e.tail_size) == (19.0, 4.0, 6.0)
    assert e.acceleration == (0.0, 1.0, 2.0)
    assert e.velocity_group.sphere_radius == 8.0
    assert (e.position_group.cylinder_radius, e.position_group.cylinder_height) == (4.0, 16.0)
    size = e.track("size")
    assert (size.first_key, size.last_key, size.keys["value"].tolist()) == (2.0, 32.0, [16.0])
    assert e.lifetime == o.lifetime and e.lifetime_group.values() == o.lifetime_group.values()
    assert e.num_particles_per_second == o.num_particles_per_second
    assert operated.emitters[1].position_group.max_z == 4.0
    assert scaled.emitters[2].position_group.val_x == 1.0
    system.scale = (1.0, 2.0, 1.0)
    refused(system, tmp_path / "a" / "p_edit.alo", "p_edit", "unevenly")
    assert_viewer_loads(tmp_path / "b" / "p_edit.alo", path)


# --- point 10: links follow their emitter ----------------------------------------------------

def test_duplicating_a_started_emitter_keeps_the_link_on_the_original(blender, tmp_path):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    copy = run_on(emitters[1], bpy.ops.object.duplicate)
    assert copy is not emitters[1]
    handlers.refresh(bpy.context.scene, force=True)
    from io_alamo.blender.alamo.particle_preview import nodes
    assert nodes.points_object(copy) is not None
    assert nodes.points_object(copy) != nodes.points_object(emitters[1])
    back = export(system, tmp_path / "o.alo")
    assert [e.name for e in back.emitters] == ["head", "sparks", "smoke", copy.name]
    assert (back.emitters[0].birth, back.emitters[0].death) == (1, 2)
    assert back.emitters[3].index == 3 and back.emitters[3].lifetime == 0.5
    assert read_particles(data).emitters[1].properties() == back.emitters[1].properties()


def test_reordering_carries_the_links(blender, tmp_path):
    path, _ = effect(tmp_path)
    system, emitters = import_effect(path)
    emitters[1].alamo_emitter.index = 7                # sparks last
    back = export(system, tmp_path / "o.alo")
    assert [e.name for e in back.emitters] == ["head", "smoke", "sparks"]
    assert (back.emitters[0].birth, back.emitters[0].death) == (2, 1)
    assert [e.index for e in back.emitters] == [0, 1, 2]
    # a link chosen by emitter in the panel
    emitters[2].alamo_emitter.death_emitter = emitters[0]
    back = export(system, tmp_path / "o.alo")
    assert back.emitters[1].death == 0


def test_deleting_a_started_emitter_names_the_dropped_link(blender, tmp_path):
    path, _ = effect(tmp_path)
    system, emitters = import_effect(path)
    run_on(emitters[1], bpy.ops.object.delete)
    result = exporter.export_particles(bpy.context, str(tmp_path / "p_edit.alo"), system)
    assert any("'head'" in w and "'sparks'" in w and "birth" in w for w in result.warnings), \
        result.warnings
    back = read_particles((tmp_path / "p_edit.alo").read_bytes())
    assert [e.name for e in back.emitters] == ["head", "smoke"]
    assert (back.emitters[0].birth, back.emitters[0].death) == (NO_EMITTER, 1)
    # point 13: the deleted emitter's preview points leave with it
    handlers.refresh(bpy.context.scene, force=True)
    assert not [o for o in bpy.data.objects if o.name.startswith("sparks")]


# --- point 11: texture name and image in step ------------------------------------------------

def _image_file(tmp_path, name, colour):
    img = bpy.data.images.new(name, 4, 4)
    img.pixels = list(colour) * 16
    img.filepath_raw = str(tmp_path / f"{name}.tga")
    img.file_format = "TARGA"
    img.save()
    return img


def test_texture_name_and_image_follow_each_other(blender, tmp_path):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    fire = _image_file(tmp_path, "p_fire", (1, 0, 0, 1))
    ice = _image_file(tmp_path, "p_ice", (0, 0, 1, 1))
    p = emitters[0].alamo_emitter
    p.texture = "p_fire.tga"
    handlers.refresh(bpy.context.scene, force=True)
    assert p.image == fire                         # the preview draws the named texture
    p.image = ice
    back = export(system, tmp_path / "o.alo")
    assert back.emitters[0].texture == "p_ice.tga"  # the picked image's name is written
    assert p.texture == "p_ice.tga"
    same_except(read_particles(data), back, 0)
    assert [e.texture for e in back.emitters[1:]] == ["p_particle_master.tga", "p_smoke.tga"]


# --- point 12: Universe at War edits are refused aloud ---------------------------------------

def test_uaw_edits_are_refused_naming_the_object(blender, tmp_path):
    data, _ = pb.uaw_system("p_uaw", [pb.uaw_emitter("fire", "fire.tga")])
    path = tmp_path / "p_uaw.alo"
    path.write_bytes(data)
    system, _ = import_effect(path)
    select(system)
    assert not bpy.ops.alamo.add_particle_emitter.poll()
    assert not bpy.ops.alamo.scale_effect.poll()
    assert export(system, tmp_path / "p_uaw.alo") is not None
    assert path.read_bytes() == data
    system.alamo_particle_system.persist = False
    refused(system, path, "p_uaw", "Persist")
    system.alamo_particle_system.persist = True
    system.alamo_particle_system.system_name = "p_renamed"
    refused(system, path, "p_uaw", "p_renamed")
    system.alamo_particle_system.system_name = "p_uaw"
    fire = system.children[0]              # its parameters are written (issue 41), but
    select(fire)                           # deleting its only emitter is refused
    bpy.ops.object.delete()
    refused(system, path, "p_uaw", "deleted")
    assert path.read_bytes() == data


# --- point 13: renames, damaged links --------------------------------------------------------

def test_renaming_an_emitter_object_renames_the_emitter(blender, tmp_path):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    emitters[1].name = "embers"
    back = export(system, tmp_path / "o.alo")
    assert [e.name for e in back.emitters] == ["head", "embers", "smoke"]
    same_except(read_particles(data), back, 1)
    emitters[2].alamo_emitter.name = "soot"            # the Name field: the object follows
    back = export(system, tmp_path / "o.alo")
    assert back.emitters[2].name == "soot" and emitters[2].name == "soot"


def test_a_damaged_link_is_kept_as_it_was(blender, tmp_path):
    emitters = [pb.emitter("a", index=0, birth=999, num_particles_per_second=1),
                pb.emitter("b", index=1, death=0, num_particles_per_second=1)]
    path, data = effect(tmp_path, "p_damaged", emitters)
    system, objs = import_effect(path)
    out = tmp_path / "out"
    out.mkdir()
    export(system, out / "p_damaged.alo")
    assert (out / "p_damaged.alo").read_bytes() == data
    objs[1].alamo_emitter.lifetime = 3.0
    back = export(system, out / "p_damaged.alo")
    assert (back.emitters[0].birth, back.emitters[1].death) == (999, 0)


# --- the corpus -------------------------------------------------------------------------------

def test_corpus_effect_emitter_moved_and_duplicated(blender, tmp_path):
    path = PARTICLES / "P_EXPLOSION_EXAMPLE.ALO"
    if not path.exists():
        pytest.skip(f"no particle corpus at {PARTICLES}")
    system, emitters = import_effect(path)
    orig = read_particles(path.read_bytes())
    movable = next(o for o in emitters if o.alamo_emitter.groups[2].type in ("EXACT", "BOX"))
    i = movable.alamo_emitter.index
    movable.location = (0.0, 0.0, 5.0)
    select(movable)
    bpy.ops.object.duplicate()
    copy = bpy.context.object
    back = export(system, tmp_path / path.name)
    assert len(back.emitters) == len(orig.emitters) + 1
    g, o = back.emitters[i].position_group, orig.emitters[i].position_group
    z = ("val_z",) if o.type == 0 else ("min_z", "max_z")
    assert all(getattr(g, n) == pytest.approx(getattr(o, n) + 5.0, abs=1e-4) for n in z)
    assert [e.birth for e in back.emitters[:-1]] == [e.birth for e in orig.emitters]
    assert [e.death for e in back.emitters[:-1]] == [e.death for e in orig.emitters]
    assert back.emitters[-1].name == copy.name
    assert_viewer_loads(tmp_path / path.name, path)


# --- issue 41 part 3: tracks edited as curves -------------------------------------------------

def test_track_keys_added_moved_and_deleted_are_written_in_time_order(blender, tmp_path):
    path, data = effect(tmp_path)
    system, emitters = import_effect(path)
    select(emitters[0])
    size = next(i for i, t in enumerate(emitters[0].alamo_emitter.tracks) if t.name == "size")
    assert bpy.ops.alamo.particle_key_add(track=size) == {"FINISHED"}
    track = emitters[0].alamo_emitter.tracks[size]
    assert [(k.time, k.value) for k in track.keys] == [(0.5, 8.0), (0.25, 4.5)]  # on the curve
    back = export(system, tmp_path / "o.alo")
    keys = back.emitters[0].track("size").keys
    assert keys["time"].tolist() == [0.25, 0.5] and keys["value"].tolist() == [4.5, 8.0]
    track.keys[1].time = 0.75                                # moved past the other key
    track.interpolation = "COSINE"
    back = export(system, tmp_path / "o.alo")
    t = back.emitters[0].track("size")
    assert t.keys["time"].tolist() == [0.5, 0.75] and t.interpolation == 1
    select(emitters[0])
    assert bpy.ops.alamo.particle_key_remove(track=size, key=0) == {"FINISHED"}
    back = export(system, tmp_path / "o.alo")
    t = back.emitters[0].track("size")
    assert t.keys["time"].tolist() == [0.75] and t.keys["value"].tolist() == [4.5]
    orig = read_particles(data)
    for name in ("red", "green", "blue", "alpha", "texture_index", "rotation_speed"):
        a, b = orig.emitters[0].track(name), back.emitters[0].track(name)
        assert (a.first_key, a.last_key, a.interpolation, a.keys.tolist()) == \
            (b.first_key, b.last_key, b.interpolation, b.keys.tolist())
    same_except(orig, back, 0)
    assert_viewer_loads(tmp_path / "o.alo", path)


def test_a_new_emitter_on_the_particle_master_sheet_uses_its_64_cells(blender, tmp_path):
    assert bpy.ops.alamo.add_particle_emitter(name="glow") == {"FINISHED"}
    emitter = bpy.context.object
    emitter.parent.alamo_particle_system.system_name = "p_sheet"
    back = export(emitter.parent, tmp_path / "p_sheet.alo")
    assert back.emitters[0].texture == "p_particle_master.tga"
    assert back.emitters[0].num_texture_elements == 64


def test_the_panel_says_which_moves_the_export_refuses(blender, tmp_path):
    from io_alamo.blender.alamo.particles.placement import placement_problem
    path, _ = effect(tmp_path)
    _, emitters = import_effect(path)
    assert [placement_problem(o) for o in emitters] == ["", "", ""]
    emitters[0].location.x = 1.0                       # cylinder group
    emitters[1].location.x = 1.0                       # box group: written
    emitters[2].scale.x = 2.0
    problems = [placement_problem(o) for o in emitters]
    assert "centred" in problems[0] and problems[1] == "" and "scaled" in problems[2]
