"""The .ala export's pose sampled from the action's keys with numpy (exporter/ala_keys.py)
against Blender's own evaluation at every frame (``scene.frame_set``), which it replaces only
where nothing but the action's linear and constant keys moves the bones."""

import numpy as np
import pytest

from io_alamo.formats.alamo import decode_animation, read_ala

bpy = pytest.importorskip("bpy")

FRAMES = 40
# name, parent, head, tail, roll, rotation mode, connected
BONES = (("Root", None, (0, 0, 0), (0, 0, 1), 0.0, "QUATERNION", False),
         ("Spine", "Root", (0, 0, 1), (0.3, 0.2, 2.0), 0.7, "QUATERNION", False),
         ("Neck", "Spine", (0.3, 0.2, 2.0), (0.1, -0.4, 2.8), -1.2, "QUATERNION", True),
         ("ArmL", "Spine", (0.5, 0.1, 1.6), (1.5, 0.3, 1.2), 2.0, "XYZ", False),
         ("HandL", "ArmL", (1.6, 0.3, 1.2), (1.9, 0.1, 0.9), 0.3, "ZXY", False),
         ("Still", "Root", (-0.5, 0.0, 0.5), (-0.5, 0.5, 0.7), 0.9, "QUATERNION", False),
         ("Tip", "Still", (-0.5, 0.6, 0.8), (-0.2, 1.4, 0.8), -2.5, "YZX", False),
         ("Float", None, (2.0, 2.0, 0.0), (2.0, 2.3, 1.5), 0.4, "QUATERNION", False))
KEYLESS = "Still"                  # no keys: its child Tip moves under its rest


