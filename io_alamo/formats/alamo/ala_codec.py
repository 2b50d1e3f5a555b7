"""Animation tracks as float arrays, and the quantising encoder back to the file's form.

Translation and scale are uint16 per axis with a float32 offset and step; rotations are
int16 quaternion components / 32767. The encoder picks per-bone, per-axis offset and step
from the track's range, so the error stays within half a step (range / 65535 / 2), and
stores tracks that never change as constants, as the game's own files do.
"""

from dataclasses import dataclass, field

import numpy as np

from ..errors import AlamoFormatError
from .animation import Animation, BoneAnimation

ROTATION_SCALE = 32767.0
IDENTITY_Q16 = np.array([0, 0, 0, 32767], np.int16)


@dataclass(eq=False, slots=True)
class AnimationData:
    """Per-bone, per-frame transforms (parent-relative, as in the file).

    Arrays are indexed [bone, frame]. ``visible`` is all True and ``step`` all False for
    bones without those tracks (see ``has_visibility``/``has_step``).
    """

    fps: float
    names: list[str]
    indices: np.ndarray            # (B,) skeleton index of each bone
    translation: np.ndarray        # (B, F, 3) float32
    rotation: np.ndarray           # (B, F, 4) float32 quaternions x, y, z, w
    scale: np.ndarray              # (B, F, 3) float32
    visible: np.ndarray            # (B, F) bool
    step: np.ndarray               # (B, F) bool
    has_visibility: np.ndarray     # (B,) bool
    has_step: np.ndarray           # (B,) bool
    unknown: list[int] = field(default_factory=list)   # 0x1003 mini 10 per bone

    @property
    def num_frames(self) -> int:
        return self.translation.shape[1]


def unpack_bits(packed, frames: int) -> np.ndarray:
    return np.unpackbits(np.asarray(packed, np.uint8), bitorder="little")[:frames].astype(bool)


def pack_bits(bits) -> np.ndarray:
    return np.packbits(np.asarray(bits, bool), bitorder="little")


def dequantize(offset, step, q) -> np.ndarray:
    """offset + q * step in float32, as the game computes it (inf/NaN in a file stay so)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return (np.asarray(offset, np.float32)
                + np.asarray(q, np.float32) * np.asarray(step, np.float32))


# decode_animation gives every bone float arrays for every frame, also bones the file stores
# as constants in a few bytes: 42 bytes per bone and frame. Up to this many bones x frames
# (about 42 MB of arrays) anything goes; past it, at least a quarter of them must be per-frame
# data in the file, so that a small file cannot ask for gigabytes by claiming many frames for
# many constant bones. Reading (read_ala) and decode_bone(..., full=False) have no such limit:
# their memory follows the file's size.
MAX_CONSTANT_BONE_FRAMES = 1_000_000


def decode_bone(bone: BoneAnimation, frames: int, full: bool = True) -> tuple:
    """One :class:`BoneAnimation` as floats: translation (F, 3), rotation (F, 4) quaternions
    x, y, z, w, scale (F, 3), and visible, step (F,) bools (None where the bone has no such
    track). With ``full=False`` a track the file stores as a constant has a single row
    (none for an animation of no frames)."""
    rows = frames if full else min(frames, 1)

    def track(q, offset, step):
        if q is not None:
            return dequantize(offset, step, q)
        return np.broadcast_to(np.asarray(offset, np.float32), (rows, 3))

    t = track(bone.translation, bone.translation_offset, bone.translation_scale)
    s = track(bone.scale, bone.scale_offset, bone.scale_scale)
    q = bone.rotation if bone.rotation is not None else (
        bone.default_rotation if bone.default_rotation is not None else IDENTITY_Q16)
    q = np.asarray(q, np.float32).reshape(-1, 4) / np.float32(ROTATION_SCALE)
    if len(q) != frames:                    # a constant (format #1 may store one row)
        q = np.broadcast_to(q[:1] if len(q) else IDENTITY_Q16 / np.float32(ROTATION_SCALE),
                            (rows, 4))
    vis = unpack_bits(bone.visibility, frames) if bone.visibility is not None else None
    step = unpack_bits(bone.step, frames) if bone.step is not None else None
    return t, q, s, vis, step


def decode_animation(anim: Animation) -> AnimationData:
    """Float arrays for every bone and frame of an :class:`Animation`.

    Refuses (:class:`AlamoFormatError`) to expand a file that stores mostly constants into
    more than :data:`MAX_CONSTANT_BONE_FRAMES` bones x frames; :func:`decode_bone` with
    ``full=False`` takes any file, a bone at a time.
    """
    frames = int(anim.num_frames)
    n = len(anim.bones)
    stored = sum(len(track) for b in anim.bones for track in (b.translation, b.rotation, b.scale)
                 if track is not None)
    if n * frames > max(MAX_CONSTANT_BONE_FRAMES, 4 * stored):
        raise AlamoFormatError(
            f"{n:,} bones x {frames:,} frames with per-frame data for only {stored:,}: as "
            f"float arrays that takes {n * frames * 42 / 1e6:,.0f} MB (decode_animation takes "
            f"at most {MAX_CONSTANT_BONE_FRAMES:,} bones x frames, or 4 x those with data; "
            f"decode_bone takes any)")
    t = np.empty((n, frames, 3), np.float32)
    r = np.empty((n, frames, 4), np.float32)
    s = np.empty((n, frames, 3), np.float32)
    vis = np.ones((n, frames), bool)
    step = np.zeros((n, frames), bool)
    for i, b in enumerate(anim.bones):
        t[i], r[i], s[i], v, st = decode_bone(b, frames)
        if v is not None:
            vis[i] = v
        if st is not None:
            step[i] = st
    return AnimationData(
        fps=float(anim.fps), names=[b.name for b in anim.bones],
        indices=np.array([b.index for b in anim.bones], np.int64),
        translation=t, rotation=r, scale=s, visible=vis, step=step,
        has_visibility=np.array([b.visibility is not None for b in anim.bones], bool),
        has_step=np.array([b.step is not None for b in anim.bones], bool),
        unknown=[b.unknown for b in anim.bones])


def quantize_range(values) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Per-axis offset and step for (F, k) values; returns (offset, step, q uint16, constant).

    The offset is float32 at or below the minimum and the step is the smallest float32 with
    offset + 65535 * step >= maximum, so every value is within step / 2 of its decoded value
    (up to float32 rounding of the values themselves).
    """
    off, step, q, constant = quantize_ranges(np.asarray(values)[None])
    return off[0], step[0], q[0], bool(constant[0])


