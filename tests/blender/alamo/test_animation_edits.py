"""Issue 25, point 4: editing one key of one bone changes that bone only. Every other bone
keeps its stored data exactly (format #1: its 0x1002 chunk byte for byte; format #2: its
quantised columns, offsets and scales), and adding a bone does not make an untouched
imported action count as edited."""

import numpy as np
import pytest
from corpus import corpus_params
from test_export_ala import export, setup_animation

from io_alamo.formats.alamo import read_ala, write_chunks
from io_alamo.formats.alamo.chunk_types import ChunkType
from io_alamo.formats.alamo.chunks import read_chunks

bpy = pytest.importorskip("bpy")


def bone_chunks(data):
    """{bone name (lower case): the bytes of its 0x1002 chunk}."""
    root = read_chunks(data)[0]
    out = {}
    for c in root.children:
        if c.type == ChunkType.BONE_ANIMATION:
            out[_name(c)] = write_chunks([c], (ChunkType.BONE_ANIMATION_HEADER,))
    return out


def _name(chunk):
    from io_alamo.formats.alamo.chunks import read_minis
    head = next(c for c in chunk.children if c.type == ChunkType.BONE_ANIMATION_HEADER)
    mini = next(m for m in read_minis(head) if m.type == 4)
    return bytes(mini.data).split(b"\0")[0].decode("cp1252").lower()


STORED = ("translation", "rotation", "scale", "translation_offset", "translation_scale",
          "scale_offset", "scale_scale", "default_rotation", "visibility", "step", "unknown")


def same_stored(a, b):
    return all((getattr(a, f) is None) == (getattr(b, f) is None)
               and (getattr(a, f) is None
                    or np.array_equal(np.asarray(getattr(a, f)), np.asarray(getattr(b, f))))
               for f in STORED)


