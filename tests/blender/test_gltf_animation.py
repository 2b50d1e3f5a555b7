"""The batch .glb's animations written with numpy (io_alamo.blender.gltf_animation) say the
same as Blender's glTF exporter sampling every bone and frame: same animations, channels and
nodes, values within float precision at every frame (issue 36: --glb was ten times slower than
the import). What it does not cover (a constraint) is left to the exporter."""

import json
import struct

import numpy as np
import pytest
from corpus import CORPUS

from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")


def glb_channels(path):
    """{(animation, node name, path): (times, values, interpolation)} of a .glb."""
    data = path.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    doc = json.loads(data[20:20 + length])
    binary = data[28 + length:]

    def accessor(i):
        a = doc["accessors"][i]
        view = doc["bufferViews"][a["bufferView"]]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
        return np.frombuffer(binary, np.float32, a["count"] * width,
                             view.get("byteOffset", 0) + a.get("byteOffset", 0)
                             ).reshape(a["count"], width)
    out = {}
    for anim in doc.get("animations", []):
        for c in anim["channels"]:
            s = anim["samplers"][c["sampler"]]
            key = (anim["name"], doc["nodes"][c["target"]["node"]]["name"], c["target"]["path"])
            out[key] = (accessor(s["input"])[:, 0], accessor(s["output"]), s["interpolation"])
    return out


def evaluate(times, values, interpolation, at):
    if interpolation == "STEP":
        return values[np.clip(np.searchsorted(times, at, side="right") - 1, 0, len(times) - 1)]
    return np.stack([np.interp(at, times, values[:, k]) for k in range(values.shape[1])], 1)


def export_both(path, tmp_path):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    import_alo(bpy.context, str(path), AloImportOptions())
    return export_both_loaded(tmp_path)


def export_both_loaded(tmp_path):
    """The scene's .glb written by the batch's way (fast.glb) and by the exporter sampling
    every bone and frame (slow.glb), as {(animation, node, path): keys}."""
    from io_alamo.blender.alamo.game_view import prepare_gltf_export
    from io_alamo.blender.outputs import export_glb
    export_glb(tmp_path / "fast.glb", prepare=prepare_gltf_export)   # as the Alamo batch does
    import addon_utils
    addon_utils.enable("io_scene_gltf2", default_set=False)
    try:
        bpy.ops.export_scene.gltf(filepath=str(tmp_path / "slow.glb"), export_format="GLB",
                                  export_animations=True, check_existing=False,
                                  **prepare_gltf_export(bpy.context, False))
    finally:
        addon_utils.disable("io_scene_gltf2", default_set=False)
    return glb_channels(tmp_path / "fast.glb"), glb_channels(tmp_path / "slow.glb")


def assert_same_animation(fast, slow, tolerance):
    assert fast.keys() == slow.keys() and fast
    for key, (times, values, interpolation) in slow.items():
        at = np.union1d(times, fast[key][0])
        a = evaluate(times, values, interpolation, at)
        b = evaluate(*fast[key], at)
        if key[2] == "rotation":                      # q and -q are the same rotation
            d = np.minimum(np.abs(a - b).max(1), np.abs(a + b).max(1)).max()
        else:
            d = np.abs(a - b).max() / max(1.0, np.abs(a).max())  # mathutils works in float32
        assert d < tolerance, (key, d)


MODELS = ["EI_VADER.ALO", "RV_MonCalCruiser_Drydock_D.alo"]


@pytest.mark.parametrize("name", ["sample"] + MODELS)
def test_fast_animations_match_the_exporters(blender, tmp_path, name):
    if name == "sample":
        path = write_sample(tmp_path / "src")[0]
    else:
        path = CORPUS / name
        if not path.is_file():
            pytest.skip(f"no {name} in the corpus at {CORPUS}")
    fast, slow = export_both(path, tmp_path)
    assert_same_animation(fast, slow, 1e-4)


def test_a_constraint_leaves_the_animation_to_the_exporter(blender, tmp_path):
    from io_alamo.blender.gltf_animation import fast_animation_armature
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    result = import_alo(bpy.context, str(write_sample(tmp_path / "src")[0]), AloImportOptions())
    assert fast_animation_armature(bpy.context.scene) == result.armature
    result.armature.pose.bones[0].constraints.new("COPY_LOCATION")
    assert fast_animation_armature(bpy.context.scene) is None


