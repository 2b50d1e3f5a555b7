"""Alamo animations (.ala): records, and reading and writing both formats.

The records hold the file's own quantised data (uint16 translations and scales with a
per-axis offset and scale, int16 quaternions, packed visibility and step bits), so a file
reads and writes back byte for byte, and converting between format #1 (Empire at War,
per-bone chunks) and format #2 (Forces of Corruption, per-frame blocks) loses nothing.
:mod:`.ala_codec` turns these into float arrays and back.
"""

import copy
from dataclasses import dataclass, field

import numpy as np

from ..errors import AlamoFormatError
from ..run_cache import own, viewing
from .chunk_types import AnimationMini, ChunkType
from .chunks import BytesLike, Chunk, Mini, read_chunks, write_chunks
from .fields import CT, decode_minis, encode_minis
from .layout import Layout, arrange, count_for, note_count, sub_of

HEADER_SCHEMA = {1: ("num_frames", "u32"), 2: ("fps", "f32"), 3: ("num_bones", "u32"),
                 11: ("rotation_frame_size", "u32"), 12: ("translation_frame_size", "u32"),
                 13: ("scale_frame_size", "u32")}
BONE_SCHEMA = {4: ("name", "str"), 5: ("index", "u32"), 10: ("unknown", "u32"),
               6: ("translation_offset", "vec3"), 7: ("translation_scale", "vec3"),
               8: ("scale_offset", "vec3"), 9: ("scale_scale", "vec3"),
               14: ("translation_index", "index"), 15: ("scale_index", "index"),
               16: ("rotation_index", "index"), 17: ("default_rotation", "q16")}
FORMAT2_ONLY = ("translation_index", "scale_index", "rotation_index", "default_rotation")
# Format #1 bone headers have no format #2 minis: any there are kept raw, like unknown ones.
BONE_SCHEMA_V1 = {k: v for k, v in BONE_SCHEMA.items() if v[0] not in FORMAT2_ONLY}
# Mini-chunk types of format #2 only: raw copies of them (repeats, or strays in a format #1
# file) are dropped when converting, so that the other format reads back as itself (so are
# raw repeats of either format's data chunks).
FORMAT2_HEADER_MINIS = (AnimationMini.ROTATION_FRAME_SIZE, AnimationMini.TRANSLATION_FRAME_SIZE,
                        AnimationMini.SCALE_FRAME_SIZE)
FORMAT2_BONE_MINIS = (AnimationMini.TRANSLATION_INDEX, AnimationMini.SCALE_INDEX,
                      AnimationMini.ROTATION_INDEX, AnimationMini.DEFAULT_ROTATION)

# Format #2 frame-block chunks: (chunk type, track attribute, values per bone, dtype)
BLOCKS = {"translations": (ChunkType.TRANSLATION_FRAMES, "translation", 3, "<u2"),
          "rotations": (ChunkType.ROTATION_FRAMES, "rotation", 4, "<i2"),
          "scales": (ChunkType.SCALE_FRAMES, "scale", 3, "<u2")}
BLOCK_INDEX = {"translation": "translation_index", "rotation": "rotation_index",
               "scale": "scale_index"}
BLOCK_FRAME_SIZE = {"translation": "translation_frame_size",
                    "rotation": "rotation_frame_size", "scale": "scale_frame_size"}
# Format #1 per-bone track chunks
TRACKS_V1 = {ChunkType.TRANSLATION_TRACK: ("translation", 3, "<u2"),
             ChunkType.SCALE_TRACK: ("scale", 3, "<u2"),
             ChunkType.ROTATION_TRACK: ("rotation", 4, "<i2")}
BITS = {ChunkType.VISIBILITY_BITS: "visibility", ChunkType.STEP_BITS: "step"}
# Data chunks that hold mini-chunks
MINI_CHUNK_TYPES = (ChunkType.ANIMATION_HEADER, ChunkType.BONE_ANIMATION_HEADER)
# Far above any real animation (10,000 frames is already long), low enough that decoding a
# file which stores no per-frame data cannot ask for gigabytes.
MAX_FRAMES = 100_000


