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

The work is per action, not per curve or channel: the keys of all its curves are read into
one array (:func:`_read_keys`), placed per channel in one assignment, a bone whose curves
have one key each is computed at one frame (it stands still), and an animation's accessors
are appended in one pass. The numbers are those of sampling each curve at every frame.
"""

import bpy
import numpy as np

from ..formats.glb import read_glb, write_glb
from ..formats.saving import write_all
from . import compat

__all__ = ["add_animations", "animation_plan", "fast_animation_armature", "pose_actions",
           "sample_curve"]

_CHANNELS = (("location", 3), ("rotation_quaternion", 4), ("scale", 3))
_CHANNEL_ID = {c: k for k, (c, _) in enumerate(_CHANNELS)}
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


class _Curves:
    """The pose-bone F-curves of an action with keys, read from Blender once, as arrays: per
    curve its bone (an index into ``names``), channel (an index into ``_CHANNELS``, -1 for
    another property), array index and key count, and every key in flat float64/int32
    arrays (curve ``k``'s keys at ``starts[k]:starts[k] + counts[k]``)."""

    def __init__(self, bones, channels, indices, counts, frames, values, codes):
        ids = {}
        self.bone = np.array([ids.setdefault(b, len(ids)) for b in bones], np.int64)
        self.names = list(ids)
        self.channel = np.array([_CHANNEL_ID.get(c, -1) for c in channels], np.int64)
        self.index = np.array(indices, np.int64)
        # an index past its property's width (location[5]) animates nothing in Blender
        width = np.array([w for _, w in _CHANNELS] + [0])[self.channel]
        self.channel[(self.index < 0) | (self.index >= width)] = -1
        self.counts = np.array(counts, np.int64)
        self.starts = np.cumsum(self.counts) - self.counts
        self.frames, self.values, self.codes = frames, values, codes

    def keys(self, k):
        """(key frames, key values, interpolation codes) of curve ``k``."""
        at = slice(self.starts[k], self.starts[k] + self.counts[k])
        return self.frames[at], self.values[at], self.codes[at]

    def keyed(self):
        """Names of the bones with a curve of more than one key in a pose channel."""
        bones = self.bone[(self.counts > 1) & (self.channel >= 0)]
        return {self.names[b] for b in np.unique(bones).tolist()}


def _read_keys(curves):
    """Every key of ``curves`` (F-curves) in one (keys, 2) float32 array of (frame, value)
    and one int32 array of interpolation codes, curve after curve, and each curve's count.
    A curve of one key (most: a bone channel that does not move) is read as its key's
    attributes, the others by ``foreach_get`` into their slice: per curve as few Blender
    calls as there are, and no array made per curve."""
    points = [fc.keyframe_points for fc in curves]
    counts = [len(kp) for kp in points]
    co = np.empty((sum(counts), 2), np.float32)
    codes = np.empty(len(co), np.int32)
    flat = co.reshape(-1)
    one_at, one_co, one_code = [], [], []
    at = 0
    for kp, n in zip(points, counts):
        if n == 1:
            key = kp[0]
            one_at.append(at)
            one_co.extend(key.co)
            one_code.append(compat.INTERPOLATION.get(key.interpolation, -1))
        elif n:
            kp.foreach_get("co", flat[2 * at:2 * (at + n)])
            kp.foreach_get("interpolation", codes[at:at + n])
        at += n
    if one_at:
        co[one_at] = np.reshape(one_co, (-1, 2))
        codes[one_at] = one_code
    return co, codes, counts


def _action_curves(action):
    """The pose-bone curves of ``action`` with keys (a :class:`_Curves`), or None when a
    curve has modifiers or keys other than linear and constant."""
    fcurves = compat.action_fcurves(action)
    if any(len(fc.modifiers) for fc in fcurves):
        return None
    co, codes, counts = _read_keys(fcurves)
    if not ((codes == _LINEAR) | (codes == _CONSTANT)).all():
        return None
    paths = [fc.data_path for fc in fcurves]
    bones = [_bone_of(path) if n else None for path, n in zip(paths, counts)]
    keep = [bone is not None for bone in bones]
    if not all(keep):
        mask = np.repeat(keep, counts)
        co, codes = co[mask], codes[mask]
    kept = [k for k, bone in enumerate(bones) if bone is not None]
    co = co.astype(np.float64)
    return _Curves([bones[k] for k in kept], [paths[k].rsplit(".", 1)[-1] for k in kept],
                   [fcurves[k].array_index for k in kept], [counts[k] for k in kept],
                   co[:, 0], co[:, 1], codes)


def sample_curve(kf, kv, codes, frames):
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
    ``frames``, from :func:`_action_curves`. The curves of one key and those with a key at
    every frame (all an imported action has) are placed per channel in one assignment, the
    others sampled one by one (:func:`sample_curve`)."""
    out = {c: np.empty((len(bones), len(frames), width)) for c, width in _CHANNELS}
    for c, _ in _CHANNELS:
        out[c][...] = _DEFAULTS[c]
    row = {b: k for k, b in enumerate(bones)}
    rows = np.array([row.get(n, -1) for n in curves.names], np.int64)[curves.bone]
    used = np.flatnonzero((rows >= 0) & (curves.channel >= 0))
    place = (rows[used] * len(_CHANNELS) + curves.channel[used]) * (
        int(curves.index.max(initial=0)) + 1) + curves.index[used]
    if len(np.unique(place)) < len(used):   # a channel keyed twice (two slots): the last wins
        for k in used.tolist():
            out[_CHANNELS[curves.channel[k]][0]][rows[k], :, curves.index[k]] = \
                sample_curve(*curves.keys(k), frames)
        return out
    every = np.arange(len(frames))
    for c, (channel, _) in enumerate(_CHANNELS):
        ks = used[curves.channel[used] == c]
        at, index = rows[ks], curves.index[ks]
        counts, starts = curves.counts[ks], curves.starts[ks]
        one = counts == 1
        out[channel][at[one], :, index[one]] = curves.values[starts[one]][:, None]
        full = np.flatnonzero(counts == len(frames))
        keys = starts[full][:, None] + every
        full = full[(curves.frames[keys] == frames).all(axis=1)]
        out[channel][at[full], :, index[full]] = curves.values[starts[full][:, None] + every]
        rest = np.ones(len(ks), bool)
        rest[one] = rest[full] = False
        for k in np.flatnonzero(rest).tolist():
            out[channel][at[k], :, index[k]] = sample_curve(*curves.keys(ks[k]), frames)
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


def _node_values(curves, bones, rest, frames):
    """(rows, [(values, ends, moving)] per path: translation, rotation, scale) of the bone
    nodes, as float32: ``values`` at every frame of the bones at ``rows`` (those with a curve
    of more than one key), ``ends`` at the first and last frame of every bone, ``moving``
    whether a bone's value changes. A bone whose curves have one key each stands still: it
    is computed at one frame, the numbers it has at every frame."""
    keyed = curves.keyed()
    moves = np.array([b in keyed for b in bones], bool)
    rows, still = np.flatnonzero(moves), np.flatnonzero(~moves)
    trs = _node_trs(_sample_action(curves, [bones[k] for k in rows], frames),
                    tuple(r[rows] for r in rest))
    still_trs = _node_trs(_sample_action(curves, [bones[k] for k in still], frames[:1]),
                          tuple(r[still] for r in rest))
    out = []
    for full, one in zip(trs, still_trs):
        values = np.ascontiguousarray(full, np.float32)
        ends = np.empty((len(bones), 2, values.shape[2]), np.float32)
        ends[rows] = values[:, [0, -1]]
        ends[still] = one
        moving = np.zeros(len(bones), bool)
        moving[rows] = (np.ptp(full, axis=1).max(axis=1) > 0) & (len(frames) > 1)
        out.append((values, ends, moving.tolist()))
    return rows, out


# --- the glb ---------------------------------------------------------------------------------

class _Writer:
    """Appends float32 arrays to the glb's buffer as accessors, each with its bufferView."""

    def __init__(self, doc, binary):
        self.doc, self.parts, self.size = doc, [bytes(binary)], len(binary)
        doc.setdefault("accessors", [])
        doc.setdefault("bufferViews", [])
        if not doc.get("buffers"):
            doc["buffers"] = [{"byteLength": 0}]

    def accessors(self, arrays, kinds, bounds):
        """Append ``arrays`` (float32, contiguous) as accessors of ``kinds`` ("SCALAR",
        "VEC3", ...), with min and max from ``bounds`` where it is not None; returns the
        index of the first. Four-byte aligned, as float data must be."""
        views, accessors = self.doc["bufferViews"], self.doc["accessors"]
        first, view = len(accessors), len(views)
        if arrays:
            self.parts.append(b"\0" * (-self.size % 4))
            self.size += len(self.parts[-1])
            self.parts.append(np.concatenate([x.reshape(-1) for x in arrays]).tobytes())
        for k, (array, kind, bound) in enumerate(zip(arrays, kinds, bounds)):
            views.append({"buffer": 0, "byteOffset": self.size, "byteLength": array.nbytes})
            self.size += array.nbytes
            accessor = {"bufferView": view + k, "componentType": 5126, "count": len(array),
                        "type": kind}
            if bound is not None:
                accessor["min"], accessor["max"] = [bound[0]], [bound[1]]
            accessors.append(accessor)
        return first

    def finish(self):
        """The whole buffer, its length set in the document."""
        self.doc["buffers"][0]["byteLength"] = self.size
        return b"".join(self.parts)


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


_PATHS = ("translation", "rotation", "scale")


def _animation(writer, name, times, nodes, rows, values):
    """The glTF animation ``name``: per bone node (``nodes``) and path a sampler of
    ``times`` (LINEAR) or, for a channel that does not move, of its first and last frame
    (STEP), as the exporter writes it; its accessors appended in one go. ``rows``,
    ``values``: from :func:`_node_values`."""
    times = np.ascontiguousarray(times, np.float32)
    ends = times[[0, -1]]
    spans = ((float(times.min()), float(times.max())), (float(ends.min()), float(ends.max())))
    kinds = [("VEC3", "VEC4")[v[0].shape[2] == 4] for v in values]
    full = np.zeros(len(nodes), np.int64)
    full[rows] = np.arange(len(rows))
    full = full.tolist()
    arrays, types, bounds, steps, channels = [], [], [], [], []
    for row, node in enumerate(nodes):
        for p, path in enumerate(_PATHS):
            every, still, moving = values[p]
            move = moving[row]
            steps.append(not move)
            arrays += (times, every[full[row]]) if move else (ends, still[row])
            types += ("SCALAR", kinds[p])
            bounds += (spans[not move], None)
            channels.append({"sampler": len(channels), "target": {"node": node, "path": path}})
    first = writer.accessors(arrays, types, bounds)
    samplers = [{"input": first + 2 * k, "interpolation": ("LINEAR", "STEP")[step],
                 "output": first + 2 * k + 1} for k, step in enumerate(steps)]
    return {"name": name, "channels": channels, "samplers": samplers}


def add_animations(glb_path, arm, actions, fps, curves=None):
    """Append an animation per action of ``arm`` to the .glb at ``glb_path`` (written
    without animations by Blender's exporter); the file is replaced atomically. ``curves``:
    the actions' keys as :func:`animation_plan` read them (read here when not given)."""
    with open(glb_path, "rb") as f:
        doc, binary = read_glb(f.read())
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
        if bones:
            rows, values = _node_values(read, bones, rest, frames)
            anim = _animation(writer, action.name, times, list(nodes.values()), rows, values)
        else:
            anim = {"name": action.name, "channels": [], "samplers": []}
        doc.setdefault("animations", []).append(anim)
    binary = writer.finish()
    write_all([(write_glb(doc, binary), glb_path)])
