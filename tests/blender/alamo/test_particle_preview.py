"""Particle effects play in Blender (issue 34): the live particles of each emitter at the
current frame, compared with the specification's formulas on spec-built files (counts,
places, sizes, colours), as the instances of the emitter objects in the evaluated depsgraph;
edits show at once; on units, the effects the proxies name sit at their bones, move and hide
with them, and never change the model's export."""

import json
import struct
import subprocess
import sys
from pathlib import Path

import bpy
import numpy as np
import particle_build as pb
import pytest
import specbuild as sb

from io_alamo.blender.alamo.particle_preview import nodes, refresh
from io_alamo.blender.alamo.particle_preview.systems import EMITTER_KEY

# The importer is imported inside the tests: a test module importing it at module level and
# importing a particle effect makes the 4.2 wheel crash at exit (issue 33's importer, also
# without the preview).


def import_alo(*args, **kw):
    from io_alamo.blender.alamo.importer import alo
    return alo.import_alamo(*args, **kw)


def ImportOptions(**kw):
    from io_alamo.blender.alamo.importer import alo
    return alo.AloImportOptions(**kw)

ROOT = Path(__file__).resolve().parents[3]
PARTICLES = ROOT.parent / "shared" / "corpus-particles"
FPS = 24


def effect(tmp_path, *emitters, name="p_test"):
    data, _ = pb.particle_system(name, list(emitters))
    path = tmp_path / f"{name}.alo"
    path.write_bytes(data)
    return path


def load(path):
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = FPS, 1.0, 1
    result = import_alo(bpy.context, str(path))
    return result.system, sorted(result.emitters, key=lambda o: o.alamo_emitter.index)


def at(seconds):
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    scene.frame_set(scene.frame_start + int(round(seconds * fps)))


def instances(obj):
    """World places and sizes of the quads the depsgraph holds for ``obj``."""
    dg = bpy.context.evaluated_depsgraph_get()
    rows = [(tuple(i.matrix_world.translation), i.matrix_world.to_scale()[0])
            for i in dg.object_instances
            if i.is_instance and i.parent is not None and i.parent.original == obj]
    if not rows:
        return np.zeros((0, 3)), np.zeros(0)
    return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


def point_attribute(obj, name, width=1):
    me = nodes.points_object(obj).data
    att = me.attributes[name]
    key = "color" if att.data_type == "FLOAT_COLOR" else (
        "vector" if width == 3 else "value")
    out = np.zeros(len(att.data) * width, np.float32)
    att.data.foreach_get(key, out)
    return out.reshape(-1, width) if width > 1 else out


def stream(groups=None, **kw):
    """A stream of 10 per second living 2 s, at 5 units/s along +x unless ``groups`` says."""
    props = dict(num_particles_per_second=10, lifetime=2.0)
    props.update(kw)
    return pb.emitter("stream", groups=groups or [{"type": 0, "val_x": 5.0}, {}, {}], **props)


def test_stream_counts_and_places_at_one_and_three_seconds(blender, tmp_path):
    _, (em,) = load(effect(tmp_path, stream()))
    at(1.0)
    places, _ = instances(em)
    assert len(places) == 11                  # born at 0, 0.1 ... 1.0 (the newborn shows)
    np.testing.assert_allclose(np.sort(places[:, 0]), 5 * np.arange(0, 11) / 10, atol=1e-4)
    np.testing.assert_allclose(places[:, 1:], 0, atol=1e-5)
    at(3.0)
    places, _ = instances(em)
    assert len(places) == 20
    np.testing.assert_allclose(np.sort(places[:, 0]), 5 * np.arange(0, 20) / 10, atol=1e-4)
    at(3.0)                                   # the same frame shows the same particles
    np.testing.assert_allclose(np.sort(instances(em)[0][:, 0]), np.sort(places[:, 0]))


