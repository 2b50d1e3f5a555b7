"""The animations of a batch .glb, written from the actions' keys with whole-array numpy
instead of by Blender's glTF exporter, which samples every bone at every frame in Python (for
a 79-bone unit with 200 frames that is ten times the import itself).

The exporter writes the armature's bones as nodes whose rest transform is ``A`` (with the
Y-up conversion folded in); at frame ``f`` a bone's node transform is ``A @ basis(f)``, where
``basis`` is the pose bone's location, quaternion rotation and scale. So the glb is exported
without animations, and for every action each bone gets translation, rotation and scale
samplers at every frame of the action's range (time = frame / fps, as the exporter's), a
channel that does not move gets two STEP keys, as the exporter writes it. The rest ``A`` is read
from the glb itself.

Only what this covers takes this way (:func:`fast_animation_armature`): one armature, every
pose bone in quaternion mode, no constraints or drivers, keys that are linear or constant;
anything else is left to the exporter.
"""

import json
import struct

import bpy
import numpy as np

from ..formats.saving import write_all
from . import compat

__all__ = ["add_animations", "animation_plan", "fast_animation_armature", "pose_actions"]

_CHANNELS = (("location", 3), ("rotation_quaternion", 4), ("scale", 3))
_DEFAULTS = {"location": (0.0, 0.0, 0.0), "rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
             "scale": (1.0, 1.0, 1.0)}
_LINEAR, _CONSTANT = compat.INTERPOLATION["LINEAR"], compat.INTERPOLATION["CONSTANT"]


def pose_actions(arm):
    """The actions that animate ``arm``'s bones (what the exporter's BROADCAST mode writes)."""
    names = {b.name for b in arm.data.bones}
    out = []
    for action in bpy.data.actions:
        if any(_bone_of(fc.data_path) in names for fc in compat.action_fcurves(action)):
            out.append(action)
    return out


def _bone_of(data_path):
    if data_path.startswith('pose.bones["'):
        return data_path[len('pose.bones["'):].split('"]', 1)[0]
    return None


def fast_animation_armature(scene):
    """The one armature of ``scene`` whose actions can be written here, or None."""
    return animation_plan(scene)[0]


def animation_plan(scene):
    """(armature, {action: its curves}) when ``scene``'s animations can be written here, else
    (None, {}). Each F-curve's keys are read from Blender once, for the check and the
    sampling (:func:`add_animations` takes them)."""
    arms = [o for o in scene.objects if o.type == "ARMATURE"]
    if len(arms) != 1:
        return None, {}
    arm = arms[0]
    if arm.animation_data is not None and len(arm.animation_data.drivers):
        return None, {}
    if any(pb.constraints or pb.rotation_mode != "QUATERNION" for pb in arm.pose.bones):
        return None, {}
    curves = {}
    for action in pose_actions(arm):
        curves[action] = read = _action_curves(action)
        if read is None:
            return None, {}
    return arm, curves


def _action_curves(action):
    """[(bone, channel, array index, key frames, key values, interpolation codes)] of the
    pose-bone curves of ``action`` (float64 keys), or None when a curve has modifiers or keys
    other than linear and constant."""
    out = []
    for fc in compat.action_fcurves(action):
        kp = fc.keyframe_points
        n = len(kp)
        codes = np.empty(n, np.int32)
        kp.foreach_get("interpolation", codes)
        if len(fc.modifiers) or not ((codes == _LINEAR) | (codes == _CONSTANT)).all():
            return None
        bone = _bone_of(fc.data_path)
        if bone is None or not n:
            continue
        co = np.empty(2 * n, np.float64)
        kp.foreach_get("co", co)
        out.append((bone, fc.data_path.rsplit(".", 1)[-1], fc.array_index, co[0::2], co[1::2],
                    codes))
    return out


def _sample_curve(kf, kv, codes, frames):
    """An F-curve's values at ``frames`` from its keys (linear and constant keys only)."""
    n = len(kf)
    if n == 1:                                               # a constant
        return kv[0]
    if n == len(frames) and np.array_equal(kf, frames):      # a key at every frame
        return kv
    left = np.clip(np.searchsorted(kf, frames, side="right") - 1, 0, n - 1)
    right = np.minimum(left + 1, n - 1)
    span = kf[right] - kf[left]
    w = np.where(span > 0, (frames - kf[left]) / np.where(span > 0, span, 1), 0.0)
    w = np.clip(w, 0.0, 1.0) * (codes[left] == _LINEAR)
    return kv[left] + w * (kv[right] - kv[left])


def _sample_action(curves, bones, frames):
    """{channel: (bones, frames, width) array} of the pose-bone channels of ``bones`` at
    ``frames``, from :func:`_action_curves`."""
    row = {b: k for k, b in enumerate(bones)}
    out = {c: np.empty((len(bones), len(frames), width)) for c, width in _CHANNELS}
    for c, _ in _CHANNELS:
        out[c][...] = _DEFAULTS[c]
    for bone, channel, index, kf, kv, codes in curves:
        if bone in row and channel in out:
            out[channel][row[bone], :, index] = _sample_curve(kf, kv, codes, frames)
    return out


