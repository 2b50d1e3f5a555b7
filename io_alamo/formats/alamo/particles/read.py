"""Decode a particle effect's chunks into :mod:`.records`, remembering the file's layout.

Empire at War / Forces of Corruption systems (root 0x900) are decoded field by field; Universe
at War systems (root 0x1500) are listed by :mod:`.uaw` and kept byte for byte. Unknown chunks
and minis are kept where they were; the writer puts them back.
"""

import struct
from dataclasses import dataclass, field

import numpy as np

from ...errors import AlamoFormatError
from ...run_cache import viewing
from ..chunk_types import ChunkType
from ..chunks import BytesLike, Chunk, read_chunks, read_minis
from ..fields import decode_cstr
from . import codec
from .uaw import decode_uaw
from .records import (COLOUR_KEY_DTYPE, COLOUR_TRACKS, FLOAT_KEY_DTYPE, GROUP_DTYPE,
                      GROUP_FIELDS, PROPERTY_BY_ID, TRACK_NAMES, Emitter, Group, ParticleSystem,
                      Track, UawParticleSystem)

ROOT = ChunkType.PARTICLE_EFFECT
ROOT_UAW = ChunkType.PARTICLE_EFFECT_UAW

# chunk ids inside the root (0x900) and an emitter (0x700), by the tag the layout uses
SYSTEM_CHUNKS = {0x0: "name", 0x1: "id", 0x2: "persist", 0x800: "emitters"}
EMITTER = 0x700
EMITTER_CHUNKS = {0x2: "properties", 0x3: "texture", 0x16: "name", 0x29: "groups",
                  0x1: "tracks", 0x36: "links", 0x45: "secondary_texture"}
GROUP, GROUP_DATA = 0x1100, 0x1101
TRACK_HEADER, TRACK_KEYS = 0x0, 0x1
KEY_MINI, KEY_SIZE = 5, 8
LINK_SCHEMA = {0x37: ("death", "u32"), 0x39: ("birth", "u32")}


def track_schema(colour: bool) -> dict:
    """The minis of a track's header: first/last value (a byte for colour tracks, else a
    float) and the interpolation."""
    kind = "u8" if colour else "f32"
    return {2: ("first_key", kind), 3: ("last_key", kind), 4: ("interpolation", "u32")}


@dataclass(eq=False, slots=True)
class Layout:
    """How the file laid a system or emitter out: ``order`` lists tags (see SYSTEM_CHUNKS,
    EMITTER_CHUNKS) and unknown chunks (kept as :class:`Chunk`) in file order; ``raw`` holds
    each known chunk's value as read and its exact body; ``minis`` the mini entries of
    chunks made of minis (see :mod:`.codec`)."""

    order: list = field(default_factory=list)
    raw: dict = field(default_factory=dict)
    minis: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)   # what did not match the spec, for validate


def read_particles(data: BytesLike, filename: str | None = None
                   ) -> ParticleSystem | UawParticleSystem:
    """Decode a particle .alo file (root 0x900 or 0x1500)."""
    try:
        return decode_particles(read_chunks(data))
    except AlamoFormatError as e:
        raise e.with_filename(filename)


def decode_particles(roots: list[Chunk]) -> ParticleSystem | UawParticleSystem:
    if not roots:
        raise AlamoFormatError("empty file: no chunks", offset=0)
    root = roots[0]
    if root.type == ROOT_UAW:
        return decode_uaw(roots)
    if root.type != ROOT:
        raise AlamoFormatError(f"not a particle effect: the root chunk is 0x{root.type:x}, "
                               "not 0x900 (or 0x1500)", offset=root.offset, path=root.path)
    if len(roots) > 1:
        raise AlamoFormatError("data after the particle system's root chunk",
                               offset=roots[1].offset, path=roots[1].path)
    return _system(_container(root))


def _container(chunk: Chunk) -> Chunk:
    if chunk.children is None:
        raise chunk.error("expected a chunk of chunks, found data")
    return chunk


def _data(chunk: Chunk) -> Chunk:
    if chunk.children is not None:
        raise chunk.error("expected a data chunk, found a chunk of chunks")
    return chunk


def _string(chunk, key, layout):
    text = decode_cstr(_data(chunk).data, chunk, key, None)
    layout.raw[key] = (text, bytes(chunk.data))
    return text


def _u32(chunk, key, layout, size=4):
    body = _data(chunk).data
    if len(body) != size:
        raise chunk.error(f"{key} holds {len(body)} bytes, not {size}")
    value = int.from_bytes(body, "little")
    layout.raw[key] = (value, bytes(body))
    return value


