"""Exporting actions as .ala animations in both formats."""

import numpy as np
import pytest
from corpus import corpus_params
from test_import_ala import import_anim, import_model, model_for, skeleton_for

from io_alamo.formats.alamo import convert_animation, decode_animation, read_ala, write_ala

bpy = pytest.importorskip("bpy")


def setup_animation(path, tmp_path):
    anim = read_ala(path.read_bytes())
    model = model_for(path) or skeleton_for(anim, tmp_path)
    arm = import_model(model, import_animations=False)
    result = import_anim(arm, path)
    return arm, result.action, anim


def export(arm, action, path, **kw):
    from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
    return export_ala(bpy.context, arm, action, str(path), AlaExportOptions(**kw))


@pytest.mark.parametrize("path", corpus_params(".ala"))
def test_unedited_animation_exports_byte_identical_and_converts_like_the_cli(
        blender, tmp_path, path):
    arm, action, anim = setup_animation(path, tmp_path)
    out = tmp_path / "same.ala"
    result = export(arm, action, out, format=anim.format)
    assert result.reused
    assert out.read_bytes() == path.read_bytes()
    other = 3 - anim.format
    export(arm, action, out, format=other)
    assert out.read_bytes() == write_ala(convert_animation(anim, other))


def rotation_error(a, b):
    """Per-frame distance of quaternions, sign-independent."""
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return np.minimum(np.abs(a - b).max(axis=-1), np.abs(a + b).max(axis=-1))


@pytest.mark.parametrize("fmt", [2, 1])
@pytest.mark.parametrize("path", corpus_params(".ala"))
def test_edited_animation_reencodes_within_half_a_step(blender, tmp_path, path, fmt):
    from io_alamo.blender.alamo import fingerprint
    arm, action, anim = setup_animation(path, tmp_path)
    del action[fingerprint.KEY]                      # as if edited: evaluate the pose
    out = tmp_path / "new.ala"
    result = export(arm, action, out, format=fmt)
    assert not result.reused
    assert result.pose_from == "keys"           # imported keys: sampled with numpy
    new = read_ala(out.read_bytes())
    assert new.format == fmt and new.num_frames == anim.num_frames
    assert np.isclose(new.fps, anim.fps)
    a, b = decode_animation(anim), decode_animation(new)
    # exactly the source's bones (those the armature has), in the file's order, under the
    # model's skeleton indices; never bone 0, as in every game animation
    from io_alamo.blender.alamo.unit_actions import match_bones
    targets = match_bones(arm, anim)
    kept = [i for i, t in enumerate(targets) if t is not None]
    assert [n.lower() for n in b.names] == [anim.bones[i].name.lower() for i in kept]
    assert [int(x) for x in b.indices] == [targets[i].alamo.index for i in kept]
    assert 0 not in [int(x) for x in b.indices]
    for k, i in enumerate(kept):
        bone = anim.bones[i]
        half_t = np.maximum(bone.translation_scale, 0) / 2
        scale_t = max(1.0, float(np.abs(a.translation[i]).max()))
        assert np.all(np.abs(a.translation[i] - b.translation[k]) <= half_t + 2e-5 * scale_t), \
            bone.name
        assert np.all(rotation_error(a.rotation[i], b.rotation[k]) <= 0.5 / 32767 + 2e-6), \
            bone.name
        half_s = np.maximum(bone.scale_scale, 0) / 2
        assert np.all(np.abs(a.scale[i] - b.scale[k]) <= half_s + 2e-5), bone.name
        assert np.array_equal(a.visible[i], b.visible[k]), bone.name
        if fmt == 1:             # step bits of every unedited bone kept
            assert np.array_equal(a.step[i], b.step[k]), bone.name
        else:                    # format #2 has none (no 0x1008 chunk)
            assert new.bones[k].step is None, bone.name
        # unchanging channels stay constants, as in the game's files
        if bone.translation is None:
            assert new.bones[k].translation is None, bone.name
        if bone.rotation is None:
            assert new.bones[k].rotation is None, bone.name
        if bone.scale is None:
            assert new.bones[k].scale is None, bone.name


