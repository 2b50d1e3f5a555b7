"""Blender's progress indicator during multi-file imports and long exports: the steps the
work announces and takes, and the indicator closed afterwards, whatever happened. Headless
there is no window to show it on, which is the guarded path these tests run through."""

import pytest

from io_alamo.blender import compat, progress
from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
from io_alamo.blender.alamo.importer.alo import import_alo
from io_alamo.formats.alamo import read_ala
from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")


@pytest.fixture
def edited_sample(blender, tmp_path):
    """The sample imported, its animation edited (so the export samples every frame)."""
    alo, _ = write_sample(tmp_path / "in")
    result = import_alo(bpy.context, str(alo))
    arm = result.armature
    action = arm.animation_data.action if arm.animation_data and arm.animation_data.action \
        else bpy.data.actions[0]
    arm.animation_data_create().action = action
    compat.action_fcurves(action)[0].keyframe_points[0].co.y += 0.25
    return arm, action


def test_headless_shows_nothing_but_counts(blender):
    with progress.WindowProgress(bpy.context, total=3) as p:
        assert not p.shown                      # background mode: no window to draw on
        progress.advance()
        progress.expect(2)
        progress.advance(4)
    assert (p.value, p.total) == (5, 5) and progress._OPEN == []


def test_model_export_counts_objects_and_animation_frames(edited_sample, tmp_path):
    arm, action = edited_sample
    with progress.WindowProgress(bpy.context) as p:
        result = export_alo(bpy.context, str(tmp_path / "out.alo"),
                            AloExportOptions(animations=True))
    c = result.counts
    frames = sum(read_ala(open(path, "rb").read()).num_frames for path in result.animations)
    assert frames > 1 and len(result.animations) == 1
    assert p.total == c["meshes"] + c["lights"] + frames
    assert p.value == p.total


def test_animation_export_counts_frames(edited_sample, tmp_path):
    arm, action = edited_sample
    target = tmp_path / "anim.ala"
    with progress.WindowProgress(bpy.context) as p:
        export_ala(bpy.context, arm, action, str(target), AlaExportOptions(format=2))
    assert p.total == read_ala(target.read_bytes()).num_frames == p.value


def test_multi_file_import_through_the_operator(blender, tmp_path):
    for name in ("a", "b"):
        write_sample(tmp_path / name)
    (tmp_path / "c").mkdir()
    for name in ("a", "b"):
        (tmp_path / name / "Sample_Tank.alo").rename(tmp_path / "c" / f"{name}.alo")
    (tmp_path / "c" / "bad.alo").write_bytes(b"\x00\x02\x00\x00\xff\xff\x00\x00")
    with pytest.raises(RuntimeError, match="bad.alo"):    # the error report, headless
        bpy.ops.import_scene.alo(directory=str(tmp_path / "c"),
                                 files=[{"name": "a.alo"}, {"name": "bad.alo"},
                                        {"name": "b.alo"}])
    assert sorted(o.name for o in bpy.data.objects if o.type == "ARMATURE") == ["a", "b"]
    assert progress._OPEN == []                 # the indicator was closed


def test_the_indicator_closes_when_the_work_fails(blender):
    with pytest.raises(RuntimeError):
        with progress.WindowProgress(bpy.context, total=2):
            progress.advance()
            raise RuntimeError("stop")
    assert progress._OPEN == []
    progress.advance()                          # no indicator open: nothing happens