def _system(root: Chunk) -> ParticleSystem:
    system = ParticleSystem(layout=Layout())
    lay = system.layout
    for c in root.children:
        tag = SYSTEM_CHUNKS.get(c.type)
        if tag is None or tag in lay.raw or (tag == "emitters" and "emitters" in lay.order):
            lay.order.append(c)
            continue
        lay.order.append(tag)
        if tag == "name":
            system.name = _string(c, "name", lay)
        elif tag == "id":
            system.id = _u32(c, "id", lay)
        elif tag == "persist":
            system.persist = _u32(c, "persist", lay, size=1)
        else:
            system.emitters = [_emitter(e) if e.type == EMITTER else e
                               for e in _container(c).children]
    for tag in ("name", "emitters"):
        if tag not in lay.order:
            raise root.error(f"the particle system has no {tag} chunk "
                             f"(0x{_id_of(SYSTEM_CHUNKS, tag):x})")
    return system


def _id_of(table, tag):
    return next(k for k, v in table.items() if v == tag)


def _emitter(chunk: Chunk) -> Emitter:
    # groups and tracks made only when the file has none (the reader replaces the defaults)
    e = Emitter(groups=None, tracks=None, layout=Layout())
    lay = e.layout
    for c in _container(chunk).children:
        tag = EMITTER_CHUNKS.get(c.type)
        if tag is None or tag in lay.order:
            lay.order.append(c)
            continue
        lay.order.append(tag)
        if tag in ("texture", "name", "secondary_texture"):
            setattr(e, tag, _string(c, tag, lay))
        elif tag == "properties":
            _properties(e, _data(c), lay)
        elif tag == "links":
            values, lay.minis[tag] = codec.read_schema(_data(c), LINK_SCHEMA)
            e.death = values.get("death", e.death)
            e.birth = values.get("birth", e.birth)
        elif tag == "groups":
            e.groups = _groups(_container(c), lay)
        else:
            e.tracks = _tracks(_container(c), lay)
    for name in ("groups", "tracks"):
        if getattr(e, name) is None:
            setattr(e, name, _EMITTER_FIELDS[name].default_factory())
    return e


_EMITTER_FIELDS = Emitter.__dataclass_fields__


def _properties(e, chunk, lay):
    """An emitter's properties chunk: each field the first of its minis of the right size
    gives; a note for every other mini of a property's id. Inside ``read_only()``
    (``validate``) the same values and notes, without the mini list only writing needs."""
    if not viewing():
        values, lay.minis["properties"] = codec.read_schema(chunk, PROPERTY_BY_ID)
        untaken = [(mid, raw) for mid, raw, name, _ in lay.minis["properties"]
                   if name is None and mid in PROPERTY_BY_ID]
    else:
        values, untaken = {}, []
        for m in read_minis(chunk):
            known = PROPERTY_BY_ID.get(m.type)
            if known is None:
                continue
            if len(m.data) == codec.SIZES[known[1]] and known[0] not in values:
                values[known[0]] = codec.decode(known[1], m.data)
            else:
                untaken.append((m.type, m.data))
    for name, value in values.items():
        setattr(e, name, value)
    lay.notes.extend(f"property mini {mid} holds {len(raw)} bytes, not "
                     f"{codec.SIZES[PROPERTY_BY_ID[mid][1]]}" for mid, raw in untaken)


# GROUP_DTYPE as a struct: Python ints and floats, as numpy's item() gives them
_GROUP = struct.Struct("<" + "".join({"<u4": "I", "<f4": "f"}[GROUP_DTYPE[name].str]
                                     for name in GROUP_FIELDS))
assert _GROUP.size == GROUP_DTYPE.itemsize


def _groups(chunk: Chunk, lay: Layout) -> list:
    groups = []
    order = []
    viewed = viewing()
    for c in chunk.children:
        if c.type != GROUP or c.children is None or len(groups) == 3:
            order.append(c)
            continue
        data = next((d for d in c.children if d.type == GROUP_DATA and d.children is None),
                    None)
        if data is None:
            raise c.error("a particle group without its data chunk (0x1101)")
        if len(data.data) < GROUP_DTYPE.itemsize:
            raise data.error(f"group data holds {len(data.data)} bytes, not "
                             f"{GROUP_DTYPE.itemsize}")
        if viewed:      # read_only(): the same values, no layout (never written back)
            g = Group(**dict(zip(GROUP_FIELDS, _GROUP.unpack_from(data.data))))
        else:
            rec = np.frombuffer(data.data, GROUP_DTYPE, count=1)[0]
            g = Group(**{name: rec[name].item() for name in GROUP_FIELDS})
            g.layout = (g.values(), c)
        groups.append(g)
        order.append(len(groups) - 1)
    if len(groups) != 3:
        raise chunk.error(f"{len(groups)} particle groups; an emitter has 3 (velocity, "
                          "lifetime, position)")
    lay.raw["groups"] = (None, order)
    return groups


