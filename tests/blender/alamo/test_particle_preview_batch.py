"""The preview's one pass over a system's emitters (``particles/batch.py``, and the drawing
taking its arrays whole) writes into every emitter's points object exactly what the
per-emitter simulator and drawing write, bit for bit: on a spec-built effect mixing streams,
bursts, tails, flat particles, sprite sheets and a birth/death-linked pair (which breaks the
batch's run of rows), and on the corpus explosion; a hidden emitter still shows nothing."""

from pathlib import Path

import bpy
import numpy as np
import particle_build as pb
import pytest

from io_alamo.blender.alamo.particle_preview import nodes, refresh, systems

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus-particles"
EXPLOSION = CORPUS / "P_EXPLOSION_EXAMPLE.ALO"


def _effect(tmp_path):
    ems = [pb.emitter(
        f"e{i}", index=i, num_particles_per_second=20 + 5 * i, lifetime=1.5,
        randomized_scale=0.2, num_texture_elements=(i % 3) * 4 + 1,
        has_tail=int(i == 2), tail_size=2.0, is_not_billboarded=int(i == 4),
        groups=[{"type": 3, "sphere_radius": 3.0 + i}, {}, {"type": i % 5, "val_x": float(i),
                                                           "max_x": 2.0, "side_length": 1.5,
                                                           "sphere_radius": 1.0}],
        tracks={"size": (1.0, 3.0, i % 3, []), "texture_index": (0.0, 12.0, 0, []),
                "rotation_speed": (0.3, -0.2, i % 3, []), "red": (255, 20, 1, [])})
        for i in range(6)]
    ems.append(pb.emitter("bursts", index=6, in_bursts=1, num_particles_per_burst=12,
                          burst_delay=0.4, lifetime=1.0,
                          groups=[{"type": 3, "sphere_radius": 4.0}, {}, {}]))
    data, _ = pb.linked_system()
    path = tmp_path / "p_mixed.alo"
    path.write_bytes(pb.particle_system("p_mixed", ems)[0])
    linked = tmp_path / "p_linked.alo"
    linked.write_bytes(data)
    return [path, linked]


def _written(scene):
    """Every points attribute of every emitter, as bytes."""
    out = {}
    for root, emitters in systems.scene_systems(scene).items():
        for index, obj in emitters.items():
            me = nodes.points_object(obj).data
            co = np.empty(3 * len(me.vertices), np.float32)
            me.vertices.foreach_get("co", co)
            out[(root.name, index, "co")] = co.tobytes()
            for att in me.attributes:
                if att.name.startswith(".") or att.name == "position":
                    continue
                width = {"FLOAT": 1, "FLOAT_VECTOR": 3, "FLOAT_COLOR": 4}[att.data_type]
                key = {"FLOAT": "value", "FLOAT_VECTOR": "vector",
                       "FLOAT_COLOR": "color"}[att.data_type]
                values = np.empty(width * len(att.data), np.float32)
                att.data.foreach_get(key, values)
                out[(root.name, index, att.name)] = values.tobytes()
    return out


def _play(paths):
    from io_alamo.blender.alamo.importer.alo import import_alamo
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start = 30, 1
    for path in paths:
        import_alamo(bpy.context, str(path))
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    scene.collection.objects.link(cam)
    scene.camera = cam
    cam.location, cam.rotation_euler = (3.0, -90.0, 30.0), (1.2, 0.1, 0.3)
    return scene


@pytest.mark.parametrize("corpus", [False, True])
def test_one_pass_writes_what_the_per_emitter_path_writes(blender, tmp_path, monkeypatch,
                                                          corpus):
    if corpus and not EXPLOSION.is_file():
        pytest.skip("no corpus-particles")
    scene = _play([EXPLOSION] if corpus else _effect(tmp_path))
    shown = 0
    for frame in (1, 2, 9, 17, 31, 47, 63, 12):
        scene.frame_set(frame)
        batched = _written(scene)
        with monkeypatch.context() as m:        # the per-emitter simulator: no batch rows
            m.setattr(systems.batch, "simulate", systems.sim.simulate)
            refresh(scene, force=True)
            each = _written(scene)
        assert batched.keys() == each.keys()
        assert [k for k in batched if batched[k] != each[k]] == []
        shown += sum(len(v) for k, v in batched.items() if k[2] == "co") // 12
    assert shown > (300 if corpus else 2000)


def test_a_hidden_emitter_shows_nothing_and_the_others_are_unchanged(blender, tmp_path):
    scene = _play(_effect(tmp_path)[:1])
    scene.frame_set(31)
    before = _written(scene)
    (root, emitters), = systems.scene_systems(scene).items()
    emitters[3].hide_viewport = True
    refresh(scene, force=True)
    dg = bpy.context.evaluated_depsgraph_get()
    drawn = {i.parent.original.name for i in dg.object_instances
             if i.is_instance and i.parent is not None}
    assert emitters[3].name not in drawn
    assert {emitters[i].name for i in (0, 1, 2, 4, 5)} <= drawn
    assert _written(scene) == before            # the batch still runs every emitter