def _vec(value):
    return field(default_factory=lambda: np.array(value, "<f4"))


@dataclass(eq=False, slots=True)
class BoneAnimation:
    """One bone's tracks, quantised as in the file.

    A track that is ``None`` is constant: translation = ``translation_offset``, scale =
    ``scale_offset``, rotation = ``default_rotation`` (identity when that is None too).
    """

    name: str
    index: int
    translation_offset: np.ndarray = _vec([0, 0, 0])
    translation_scale: np.ndarray = _vec([0, 0, 0])
    scale_offset: np.ndarray = _vec([1, 1, 1])
    scale_scale: np.ndarray = _vec([0, 0, 0])
    unknown: int = 0                       # 0x1003 mini 10 (0 or 1; meaning unknown)
    translation: np.ndarray | None = None  # (frames, 3) uint16
    scale: np.ndarray | None = None        # (frames, 3) uint16
    rotation: np.ndarray | None = None     # (frames, 4) int16 x, y, z, w / 32767
    default_rotation: np.ndarray | None = None  # (4,) int16
    visibility: np.ndarray | None = None   # packed bits, uint8, frame i = byte i//8 bit i%8
    step: np.ndarray | None = None         # packed bits like visibility
    translation_index: int | None = None   # format #2 offsets into the frame blocks
    scale_index: int | None = None
    rotation_index: int | None = None
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Animation:
    format: int                            # 1 (Empire at War) or 2 (Forces of Corruption)
    num_frames: int
    fps: np.float32
    bones: list[BoneAnimation] = field(default_factory=list)
    rotation_frame_size: int | None = None  # format #2 values per frame block, as read
    translation_frame_size: int | None = None
    scale_frame_size: int | None = None
    layout: Layout | None = field(default=None, repr=False)

    kind = "animation"


# --- reading ----------------------------------------------------------------------------

def read_ala(data: BytesLike, filename: str | None = None) -> Animation:
    """Decode a whole .ala file into an :class:`Animation`."""
    try:
        return decode_ala(read_chunks(data))
    except AlamoFormatError as e:
        raise e.with_filename(filename)


def decode_ala(roots: list[Chunk]) -> Animation:
    root_layout = Layout()
    anim_chunk = None
    for c in roots:
        if c.type == CT.ANIMATION and anim_chunk is None and c.children is not None:
            anim_chunk = c
            root_layout.order.append("animation")
        else:
            root_layout.order.append(c)
    if anim_chunk is None:
        first = f"0x{roots[0].type:x}" if roots else "nothing"
        raise AlamoFormatError(f"not an Alamo animation: no 0x1000 chunk (file starts with {first})",
                               offset=0)
    layout = Layout(sub={"roots": root_layout})
    header = None
    bone_chunks = []
    blocks = {}
    for c in anim_chunk.children:
        if c.type == CT.ANIMATION_HEADER and header is None and c.children is None:
            header, layout.sub["header"] = decode_minis(c, HEADER_SCHEMA)
            header_chunk = c
            layout.order.append("header")
        elif c.type == CT.BONE_ANIMATION and c.children is not None:
            layout.order.append(("bone", len(bone_chunks)))
            bone_chunks.append(c)
        elif (key := _block_key(c.type)) and key not in blocks and c.children is None:
            blocks[key] = c
            layout.order.append(key)
        else:
            layout.order.append(c)
    if header is None:
        raise anim_chunk.error("missing animation header (0x1001)")
    for name in ("num_frames", "fps", "num_bones"):
        if name not in header:
            raise header_chunk.error(f"animation header lacks {name}")
    fmt = 2 if any(k in header for k in ("rotation_frame_size", "translation_frame_size",
                                          "scale_frame_size")) else 1
    frames = header["num_frames"]
    if frames > MAX_FRAMES:
        raise header_chunk.error(f"{frames} frames; more than the {MAX_FRAMES:,} this reader accepts")
    note_count(layout, "bones", header["num_bones"], len(bone_chunks))
    anim = Animation(fmt, frames, header["fps"], [], header.get("rotation_frame_size"),
                     header.get("translation_frame_size"), header.get("scale_frame_size"), layout)
    read_bone = _viewed_bone if viewing() else _bone
    anim.bones = [read_bone(c, frames, fmt) for c in bone_chunks]
    if fmt == 2:
        _read_blocks(anim, blocks, anim_chunk)
    elif blocks:
        raise next(iter(blocks.values())).error("format #2 frame data in a format #1 animation")
    return anim


