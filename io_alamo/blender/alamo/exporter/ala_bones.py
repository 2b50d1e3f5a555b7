"""Which bones an exported animation holds, and their step bits.

Game animations hold exactly the model's bones that the source animation had, and never bone
0 (0 of 1,652 files). An edited imported action keeps the file's bone list (renamed bones
under their new names) and the step bits of every bone whose keys do not say otherwise; a new
action holds the bones that move.
"""

import copy
from dataclasses import dataclass

import numpy as np

from ....formats.alamo import AlamoFormatError, convert_animation, decode_bone, read_ala
from ....formats.alamo.ala_codec import unpack_bits
from ....formats.alamo.animation import drop_step_bits
from ... import compat
from ...source import get_source
from ..fingerprint import bone_of_path
from ..unit_actions import match_bones


@dataclass(slots=True)
class SourceBones:
    """The imported file's animated bones that the armature still has."""
    rows: list             # skeleton index of each, in the file's order
    names: list            # the file's name, or the new one of a bone renamed in Blender
    steps: list            # (F,) bools or None, per row
    unknown: list          # 0x1003 mini 10, per row


def source_animation(action):
    """The animation the action was imported from, or None."""
    data = get_source(action)
    if data is None:
        return None
    try:
        return read_ala(bytes(data))
    except AlamoFormatError:
        return None


def source_bones(anim, armature, skeleton, bone_index):
    rows, names, steps, unknown = [], [], [], []
    frames = int(anim.num_frames)
    for ab, bone in zip(anim.bones, match_bones(armature, anim)):
        if bone is None or bone.name not in bone_index:
            continue
        rows.append(bone_index[bone.name])
        names.append(_file_name(ab, bone, skeleton, bone_index))
        steps.append(unpack_bits(ab.step, frames) if ab.step is not None else None)
        unknown.append(int(ab.unknown))
    return SourceBones(rows, names, steps, unknown)


def _file_name(ab, bone, skeleton, bone_index):
    """The animated bone's name as the file had it (its case may differ from the model's),
    unless the bone was renamed in Blender."""
    if bone.alamo.blender_name and bone.name == bone.alamo.blender_name:
        return ab.name
    return skeleton.bones[bone_index[bone.name]].name


def renamed(anim, armature, skeleton, bone_index):
    """``anim`` with each bone renamed in Blender renamed in the file too (nothing else
    changes)."""
    out = None
    for k, (ab, bone) in enumerate(zip(anim.bones, match_bones(armature, anim))):
        if bone is None or bone.name not in bone_index:
            continue
        name = _file_name(ab, bone, skeleton, bone_index)
        if name != ab.name:
            if out is None:
                out = copy.copy(anim)
                out.bones = list(anim.bones)
            out.bones[k] = copy.copy(ab)
            out.bones[k].name = name
    return out or anim


@dataclass(slots=True)
class Reindexed:
    """What :func:`reindexed` changed: bones whose Blender bone was deleted (dropped), bones
    whose file index disagreed with the imported model already (repaired), bones moved to
    the index the edited model gives them."""
    dropped: list
    repaired: list
    moved: list


def reindexed(anim, armature, skeleton, bone_index):
    """``anim`` with every bone's index the one its bone has in the model being written (by
    the bone, matched as import matched it), and without the bones the armature no longer has
    (issue 39: deleting a bone must not block every animation, and a file whose indices
    disagree with its model is repaired). The bones' data is kept as it is. Returns
    (animation, :class:`Reindexed`)."""
    out, notes = None, Reindexed([], [], [])
    keep = []
    for ab, bone in zip(anim.bones, match_bones(armature, anim)):
        if bone is None or bone.name not in bone_index:
            notes.dropped.append(ab.name)
            continue
        index = bone_index[bone.name]
        if index != ab.index:
            (notes.repaired if ab.index != bone.alamo.index else notes.moved).append(ab.name)
            ab = copy.copy(ab)
            ab.index = index
        keep.append(ab)
    if notes.dropped or notes.repaired or notes.moved:
        out = copy.copy(anim)
        out.bones = keep
    return out or anim, notes


def keyed_new_bones(action, bone_index, rows):
    """Skeleton rows (never bone 0) of the bones the action keys that ``rows`` (the file's
    bones) do not hold: a bone added in Blender and animated in an imported action."""
    have = set(rows)
    keyed = {bone_of_path(fc.data_path)[0] for fc in compat.action_fcurves(action)
             if not fc.mute and len(fc.keyframe_points)}
    return sorted(bone_index[n] for n in keyed
                  if n in bone_index and bone_index[n] not in have and bone_index[n] != 0)


def moving_bones(t, q, s, rest_t, rest_q, rest_s, reach):
    """Skeleton rows (never bone 0) whose parent-relative transform moves or leaves the
    rest pose in some frame; ``t, q, s`` are (B, F, k), ``rest_*`` (B, k)."""
    tol_t = 1e-5 * np.maximum(reach, 1.0)
    off_t = np.abs(t - rest_t[:, None]).max(axis=(1, 2)) > tol_t
    dot = np.abs(np.einsum("bfi,bi->bf", q, rest_q)).min(axis=1)
    off_q = dot < 1.0 - 1e-8
    off_s = np.abs(s - rest_s[:, None]).max(axis=(1, 2)) > 1e-5
    move = off_t | off_q | off_s
    move[0] = False
    return [int(k) for k in np.flatnonzero(move)]