def _tracks(chunk: Chunk, lay: Layout) -> list:
    tracks = []
    order = []
    children = chunk.children
    read_track = _checked_track if viewing() else _track
    i = 0
    while i < len(children):
        c = children[i]
        if c.type != TRACK_HEADER or c.children is not None or len(tracks) == len(TRACK_NAMES):
            order.append(c)
            i += 1
            continue
        keys_chunk = None
        if i + 1 < len(children) and children[i + 1].type == TRACK_KEYS \
                and children[i + 1].children is None:
            keys_chunk = children[i + 1]
        tracks.append(read_track(len(tracks), c, keys_chunk))
        order.append(len(tracks) - 1)
        i += 2 if keys_chunk is not None else 1
    if len(tracks) != len(TRACK_NAMES):
        raise chunk.error(f"{len(tracks)} particle tracks; an emitter has {len(TRACK_NAMES)}")
    lay.raw["tracks"] = (None, order)
    return tracks


def _track(index: int, header: Chunk, keys_chunk: Chunk | None) -> Track:
    colour = index < COLOUR_TRACKS
    schema = track_schema(colour)
    values, entries = codec.read_schema(header, schema)
    t = Track(TRACK_NAMES[index], **values)
    t.keys = _keys(keys_chunk, colour) if keys_chunk is not None else None
    if t.keys is None:
        t.keys = np.zeros(0, t.key_dtype)
    raw_keys = bytes(keys_chunk.data) if keys_chunk is not None else None
    t.layout = (entries, t.keys.copy(), raw_keys)
    return t


def _checked_track(index: int, header: Chunk, keys_chunk: Chunk | None) -> None:
    """:func:`_track` inside :func:`~io_alamo.formats.run_cache.read_only` (``validate``,
    whose checks read no track): the same minis parsed and keys checked, with the same
    errors, and no record built (None in its place)."""
    read_minis(header)
    if keys_chunk is not None and not _all_keys(keys_chunk.data):
        raise _bad_key(keys_chunk)


def _all_keys(body) -> bool:
    """Whether a keys chunk's body is a run of key minis (what :func:`_key_minis` decides),
    from its type and size bytes alone."""
    n, rest = divmod(len(body), 2 + KEY_SIZE)
    if rest:
        return False
    if n > len(_KEY_TYPES):
        return _key_minis(body) is not None
    return (body[0::2 + KEY_SIZE] == _KEY_TYPES[:n]
            and body[1::2 + KEY_SIZE] == _KEY_SIZES[:n])


_KEY_TYPES, _KEY_SIZES = bytes([KEY_MINI]) * 4096, bytes([KEY_SIZE]) * 4096


_KEY_MINIS = np.dtype([("type", "u1"), ("size", "u1"), ("key", "V8")])


def _key_minis(body) -> np.ndarray | None:
    """A keys chunk's body as (type, size, key) records, when it is a run of ``05`` minis of
    8 bytes (value, time), 10 bytes each; else None."""
    n, rest = divmod(len(body), 2 + KEY_SIZE)
    if rest == 0:
        minis = np.frombuffer(body, _KEY_MINIS, count=n)
        if (minis["type"] == KEY_MINI).all() and (minis["size"] == KEY_SIZE).all():
            return minis
    return None


def _keys(chunk: Chunk, colour: bool) -> np.ndarray | None:
    """A track's keys as one structured array, read in one go (:func:`_key_minis`)."""
    minis = _key_minis(chunk.data)
    if minis is None:
        raise _bad_key(chunk)
    dtype = COLOUR_KEY_DTYPE if colour else FLOAT_KEY_DTYPE
    return np.frombuffer(minis["key"].tobytes(), dtype).copy()


def _bad_key(chunk: Chunk) -> AlamoFormatError:
    """Why a keys chunk is no run of key minis: a broken mini raises, else the first that is
    not a key is named."""
    minis = read_minis(chunk)
    bad = next(m for m in minis if m.type != KEY_MINI or len(m.data) != KEY_SIZE)
    return AlamoFormatError(f"track key mini 0x{bad.type:x} of {len(bad.data)} bytes; keys are "
                            f"0x{KEY_MINI:x} minis of {KEY_SIZE}", offset=bad.offset,
                            path=chunk.path)
