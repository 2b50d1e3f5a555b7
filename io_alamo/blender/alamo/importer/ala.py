"""Import an .ala animation onto an armature as an editable action.

The file stores each bone's transform relative to its parent; Blender keys pose bones
relative to their rest pose. With Blender's rigid rest matrices the pose basis of a bone is
``inverse(rest_rel) @ T_file``: location ``Rr @ t + tr``, rotation ``q(Rr) * q``, scale ``s``.
"""

import os
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ....formats.alamo import AlamoFormatError, decode_bone
from ... import compat
from ...importing import read_checked
from ..frames import FIRST_FRAME
from ..unit_actions import claim, match_bones
from ...names import to_blender
from ...results import Result
from ...scene_settings import set_scene_frame_rate
from ...source import SOURCE_NAME_KEY, set_source
from .. import bone_keys, fingerprint


@dataclass
class AlaImportOptions:
    set_scene_frame_rate: bool = True   # take the scene's frame rate from the file
    set_scene_range: bool = True        # and its frame range from the action
    make_active: bool = True            # the armature's action (off: it keeps its pose)


@dataclass
class AlaImportResult(Result):
    """What an .ala import made (a :class:`~...results.Result`)."""
    action: object = None
    bones: int = 0
    missing: list = field(default_factory=list)

    def summary(self):
        a = self.action
        return (f"action {a.name!r}: {a.alamo.frames} frames at {a.alamo.fps:g} fps, "
                f"{self.bones} bones (format #{a.alamo.format})")


def _quat_from_matrix(m):
    """(w, x, y, z) of a rotation matrix."""
    q = Matrix(m.tolist()).to_quaternion()
    return np.array([q.w, q.x, q.y, q.z])


def _quat_multiply(a, b):
    """a * b for (w, x, y, z) quaternions; ``a`` (4,), ``b`` (n, 4)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=1)


def _continuous(q):
    """Flip signs so that neighbouring quaternions agree (smooth interpolation)."""
    if len(q) < 2:
        return q
    flip = np.einsum("ij,ij->i", q[1:], q[:-1]) < 0
    sign = np.concatenate([[1.0], np.where(np.cumsum(flip) % 2 == 1, -1.0, 1.0)])
    return q * sign[:, None]


def pose_values(bone, t, q_xyzw, s):
    """File parent-relative transforms (F frames) to pose-bone location, quaternion, scale."""
    rest = np.array(bone.matrix_local, np.float64)
    parent = np.array(bone.parent.matrix_local, np.float64) if bone.parent else np.eye(4)
    inv_rest_rel = np.linalg.inv(np.linalg.inv(parent) @ rest)
    rr, tr = inv_rest_rel[:3, :3], inv_rest_rel[:3, 3]
    loc = t.astype(np.float64) @ rr.T + tr
    q = np.asarray(q_xyzw, np.float64)[:, [3, 0, 1, 2]]
    quat = _continuous(_quat_multiply(_quat_from_matrix(rr), q))
    return loc, quat, s.astype(np.float64)


def import_ala(context: bpy.types.Context, armature: bpy.types.Object, filepath: str,
               options: AlaImportOptions | None = None,
               data: bytes | None = None) -> AlaImportResult:
    """Import ``filepath`` onto ``armature``; returns an :class:`AlaImportResult`.
    ``data``: the file's bytes when it is no file (a member of a game archive)."""
    options = options or AlaImportOptions()
    data, anim = read_checked(filepath, "ala", data)   # a .alo or a PNG: what it is
    base = filepath.replace("\\", "/").rpartition("/")[2]
    result = AlaImportResult()
    targets = match_bones(armature, anim)
    result.missing = [to_blender(b.name) for b, t in zip(anim.bones, targets) if t is None]
    if anim.bones and len(result.missing) == len(anim.bones):
        # an action that moves nothing is no import: say so, and change nothing
        raise AlamoFormatError(
            f"none of its {len(anim.bones)} animated bones is in the armature "
            f"{armature.name!r} ({', '.join(result.missing[:5])}"
            f"{' ...' if len(anim.bones) > 5 else ''}): it belongs to another model; nothing "
            "was imported", filename=filepath)
    if result.missing:
        result.warn(f"{len(result.missing)} animated bones are not in the armature and were "
                    f"skipped: {', '.join(result.missing[:10])}"
                    + (" ..." if len(result.missing) > 10 else ""), [armature])
    scene = context.scene
    frames = int(anim.num_frames)
    # the file's frame k is Blender's frame k, as export writes it (issue 31: a round trip
    # keeps frame numbers)
    start = FIRST_FRAME
    name = to_blender(os.path.splitext(base)[0])
    action = bpy.data.actions.new(name)
    modes = [pb.rotation_mode for pb in armature.pose.bones]
    had_animation_data = armature.animation_data is not None
    try:
        curves = _fill_action(action, armature, anim, targets, start, options.make_active)
    except BaseException:
        # all or nothing: the action goes, and the armature is as it was
        bpy.data.actions.remove(action)
        for pb, mode in zip(armature.pose.bones, modes):
            pb.rotation_mode = mode
        if not had_animation_data and armature.animation_data is not None:
            armature.animation_data_clear()
        raise
    action.use_fake_user = True
    claim(action, armature)                 # the unit's action, not another unit's
    action.alamo.frames = frames
    action.alamo.fps = float(anim.fps)
    action.alamo.format = str(anim.format)
    set_source(action, data, base)
    action[SOURCE_NAME_KEY] = to_blender(base)
    action.use_frame_range = True
    action.frame_range = (start, start + max(frames - 1, 1))
    # the keys as written, not read back (reading them back was half the import's time)
    action[fingerprint.KEY] = fingerprint.digest(
        fingerprint.action_parts(action, armature, curves))
    bone_keys.remember(action, armature, curves)
    result.action = action
    result.bones = sum(t is not None for t in targets)
    if options.set_scene_frame_rate and anim.fps > 0:
        for text in set_scene_frame_rate(scene, float(anim.fps)):
            result.warn(text)
    if options.set_scene_range:
        scene.frame_start = start
        scene.frame_end = start + max(frames - 1, 0)
    return result