def edit_one_key(arm, action, anim):
    """Move the middle key of the first bone of the file that has a per-frame translation
    (else rotation) track; returns that bone's name (lower case)."""
    from io_alamo.blender import compat
    from io_alamo.blender.alamo.fingerprint import bone_of_path
    for track, prop, by in (("translation", "location", 0.25),
                            ("rotation", "rotation_quaternion", 0.1)):
        for ab in anim.bones:
            if getattr(ab, track) is None:
                continue
            for fc in compat.action_fcurves(action):
                name, path = bone_of_path(fc.data_path)
                bone = arm.data.bones.get(name) if name else None
                # a rotation's x (scaling w alone of an identity changes nothing)
                if path == prop and bone is not None and fc.array_index == (prop != "location") \
                        and \
                        (bone.alamo.name or bone.name).lower() == ab.name.lower() and \
                        len(fc.keyframe_points) > 2:
                    k = fc.keyframe_points[len(fc.keyframe_points) // 2]
                    k.co[1] += by
                    fc.update()
                    return ab.name.lower()
    return None


@pytest.mark.parametrize("path", corpus_params(".ala"))
def test_one_key_edited_leaves_every_other_bone_exact(blender, tmp_path, path):
    arm, action, anim = setup_animation(path, tmp_path)
    edited = edit_one_key(arm, action, anim)
    if edited is None:
        pytest.skip("no bone with a track of more than two keys")
    out = tmp_path / "edited.ala"
    result = export(arm, action, out, format=anim.format)
    assert not result.reused
    new = read_ala(out.read_bytes())
    assert new.format == anim.format
    old_bones = {b.name.lower(): b for b in anim.bones}
    new_bones = {b.name.lower(): b for b in new.bones}
    assert list(new_bones) == list(old_bones)
    assert result.kept_bones == len(anim.bones) - 1
    assert not same_stored(old_bones[edited], new_bones[edited])
    if anim.format == 1:
        a, b = bone_chunks(path.read_bytes()), bone_chunks(out.read_bytes())
        assert a.pop(edited) != b.pop(edited)
        assert a == b
    else:
        for name, bone in old_bones.items():
            if name != edited:
                assert same_stored(bone, new_bones[name]), name


@pytest.mark.parametrize("fmt", [1, 2])
def test_spec_built_animation_edit_keeps_other_bones(blender, tmp_path, fmt):
    from io_alamo.formats.alamo import convert_animation, save
    from io_alamo.formats.alamo.sample import sample_animation, sample_model
    folder = tmp_path / "m"
    folder.mkdir()
    model = sample_model()
    save(model, folder / "Tank.alo")
    save(convert_animation(sample_animation(model), fmt), folder / "Tank_Turn_00.ala")
    from test_import_ala import import_anim, import_model
    arm = import_model(folder / "Tank.alo", import_animations=False)
    action = import_anim(arm, folder / "Tank_Turn_00.ala").action
    anim = read_ala((folder / "Tank_Turn_00.ala").read_bytes())
    edited = edit_one_key(arm, action, anim)
    out = tmp_path / "out.ala"
    result = export(arm, action, out, format=fmt)
    new = read_ala(out.read_bytes())
    assert result.kept_bones == len(anim.bones) - 1
    for a, b in zip(anim.bones, new.bones):
        assert same_stored(a, b) == (a.name.lower() != edited), a.name


@pytest.mark.parametrize("path", corpus_params(".ala")[:4])
def test_adding_a_bone_leaves_imported_actions_unedited(blender, tmp_path, path):
    arm, action, anim = setup_animation(path, tmp_path)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    eb = arm.data.edit_bones.new("NewPart")
    eb.head, eb.tail = (0, 0, 0), (0, 0, 1)
    bpy.ops.object.mode_set(mode="OBJECT")
    out = tmp_path / "same.ala"
    result = export(arm, action, out, format=anim.format)
    assert result.reused
    assert out.read_bytes() == path.read_bytes()


# --- point 5: new actions ----------------------------------------------------------------------

def new_action(arm, name="Wave"):
    """A new action keying the first animated bone's location at frames 1 and 10."""
    from io_alamo.blender.alamo.actions import set_active_action
    action = bpy.data.actions.new(name)
    bone = arm.pose.bones[1]
    set_active_action(arm, action)
    for frame, z in ((1, 0.0), (10, 0.5)):
        bone.location = (0.0, 0.0, z)
        bone.keyframe_insert("location", frame=frame)
    bone.location = (0.0, 0.0, 0.0)
    return action


@pytest.mark.parametrize("unit, fmt, fps", [("RB_TLTower", 1, 30.0),
                                            ("RV_MonCalCruiser_Drydock_D", 1, 10.0),
                                            ("UV_CanderousAssaultTank", 2, 30.0)])
def test_new_action_takes_the_units_format_and_rate(blender, tmp_path, unit, fmt, fps):
    from corpus import CORPUS
    if not CORPUS.is_dir():
        pytest.skip(f"no shared corpus at {CORPUS}: real-file tests skipped")
    from test_import_ala import import_model
    bpy.context.scene.render.fps = 24                   # an empty scene's rate
    arm = import_model(CORPUS / f"{unit}.alo", import_animations=True)
    action = new_action(arm)
    out = tmp_path / "new.ala"
    export(arm, action, out)
    anim = read_ala(out.read_bytes())
    assert anim.format == fmt and np.isclose(anim.fps, fps)


def test_new_action_with_disagreeing_animations_takes_the_preferences(blender, tmp_path):
    from test_import_ala import import_anim, import_model

    from io_alamo.formats.alamo import convert_animation, save
    from io_alamo.formats.alamo.sample import sample_animation, sample_model
    model = sample_model()
    save(model, tmp_path / "Tank.alo")
    anim = sample_animation(model)
    save(convert_animation(anim, 1), tmp_path / "Tank_A_00.ala")
    arm = import_model(tmp_path / "Tank.alo", import_animations=False)
    import_anim(arm, tmp_path / "Tank_A_00.ala")
    action = new_action(arm)
    export(arm, action, tmp_path / "one.ala", new_format=2)
    assert read_ala((tmp_path / "one.ala").read_bytes()).format == 1     # the unit's own
    save(anim, tmp_path / "Tank_B_00.ala")
    import_anim(arm, tmp_path / "Tank_B_00.ala")                        # now #1 and #2
    export(arm, action, tmp_path / "two.ala", new_format=2)
    assert read_ala((tmp_path / "two.ala").read_bytes()).format == 2     # the preference


def test_export_operator_picks_among_the_armatures_actions(blender, tmp_path):
    from test_import_ala import import_model

    from io_alamo.formats.alamo import save
    from io_alamo.formats.alamo.sample import sample_animation, sample_model
    model = sample_model()
    save(model, tmp_path / "Tank.alo")
    save(sample_animation(model), tmp_path / "Tank_Turn_00.ala")
    arm = import_model(tmp_path / "Tank.alo", import_animations=False)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    op = bpy.ops.export_anim.alamo_ala
    assert not op.poll()                                   # no animations: greyed, and why
    from test_import_ala import import_anim

    from io_alamo.blender.alamo.operators import EXPORT_ANIM_OT_ala
    import_anim(arm, tmp_path / "Tank_Turn_00.ala")
    other = new_action(arm, "Wave")
    arm.animation_data.action = None                       # as after a model import
    bpy.context.window_manager.alamo_action_index = -1
    assert op.poll()
    out = tmp_path / "picked.ala"
    assert op(filepath=str(out)) == {"FINISHED"}           # the first, the imported one
    assert out.read_bytes() == (tmp_path / "Tank_Turn_00.ala").read_bytes()
    bpy.context.window_manager.alamo_action_index = bpy.data.actions.find(other.name)
    arm.animation_data.action = None
    assert op(filepath=str(out)) == {"FINISHED"}           # the one selected in the list
    # keys on frames 1-10, written from frame 0: the file's frame k is Blender's frame k
    assert read_ala(out.read_bytes()).num_frames == 11
    assert op(filepath=str(out), action="Tank_Turn_00") == {"FINISHED"}
    assert out.read_bytes() == (tmp_path / "Tank_Turn_00.ala").read_bytes()
    assert EXPORT_ANIM_OT_ala.bl_idname == "export_anim.alamo_ala"