def add_action(arm, name, frame_range, keys):
    """A new action of ``arm`` (not assigned) with ``keys``: {(bone, property, index):
    (frames, values, interpolation names)}."""
    from io_alamo.blender import compat
    action = bpy.data.actions.new(name)
    writer = compat.ActionWriter(action, arm)
    for (bone, prop, index), (frames, values, interpolation) in keys.items():
        fc = writer.fcurve(f'pose.bones["{bone}"].{prop}', index, bone)
        compat.set_keys(fc, np.asarray(frames, np.float32), np.asarray(values, np.float32),
                        [compat.INTERPOLATION[i] for i in interpolation])
    action.use_fake_user = True
    action.use_frame_range = True
    action.frame_range = frame_range
    return action


def test_several_actions_match_the_exporters(blender, tmp_path):
    """Sparse linear keys, constant (step) keys, keys of both kinds on one curve, keys off
    the frames, a curve of equal keys, a bone keyed once per channel (it stands still) and
    bones without curves, in three actions of different ranges: every bone and frame as
    the exporter samples them."""
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.blender.gltf_animation import animation_plan
    arm = import_alo(bpy.context, str(write_sample(tmp_path / "src")[0]),
                     AloImportOptions()).armature
    L, C = "LINEAR", "CONSTANT"
    add_action(arm, "Sparse", (0, 30), {
        ("Root", "location", 0): ([0, 5, 20], [0, 0.5, -1], [C, L, L]),
        ("B_Hull", "location", 0): ([0, 10, 30], [0, 1, -0.5], [L, L, L]),
        ("B_Hull", "location", 1): ([0, 15], [0, 0.7], [C, C]),
        ("B_Turret", "rotation_quaternion", 0): ([0, 30], [1, 0.6], [L, L]),
        ("B_Turret", "rotation_quaternion", 3): ([0, 12, 30], [0, 0.5, 0.8], [L, L, L]),
        ("B_Barrel", "scale", 0): ([3], [1.2], [L]),
        ("B_Barrel", "scale", 2): ([3], [0.8], [C]),
        ("B_Beacon", "location", 2): ([0, 20, 30], [0.25, 0.25, 0.25], [L, L, L]),
    })
    frames = np.arange(5, 26)
    add_action(arm, "Offset", (5, 25), {
        ("B_Turret", "rotation_quaternion", 0): (frames, np.cos(frames / 9), [L] * 21),
        ("B_Turret", "rotation_quaternion", 2): (frames, np.sin(frames / 9), [L] * 21),
        ("B_Headlight", "location", 1): (frames + 0.5, np.sin(frames / 4), [L] * 21),
        ("B_Hull", "scale", 1): ([8], [1.5], [L]),
    })
    add_action(arm, "Still", (0, 10), {("B_Beacon", "location", 0): ([2], [0.3], [C])})
    assert animation_plan(bpy.context.scene)[0] == arm
    fast, slow = export_both_loaded(tmp_path)
    assert {k[0] for k in slow} == {"Sample_Tank_Turn_00", "Sparse", "Offset", "Still"}
    assert_same_animation(fast, slow, 1e-4)
    moving = {k for k, (times, _, _) in fast.items() if len(times) > 2}
    assert ("Sparse", "B_Barrel", "scale") not in moving            # keyed once: still
    assert ("Sparse", "B_Beacon", "translation") not in moving      # equal keys: still
    assert {("Sparse", "B_Hull", "translation"), ("Sparse", "B_Turret", "rotation"),
            ("Offset", "B_Headlight", "translation")} <= moving


def test_a_curve_past_its_propertys_width_animates_nothing(blender, tmp_path):
    """``location[5]`` (a broken curve Blender shows in red and plays as nothing) is left
    out, as the exporter leaves it out: the batch's .glb is written, not failed."""
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.blender.gltf_animation import animation_plan
    arm = import_alo(bpy.context, str(write_sample(tmp_path / "src")[0]),
                     AloImportOptions()).armature
    L = ("LINEAR", "LINEAR")
    add_action(arm, "Broken", (0, 10), {("B_Hull", "location", 5): ([0, 10], [0, 3], L),
                                        ("B_Hull", "location", 0): ([0, 10], [0, 2], L)})
    assert animation_plan(bpy.context.scene)[0] == arm
    fast, slow = export_both_loaded(tmp_path)
    assert_same_animation(fast, slow, 1e-4)
    times, values, _ = fast[("Broken", "B_Hull", "translation")]
    moved = np.ptp(values, 0)
    assert len(times) > 2 and moved.max() > 1 and np.sort(moved)[1] == 0   # one axis moves


