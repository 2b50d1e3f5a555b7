"""Which bones an exported animation holds, and their step bits.

Game animations hold exactly the model's bones that the source animation had, and never bone
0 (0 of 1,652 files). An edited imported action keeps the file's bone list (renamed bones
under their new names) and the step bits of every bone whose keys do not say otherwise; a new
action holds the bones that move.
"""

import copy
from dataclasses import dataclass

import numpy as np

from ....formats.alamo import AlamoFormatError, read_ala
from ....formats.alamo.ala_codec import unpack_bits
from ...armature import match_bones
from ...source import get_source


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
