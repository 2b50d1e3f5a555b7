"""Export an action of an armature as an .ala animation (format #1 or #2).

An imported action that was not edited is written from the file it came from (converted
with the format layer when the other format is asked for), so it comes back byte for byte.
Otherwise the pose is evaluated at every frame (constraints, drivers and IK included) and
each bone's transform relative to its parent is quantised by the format layer's encoder.
"""

import os
import time
from dataclasses import dataclass

import bpy
import numpy as np

from ....formats.alamo import (AlamoFormatError, AnimationData, convert_animation,
                               encode_animation, read_ala)
from ....formats.alamo.game_rules import game_problem, model_bones
from ... import compat, progress
from ...matrices import continuous_quaternions as _continuous
from ...matrices import decompose as _decompose
from ...matrices import affine_inverse
from ...results import Result
from ...source import SOURCE_NAME_KEY, get_source, has_source, source_file_name
from .. import bone_keys, fingerprint
from ..fingerprint import bone_of_path
from ..frames import FIRST_FRAME
from ..unit_actions import unit_actions
from .ala_bones import (keep_unedited, keyed_new_bones, merge_steps, moving_bones, reindexed,
                        renamed, source_animation, source_bones)
from .ala_keys import as_action_curves, pose_from_keys, read_curves
from .bake import applied_scale, bake_of
from .common import ExportError, Report
from .game_check import save_checked
from .skeleton import build_skeleton, parse_source

MAX_FRAMES = 100_000
VISIBLE_PATH = "alamo.visible"


@dataclass
class AlaExportOptions:
    format: int = None               # 2: Forces of Corruption, 1: Empire at War; None: the
    new_format: int = 2              # format the action was imported from, else new_format
    frame_range: str = "ACTION"      # ACTION (its manual or key range) or SCENE
    frame_rate: str = "ACTION"       # ACTION (the rate stored at import) or SCENE


@dataclass
class AlaExportResult(Result):
    """What an .ala export wrote (a :class:`~...results.Result`)."""
    animation: object = None
    reused: bool = False             # written from the imported file's data
    frames: int = 0
    fps: float = 0.0
    bones: int = 0
    kept_bones: int = 0              # bones written from the imported file as they were
    pose_from: str = ""              # "keys" (sampled with numpy) or "frames" (frame_set)

    def summary(self):
        how = " (unchanged since import)" if self.reused else ""
        return (f"{self.frames} frames at {self.fps:g} fps, {self.bones} bones, format "
                f"#{self.animation.format}{how}")


def export_ala(context: bpy.types.Context, armature: bpy.types.Object, action: bpy.types.Action,
               filepath: str, options: AlaExportOptions | None = None
               ) -> AlaExportResult:
    """Write ``action`` on ``armature`` to ``filepath`` (atomically)."""
    result = build_animation(context, armature, action, options or AlaExportOptions())
    t = time.perf_counter()
    save_checked([(result.animation, filepath)], [action], armature)
    result.timings["write"] = time.perf_counter() - t
    return result


def armature_actions(armature):
    """Actions of this armature's unit (:mod:`..unit_actions`): the active one first, then
    by name. Another unit's actions never are, though they animate bones of the same names."""
    return unit_actions(armature)


def file_name_for(model_path, action):
    """``<MODEL>_<ACTION>.ala`` beside the model (no second prefix when the action already
    has it, as imported ones do)."""
    folder, base = os.path.split(model_path)
    model, ext = os.path.splitext(base)
    # an imported action goes back under its file's exact name (EI_VADER_IDLE_00.ALA stays
    # so: on a case-sensitive file system another case would be a second file)
    source = source_file_name(action, action.name + ".ala")
    if source is not None and source.lower().startswith(model.lower() + "_"):
        return os.path.join(folder, model + source[len(model):])
    name = action.name
    if not name.lower().startswith(model.lower() + "_"):
        name = f"{model}_{name}"
    safe = "".join(c if c.isalnum() or c in "-_. " else "_" for c in name)
    return os.path.join(folder, safe + (".ALA" if ext == ".ALO" else ".ala"))