def _offset(bone, track):
    at = getattr(bone, BLOCK_INDEX[track])
    return -1 if at is None else at


def _block_key(ctype):
    return next((k for k, (t, *_) in BLOCKS.items() if t == ctype), None)


def _bone(chunk, frames, fmt):
    layout = Layout()
    values = head_chunk = None
    bone_data = {}
    for c in chunk.children:
        if c.type == CT.BONE_ANIMATION_HEADER and values is None and c.children is None:
            schema = BONE_SCHEMA if fmt == 2 else BONE_SCHEMA_V1
            values, layout.sub["header"] = decode_minis(c, schema)
            head_chunk = c
            layout.order.append("header")
        elif c.type in BITS and BITS[c.type] not in bone_data and c.children is None:
            bone_data[BITS[c.type]] = own(_bits(c, frames))
            layout.order.append(BITS[c.type])
        elif fmt == 1 and c.type in TRACKS_V1 and c.children is None \
                and TRACKS_V1[c.type][0] not in layout.order:
            name, arr = _track_v1(c, frames)
            bone_data[name] = own(arr)
            layout.order.append(TRACKS_V1[c.type][0])
        else:
            layout.order.append(c)
    return _bone_record(chunk, values, head_chunk, layout, bone_data)


def _viewed_bone(chunk, frames, fmt):
    """:func:`_bone` inside :func:`~io_alamo.formats.run_cache.read_only` (``validate``):
    the same chunks taken, the same checks and errors, in the same order, but no layout and
    only the arrays a check looks at (the rotations), not the translation, scale and bit
    tracks only writing back needs."""
    values = head_chunk = None
    taken = set()
    bone_data = {}
    for c in chunk.children:
        ctype = c.type
        if c.children is not None:
            continue
        if ctype == CT.BONE_ANIMATION_HEADER and values is None:
            values = decode_minis(c, BONE_SCHEMA if fmt == 2 else BONE_SCHEMA_V1)[0]
            head_chunk = c
        elif ctype in BITS and BITS[ctype] not in taken:
            _bits(c, frames)
            taken.add(BITS[ctype])
        elif fmt == 1 and ctype in TRACKS_V1 and TRACKS_V1[ctype][0] not in taken:
            name, arr = _track_v1(c, frames)
            taken.add(TRACKS_V1[ctype][0])
            if name != "translation" and name != "scale":
                bone_data[name] = arr
    return _bone_record(chunk, values, head_chunk, None, bone_data)


def _bits(c, frames):
    """A visibility or step bits chunk's bytes, which must be one bit per frame."""
    want = (frames + 7) // 8
    if len(c.data) != want:
        raise c.error(f"{BITS[c.type]} bits are {len(c.data)} bytes; {frames} frames "
                      f"need {want}")
    return np.frombuffer(c.data, np.uint8)


def _track_v1(c, frames):
    """(attribute, array) of a format #1 track chunk: a track of every frame, or one
    rotation (the default rotation)."""
    name, width, dtype = TRACKS_V1[c.type]
    n = len(c.data) // (2 * width)
    if len(c.data) % (2 * width) or n not in (frames, 1) or (n == 1 and name != "rotation"
                                                             and frames != 1):
        raise c.error(f"{name} data is {len(c.data)} bytes; {frames} frames need "
                      f"{frames * width * 2}")
    arr = np.frombuffer(c.data, dtype).reshape(n, width)
    if name == "rotation" and len(c.data) == 8:
        return "default_rotation", arr[0]
    return name, arr


def _bone_record(chunk, values, head_chunk, layout, bone_data):
    if values is None:
        raise chunk.error("missing bone animation header (0x1003)")
    for name in ("name", "index"):
        if name not in values:
            raise head_chunk.error(f"bone animation header lacks {name}")
    return BoneAnimation(layout=layout, **values, **bone_data)