def test_two_bursts_of_five_one_second_apart(blender, tmp_path):
    burst = pb.emitter("burst", in_bursts=1, num_particles_per_burst=5, num_bursts=2,
                       burst_delay=1.0, lifetime=1.8)
    _, (em,) = load(effect(tmp_path, burst))
    counts = []
    for t in (0.5, 1.5, 2.5, 3.5):
        at(t)
        counts.append(len(instances(em)[0]))
    assert counts == [5, 10, 5, 0]


def test_falling_under_acceleration(blender, tmp_path):
    fall = stream(acceleration=(0.0, 0.0, -2.0), groups=[{}, {}, {}])
    _, (em,) = load(effect(tmp_path, fall))
    at(1.5)
    places, _ = instances(em)
    age = point_attribute(em, "alamo_age")
    z = nodes.points_object(em).data.vertices
    co = np.zeros(len(z) * 3, np.float32)
    z.foreach_get("co", co)
    np.testing.assert_allclose(co.reshape(-1, 3)[:, 2], -age ** 2, atol=1e-4)
    np.testing.assert_allclose(np.sort(places[:, 2]), np.sort(-age ** 2), atol=1e-4)


def test_sizes_and_colours_follow_the_tracks(blender, tmp_path):
    e = stream(tracks={"size": (2.0, 6.0, 0, []), "red": (255, 0, 0, []),
                       "alpha": (0, 255, 0, [])})
    _, (em,) = load(effect(tmp_path, e))
    at(3.0)
    age = point_attribute(em, "alamo_age")
    x = age / 2.0
    _, sizes = instances(em)
    np.testing.assert_allclose(np.sort(sizes), np.sort(2 + 4 * x), atol=1e-4)
    np.testing.assert_allclose(point_attribute(em, "alamo_size"), 2 + 4 * x, atol=1e-4)
    colour = point_attribute(em, "alamo_color", 4)
    red = 1 - x                                    # sRGB in the file, linear in Blender
    linear = np.where(red <= 0.04045, red / 12.92, ((red + 0.055) / 1.055) ** 2.4)
    np.testing.assert_allclose(colour[:, 0], linear, atol=1e-4)
    np.testing.assert_allclose(colour[:, 3], x, atol=1e-4)


def test_time_zero_is_the_scene_start_frame_at_its_rate(blender, tmp_path):
    _, (em,) = load(effect(tmp_path, stream()))
    scene = bpy.context.scene
    scene.frame_start, scene.render.fps = 50, 10
    scene.frame_set(50)
    assert len(instances(em)[0]) == 1        # the particle born at time 0
    scene.frame_set(60)                      # one second at 10 frames per second
    assert len(instances(em)[0]) == 11


def test_an_edit_shows_at_once(blender, tmp_path):
    """An edit shows without a frame change: what the message bus (panel edits) and the
    depsgraph handler call, and what a script calls after setting fields."""
    _, (em,) = load(effect(tmp_path, stream()))
    at(3.0)
    assert len(instances(em)[0]) == 20
    em.alamo_emitter.lifetime = 1.0
    refresh(bpy.context.scene)
    assert len(instances(em)[0]) == 10
    em.alamo_emitter.num_particles_per_second = 30
    em.alamo_emitter.tracks["size"].first_key = 7.0
    refresh(bpy.context.scene)
    places, sizes = instances(em)
    assert len(places) == 30 and sizes.max() > 6.0
    refresh(bpy.context.scene)                   # nothing changed: nothing is rewritten
    assert len(instances(em)[0]) == 30