def frame_span(context, action, options):
    """(first frame, frame count) of what is exported."""
    scene = context.scene
    if options.frame_range == "SCENE":
        start, end = scene.frame_start, scene.frame_end
    else:
        start, end = action.frame_range
        # a file of one frame (or none) imports with a range of two (Blender's shortest
        # manual range): the file's own count is what is exported
        if action.alamo.frames <= 1 and action.use_frame_range and end - start == 1:
            end = start + action.alamo.frames - 1
        if not action.use_frame_range:
            # keys from frame 1 (say): Blender's frame k is the file's frame k, as import
            # reads it back; a manual frame range is exported as it is, its first frame first
            start = min(start, FIRST_FRAME)
    start, end = int(round(start)), int(round(end))
    frames = end - start + 1
    if frames == 0 and has_source(action):
        return start, frames          # a file without frames: written from its own data
    if frames < 1:
        raise ExportError([f"action {action.name!r}: empty frame range {start}..{end}"])
    if frames > MAX_FRAMES:
        raise ExportError([f"action {action.name!r}: {frames} frames; at most {MAX_FRAMES} "
                           "can be written"])
    return start, frames


def frame_rate(context, action, options, armature=None):
    """The rate written: the imported file's; for a new action the rate of the armature's
    imported animations when they agree; else the scene's."""
    scene = context.scene
    if options.frame_rate == "ACTION" and action.alamo.fps > 0 and has_source(action):
        return float(action.alamo.fps)
    if options.frame_rate == "ACTION" and not has_source(action):
        fps = unit_defaults(armature)[1]
        if fps is not None:
            return fps
    return scene.render.fps / scene.render.fps_base


def action_format(action, new_format=2, armature=None):
    """The format an action is written in by default: the one it was imported from (Empire
    at War reads only #1); for a new action the format of the armature's imported
    animations when they agree (a unit of Empire at War gets #1); else ``new_format`` (the
    preference)."""
    if has_source(action) and action.alamo.format in ("1", "2"):
        return int(action.alamo.format)
    fmt = unit_defaults(armature)[0]
    return fmt if fmt is not None else new_format


def unit_defaults(armature):
    """(format, frame rate) the armature's imported animations agree on (None where they do
    not, or where it has none)."""
    if armature is None:
        return None, None
    imported = [a for a in armature_actions(armature) if has_source(a)]
    formats = {a.alamo.format for a in imported if a.alamo.format in ("1", "2")}
    rates = {round(float(a.alamo.fps), 4) for a in imported if a.alamo.fps > 0}
    return (int(formats.pop()) if len(formats) == 1 else None,
            float(rates.pop()) if len(rates) == 1 else None)


_UNPARSED = object()