def _read_blocks(anim, blocks, anim_chunk):
    frames = anim.num_frames
    for key, (ctype, track, width, dtype) in BLOCKS.items():
        size = getattr(anim, BLOCK_FRAME_SIZE[track]) or 0
        chunk = blocks.get(key)
        have = len(chunk.data) if chunk is not None else 0
        if have != frames * size * 2:
            where = chunk if chunk is not None else anim_chunk
            raise where.error(f"{key} block is {have} bytes; {frames} frames of {size} values "
                              f"need {frames * size * 2}")
        if chunk is not None:
            data = np.frombuffer(chunk.data, dtype).reshape(frames, size)
            anim.layout.tails[key] = bytes(chunk.data)    # values no bone uses survive
        else:
            data = np.zeros((frames, size), dtype)          # no chunk: no frames or no values
        used = sum(width for b in anim.bones if _offset(b, track) >= 0)
        if used > 2 * size:
            # bones may share values, but not so much that a small file decodes to gigabytes
            raise anim_chunk.error(f"the bones read {used} {track} values per frame from a "
                                   f"block of {size}: more than twice over")
        for bone in anim.bones:
            at = getattr(bone, BLOCK_INDEX[track])
            if at is None or at == -1:
                setattr(bone, BLOCK_INDEX[track], -1 if at is not None else None)
                continue
            if at < 0 or at + width > size:
                raise anim_chunk.error(f"bone {bone.name!r}: {track} index {at} is outside "
                                       f"the frame block of {size} values")
            setattr(bone, track, own(data[:, at:at + width]))


# --- writing ----------------------------------------------------------------------------

def write_ala(anim: Animation) -> bytes:
    """Encode an :class:`Animation` to bytes in its ``format``."""
    return write_chunks(encode_ala(anim), MINI_CHUNK_TYPES)


def encode_ala(anim: Animation) -> list[Chunk]:
    if anim.format not in (1, 2):
        raise AlamoFormatError(f"animation format must be 1 or 2, not {anim.format!r}")
    frames = int(anim.num_frames)
    lay = anim.layout
    header = {"num_frames": frames, "fps": anim.fps,
              "num_bones": count_for(lay, "bones", len(anim.bones))}
    slots = {}
    bones = anim.bones
    head = sub_of(lay, "header")
    # only a file read as format #2 can have bones read without a format #2 mini-chunk;
    # every other bone of a format #2 file gets all four (the game's loader needs them)
    read_as_2 = head is not None and any(t in head.order for t in FORMAT2_HEADER_MINIS)
    if anim.format == 2:
        sizes, indices, blocks = _frame_blocks(anim, read_as_2)
        for mtype, (name, _) in HEADER_SCHEMA.items():
            # a frame size the file left out stays out while there is nothing to count
            if read_as_2 and name in sizes and _absent(head, mtype) and not sizes[name]:
                sizes[name] = None
        header.update(sizes)
        for key, data in blocks.items():
            if data.size or (lay is not None and key in lay.order):
                slots[key] = Chunk(BLOCKS[key][0], data=data.tobytes())
    else:
        indices = [{} for _ in bones]
    slots["header"] = Chunk(ChunkType.ANIMATION_HEADER,
                            data=encode_minis(header, HEADER_SCHEMA, sub_of(lay, "header")))
    for i, bone in enumerate(bones):
        slots[("bone", i)] = _bone_chunk(bone, frames, anim.format, indices[i], read_as_2)
    order = ["header"] + [("bone", i) for i in range(len(bones))] + list(BLOCKS)
    anim_chunk = Chunk(ChunkType.ANIMATION, children=arrange(slots, order, lay))
    return arrange({"animation": anim_chunk}, ["animation"], sub_of(lay, "roots"))


def _track(bone, name, frames, width):
    arr = getattr(bone, name)
    if arr is None:
        return None
    arr = np.asarray(arr)
    if arr.shape != (frames, width):
        raise AlamoFormatError(f"bone {bone.name!r}: {name} track must be ({frames}, {width}), "
                               f"got {arr.shape}")
    return arr


