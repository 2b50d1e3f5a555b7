"""Importing .ala animations in real Blender: the evaluated pose equals the file."""

import numpy as np
import pytest
import specbuild as sb
from corpus import corpus_files, corpus_params
from scene import datablock_counts

from io_alamo.formats.alamo import (Bone, Connections, Model, Skeleton, decode_animation, read_ala,
                                    save)

bpy = pytest.importorskip("bpy")


def import_model(path, **kw):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    return import_alo(bpy.context, str(path), AloImportOptions(**kw)).armature


def import_anim(arm, path, **kw):
    from io_alamo.blender.alamo.importer.ala import AlaImportOptions, import_ala
    return import_ala(bpy.context, arm, str(path), AlaImportOptions(**kw))


def model_for(ala_path):
    """The corpus model an animation belongs to: the longest shared name prefix of at least
    two '_'-separated words (EI_VADER_IDLE_00 -> EI_VADER, multi-troop_transport_Deploy_00 ->
    multi-troop_transport_empty)."""
    words = ala_path.stem.lower().split("_")
    best, best_n = None, 1
    for p in corpus_files(".alo"):
        other = p.stem.lower().split("_")
        n = 0
        while n < min(len(words), len(other)) and words[n] == other[n]:
            n += 1
        if n > best_n:
            best, best_n = p, n
    return best


def skeleton_for(anim, tmp_path):
    """A model whose skeleton has the animation's bones at their indices (identity rests)."""
    count = max(b.index for b in anim.bones) + 1
    names = {b.index: b.name for b in anim.bones}
    bones = [Bone(names.get(i, f"Filler{i}") if i else names.get(0, "Root"),
                  -1 if i == 0 else 0, np.eye(3, 4, dtype="<f4")) for i in range(count)]
    path = tmp_path / "skeleton_for_test.alo"
    save(Model(Skeleton(bones), [], Connections()), path)
    return path


def quat_matrix(q):
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


def file_locals(dec, i):
    m = np.tile(np.eye(4), (dec.num_frames, 1, 1))
    m[:, :3, :3] = quat_matrix(dec.rotation[i].astype(np.float64)) * dec.scale[i][:, None, :]
    m[:, :3, 3] = dec.translation[i]
    return m


def pose_locals(arm):
    """Per pose bone: its matrix relative to its parent's pose (armature space for roots)."""
    n = len(arm.pose.bones)
    flat = np.empty(n * 16, np.float32)
    arm.pose.bones.foreach_get("matrix", flat)
    mats = flat.reshape(n, 4, 4).transpose(0, 2, 1).astype(np.float64)   # column-major
    index = {pb.name: k for k, pb in enumerate(arm.pose.bones)}
    out = {}
    for k, pb in enumerate(arm.pose.bones):
        out[pb.name] = (np.linalg.inv(mats[index[pb.parent.name]]) @ mats[k]
                        if pb.parent else mats[k])
    return out


def check_animation(arm, result, ala_path):
    from io_alamo.blender.compat import action_fcurves
    anim = read_ala(ala_path.read_bytes())
    dec = decode_animation(anim)
    action = result.action
    assert arm.animation_data.action == action and action.use_fake_user
    assert (action.alamo.frames, action.alamo.format) == (anim.num_frames, str(anim.format))
    assert action.alamo.fps == pytest.approx(float(anim.fps))
    start = int(action.frame_range[0])
    from io_alamo.blender.alamo.unit_actions import match_bones
    targets = match_bones(arm, anim)
    expected = {t.name: file_locals(dec, i) for i, t in enumerate(targets) if t is not None}
    scene = bpy.context.scene
    for f in range(anim.num_frames):
        scene.frame_set(start + f)
        got = pose_locals(arm)
        for name, want in expected.items():
            size = max(1.0, float(np.abs(want[f][:3, 3]).max()))
            assert np.allclose(got[name][:3, 3], want[f][:3, 3], atol=1e-4 * size), (name, f)
            assert np.allclose(got[name][:3, :3], want[f][:3, :3], atol=1e-4), (name, f)
        for i, t in enumerate(targets):
            if t is not None and anim.bones[i].visibility is not None:
                assert arm.pose.bones[t.name].alamo.visible == bool(dec.visible[i, f])
    # one key for channels stored as constants; every frame for animated ones
    curves = action_fcurves(action)
    for i, t in enumerate(targets):
        if t is None:
            continue
        ab = anim.bones[i]
        for prop, track in (("location", ab.translation), ("rotation_quaternion", ab.rotation),
                            ("scale", ab.scale)):
            fcs = [fc for fc in curves if fc.data_path == f'pose.bones["{t.name}"].{prop}']
            assert fcs and all(len(fc.keyframe_points) == (1 if track is None
                                                           else anim.num_frames) for fc in fcs)
            if track is not None:
                interp = [k.interpolation for k in fcs[0].keyframe_points]
                assert interp == ["CONSTANT" if s else "LINEAR" for s in dec.step[i]]
    return anim


def check_hashes_read_back(arm, action):
    """Import hashes the keys it wrote without reading them back: the hashes must be the ones
    export computes from what Blender holds, or an unedited action counts as edited."""
    from io_alamo.blender.alamo import bone_keys, fingerprint
    assert action[fingerprint.KEY] == fingerprint.digest(fingerprint.action_parts(action, arm))
    stored = dict(action[bone_keys.KEY])
    assert stored == bone_keys._bone_digests(action, arm) and stored
    assert bone_keys.untouched(action, arm) == set(stored)