def test_the_model_is_kept_between_frames_and_rebuilt_after_an_edit_or_a_move(blender,
                                                                             tmp_path):
    """Speed (issue 41 part 3): the model read from an emitter's fields is reused while they
    and its transform stay the same, and rebuilt when a group's field or the move changes."""
    from io_alamo.blender.alamo.particle_preview.from_props import model_from_props
    _, (em,) = load(effect(tmp_path, stream(groups=[{"type": 0, "val_x": 5.0}, {},
                                                    {"type": 0, "val_x": 0.0}])))
    first = model_from_props(em)
    at(1.0)
    assert model_from_props(em) is first
    em.alamo_emitter.groups[0].val[0] = 8.0
    edited = model_from_props(em)
    assert edited is not first and edited.velocity_group.val_x == 8.0
    em.location.x = 3.0
    moved = model_from_props(em)
    assert moved is not edited and moved.position_group.val_x == 3.0


def test_birth_and_death_emitters(blender, tmp_path):
    parent = pb.emitter("parent", num_particles_per_second=1, lifetime=1.0, birth=1, death=2,
                        groups=[{"type": 0, "val_z": 3.0}, {}, {}])
    trail = pb.emitter("trail", index=1, num_particles_per_second=10, lifetime=0.5)
    boom = pb.emitter("boom", index=2, in_bursts=1, num_particles_per_burst=4, num_bursts=1,
                      lifetime=0.5)
    _, (p, t, b) = load(effect(tmp_path, parent, trail, boom))
    at(1.25)
    boom_places, _ = instances(b)
    assert len(boom_places) == 4                  # the first particle died at 1 s, at z = 3
    np.testing.assert_allclose(boom_places[:, 2], 3.0, atol=1e-4)
    trail_places, _ = instances(t)
    # dropped along each parent's path (z = 3 t), for up to 0.5 s: the first parent's at
    # 0.8 and 0.9 s of its life, the second's (born at 1 s) at 0, 0.1 and 0.2 s of its life
    np.testing.assert_allclose(np.sort(trail_places[:, 2]), [0, 0.3, 0.6, 2.4, 2.7], atol=1e-4)


def test_corpus_explosion_shows_and_renders_nothing_of_the_shapes(blender):
    path = PARTICLES / "P_EXPLOSION_EXAMPLE.ALO"
    if not path.is_file():
        pytest.skip(f"no particle corpus at {PARTICLES}")
    system, emitters = load(path)
    at(0.5)
    counts = [len(instances(o)[0]) for o in emitters]
    assert sum(counts) > 50 and counts[0] > 0
    assert all(not o.hide_render for o in emitters)


# --- on units --------------------------------------------------------------------------------

def unit_model(tmp_path, proxy="p_unit_glow", hidden_bone=False):
    """unit.alo: a root bone and an "Engine" bone at (4, 0, 2) holding proxy ``proxy``."""
    bones = [{"name": "Root", "parent": -1, "visible": 1, "billboard": 0},
             {"name": "Engine", "parent": 0, "visible": 0 if hidden_bone else 1,
              "billboard": 0, "matrix": [1, 0, 0, 4, 0, 1, 0, 0, 0, 0, 1, 2]}]
    spec = {"bones": bones, "objects": [], "connections": [],
            "proxies": [{"name": proxy, "bone": 1}]}
    tmp_path.mkdir(parents=True, exist_ok=True)
    model = tmp_path / "unit.alo"
    model.write_bytes(sb.build_alo(spec))
    return model


def unit_with_proxy(tmp_path, hidden_bone=False, effect_folder=None):
    model = unit_model(tmp_path, hidden_bone=hidden_bone)
    folder = effect_folder or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    effect(folder, stream(groups=[{}, {}, {}]), name="p_unit_glow")
    return model


def unit_emitters(result):
    return [o for o in bpy.data.objects if o.get(EMITTER_KEY) is not None]


def ten_at_the_engine(model):
    """Import ``model`` (see unit_model) whose effect streams 10 per second from its proxy:
    at 1 s its 11 particles (born at 0, 0.1 ... 1 s) are at the Engine bone. Returns (result,
    emitter, places)."""
    result = import_alo(bpy.context, str(model))
    (em,) = unit_emitters(result)
    at(1.0)
    places, _ = instances(em)
    assert len(places) == 11
    np.testing.assert_allclose(places, np.tile([4.0, 0.0, 2.0], (11, 1)), atol=1e-4)
    return result, em, places


