"""Where an effect's root was at past times: its world matrix at the birth times the simulator
asks for, so particles of emitters not linked to the system stay where they were born while
the unit moves on (``formats/alamo/particles/translate.py``).

The matrices come from the animation data, not from the scene: the F-curves of the root, of
the objects above it and of the pose bones of an armature it hangs from (a unit's proxy bone)
are evaluated at whole frames and composed as Blender composes them (``matrix_parent_inverse``,
a bone parent's tail or, with Relative Parent, its change from rest, each bone's rest matrix relative to its parent's). Nothing depends on
which frames were shown before, and no ``frame_set`` runs: scrubbing, jumping, playing
backwards and rendering a single frame agree. The frames worked out are kept per root (a dict
of frame -> matrix) while the animation data they came from stays the same (a fingerprint of
the F-curves' keys and of every fixed channel), so a playing timeline composes about one new
frame per frame.

A set-up this cannot evaluate (constraints, drivers, NLA strips without an action, a vertex
parent, a bone that does not inherit rotation or scale), or whose result at the current frame
is not the root's ``matrix_world``, gives no path: the particles then move with the effect, as
they did before."""

import numpy as np
from mathutils import Euler, Matrix, Quaternion

from ...compat import HAS_SLOTTED_ACTIONS

#: At most this many whole frames composed for one call (a longer span is sampled more coarsely).
MOST_FRAMES = 2048
_TRANSFORMS = (("location", 3), ("rotation_euler", 3), ("rotation_quaternion", 4),
               ("rotation_axis_angle", 4), ("scale", 3))
_kept = {}      # root pointer -> (fingerprint, {frame: 4x4 numpy})


class Unsupported(Exception):
    """A set-up whose past matrices are not worked out here."""


def _fcurves(idb):
    """``find(data path, index)``: the unmuted F-curve of the action playing on ``idb`` (its
    slot's, on 4.4+), or None."""
    ad = idb.animation_data
    if ad is None:
        return _none
    if ad.drivers or any(not t.mute for t in ad.nla_tracks):
        raise Unsupported
    action = ad.action
    if action is None:
        return _none
    if not HAS_SLOTTED_ACTIONS:
        lists = [action.fcurves]
    else:
        slot = ad.action_slot
        lists = [] if slot is None else [
            bag.fcurves for layer in action.layers for strip in layer.strips
            for bag in [strip.channelbag(slot)] if bag is not None]

    def find(data_path, index):
        for curves in lists:
            fc = curves.find(data_path, index=index)
            if fc is not None:
                return None if fc.mute else fc
        return None
    return find


def _none(data_path, index):
    return None


class _Channels:
    """The transform channels of an object or pose bone: each component an F-curve or the
    value it holds."""

    def __init__(self, owner, curves, prefix=""):
        self.mode = owner.rotation_mode
        self.parts = {}
        prints = [self.mode]
        for name, n in _TRANSFORMS:
            if name.startswith("rotation") and not self._uses(name):
                continue
            values = getattr(owner, name)
            row = []
            for i in range(n):
                fc = curves(prefix + name, i)
                row.append(fc if fc is not None else float(values[i]))
                prints.append(_keys(fc) if fc is not None else float(values[i]))
            self.parts[name] = row
        self.fingerprint = tuple(prints)

    def _uses(self, name):
        return {"QUATERNION": "rotation_quaternion",
                "AXIS_ANGLE": "rotation_axis_angle"}.get(self.mode, "rotation_euler") == name

    @property
    def animated(self):
        return any(not isinstance(c, float) for row in self.parts.values() for c in row)

    def basis(self, frame):
        v = {name: [c if isinstance(c, float) else c.evaluate(frame) for c in row]
             for name, row in self.parts.items()}
        if self.mode == "QUATERNION":
            rot = Quaternion(v["rotation_quaternion"])
            rot.normalize()
        elif self.mode == "AXIS_ANGLE":
            a = v["rotation_axis_angle"]
            rot = Quaternion(a[1:], a[0])
        else:
            rot = Euler(v["rotation_euler"], self.mode)
        return Matrix.LocRotScale(v["location"], rot, v["scale"])


def _keys(fc):
    """The bytes of an F-curve's keys and handles (and its extrapolation)."""
    kp = fc.keyframe_points
    co = np.empty(6 * len(kp), np.float32)
    if len(kp):
        kp.foreach_get("co", co[:2 * len(kp)])
        kp.foreach_get("handle_left", co[2 * len(kp):4 * len(kp)])
        kp.foreach_get("handle_right", co[4 * len(kp):])
    return (fc.extrapolation, len(fc.modifiers), co.tobytes())