def _fill_action(action, armature, anim, targets, start, make_active):
    """Key every matched bone; returns the keys written, as
    :func:`~..fingerprint.action_curves` would read them."""
    curves = []
    writer = compat.ActionWriter(action, armature)
    frames = int(anim.num_frames)
    key_frames = start + np.arange(frames, dtype=np.float64)
    linear, constant = compat.INTERPOLATION["LINEAR"], compat.INTERPOLATION["CONSTANT"]
    for ab, bone in zip(anim.bones, targets):
        if bone is None:
            continue
        pb = armature.pose.bones[bone.name]
        pb.rotation_mode = "QUATERNION"
        # a bone at a time, constants as one row: memory follows the file, not bones x frames
        t, q, s, visible, step = decode_bone(ab, frames, full=False)
        loc, quat, scale = pose_values(bone, t, q, s)
        interp = (np.where(step, constant, linear) if step is not None
                  else np.full(frames, linear))
        path = pb.path_from_id()
        for prop, values in (("location", loc), ("rotation_quaternion", quat), ("scale", scale)):
            n = min(len(values), frames)        # one key for a constant
            for k in range(values.shape[1]):
                fc = writer.fcurve(f"{path}.{prop}", k, bone.name)
                curves.append((f"{path}.{prop}", k,
                               *compat.set_keys(fc, key_frames[:n], values[:n, k], interp[:n]),
                               False))
        if visible is not None:
            vis = visible.astype(np.float64)
            change = np.flatnonzero(np.r_[True, vis[1:] != vis[:-1]])
            fc = writer.fcurve(f"{path}.alamo.visible", 0, bone.name)
            curves.append((f"{path}.alamo.visible", 0,
                           *compat.set_keys(fc, key_frames[change], vis[change],
                                            np.full(len(change), constant)), False))
    if make_active:
        writer.assign()
    return curves