def _quat_mul(a, b):
    """Hamilton products of (w, x, y, z) quaternions, broadcast."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def _rotate(q, v):
    """``v`` rotated by the unit quaternion ``q`` (w, x, y, z)."""
    w, u = q[..., :1], q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def _node_trs(samples, rest):
    """Node translation, rotation (x, y, z, w) and scale of ``A @ basis`` at every frame, for
    every bone at once: ``samples`` {channel: (bones, frames, width)}, ``rest`` (translation,
    rotation (w, x, y, z), scale) as (bones, 1, width) arrays."""
    ta, qa, sa = rest
    q = samples["rotation_quaternion"]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return (_rotate(qa, sa * samples["location"]) + ta, _quat_mul(qa, q)[..., [1, 2, 3, 0]],
            sa * samples["scale"])


# --- the glb ---------------------------------------------------------------------------------

def _read_glb(data):
    magic, _, _ = struct.unpack_from("<4sII", data)
    if magic != b"glTF":
        raise ValueError("not a glb")
    length, kind = struct.unpack_from("<I4s", data, 12)
    doc = json.loads(data[20:20 + length])
    binary = b""
    at = 20 + length
    if at + 8 <= len(data):
        blen, _ = struct.unpack_from("<I4s", data, at)
        binary = data[at + 8:at + 8 + blen]
    return doc, bytearray(binary)


def _write_glb(doc, binary):
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    binary = bytes(binary) + b"\0" * (-len(binary) % 4)
    total = 12 + 8 + len(text) + (8 + len(binary) if binary else 0)
    out = [struct.pack("<4sII", b"glTF", 2, total), struct.pack("<I4s", len(text), b"JSON"),
           text]
    if binary:
        out += [struct.pack("<I4s", len(binary), b"BIN\0"), binary]
    return b"".join(out)


class _Writer:
    """Appends float arrays to the glb's buffer as accessors."""

    def __init__(self, doc, binary):
        self.doc, self.binary = doc, binary
        doc.setdefault("accessors", [])
        doc.setdefault("bufferViews", [])
        if not doc.get("buffers"):
            doc["buffers"] = [{"byteLength": 0}]

    def accessor(self, array, kind, minmax=False):
        array = np.ascontiguousarray(array, np.float32)
        self.binary += b"\0" * (-len(self.binary) % 4)
        view = {"buffer": 0, "byteOffset": len(self.binary), "byteLength": array.nbytes}
        self.binary += array.tobytes()
        self.doc["bufferViews"].append(view)
        acc = {"bufferView": len(self.doc["bufferViews"]) - 1, "componentType": 5126,
               "count": len(array), "type": kind}
        if minmax:
            acc["min"] = [float(array.min())]
            acc["max"] = [float(array.max())]
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def finish(self):
        self.doc["buffers"][0]["byteLength"] = len(self.binary)


def _bone_nodes(doc, arm):
    """{bone name: node index} of the armature's joints in the glb."""
    joints = {j for skin in doc.get("skins", []) for j in skin["joints"]}
    names = {b.name for b in arm.data.bones}
    nodes = doc.get("nodes", [])
    found = {}
    for k, node in enumerate(nodes):
        if node.get("name") in names and (k in joints or "mesh" not in node):
            found.setdefault(node["name"], k)
    return found


def _rest(node):
    """(translation, rotation (w, x, y, z), scale) of a bone node at rest; ValueError for a
    scale that is not 1 (bones have none: the exporter's float noise of 1e-7 is allowed)."""
    t = np.array(node.get("translation", (0.0, 0.0, 0.0)), np.float64)
    x, y, z, w = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
    scale = np.array(node.get("scale", (1.0, 1.0, 1.0)), np.float64)
    if np.abs(scale - 1.0).max() > 1e-5:
        raise ValueError(f"bone {node.get('name')!r} has a rest scale")
    return t, np.array([w, x, y, z], np.float64), scale


def _channel(writer, anim, times, node, path, values, moving):
    if moving:
        sampler = {"input": writer.accessor(times, "SCALAR", True), "interpolation": "LINEAR",
                   "output": writer.accessor(values, ("VEC3", "VEC4")[values.shape[1] == 4])}
    else:
        ends = times[[0, -1]]
        sampler = {"input": writer.accessor(ends, "SCALAR", True), "interpolation": "STEP",
                   "output": writer.accessor(values[[0, -1]],
                                             ("VEC3", "VEC4")[values.shape[1] == 4])}
    anim["samplers"].append(sampler)
    anim["channels"].append({"sampler": len(anim["samplers"]) - 1,
                             "target": {"node": node, "path": path}})


def add_animations(glb_path, arm, actions, fps, curves=None):
    """Append an animation per action of ``arm`` to the .glb at ``glb_path`` (written
    without animations by Blender's exporter); the file is replaced atomically. ``curves``:
    the actions' keys as :func:`animation_plan` read them (read here when not given)."""
    with open(glb_path, "rb") as f:
        doc, binary = _read_glb(f.read())
    nodes = _bone_nodes(doc, arm)
    writer = _Writer(doc, binary)
    bones = list(nodes)
    rests = [_rest(doc["nodes"][k]) for k in nodes.values()]
    rest = tuple(np.array([r[i] for r in rests]).reshape(len(rests), 1, -1) for i in range(3))
    for action in actions:
        start, end = (int(round(x)) for x in action.frame_range)
        frames = np.arange(start, max(end, start) + 1, dtype=np.float64)
        times = frames / fps
        read = curves.get(action) if curves is not None else None
        read = read if read is not None else _action_curves(action)
        if read is None:
            raise ValueError(f"action {action.name!r} has keys the exporter must sample")
        samples = _sample_action(read, bones, frames)
        anim = {"name": action.name, "channels": [], "samplers": []}
        if bones:
            trs = _node_trs(samples, rest)
            moving = [(np.ptp(v, axis=1).max(axis=1) > 0) & (len(frames) > 1) for v in trs]
            for row, k in enumerate(nodes.values()):
                for (path, values, move) in zip(("translation", "rotation", "scale"), trs,
                                                moving):
                    _channel(writer, anim, times, k, path, values[row], move[row])
        doc.setdefault("animations", []).append(anim)
    writer.finish()
    write_all([(_write_glb(doc, writer.binary), glb_path)])