class _Chain:
    """How the root's world matrix is composed at a frame: a list of steps, from the root up."""

    def __init__(self, root):
        self.steps = []
        self._bone_prints = ()
        prints = []
        obj = root
        while obj is not None:
            if obj.constraints or obj.parent_type not in ("OBJECT", "BONE", "ARMATURE"):
                raise Unsupported
            channels = _Channels(obj, _fcurves(obj))
            self.steps.append((channels, obj.matrix_parent_inverse.copy(),
                               self._bone(obj) if obj.parent is not None and
                               obj.parent_type == "BONE" else None))
            prints.append((obj.name, channels.fingerprint,
                           tuple(map(tuple, obj.matrix_parent_inverse))))
            obj = obj.parent
        self.fingerprint = tuple(prints) + tuple(self._bone_prints)
        self.animated = any(c.animated for c, _, bone in self.steps) or any(
            c.animated for _, _, bone in self.steps if bone for c, _ in bone[1])

    def _bone(self, obj):
        """(offset, [(channels, rest relative to the parent bone), ...] from the bone up): the
        object hangs from the posed bone's tail, or (Relative Parent, as imported bones have)
        from its change since its rest: ``pose matrix @ matrix_local^-1``."""
        arm = obj.parent
        pose_bone = arm.pose.bones.get(obj.parent_bone) if arm.pose else None
        if pose_bone is None:
            raise Unsupported
        curves = _fcurves(arm)
        rows = []
        prints = list(self._bone_prints)
        pb = pose_bone
        while pb is not None:
            bone = pb.bone
            if pb.constraints or not bone.use_inherit_rotation or bone.inherit_scale != "FULL":
                raise Unsupported
            rest = bone.matrix_local if bone.parent is None else \
                bone.parent.matrix_local.inverted() @ bone.matrix_local
            channels = _Channels(pb, curves, f'pose.bones["{pb.name}"].')
            rows.append((channels, rest.copy()))
            prints.append((pb.name, channels.fingerprint, tuple(map(tuple, rest))))
            pb = pb.parent
        self._bone_prints = tuple(prints)
        if pose_bone.bone.use_relative_parent:        # the bone's change from its rest
            return pose_bone.bone.matrix_local.inverted(), rows
        return Matrix.Translation((0.0, pose_bone.bone.length, 0.0)), rows   # its tail

    def world(self, frame):
        out = Matrix.Identity(4)
        for channels, parent_inverse, bone in self.steps:     # root first, parents after
            local = parent_inverse @ channels.basis(frame)
            if bone is not None:
                tail, rows = bone
                posed = Matrix.Identity(4)
                for channels_b, rest in rows:
                    posed = rest @ channels_b.basis(frame) @ posed
                local = posed @ tail @ local
            out = local @ out
        return out


def root_path(scene, root):
    """``path(times) -> (n, 4, 4)``: the root's world matrices at system times (seconds since
    the scene's start frame), or None when it does not move with time or cannot be worked
    out here (see the module's notes)."""
    if not _animated(root):
        return None
    try:
        chain = _Chain(root)
    except (Unsupported, AttributeError, ReferenceError):
        return None
    if not chain.animated:
        return None
    key = root.as_pointer()
    held = _kept.get(key)
    if held is None or held[0] != chain.fingerprint:
        if len(_kept) > 256:
            _kept.clear()
        held = _kept[key] = (chain.fingerprint, {})
    frames = held[1]
    now = scene.frame_current + scene.frame_subframe
    if not np.allclose(np.array(chain.world(now)), np.array(root.matrix_world),
                       atol=1e-4, rtol=1e-4):
        return None            # a set-up composed otherwise: keep the rigid preview
    fps = scene.render.fps / (scene.render.fps_base or 1.0)
    start, tables = scene.frame_start, {}
    return lambda times: _at(chain, frames, tables, start + np.asarray(times) * fps)


def _animated(obj):
    """Whether anything animates ``obj`` or an object above it (a quick look, before the
    channels are read)."""
    while obj is not None:
        ad = obj.animation_data
        if ad is not None and (ad.action is not None or len(ad.drivers) or len(ad.nla_tracks)):
            return True
        obj = obj.parent
    return False


def _at(chain, frames, tables, at):
    """The chain's world matrices at fractional frames ``at``: whole frames composed (kept in
    ``frames``; ``tables``: the stacks of them this path already made), in between
    interpolated element by element."""
    at = np.asarray(at, np.float64)
    lo, hi = int(np.floor(at.min())), int(np.ceil(at.max()))
    step = max(1, -(-(hi - lo + 1) // MOST_FRAMES))
    table = tables.get((lo, hi, step))
    if table is None:
        grid = range(lo, hi + step, step)
        if len(frames) > 20 * MOST_FRAMES:
            frames.clear()
        for f in grid:
            if f not in frames:
                frames[f] = np.array(chain.world(float(f)), np.float64)
        table = tables[(lo, hi, step)] = np.stack([frames[f] for f in grid])
    x = (at - lo) / step
    i = np.clip(np.floor(x).astype(np.int64), 0, len(table) - 1)
    j = np.minimum(i + 1, len(table) - 1)
    w = (x - i)[:, None, None]
    return table[i] * (1.0 - w) + table[j] * w