def make_rig():
    arm = bpy.data.armatures.new("Rig")
    obj = bpy.data.objects.new("Rig", arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    root = arm.edit_bones.new("Root")
    root.head, root.tail = (0, 0, 0), (0, 0, 1)
    arm_bone = arm.edit_bones.new("Arm")
    arm_bone.head, arm_bone.tail = (0, 0, 1), (0, 1, 1)
    arm_bone.parent = root
    hand = arm.edit_bones.new("Hand")
    hand.head, hand.tail = (0, 1, 1), (0, 1.5, 1.2)
    hand.parent = arm_bone
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def key(pb, frame, **values):
    for prop, value in values.items():
        setattr(pb, prop, value)
        pb.keyframe_insert(prop, frame=frame)


def make_action(arm):
    """Keyframed bones, a scaling bone, a hidden interval, a constant-interpolation key."""
    import mathutils
    pbs = arm.pose.bones
    for pb in pbs:
        pb.rotation_mode = "QUATERNION"
    arm.animation_data_create()
    action = bpy.data.actions.new("Wave")
    arm.animation_data.action = action
    key(pbs["Arm"], 0, rotation_quaternion=(1, 0, 0, 0), location=(0, 0, 0))
    key(pbs["Arm"], 9, rotation_quaternion=mathutils.Quaternion((0, 0, 1), 0.8),
        location=(0.2, 0, 0))
    key(pbs["Arm"], 19, rotation_quaternion=mathutils.Quaternion((1, 0, 0), -0.5),
        location=(0, 0.3, 0))
    key(pbs["Hand"], 0, scale=(1, 1, 1))
    key(pbs["Hand"], 19, scale=(1.5, 0.5, 2.0))
    hand = pbs["Hand"]
    for frame, vis in ((0, True), (7, False), (11, True)):
        hand.alamo.visible = vis
        arm.keyframe_insert('pose.bones["Hand"].alamo.visible', frame=frame)
    from io_alamo.blender import compat
    for fc in compat.action_fcurves(action):
        if fc.data_path.endswith("alamo.visible"):
            for kp in fc.keyframe_points:
                kp.interpolation = "CONSTANT"
        if fc.data_path.endswith('["Arm"].location'):
            fc.keyframe_points[1].interpolation = "CONSTANT"        # a step at frame 9
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 0, 19
    action.frame_range = (0, 19)
    action.use_frame_range = True
    return action


def pose_track(arm, frames):
    out = []
    buf = np.empty(len(arm.pose.bones) * 16, np.float32)
    vis = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        arm.pose.bones.foreach_get("matrix", buf)
        out.append(buf.copy().reshape(-1, 4, 4))
        vis.append([pb.alamo.visible for pb in arm.pose.bones])
    return np.array(out), np.array(vis)


@pytest.mark.parametrize("fmt", [2, 1])
def test_new_action_exports_and_reimports_to_the_same_motion(blender, tmp_path, fmt):
    from io_alamo.blender.alamo.actions import set_active_action
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm = make_rig()
    make_action(arm)
    frames = range(0, 20)
    model = tmp_path / "Rig.alo"
    if fmt == 2:
        from io_alamo.blender import compat
        # the game's format #2 loader reads no per-frame scale: refused, naming the bone
        from io_alamo.blender.alamo.exporter.common import ExportError
        with pytest.raises(ExportError, match="'Hand' scales over time"):
            export_alo(bpy.context, str(model), AloExportOptions(animations=True, ala_format=fmt))
        assert not list(tmp_path.iterdir())
        action = arm.animation_data.action
        for fc in compat.action_fcurves(action):
            if fc.data_path.endswith(".scale"):
                for k in fc.keyframe_points:
                    k.co[1] = k.handle_left[1] = k.handle_right[1] = 1.0
                fc.update()
    want, want_vis = pose_track(arm, frames)
    assert not want_vis[:, 2].all() and want_vis[:, 2].any()
    result = export_alo(bpy.context, str(model),
                        AloExportOptions(animations=True, ala_format=fmt))
    ala = tmp_path / "Rig_Wave.ala"
    assert result.animations == [str(ala)]
    anim = read_ala(ala.read_bytes())
    assert anim.format == fmt and anim.num_frames == 20
    names = [b.name for b in anim.bones]
    assert names == ["Arm", "Hand"]             # the bones that move; never bone 0 (Root)
    assert [b.index for b in anim.bones] == [1, 2]
    hand = anim.bones[1]
    assert (hand.scale is not None) == (fmt == 1)              # Hand scales (in format #1)
    assert anim.bones[0].scale is None
    dec = decode_animation(anim)
    if fmt == 1:
        assert dec.step[0, 9] and not dec.step[0, 0]           # the constant key at frame 10
    else:
        assert all(b.step is None for b in anim.bones)         # format #2 holds no steps
    assert np.array_equal(dec.visible[1], want_vis[:, 2])

    bpy.ops.wm.read_factory_settings(use_empty=True)
    got_arm = import_alo(bpy.context, str(model), AloImportOptions()).armature
    assert got_arm.animation_data is None                      # the bind pose is shown
    set_active_action(got_arm, bpy.data.actions["Rig_Wave"])
    got, got_vis = pose_track(got_arm, frames)
    order = [got_arm.pose.bones.find(pb) for pb in ("Root", "Arm", "Hand")]
    # Root comes back as identity (bone 0 of a new skeleton); the moving bones as they were
    assert np.allclose(got[:, order[1:]], want[:, 1:], atol=2e-4)
    assert np.allclose(got[:, order[0]], np.eye(4), atol=1e-6)
    assert np.array_equal(got_vis[:, order], want_vis)


def test_export_restores_scene_frame_and_pose(blender, tmp_path):
    arm = make_rig()
    action = make_action(arm)
    other = bpy.data.actions.new("Other")
    arm.animation_data.action = other
    me = bpy.data.meshes.new("Skin")
    me.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    skin = bpy.data.objects.new("Skin", me)
    bpy.context.scene.collection.objects.link(skin)
    skin.modifiers.new("Armature", "ARMATURE").object = arm
    bpy.context.scene.frame_set(7)
    arm.pose.bones["Root"].location = (1, 2, 3)                # posed by hand, not keyed
    result = export(arm, action, tmp_path / "w.ala", format=1)      # Hand scales: format #1
    assert result.frames == 20
    assert bpy.context.scene.frame_current == 7
    assert arm.animation_data.action == other
    assert tuple(arm.pose.bones["Root"].location) == (1, 2, 3)
    assert skin.modifiers["Armature"].show_viewport          # muted while sampling only
    # the hand-posed root is at rest (and, as bone 0, not in the file): Arm starts at its rest
    anim = read_ala((tmp_path / "w.ala").read_bytes())
    assert [b.name for b in anim.bones] == ["Arm", "Hand"]
    assert np.allclose(decode_animation(anim).translation[0, 0], (0, 0, 1), atol=1e-6)


def test_operator_exports_active_action(blender, tmp_path):
    arm = make_rig()
    make_action(arm)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    out = tmp_path / "op.ala"
    assert bpy.ops.export_anim.alamo_ala(filepath=str(out), format="1") == {"FINISHED"}
    assert read_ala(out.read_bytes()).format == 1


def test_bone_names_with_quotes(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.ala import armature_actions
    arm = make_rig()
    arm.data.bones["Arm"].name = 'Arm "L"'
    pb = arm.pose.bones['Arm "L"']
    arm.animation_data_create()
    action = bpy.data.actions.new("Quote")
    arm.animation_data.action = action
    key(pb, 1, location=(0, 0, 0))
    key(pb, 5, location=(1, 0, 0))
    assert action in armature_actions(arm)
    export(arm, action, tmp_path / "q.ala")
    anim = read_ala((tmp_path / "q.ala").read_bytes())
    k = [b.name for b in anim.bones].index('Arm "L"')
    assert anim.bones[k].translation is not None
