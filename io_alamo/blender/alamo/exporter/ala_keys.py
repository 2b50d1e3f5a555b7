"""The pose of an armature at every frame straight from its action's keys, with whole-array
numpy, instead of ``scene.frame_set`` at every frame (4-5 ms a frame for 100 bones).

It covers what Blender's pose evaluation does for a bone that only its action moves: the
F-curves are sampled (linear and constant keys, constant extrapolation, as
:func:`..gltf_animation.sample_curve` does for the glb), each bone's channel matrix is
``translation(location) @ rotation @ scale`` (the quaternion normalised, or the Euler angles
in the bone's order; a connected bone's location is ignored), and its armature-space matrix is
``parent pose @ offset @ channel``, where the offset is the bone's rest relative to its
parent (``Bone.matrix`` with the head moved along the parent's length, Blender's own).

:func:`pose_from_keys` answers None for anything else, and the exporter then evaluates every
frame in Blender as before: constraints, drivers, NLA tracks, more than one layer, strip or
slot, a blended or partial action influence, F-curve modifiers, Bezier (or other) keys,
extrapolation other than constant, keys less than 1/1000 frame off a whole frame (Blender
takes them as on it), axis-angle bones, bones that do not inherit rotation and scale fully or
whose location is not local, an armature shown in its rest position, and curves on pose-bone
properties other than the transforms, the Alamo properties and custom properties. Computed in float64, so the matrices differ from Blender's float32 ones by
float32 rounding only.
"""

import numpy as np

from ... import compat, progress
from ...gltf_animation import sample_curve
from ..fingerprint import bone_of_path, curve_arrays

_WIDTH = {"location": 3, "rotation_quaternion": 4, "rotation_euler": 3, "scale": 3}
_REST = {"location": (0.0, 0.0, 0.0), "rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
         "rotation_euler": (0.0, 0.0, 0.0), "scale": (1.0, 1.0, 1.0)}
_EULER = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
_KEYS = (compat.INTERPOLATION["LINEAR"], compat.INTERPOLATION["CONSTANT"])
_CHUNK = 4096                      # frames composed at once


def slow_reason(armature, action):
    """Why the pose of ``action`` on ``armature`` must be evaluated frame by frame in
    Blender, or None when :func:`pose_from_keys` computes it."""
    if armature.data.pose_position != "POSE":
        return "the armature is shown in its rest position"
    for owner in (armature, armature.data):
        ad = owner.animation_data
        if ad is not None and len(ad.drivers):
            return f"{owner.name!r} has drivers"
    ad = armature.animation_data
    if ad is not None and (len(ad.nla_tracks) or ad.action_influence != 1.0
                           or ad.action_blend_type != "REPLACE"):
        return "the armature has NLA tracks or blends its action"
    if compat.HAS_SLOTTED_ACTIONS and (
            len(action.layers) > 1 or len(action.slots) > 1
            or any(len(layer.strips) > 1 for layer in action.layers)):
        return "the action has more than one layer, strip or slot"
    for pb in armature.pose.bones:
        bone = pb.bone
        if len(pb.constraints):
            return f"bone {pb.name!r} has constraints"
        if pb.rotation_mode != "QUATERNION" and pb.rotation_mode not in _EULER:
            return f"bone {pb.name!r} rotates by axis and angle"
        if not bone.use_inherit_rotation or bone.inherit_scale != "FULL" \
                or not bone.use_local_location:
            return f"bone {pb.name!r} does not inherit fully or has a non-local location"
    return None


def read_curves(action):
    """[(F-curve, bone name, property, co, interpolation codes)] of every F-curve of
    ``action``, each read from Blender once (:func:`..fingerprint.curve_arrays`: co as float32
    (frame, value) pairs) for this module, the exporter's step and visibility bits and the
    unedited bones' hashes; bone, property, co and codes None for a curve that animates no
    pose bone."""
    out = []
    for fc in compat.action_fcurves(action):
        bone, prop = bone_of_path(fc.data_path)
        if bone is None:
            out.append((fc, None, None, None, None))
        else:
            out.append((fc, bone, prop, *curve_arrays(fc)[:2]))
    return out