def test_unit_shows_the_effect_at_its_proxy_bone(blender, tmp_path):
    result, em, places = ten_at_the_engine(unit_with_proxy(tmp_path))
    arm = result.armature
    arm.pose.bones["Engine"].location = (0.0, 0.0, 5.0)   # the bone moves: so do they
    bpy.context.view_layer.update()
    at(1.0)
    moved, _ = instances(em)
    assert np.ptp(moved - places, axis=0).max() < 1e-4
    assert np.linalg.norm(moved[0] - places[0]) > 4.0
    arm.pose.bones["Engine"].alamo.visible = False     # hidden with its bone
    at(1.0)
    assert len(instances(em)[0]) == 0


def test_an_effect_on_a_bone_the_file_hides_shows_when_an_animation_shows_it(blender,
                                                                               tmp_path):
    """A build animation shows what the file hides: the effect waits for it, then plays."""
    result = import_alo(bpy.context, str(unit_with_proxy(tmp_path, hidden_bone=True)))
    (em,) = unit_emitters(result)
    at(1.0)
    assert len(instances(em)[0]) == 0                  # hidden in the file, no action
    arm = result.armature
    arm.animation_data_create().action = bpy.data.actions.new("Build")
    pb = arm.pose.bones["Engine"]
    pb.alamo.visible = True                            # the action shows the bone
    arm.keyframe_insert('pose.bones["Engine"].alamo.visible', frame=0)
    at(1.0)
    assert len(instances(em)[0]) == 11
    pb.alamo.visible = False                           # and hides it again
    arm.keyframe_insert('pose.bones["Engine"].alamo.visible', frame=0)
    at(1.0)
    assert len(instances(em)[0]) == 0


def test_effect_in_the_mods_models_folder_and_option_off(blender, tmp_path):
    models = tmp_path / "Data" / "Art" / "Models"
    units = tmp_path / "Data" / "Art" / "Units"
    units.mkdir(parents=True)
    model = unit_with_proxy(units, effect_folder=models)
    result = import_alo(bpy.context, str(model))
    assert result.counts["effects"] == 1 and len(unit_emitters(result)) == 1
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = import_alo(bpy.context, str(model), ImportOptions(show_effects=False))
    assert result.counts["effects"] == 0 and not unit_emitters(result)


def test_unit_export_is_unchanged_by_its_effects(blender, tmp_path):
    model = unit_with_proxy(tmp_path)
    result = import_alo(bpy.context, str(model))
    assert unit_emitters(result)
    at(1.0)
    bpy.context.view_layer.objects.active = result.armature
    out = tmp_path / "out.alo"
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    export_alo(bpy.context, str(out), AloExportOptions())
    assert out.read_bytes() == model.read_bytes()


def test_batch_preview_and_glb_show_the_units_effects(tmp_path):
    """In a process of its own, as users run it (Blender 4.2 crashes at exit once its glTF
    exporter has run in a process; the batch ends such a process itself)."""
    art = tmp_path / "Data" / "Art"
    model = unit_with_proxy(art / "Units", effect_folder=art / "Models")
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "io_alamo", "batch", "import", str(model.parent),
                        "--out", str(out), "--glb", "--preview"], capture_output=True,
                       text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    png, glb = out / "unit.png", out / "unit.glb"
    assert png.is_file() and glb.is_file()
    data = glb.read_bytes()
    length = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + length])
    quads = [m for m in doc.get("meshes", []) if "(particles)" in m.get("name", "")]
    assert quads, [m.get("name") for m in doc.get("meshes", [])]
    # the still is 1 s in: a stream of 10 a second shows 11 particles (born at 0 ... 1 s),
    # 4 corners each
    accessor = doc["accessors"][quads[0]["primitives"][0]["attributes"]["POSITION"]]
    assert accessor["count"] == 44