def _frame_blocks(anim, read_as_2=False):
    """Format #2: place each bone's tracks in the per-frame blocks.

    Offsets as read are kept when every bone still reads its own values there (bones may
    share values, as a repeated bone does), on top of the block as read, so values no bone
    uses survive too; otherwise every bone is given fresh offsets in bone order.
    """
    frames = int(anim.num_frames)
    sizes, blocks = {}, {}
    indices = [{} for _ in anim.bones]
    for key, (_, track, width, dtype) in BLOCKS.items():
        have = [(i, _track(b, track, frames, width)) for i, b in enumerate(anim.bones)]
        have = [(i, a) for i, a in have if a is not None]
        stored = [getattr(anim.bones[i], BLOCK_INDEX[track]) for i, _ in have]
        offsets = None
        if all(s is not None and s >= 0 for s in stored):
            size = max([s + width for s in stored], default=0)
            declared = getattr(anim, BLOCK_FRAME_SIZE[track])
            if declared is not None and declared >= size:
                size = declared
            block = _block_as_read(anim, key, frames, size, dtype)
            for (i, arr), at in zip(have, stored):
                block[:, at:at + width] = arr
            if all(np.array_equal(block[:, at:at + width], arr)
                   for (i, arr), at in zip(have, stored)):
                offsets = stored
        if offsets is None:
            offsets = [k * width for k in range(len(have))]
            size = len(have) * width
            block = np.zeros((frames, size), dtype)
            for (i, arr), at in zip(have, offsets):
                block[:, at:at + width] = arr
        for (i, arr), at in zip(have, offsets):
            indices[i][BLOCK_INDEX[track]] = at
        mtype = _INDEX_MINI[track]
        for i, b in enumerate(anim.bones):
            # a bone read without this mini-chunk (from a format #2 file) is written without
            # it; any other bone has it (-1: no track), as the game's loader requires
            absent = read_as_2 and getattr(b, BLOCK_INDEX[track]) is None and \
                _absent(sub_of(b.layout, "header"), mtype)
            indices[i].setdefault(BLOCK_INDEX[track], None if absent else -1)
        if max(offsets, default=0) > 0x7FFF:
            raise AlamoFormatError(f"format #2 {track} block too large ({size} values per frame)")
        sizes[BLOCK_FRAME_SIZE[track]] = size
        blocks[key] = block
    return sizes, indices, blocks


def _block_as_read(anim, key, frames, size, dtype):
    raw = anim.layout.tails.get(key) if anim.layout is not None else None
    if raw is not None and len(raw) == frames * size * 2:
        return np.frombuffer(raw, dtype).reshape(frames, size).copy()
    return np.zeros((frames, size), dtype)


_INDEX_MINI = {"translation": AnimationMini.TRANSLATION_INDEX,
               "scale": AnimationMini.SCALE_INDEX, "rotation": AnimationMini.ROTATION_INDEX}