def build_animation(context, armature, action, options, source=_UNPARSED):
    """The Animation record of ``action`` on ``armature``. ``source``: the armature's
    imported model as parse_source() gives it, when the caller has parsed it already (the
    model export does, once for all its actions)."""
    result = AlaExportResult()
    clock = time.perf_counter()
    fmt = options.format if options.format is not None else \
        action_format(action, options.new_format, armature)
    if fmt not in (1, 2):
        raise ExportError([f"animation format must be 1 or 2, not {fmt!r}"])
    start, frames = frame_span(context, action, options)
    fps = frame_rate(context, action, options, armature)
    # bone order, names and parents exactly as the .alo export writes them
    if source is _UNPARSED:
        source = parse_source(armature)
    # the model export's findings about the skeleton are its own: not repeated here
    built = build_skeleton(armature, source, Report())
    skeleton, bone_index = built.skeleton, built.bone_index
    bake, keys_scale = bake_of(armature), applied_scale(armature)
    as_shown = bake.identity and keys_scale == 1.0     # else positions are written scaled
    kept = _source_animation(action, armature, frames, fps) if as_shown else None
    src_anim = source_animation(action)
    if src_anim is not None:
        _say_reindexed(result, action, armature,
                       reindexed(src_anim, armature, skeleton, bone_index)[1])
    if kept is not None:
        kept = reindexed(renamed(kept, armature, skeleton, bone_index), armature, skeleton,
                         bone_index)[0]
        anim = kept if kept.format == fmt else convert_animation(kept, fmt)
        result.animation, result.reused = anim, True
        result.frames, result.fps, result.bones = frames, fps, len(anim.bones)
        result.timings["reuse"] = time.perf_counter() - clock
        return result
    if frames == 0:
        raise ExportError([f"action {action.name!r}: its file has no frames and it was edited: "
                           "give it a frame range to export"])

    blender_of = {k: name for name, k in bone_index.items()}
    names = [b.name for b in skeleton.bones]
    parents = np.array([b.parent for b in skeleton.bones], np.int64)
    result.timings["skeleton"] = time.perf_counter() - clock

    clock = time.perf_counter()
    order = [blender_of.get(k) for k in range(len(names))]
    read = read_curves(action)
    matrices = pose_from_keys(armature, action, order, start, frames, keys_scale, read)
    result.pose_from = "frames" if matrices is None else "keys"
    if matrices is None:
        matrices = _sample_pose(context, armature, action, order, start, frames, keys_scale)
    if not bake.identity:
        matrices = bake.rigid(matrices)
    # bone 0 never moves in a game animation: it stays where the model has it (identity for
    # a Root the export adds or writes as identity), and motion given to it in Blender is
    # carried by its children
    matrices[:, 0] = built.worlds[0]
    result.timings["evaluate pose"] = time.perf_counter() - clock
    clock = time.perf_counter()
    local = matrices.copy()
    has_parent = parents >= 0
    if has_parent.any():
        inv = affine_inverse(matrices[:, parents[has_parent]])   # a zero scale is singular
        local[:, has_parent] = inv @ matrices[:, has_parent]
    t, q, s = _decompose(local)                  # (F, B, 3/4/3)
    t, q, s = (np.swapaxes(a, 0, 1) for a in (t, q, s))
    q = _continuous(q)
    # float32 noise of the matrix products grows with how far from the origin bones are
    reach = np.abs(matrices[:, :, :3, 3]).max(axis=(0, 2))
    reach = np.maximum(reach, np.where(has_parent, reach[np.maximum(parents, 0)], 0))
    _snap_constant(t, 1e-6 * np.maximum(reach, 1.0)[:, None, None])
    _snap_constant(q, 1e-5)           # a third of the int16 step
    _snap_constant(s, 1e-5)
    visible, has_visibility, step, has_step, keyed = _bits(read, order, start, frames)
    src = source_bones(src_anim, armature, skeleton, bone_index) if src_anim is not None \
        else None
    rows, row_names, unknown = _written_rows(action, src, skeleton, bone_index,
                                             (t, q, s, reach), has_visibility)
    step, has_step = merge_steps(step, has_step, keyed, rows, src)
    data = AnimationData(
        fps=fps, names=row_names, indices=np.array(rows, np.int64),
        translation=t[rows].astype(np.float32),
        rotation=q[rows][..., [1, 2, 3, 0]].astype(np.float32),
        scale=s[rows].astype(np.float32), visible=visible[rows], step=step,
        has_visibility=has_visibility[rows], has_step=has_step, unknown=unknown)
    try:
        result.animation = encode_animation(data, fmt)
    except AlamoFormatError as e:
        raise ExportError([f"action {action.name!r}: {e}"]) from None
    _refuse_scale_frames(action, result.animation)
    if src is not None:
        # bones whose motion was not edited keep the file's data exactly
        untouched = {bone_index[n] for n in bone_keys.untouched(action, armature,
                                                                as_action_curves(read))
                     if n in bone_index} if as_shown else set()
        result.animation, result.kept_bones = keep_unedited(
            result.animation, src_anim, armature, skeleton, bone_index, rows,
            (t, q, s, reach), (visible[rows], has_visibility[rows], step, has_step), untouched)
    result.timings["encode"] = time.perf_counter() - clock
    result.frames, result.fps, result.bones = frames, fps, len(rows)
    return result


def _written_rows(action, src, skeleton, bone_index, motion, has_visibility):
    """(skeleton rows, names, 0x1003 mini 10 values) of the bones written: an imported
    action's file bones, then bones added in Blender that it keys (issue 39); a new action's
    bones that move or have visibility keys."""
    names = [b.name for b in skeleton.bones]
    if src is not None:
        added = keyed_new_bones(action, bone_index, src.rows)
        return (src.rows + added, src.names + [names[k] for k in added],
                src.unknown + [0] * len(added))
    t, q, s, reach = motion
    rest_t, rest_q, rest_s = _decompose(_rest_locals(skeleton))
    rows = sorted(set(moving_bones(t, q, s, rest_t, rest_q, rest_s, reach))
                  | {int(k) for k in np.flatnonzero(has_visibility) if k > 0})
    return rows, [names[k] for k in rows], [0] * len(rows)


def _say_reindexed(result, action, armature, notes):
    """Warn about what following the model's bones changed in an imported animation: tracks
    of deleted bones left out, indices the imported file had wrong (the game refused it)
    repaired (issue 39). Indices that moved because bones were added or deleted are what
    the modder asked for and need no word."""
    file = action.get(SOURCE_NAME_KEY) or f"{action.name}.ala"
    if notes.dropped:
        result.warn(f"action {action.name!r} ({file}): bone "
                    f"{', '.join(map(repr, notes.dropped))} is no longer in the armature; "
                    "its track is not written", [armature])
    refusal = _imported_refusal(action, armature)
    if notes.repaired or refusal is not None:
        why = f" ({refusal.message})" if refusal is not None else ""
        done = (f"written with the bone indices of the model (bone "
                f"{', '.join(map(repr, notes.repaired))} repaired)") if notes.repaired else \
            "written as it is"
        result.warn(f"action {action.name!r}: the game refuses the imported file {file}{why}; "
                    f"{done}", [armature])