def make_rig():
    data = bpy.data.armatures.new("Rig")
    obj = bpy.data.objects.new("Rig", data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for name, parent, head, tail, roll, _, connected in BONES:
        eb = data.edit_bones.new(name)
        eb.head, eb.tail, eb.roll = head, tail, roll
        if parent:
            eb.parent = data.edit_bones[parent]
            eb.use_connect = connected
    bpy.ops.object.mode_set(mode="OBJECT")
    for name, *_, mode, _ in BONES:
        obj.pose.bones[name].rotation_mode = mode
    return obj


def make_action(obj, scale_moves, seed=3):
    """Linear and constant keys, dense and sparse, unnormalised quaternions, Euler angles,
    non-uniform scale (moving only when ``scale_moves``), a connected bone's ignored
    location, no keys on KEYLESS."""
    from io_alamo.blender import compat
    rng = np.random.default_rng(seed)
    action = bpy.data.actions.new("Rig_Move")
    writer = compat.ActionWriter(action, obj)
    linear, constant = compat.INTERPOLATION["LINEAR"], compat.INTERPOLATION["CONSTANT"]
    for name, *_, mode, _ in BONES:
        if name == KEYLESS:
            continue
        rot = "rotation_quaternion" if mode == "QUATERNION" else "rotation_euler"
        for prop, width in (("location", 3), (rot, 4 if mode == "QUATERNION" else 3),
                            ("scale", 3)):
            for i in range(width):
                if rng.random() < 0.5:                       # a key at every frame
                    frames = np.arange(1, FRAMES + 1, dtype=np.float64)
                else:                                        # sparse keys, some constant
                    frames = np.unique(np.r_[1, rng.choice(np.arange(2, FRAMES), 5), FRAMES])
                n = len(frames)
                codes = np.where(rng.random(n) < 0.3, constant, linear)
                if prop == "location":
                    values = rng.normal(0, 0.4, n)
                elif prop == "rotation_quaternion":
                    values = (1.3 if i == 0 else 0) + rng.normal(0, 0.5, n)
                elif prop == "rotation_euler":
                    values = rng.normal(0, 1.2, n)
                else:
                    values = np.full(n, (1.0, 0.8, 1.25)[i])
                    if scale_moves:
                        values = values + rng.normal(0, 0.15, n)
                compat.set_keys(writer.fcurve(f'pose.bones["{name}"].{prop}', i, name),
                                frames, values, codes)
    writer.assign()
    action.frame_range = (1, FRAMES)
    action.use_frame_range = True
    return action


def export(obj, action, path, fmt):
    from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
    return export_ala(bpy.context, obj, action, str(path), AlaExportOptions(format=fmt))


def export_model(obj, tmp_path):
    """The rig's .alo beside the animations (the game's loaders check each .ala against it)."""
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    export_alo(bpy.context, str(tmp_path / "Rig.alo"), AloExportOptions(animations=False))


def frame_by_frame(monkeypatch):
    from io_alamo.blender.alamo.exporter import ala
    monkeypatch.setattr(ala, "pose_from_keys", lambda *a, **k: None)


def test_keys_give_blenders_pose_matrices(blender, monkeypatch):
    from io_alamo.blender.alamo.exporter import ala_keys
    from io_alamo.blender.alamo.exporter.ala import _sample_pose
    from io_alamo.blender.alamo.exporter.ala_keys import pose_from_keys, slow_reason
    monkeypatch.setattr(ala_keys, "_CHUNK", 7)      # frames in blocks, as for long actions
    obj = make_rig()
    action = make_action(obj, scale_moves=True)
    assert slow_reason(obj, action) is None
    order = [None] + [pb.name for pb in obj.pose.bones][::-1]
    for scale in (1.0, 2.5):                   # also location keys read scaled (Apply Scale)
        fast = pose_from_keys(obj, action, order, 0, FRAMES + 3, scale)
        slow = _sample_pose(bpy.context, obj, action, order, 0, FRAMES + 3, scale)
        assert fast.shape == slow.shape == (FRAMES + 3, len(order), 4, 4)
        assert np.abs(fast - slow).max() < 2e-5 * scale
        assert np.array_equal(fast[:, 0], np.tile(np.eye(4), (FRAMES + 3, 1, 1)))
        # they move (a test of a still pose would prove nothing)
        assert np.ptp(slow[:, 1:, :3, 3], axis=0).max() > 0.3


@pytest.mark.parametrize("fmt", [2, 1])
def test_export_from_keys_equals_export_frame_by_frame(blender, tmp_path, monkeypatch, fmt):
    obj = make_rig()
    action = make_action(obj, scale_moves=fmt == 1)
    export_model(obj, tmp_path)
    fast = export(obj, action, tmp_path / "Rig_Fast.ala", fmt)
    assert fast.pose_from == "keys"
    frame_by_frame(monkeypatch)
    slow = export(obj, action, tmp_path / "Rig_Slow.ala", fmt)
    assert slow.pose_from == "frames"
    a, b = (read_ala((tmp_path / f"Rig_{n}.ala").read_bytes()) for n in ("Fast", "Slow"))
    # the same bones (every keyed one, not the keyless one) with the same layout of tracks
    names = [bo.name for bo in a.bones]
    assert names == [bo.name for bo in b.bones]
    assert set(names) >= {n for n, *_ in BONES} - {"Root", KEYLESS} and KEYLESS not in names
    assert a.num_frames == b.num_frames == FRAMES
    for x, y in zip(a.bones, b.bones):
        for track in ("translation", "rotation", "scale", "visibility", "step"):
            assert (getattr(x, track) is None) == (getattr(y, track) is None), (x.name, track)
    assert (a.bones[names.index("Spine")].scale is not None) == (fmt == 1)
    # the decoded values agree within the formats' quantisation (a quantum of either file)
    da, db = decode_animation(a), decode_animation(b)
    for k, (x, y) in enumerate(zip(a.bones, b.bones)):
        step_t = np.maximum(x.translation_scale, y.translation_scale) + 1e-5
        assert np.all(np.abs(da.translation[k] - db.translation[k]) <= step_t), x.name
        step_s = np.maximum(x.scale_scale, y.scale_scale) + 1e-5
        assert np.all(np.abs(da.scale[k] - db.scale[k]) <= step_s), x.name
        assert np.all(np.abs(da.rotation[k] - db.rotation[k]) <= 1.0 / 32767), x.name
        assert np.array_equal(da.step[k], db.step[k]), x.name
    assert np.ptp(da.translation, axis=1).max() > 0.3          # they move


def _constraint(obj, action):
    obj.pose.bones["HandL"].constraints.new("COPY_ROTATION")


def _driver(obj, action):
    obj.pose.bones[KEYLESS].driver_add("location", 1).driver.expression = "0.25"


def _nla(obj, action):
    track = obj.animation_data.nla_tracks.new()
    track.strips.new("Other", 1, bpy.data.actions.new("Other"))


def _curve(action, path_end):
    from io_alamo.blender import compat
    return next(fc for fc in compat.action_fcurves(action) if fc.data_path.endswith(path_end))


def _bezier(obj, action):
    _curve(action, '["Spine"].location').keyframe_points[0].interpolation = "BEZIER"


def _modifier(obj, action):
    _curve(action, '["ArmL"].rotation_euler').modifiers.new("NOISE")


def _extrapolation(obj, action):
    _curve(action, '["Float"].location').extrapolation = "LINEAR"


def _near_frame(obj, action):
    fc = _curve(action, '["HandL"].location')
    fc.keyframe_points[-1].co[0] -= 0.0005         # Blender's search takes it as on the frame
    fc.update()


def _axis_angle(obj, action):
    obj.pose.bones["Tip"].rotation_mode = "AXIS_ANGLE"


def _inherit(obj, action):
    obj.data.bones["HandL"].inherit_scale = "NONE"


def _rest(obj, action):
    obj.data.pose_position = "REST"


@pytest.mark.parametrize("change", [_constraint, _driver, _nla, _bezier, _modifier,
                                    _extrapolation, _near_frame, _axis_angle, _inherit, _rest],
                         ids=lambda f: f.__name__.strip("_"))
def test_what_keys_cannot_give_is_evaluated_frame_by_frame(blender, tmp_path, change):
    from io_alamo.blender.alamo.exporter.ala_keys import slow_reason
    obj = make_rig()
    action = make_action(obj, scale_moves=False)
    export_model(obj, tmp_path)
    assert export(obj, action, tmp_path / "Rig_Before.ala", 1).pose_from == "keys"
    change(obj, action)
    result = export(obj, action, tmp_path / "Rig_After.ala", 1)
    assert result.pose_from == "frames"
    assert change in (_bezier, _modifier, _extrapolation, _near_frame) \
        or slow_reason(obj, action)


def test_euler_matrices_are_blenders(blender):
    import mathutils

    from io_alamo.blender.alamo.exporter.ala_keys import euler_matrices
    rng = np.random.default_rng(5)
    angles = rng.normal(0, 2, (20, 3))
    for order in ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"):
        want = np.array([np.array(mathutils.Euler(a, order).to_matrix()) for a in angles])
        assert np.abs(euler_matrices(angles, order) - want).max() < 1e-6, order