def as_action_curves(read):
    """:func:`read_curves`' records as :func:`..fingerprint.action_curves` gives them (the
    pose-bone curves only, the others hash nothing)."""
    return [(fc.data_path, fc.array_index, co, codes, fc.mute)
            for fc, bone, _, co, codes in read if bone is not None]


def _curves(armature, read):
    """[(bone name, property, array index, key frames, key values, codes)] of the curves
    (:func:`read_curves`) that move the pose, or a string saying why they cannot be sampled
    here."""
    names = set(armature.pose.bones.keys())
    out = []
    for fc, bone, prop, co, codes in read:
        path = fc.data_path
        if bone is None:
            if path.startswith(("pose.", "data.")):
                return f"a curve animates {path!r}"
            continue                 # the object's own channels: not the armature-space pose
        if bone not in names or prop is None or prop.startswith("alamo."):
            continue                 # a custom property, the Alamo properties, no such bone
        if prop not in _WIDTH and prop != "rotation_axis_angle":
            return f"a curve animates {path!r}"
        if fc.mute or (fc.group is not None and fc.group.mute) \
                or not len(co) and not len(fc.modifiers):
            continue
        if len(fc.modifiers) or fc.extrapolation != "CONSTANT" \
                or not ((codes == _KEYS[0]) | (codes == _KEYS[1])).all():
            return f"curve {path!r}[{fc.array_index}] has modifiers, extrapolation or keys " \
                   "other than linear and constant"
        co = co.astype(np.float64)
        off = np.abs(co[0::2] - np.rint(co[0::2]))
        if ((off > 0) & (off < 1e-3)).any():
            # Blender takes a key this near the frame as on it (its binary search's threshold)
            return f"curve {path!r}[{fc.array_index}] has a key a hair off a whole frame"
        if prop != "rotation_axis_angle":     # moves no bone unless in axis-angle mode (refused)
            out.append((bone, prop, fc.array_index, co[0::2], co[1::2], codes))
    return out


def pose_from_keys(armature, action, order, start, frames, keys_scale=1.0, read=None):
    """(F, B, 4, 4) armature-space pose matrices of the bones in ``order`` (Blender names;
    identity for None) at frames ``start``.. from the action's keys, as ``_sample_pose``
    reads them from Blender; None when :func:`slow_reason` or a curve says they must be
    evaluated in Blender. ``read``: the action's curves as :func:`read_curves` gives them."""
    if slow_reason(armature, action) is not None:
        return None
    curves = _curves(armature, read_curves(action) if read is None else read)
    if isinstance(curves, str):
        return None
    pbs = armature.pose.bones
    row = {pb.name: k for k, pb in enumerate(pbs)}
    rest = _offsets(armature)
    modes = [pb.rotation_mode for pb in pbs]
    out = np.tile(np.eye(4), (frames, len(order), 1, 1))
    have = np.array([n is not None for n in order], bool)
    pick = [row[n] for n in order if n is not None]
    progress.expect(frames)                         # counted in frames, as frame_set's are
    for first in range(0, frames, _CHUNK):          # bounded temporaries for long actions
        at = start + np.arange(first, min(first + _CHUNK, frames), dtype=np.float64)
        channels = {p: np.empty((len(pbs), len(at), w)) for p, w in _WIDTH.items()}
        for p, values in channels.items():
            values[...] = _REST[p]
        for bone, prop, index, kf, kv, codes in curves:
            if index < _WIDTH[prop]:
                channels[prop][row[bone], :, index] = sample_curve(kf, kv, codes, at)
        channels["location"] *= keys_scale
        world = _compose(channels, modes, rest)
        out[first:first + len(at), have] = world[pick].swapaxes(0, 1)
        progress.advance(len(at))
    return out