def _imported_refusal(action, armature):
    """Why the game refuses the file the action was imported from with the model the armature
    was imported from, or None (also when either is not kept)."""
    anim, model = get_source(action), get_source(armature)
    if anim is None or model is None:
        return None
    return game_problem(bytes(anim), model_bones(bytes(model)))


def _refuse_scale_frames(action, anim):
    """The game's format #2 loader reads no per-frame scale (a 0x100b chunk makes it refuse
    the file): a bone whose scale changes over time needs format #1."""
    scaled = [b.name for b in anim.bones if b.scale is not None] if anim.format == 2 else []
    if scaled:
        raise ExportError([f"action {action.name!r}: bone {', '.join(map(repr, scaled))} "
                           "scales over time, which the game's format #2 (Forces of Corruption) "
                           "cannot hold: export it as format #1 (Empire at War, which Forces "
                           "of Corruption also reads) or key a constant scale"])


def _rest_locals(skeleton):
    """(B, 4, 4) parent-relative rest matrices of the exported skeleton."""
    out = np.tile(np.eye(4), (len(skeleton.bones), 1, 1))
    for k, b in enumerate(skeleton.bones):
        out[k, :3, :] = np.asarray(b.matrix, np.float64)
    return out


def _source_animation(action, armature, frames, fps):
    """The imported file's animation, if the action is as imported and the span matches."""
    data = get_source(action)
    stored = action.get(fingerprint.KEY)
    if data is None or stored is None:
        return None
    if fingerprint.digest(fingerprint.action_parts(action, armature)) != stored:
        return None
    try:
        anim = read_ala(bytes(data))
    except AlamoFormatError:
        return None
    if int(anim.num_frames) != frames or not np.isclose(float(anim.fps), fps):
        return None
    return anim


class _Assigned:
    """Temporarily make ``action`` the armature's action (and restore everything after)."""

    def __init__(self, context, armature, action):
        self.context, self.arm, self.action = context, armature, action

    def __enter__(self):
        scene = self.context.scene
        self.frame = (scene.frame_current, scene.frame_subframe)
        self.had_data = self.arm.animation_data is not None
        ad = self.arm.animation_data or self.arm.animation_data_create()
        self.saved = (ad.action, ad.action_slot if compat.HAS_SLOTTED_ACTIONS else None,
                      ad.use_nla)
        ad.action = self.action
        if compat.HAS_SLOTTED_ACTIONS and ad.action_slot is None and len(self.action.slots):
            ad.action_slot = self.action.slots[0]
        ad.use_nla = False                      # the action alone, not the NLA mix
        # meshes deformed by the armature would be re-skinned at every frame (20 ms a frame
        # for a million triangles): their Armature modifiers sleep while the pose is read
        self.muted = [m for o in bpy.data.objects if o.type == "MESH" for m in o.modifiers
                      if m.type == "ARMATURE" and m.object == self.arm and m.show_viewport]
        for m in self.muted:
            m.show_viewport = False
        # bones the action does not key stay at rest, whatever pose they were left in
        bones = self.arm.pose.bones
        self.pose = {}
        for prop, rest in (("location", (0, 0, 0)), ("rotation_quaternion", (1, 0, 0, 0)),
                           ("rotation_euler", (0, 0, 0)), ("rotation_axis_angle", (0, 0, 1, 0)),
                           ("scale", (1, 1, 1))):
            values = np.empty(len(bones) * len(rest), np.float32)
            bones.foreach_get(prop, values)
            self.pose[prop] = values
            bones.foreach_set(prop, np.tile(np.array(rest, np.float32), len(bones)))
        return self

    def __exit__(self, *exc):
        ad = self.arm.animation_data
        action, slot, use_nla = self.saved
        for m in self.muted:
            m.show_viewport = True
        for prop, values in self.pose.items():
            self.arm.pose.bones.foreach_set(prop, values)
        ad.action = action
        ad.use_nla = use_nla
        if compat.HAS_SLOTTED_ACTIONS and action is not None and slot is not None:
            try:
                ad.action_slot = slot
            except (RuntimeError, TypeError):
                pass
        if not self.had_data and action is None:
            self.arm.animation_data_clear()
        self.context.scene.frame_set(self.frame[0], subframe=self.frame[1])
        return False