def merge_steps(step, has_step, keyed, rows, src):
    """Step bits per written row: from the keys where the bone has keys at that frame, else
    the source file's (a constant track imports as one key, which says nothing)."""
    if src is None:
        return step[rows], has_step[rows]
    by_row = dict(zip(src.rows, src.steps))
    out = step[rows].copy()
    has = has_step[rows].copy()
    for i, r in enumerate(rows):
        kept = by_row.get(r)
        if kept is not None and len(kept) == out.shape[1]:
            out[i] = np.where(keyed[r], step[r], kept)
            has[i] = True
    return out, has


# --- an edited imported action: the bones that were not edited keep their stored data -----

def keep_unedited(anim, src_anim, armature, skeleton, bone_index, rows, motion, bits,
                  untouched=frozenset()):
    """``anim`` (freshly quantised from the pose) with every bone whose motion is still what
    the imported file stores taken from that file as it is: in format #1 its 0x1002 chunk
    byte for byte, in format #2 its quantised columns, offsets and scales (issue 25). Edited
    bones keep the file's layout and, where their tracks are where they were, its frame
    block offsets. ``motion``: (t, q, s) per skeleton row, (B, F, 3/4/3), q as w, x, y, z;
    ``reach``: (B,) how far from the origin each bone and its parent get (float noise);
    ``bits``: (visible, has_visibility, step, has_step) per written row; ``untouched``:
    skeleton rows whose keys were not edited (:mod:`..bone_keys`), kept whatever their
    evaluated motion. Returns the animation and how many bones were kept."""
    frames = int(anim.num_frames)
    if int(src_anim.num_frames) != frames:
        return anim, 0
    base = renamed(src_anim, armature, skeleton, bone_index)
    # new records (the source's are shared with what import keeps); format #2 holds no
    # step bits
    base = convert_animation(base, anim.format)
    if base.format == 2:
        drop_step_bits(base)
    by_row = {}
    for ab, bone in zip(base.bones, match_bones(armature, src_anim)):
        if bone is not None and bone.name in bone_index:
            by_row.setdefault(bone_index[bone.name], ab)
    out = copy.copy(base)
    out.fps, out.bones = anim.fps, []
    kept = 0
    for i, (row, new) in enumerate(zip(rows, anim.bones)):
        old = by_row.get(row)
        if old is None:
            out.bones.append(new)
        elif old.name == new.name and old.unknown == new.unknown and (
                row in untouched or _same_bits(old, bits, i, frames, anim.format) and
                _same_motion(old, [m[row] for m in motion], frames)):
            if old.index != row:             # the model's bones changed: its index follows
                old = copy.copy(old)
                old.index = row
            out.bones.append(old)
            kept += 1
        else:
            out.bones.append(_in_place_of(new, old))
    return out, kept


def _same_bits(old, bits, i, frames, fmt):
    visible, has_vis, step, has_step = bits
    if (old.visibility is not None) != bool(has_vis[i]):
        return False
    if has_vis[i] and not np.array_equal(unpack_bits(old.visibility, frames), visible[i]):
        return False
    if fmt != 1:
        return True
    if (old.step is not None) != bool(has_step[i]):
        return False
    return not has_step[i] or np.array_equal(unpack_bits(old.step, frames), step[i])


def _same_motion(old, motion, frames):
    """Whether the pose's parent-relative motion is the bone's stored motion (within half a
    quantisation step and the float noise of evaluating it in Blender)."""
    t, q, s, reach = motion
    ot, oq, os_, _, _ = decode_bone(old, frames)
    reach = max(1.0, float(reach), float(np.abs(ot).max(initial=0.0)))
    tol_t = 0.5 * np.abs(np.asarray(old.translation_scale, np.float64)) + 4e-6 * reach
    if np.any(np.abs(t - ot) > tol_t):
        return False
    tol_s = 0.5 * np.abs(np.asarray(old.scale_scale, np.float64)) + 4e-6
    if np.any(np.abs(s - os_) > tol_s):
        return False
    oq = np.asarray(oq, np.float64)[:, [3, 0, 1, 2]]
    oq = oq / np.maximum(np.linalg.norm(oq, axis=1, keepdims=True), 1e-12)
    dot = np.abs(np.einsum("fi,fi->f", oq, q))
    # a rest Blender's roll cannot hold exactly (a Y axis along the world's +-Y) makes the
    # evaluated rotation differ from the stored one by up to 2e-4 rad: 0.02 degrees pass
    return bool(np.all(dot >= 1.0 - 1.5e-8))


def _in_place_of(new, old):
    """An edited bone written where the file had it: the file's layout and, for tracks that
    are still stored per frame, their format #2 frame block offsets."""
    new.layout = old.layout
    for track, index in (("translation", "translation_index"), ("scale", "scale_index"),
                         ("rotation", "rotation_index")):
        at = getattr(old, index)
        if getattr(new, track) is not None and getattr(old, track) is not None \
                and at is not None and at >= 0:
            setattr(new, index, at)
    return new