def _bone_chunk(bone, frames, fmt, indices, read_as_2=False):
    lay = bone.layout
    values = {name: getattr(bone, name) for name, _ in BONE_SCHEMA.values()}
    for name in FORMAT2_ONLY:
        values[name] = None
    slots = {}
    head = sub_of(lay, "header")
    if fmt == 2:
        values.update(indices)
        default = bone.default_rotation
        if default is None and not (read_as_2 and _absent(head, AnimationMini.DEFAULT_ROTATION)):
            default = bone.rotation[0] if bone.rotation is not None else [0, 0, 0, 32767]
        values["default_rotation"] = default
    else:
        for ctype, (name, width, dtype) in TRACKS_V1.items():
            arr = _track(bone, name, frames, width)
            if arr is None and name == "rotation" and bone.default_rotation is not None:
                arr = np.asarray(bone.default_rotation).reshape(1, 4)
            if arr is not None:
                slots[name] = Chunk(ctype, data=arr.astype(dtype).tobytes())
    for ctype, name in BITS.items():
        bits = getattr(bone, name)
        if bits is not None:
            bits = np.asarray(bits, np.uint8)
            if bits.shape != ((frames + 7) // 8,):
                raise AlamoFormatError(f"bone {bone.name!r}: {name} must be "
                                       f"{(frames + 7) // 8} packed bytes")
            slots[name] = Chunk(ctype, data=bits.tobytes())
    for mtype, (name, _) in BONE_SCHEMA.items():
        # a mini-chunk the file left out stays out while the value is still the default
        if _absent(head, mtype) and name in _BONE_DEFAULTS and values[name] is not None \
                and np.asarray(values[name]).tobytes() == _BONE_DEFAULTS[name]:
            values[name] = None
    slots["header"] = Chunk(ChunkType.BONE_ANIMATION_HEADER,
                            data=encode_minis(values, BONE_SCHEMA, sub_of(lay, "header")))
    order = ["header", "translation", "scale", "rotation", "visibility", "step"]
    return Chunk(ChunkType.BONE_ANIMATION, children=arrange(slots, order, lay))


def _absent(head_layout, mtype):
    """True if a header read from a file had no mini-chunk ``mtype``."""
    return head_layout is not None and bool(head_layout.order) and mtype not in head_layout.order


_BONE_DEFAULTS = {name: np.asarray(getattr(BoneAnimation("", 0), name)).tobytes()
                  for name in ("translation_offset", "translation_scale", "scale_offset",
                               "scale_scale", "unknown")}


def convert_animation(anim: Animation, fmt: int) -> Animation:
    """The same animation in format ``fmt`` (1 or 2); the quantised data carries over as is,
    except step bits, which format #2 does not hold (see :func:`drop_step_bits`).

    The records and layouts are new; the track arrays are shared with ``anim`` (writing
    never changes them), which keeps converting a large animation fast.
    """
    if fmt not in (1, 2):
        raise AlamoFormatError(f"animation format must be 1 or 2, not {fmt!r}")
    out = copy.copy(anim)
    out.layout = _copy_layout(anim.layout)
    out.bones = [copy.copy(b) for b in anim.bones]
    for b in out.bones:
        b.layout = _copy_layout(b.layout)
    if out.format != fmt:
        out.format = fmt
        if fmt == 2:
            drop_step_bits(out)
        out.rotation_frame_size = out.translation_frame_size = out.scale_frame_size = None
        _drop_raw_minis(sub_of(out.layout, "header"), FORMAT2_HEADER_MINIS)
        _drop_raw_chunks(out.layout, [t for t, *_ in BLOCKS.values()])
        for b in out.bones:
            # new offsets are given when written (-1: no track, in format #2)
            b.translation_index = b.scale_index = b.rotation_index = -1 if fmt == 2 else None
            _drop_raw_minis(sub_of(b.layout, "header"), FORMAT2_BONE_MINIS)
            _drop_raw_chunks(b.layout, TRACKS_V1)
            if fmt == 2 and b.default_rotation is None:
                b.default_rotation = (b.rotation[0].copy() if b.rotation is not None
                                      else np.array([0, 0, 0, 32767], np.int16))
    return out


def drop_step_bits(anim):
    """Format #2 keeps no step bits: no Forces of Corruption file has a 0x1008 chunk (0 of
    1,080) and the older community plugin's reader fails on one."""
    for b in anim.bones:
        b.step = None
        if b.layout is not None:
            b.layout.order = [c for c in b.layout.order
                              if c != "step" and not (isinstance(c, Chunk) and c.type == 0x1008)]


def _copy_layout(layout):
    if not isinstance(layout, Layout):
        return layout
    return Layout(list(layout.order), dict(layout.tails), dict(layout.widths),
                  {k: _copy_layout(v) for k, v in layout.sub.items()}, dict(layout.counts))


def _drop_raw_minis(layout, types):
    if layout is not None:
        layout.order = [m for m in layout.order if not (isinstance(m, Mini) and m.type in types)]


def _drop_raw_chunks(layout, types):
    """Repeats of one format's data chunks, kept raw, would be read as data in the other."""
    if layout is not None:
        layout.order = [c for c in layout.order if not (isinstance(c, Chunk) and c.type in types)]