def _sample_pose(context, armature, action, order, start, frames, keys_scale=1.0):
    """(F, B, 4, 4) armature-space pose matrices of the bones in ``order``, each frame
    (identity for None: a Root bone the export adds). ``keys_scale``: the factor Apply Scale
    left out of the location keys (they are read scaled by it)."""
    pose_bones = armature.pose.bones
    index = {pb.name: k for k, pb in enumerate(pose_bones)}
    have = np.array([n is not None for n in order], bool)
    pick = np.array([index[n] for n in order if n is not None], np.int64)
    buf = np.empty(len(pose_bones) * 16, np.float32)
    out = np.tile(np.eye(4), (frames, len(order), 1, 1))
    scene = context.scene
    progress.expect(frames)
    with _Assigned(context, armature, action), _ScaledLocations(action, keys_scale):
        for k in range(frames):
            progress.advance()
            scene.frame_set(start + k)
            pose_bones.foreach_get("matrix", buf)
            # column-major 4x4s
            out[k, have] = buf.reshape(-1, 4, 4)[pick].transpose(0, 2, 1)
    return out


class _ScaledLocations:
    """Temporarily scale the action's bone location keys (values and handles) by ``k``;
    every key is put back exactly after."""

    def __init__(self, action, k):
        self.curves = [fc for fc in compat.action_fcurves(action) if k != 1.0
                       and bone_of_path(fc.data_path)[1] == "location"]
        self.k, self.saved = k, []

    def __enter__(self):
        for fc in self.curves:
            kp = fc.keyframe_points
            arrays = {}
            for prop in ("co", "handle_left", "handle_right"):
                a = np.empty(2 * len(kp), np.float32)
                kp.foreach_get(prop, a)
                arrays[prop] = a
                b = a.copy()
                b[1::2] *= self.k
                kp.foreach_set(prop, b)
            fc.update()
            self.saved.append((fc, arrays))
        return self

    def __exit__(self, *exc):
        for fc, arrays in self.saved:
            for prop, a in arrays.items():
                fc.keyframe_points.foreach_set(prop, a)
        return False


def _snap_constant(a, tol):
    """Channels (per bone, per axis; ``a`` is (B, F, k)) that move by no more than ``tol``
    (float noise of the matrix arithmetic) become exactly constant, so they are stored as
    constants."""
    still = (a.max(axis=1, keepdims=True) - a.min(axis=1, keepdims=True)) <= tol
    first = np.broadcast_to(a[:, :1], a.shape)
    np.copyto(a, first, where=np.broadcast_to(still, a.shape))


def _bits(read, order, start, frames):
    """Visibility (from the bones' animated Visible property), step bits (frames whose
    transform keys are constant-interpolated) and keyed frames, per bone in ``order``, from
    the action's curves as :func:`.ala_keys.read_curves` read them."""
    nb = len(order)
    visible = np.ones((nb, frames), bool)
    has_vis = np.zeros(nb, bool)
    step = np.zeros((nb, frames), bool)
    has_step = np.zeros(nb, bool)
    keyed = np.zeros((nb, frames), bool)         # frames where a transform curve has a key
    row = {n: k for k, n in enumerate(order) if n is not None}
    frame_numbers = start + np.arange(frames, dtype=np.float64)
    constant = compat.INTERPOLATION["CONSTANT"]
    for fc, name, prop, co, interp in read:
        k = row.get(name)
        if fc.mute or k is None or not len(interp):
            continue
        n = len(interp)
        keys, values = co[0::2].astype(np.float64), co[1::2]
        if prop == VISIBLE_PATH:
            has_vis[k] = True
            if (interp == constant).all():
                at = np.searchsorted(keys, frame_numbers, side="right") - 1
                visible[k] = values[np.maximum(at, 0)] > 0.5
            else:
                visible[k] = np.array([fc.evaluate(f) for f in frame_numbers]) > 0.5
        elif prop in ("location", "rotation_quaternion", "rotation_euler", "scale",
                      "rotation_axis_angle"):
            stepped = keys[interp == constant]
            if n > 1:
                at = np.rint(keys - start).astype(np.int64)
                keyed[k, at[(at >= 0) & (at < frames)]] = True
            if n > 1 and len(stepped):
                at = np.rint(stepped - start).astype(np.int64)
                at = at[(at >= 0) & (at < frames) & np.isclose(stepped - start, at)]
                if len(at):
                    step[k, at] = True
                    has_step[k] = True
    return visible, has_vis, step, has_step, keyed