def test_still_bones_and_placed_curves_are_the_per_curve_numbers(blender):
    """The curves placed per channel at once, and the bones computed at one frame because
    they stand still, give the very numbers of sampling each curve at every frame on its
    own (what the .glb held before): the file stays byte for byte the same."""
    from io_alamo.blender.gltf_animation import (
        _CHANNELS, _Curves, _node_trs, _node_values, _sample_action, sample_curve)
    frames = np.arange(3, 13, dtype=np.float64)
    rng = np.random.default_rng(7)
    curves = []        # bone, channel, index, key frames, interpolation codes (1 linear)
    curves += [("a", "location", k, frames, [1] * 10) for k in range(3)]          # every frame
    curves += [("a", "rotation_quaternion", k, [5.0], [1]) for k in range(4)]      # one key
    curves += [("b", "rotation_quaternion", 0, [0.0, 4.0, 9.5, 20.0], [1, 0, 1, 1]),
               ("b", "scale", 1, frames + 0.5, [1] * 10),                          # off frames
               ("c", "scale", 0, [4.0], [0]), ("c", "location", 2, [4.0], [1]),    # still
               ("c", "visible", 0, [3.0, 6.0], [0, 0]),                            # not a pose
               ("d", "location", 0, [1.0, 2.0], [1, 1]), ("e", "location", 1, [7.0], [1])]
    counts = [len(c[3]) for c in curves]
    values = rng.normal(size=sum(counts))
    args = ([c[0] for c in curves], [c[1] for c in curves], [c[2] for c in curves], counts,
            np.concatenate([np.asarray(c[3], np.float64) for c in curves]), values,
            np.concatenate([np.asarray(c[4], np.int32) for c in curves]))
    bones = ["e", "a", "b", "c", "x", "d"]          # "x" has no curve

    def per_curve(curves):
        out = {c: np.empty((len(bones), len(frames), w)) for c, w in _CHANNELS}
        for c, default in zip(out, [(0, 0, 0), (1, 0, 0, 0), (1, 1, 1)]):
            out[c][...] = default
        for k in range(len(curves.bone)):
            bone, channel = curves.names[curves.bone[k]], curves.channel[k]
            if bone in bones and channel >= 0:
                out[_CHANNELS[channel][0]][bones.index(bone), :, curves.index[k]] = \
                    sample_curve(*curves.keys(k), frames)
        return out

    read = _Curves(*args)
    placed, expected = _sample_action(read, bones, frames), per_curve(read)
    for c, _ in _CHANNELS:
        assert np.array_equal(placed[c], expected[c]), c
    twice = _Curves(                                # the first curves again (a second slot)
        args[0] + args[0][:3], args[1] + args[1][:3], args[2] + args[2][:3], counts + counts[:3],
        np.r_[args[4], args[4][:30]], np.r_[values, -values[:30]], np.r_[args[6], args[6][:30]])
    placed, expected = _sample_action(twice, bones, frames), per_curve(twice)
    assert np.array_equal(placed["location"], expected["location"])
    assert np.array_equal(placed["location"][1, :, 0], -values[:10])      # the last one wins

    q = rng.normal(size=(len(bones), 1, 4))
    rest = (rng.normal(size=(len(bones), 1, 3)), q / np.linalg.norm(q, axis=-1, keepdims=True),
            np.ones((len(bones), 1, 3)))
    rows, got = _node_values(read, bones, rest, frames)
    full = _node_trs(per_curve(read), rest)
    assert rows.tolist() == [1, 2, 5]               # "e", "c" (one key each), "x" stand still
    for (values_, ends, moving), want in zip(got, full):
        assert np.array_equal(values_, want[rows].astype(np.float32))
        assert np.array_equal(ends, want[:, [0, -1]].astype(np.float32))
        assert moving == ((np.ptp(want, axis=1).max(axis=1) > 0)).tolist()