def _compose(channels, modes, rest):
    """(B, F, 4, 4) armature-space matrices of every pose bone from their channels; ``rest``:
    (offsets, parent rows, connected) as :func:`_offsets` gives them."""
    offset, parent, connected = rest
    nb, frames = channels["location"].shape[:2]
    rot = np.empty((nb, frames, 3, 3))
    quat = [k for k, m in enumerate(modes) if m == "QUATERNION"]
    rot[quat] = _quaternion_matrices(channels["rotation_quaternion"][quat])
    for order in _EULER:
        rows = [k for k, m in enumerate(modes) if m == order]
        if rows:
            rot[rows] = euler_matrices(channels["rotation_euler"][rows], order)
    chan = np.zeros((nb, frames, 4, 4))
    chan[..., :3, :3] = rot * channels["scale"][..., None, :]
    chan[~connected, :, :3, 3] = channels["location"][~connected]
    chan[..., 3, 3] = 1.0
    world = np.empty_like(chan)
    for level in _levels(parent):
        local = offset[level][:, None] @ chan[level]
        up = parent[level]
        root = up < 0
        world[level[root]] = local[root]
        world[level[~root]] = world[up[~root]] @ local[~root]
    return world


def _quaternion_matrices(q):
    """Rotation matrices of (w, x, y, z) quaternions normalised as Blender does (a zero one
    is the identity)."""
    length = np.linalg.norm(q, axis=-1, keepdims=True)
    q = np.where(length > 0, q / np.where(length > 0, length, 1.0), (1.0, 0.0, 0.0, 0.0))
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)],
        -2)


def euler_matrices(angles, order):
    """Rotation matrices of Euler angles (..., 3) applied in ``order`` (the first axis of the
    order first: 'XYZ' is Z @ Y @ X, as Blender's Euler modes)."""
    out = None
    for axis in order:
        i = "XYZ".index(axis)
        c, s = np.cos(angles[..., i]), np.sin(angles[..., i])
        m = np.zeros(angles.shape[:-1] + (3, 3))
        j, k = (i + 1) % 3, (i + 2) % 3
        m[..., i, i] = 1.0
        m[..., j, j], m[..., j, k], m[..., k, j], m[..., k, k] = c, -s, s, c
        out = m if out is None else m @ out
    return out


def _offsets(armature):
    """Per pose bone (in pose-bone order): (B, 4, 4) rest relative to its parent's pose (its
    armature-space rest for a root bone), (B,) parent rows (-1 for none), (B,) connected."""
    bones, pbs = armature.data.bones, armature.pose.bones
    nb = len(bones)
    row = {pb.name: k for k, pb in enumerate(pbs)}
    perm = [bones.find(pb.name) for pb in pbs]
    parent = np.array([row[pb.parent.name] if pb.parent else -1 for pb in pbs], np.int64)
    connected = np.array([pb.bone.use_connect for pb in pbs], bool)
    rest = np.empty(nb * 16, np.float32)
    bones.foreach_get("matrix_local", rest)
    mat = np.empty(nb * 9, np.float32)
    bones.foreach_get("matrix", mat)
    head = np.empty(nb * 3, np.float32)
    bones.foreach_get("head", head)
    length = np.empty(nb, np.float32)
    bones.foreach_get("length", length)
    out = rest.astype(np.float64).reshape(nb, 4, 4).transpose(0, 2, 1)[perm]
    child = parent >= 0
    mat = mat.astype(np.float64).reshape(nb, 3, 3).transpose(0, 2, 1)[perm]
    out[child, :3, :3] = mat[child]
    out[child, :3, 3] = head.astype(np.float64).reshape(nb, 3)[perm][child]
    out[child, 1, 3] += length.astype(np.float64)[perm][parent[child]]
    return out, parent, connected


def _levels(parent):
    """Rows of ``parent`` grouped by depth, roots first."""
    depth = np.full(len(parent), -1, np.int64)
    for k in range(len(parent)):
        chain, j = [], k
        while j >= 0 and depth[j] < 0:
            chain.append(j)
            j = parent[j]
        d = depth[j] if j >= 0 else -1
        for j in reversed(chain):
            d += 1
            depth[j] = d
    return [np.flatnonzero(depth == d) for d in range(int(depth.max(initial=-1)) + 1)]