def quantize_ranges(values) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`quantize_range` of every bone's (F, k) values at once: ``values`` is (B, F, k);
    returns offsets and steps (B, k), q (B, F, k) and constant (B,), each bone's exactly what
    :func:`quantize_range` gives for it."""
    v = np.asarray(values, np.float64)
    lo = v.min(axis=1)
    hi = v.max(axis=1)
    off = lo.astype(np.float32)
    below = off.astype(np.float64) > lo
    off[below] = np.nextafter(off[below], np.float32(-np.inf))
    span = hi - off.astype(np.float64)
    step = (span / 65535.0).astype(np.float32)
    short = off.astype(np.float64) + 65535.0 * step.astype(np.float64) < hi
    step[short] = np.nextafter(step[short], np.float32(np.inf))
    safe = np.where(step > 0, step.astype(np.float64), 1.0)
    q = np.rint((v - off.astype(np.float64)[:, None]) / safe[:, None])
    q = np.clip(q, 0, 65535).astype(np.uint16)
    q *= (step > 0)[:, None].astype(np.uint16)
    constant = np.all(hi == lo, axis=1)
    return off, step, q, constant


def encode_animation(data: AnimationData, fmt: int = 2) -> Animation:
    """Quantise :class:`AnimationData` into an :class:`Animation` of format ``fmt``."""
    if fmt not in (1, 2):
        raise AlamoFormatError(f"animation format must be 1 or 2, not {fmt!r}")
    t = np.asarray(data.translation, np.float64)
    r = np.asarray(data.rotation, np.float64)
    s = np.asarray(data.scale, np.float64)
    n, frames = t.shape[:2]
    if r.shape != (n, frames, 4) or s.shape != (n, frames, 3) or t.shape != (n, frames, 3):
        raise AlamoFormatError("translation, rotation and scale must be (bones, frames, 3/4/3)")
    if frames < 1:
        raise AlamoFormatError("an animation needs at least one frame")
    for name, arr in (("translation", t), ("rotation", r), ("scale", s)):
        if not np.all(np.isfinite(arr)):
            raise AlamoFormatError(f"{name} contains NaN or infinite values")
    q_rot = np.rint(np.clip(r, -1.0, 1.0) * ROTATION_SCALE).astype(np.int16)
    t_off, t_step, t_q, t_const = quantize_ranges(t)
    s_off, s_step, s_q, s_const = quantize_ranges(s)
    r_const = np.all(q_rot == q_rot[:, :1], axis=(1, 2))
    bones = []
    for i in range(n):
        b = BoneAnimation(name=data.names[i], index=int(data.indices[i]),
                          unknown=int(data.unknown[i]) if i < len(data.unknown) else 0)
        b.translation_offset = t_off[i]
        b.translation_scale = t_step[i] if not t_const[i] else np.zeros(3, np.float32)
        b.translation = None if t_const[i] else t_q[i]
        b.scale_offset = s_off[i]
        b.scale_scale = s_step[i] if not s_const[i] else np.zeros(3, np.float32)
        b.scale = None if s_const[i] else s_q[i]
        qr = q_rot[i]
        b.default_rotation = qr[0].copy()
        b.rotation = None if r_const[i] else qr
        if data.has_visibility[i]:
            b.visibility = pack_bits(data.visible[i])
        if data.has_step[i] and fmt == 1:      # format #2 holds no step bits (0x1008)
            b.step = pack_bits(data.step[i])
        bones.append(b)
    return Animation(fmt, frames, np.float32(data.fps), bones)