@pytest.mark.parametrize("path", corpus_params(".ala"))
def test_corpus_animation_matches_the_file(blender, tmp_path, path):
    model = model_for(path)
    if model is None:
        model = skeleton_for(read_ala(path.read_bytes()), tmp_path)
    arm = import_model(model, import_animations=False)
    result = import_anim(arm, path)
    check_animation(arm, result, path)
    check_hashes_read_back(arm, result.action)
    from io_alamo.blender.source import get_source
    assert bytes(get_source(result.action)) == path.read_bytes()
    assert isinstance(result.action["alamo_source"], bpy.types.Text)
    from io_alamo.blender.source import has_source
    assert has_source(result.action)
    del result.action["alamo_source"]["alamo_bytes"]
    assert not has_source(result.action) and get_source(result.action) is None


FIXTURES = ["fixture_ala_v1_scale_step", "fixture_ala_v2_scale", "fixture_ala_v1_constant"]


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_animation_matches_the_file(blender, tmp_path, name):
    data, spec = getattr(sb, name)()
    path = tmp_path / f"{name}.ala"
    path.write_bytes(data)
    anim = read_ala(data)
    arm = import_model(skeleton_for(anim, tmp_path), import_animations=False)
    result = import_anim(arm, path)
    check_animation(arm, result, path)
    check_hashes_read_back(arm, result.action)
    assert not result.missing
    if name == "fixture_ala_v1_scale_step":
        dec = decode_animation(anim)
        assert dec.step.any() and not dec.scale.std(axis=1).max() == 0


@pytest.mark.game_refuses   # its model has the bones at other indices on purpose
def test_bones_are_matched_by_index_then_by_name_and_missing_ones_warned(blender, tmp_path):
    data, _ = sb.fixture_ala_v2_scale()
    anim = read_ala(data)
    # a skeleton where the animated bones sit at other indices, plus one bone missing
    names = [b.name for b in anim.bones]
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]
    bones += [Bone(n.upper(), 0, np.eye(3, 4, dtype="<f4")) for n in reversed(names[1:])]
    path = tmp_path / "m.alo"
    save(Model(Skeleton(bones), [], Connections()), path)
    arm = import_model(path, import_animations=False)
    ala = tmp_path / "a.ala"
    ala.write_bytes(data)
    result = import_anim(arm, ala)
    assert result.missing == [names[0]] if names[0].lower() != "root" else not result.missing
    assert len(result.warnings) == (1 if result.missing else 0)
    matched = {t.alamo.name.lower() for t in __import__(
        "io_alamo.blender.alamo.importer.ala", fromlist=["match_bones"]).match_bones(arm, anim) if t}
    assert {n.lower() for n in names[1:]} <= matched


def test_several_animations_live_side_by_side(blender, tmp_path):
    from io_alamo.formats.alamo.sample import sample_animation, sample_model, write_sample
    alo, ala = write_sample(tmp_path)
    # a second animation beside the model: format #1, another rate
    from io_alamo.formats.alamo import convert_animation
    second = convert_animation(sample_animation(sample_model()), 1)
    second.fps = np.float32(15)
    save(second, tmp_path / "Sample_Tank_Slow_00.ala")
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    result = import_alo(bpy.context, str(alo), AloImportOptions())
    assert result.counts["animations"] == 2
    actions = sorted(a.name for a in bpy.data.actions)
    assert actions == ["Sample_Tank_Slow_00", "Sample_Tank_Turn_00"]
    assert all(a.use_fake_user for a in bpy.data.actions)
    # the first animation (by name) set the scene rate
    assert bpy.context.scene.render.fps == 15
    assert {a.alamo.format for a in bpy.data.actions} == {"1", "2"}


def test_no_armature_is_a_clear_message(blender, tmp_path):
    data, _ = sb.fixture_ala_v2_scale()
    path = tmp_path / "a.ala"
    path.write_bytes(data)
    before = datablock_counts()
    with pytest.raises(RuntimeError, match="no armature"):
        bpy.ops.import_anim.alamo_ala(filepath=str(path))
    assert datablock_counts() == before


def test_operator_imports_several_files_onto_the_selected_armature(blender, tmp_path):
    from io_alamo.formats.alamo.sample import write_sample
    alo, ala = write_sample(tmp_path / "m")
    arm = import_model(alo, import_animations=False)
    other = tmp_path / "m" / "Sample_Tank_Again_00.ala"
    other.write_bytes(ala.read_bytes())
    bpy.context.scene.render.fps = 24
    r = bpy.ops.import_anim.alamo_ala(directory=str(tmp_path / "m"),
                                files=[{"name": ala.name}, {"name": other.name}])
    assert r == {"FINISHED"}
    assert sorted(a.name for a in bpy.data.actions) == ["Sample_Tank_Again_00",
                                                         "Sample_Tank_Turn_00"]
    assert arm.animation_data.action.name == "Sample_Tank_Again_00"
    assert bpy.context.scene.render.fps == 30
    assert bpy.context.scene.frame_end == bpy.context.scene.frame_start + 59


def test_corrupt_animation_changes_nothing(blender, tmp_path):
    from io_alamo.formats.alamo.sample import write_sample
    alo, ala = write_sample(tmp_path)
    arm = import_model(alo, import_animations=False)
    bad = tmp_path / "bad.ala"
    bad.write_bytes(ala.read_bytes()[:-5])
    before = datablock_counts()
    from io_alamo.formats.alamo import AlamoFormatError
    with pytest.raises(AlamoFormatError):
        import_anim(arm, bad)
    assert datablock_counts() == before and arm.animation_data is None
