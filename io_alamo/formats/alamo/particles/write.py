"""Encode :mod:`.records` back into a particle .alo.

A record read from a file is written in the file's own layout: each chunk and mini as it was
read unless its value changed, unknown chunks and minis in their places. A record made from
nothing gets the layout the particle editors write (every property mini 4-73 in id order).
"""

import numpy as np

from ...errors import AlamoFormatError
from ..chunks import Chunk, container, write_chunks
from ..fields import encode_cstr
from . import codec
from .read import (EMITTER, EMITTER_CHUNKS, GROUP, GROUP_DATA, LINK_SCHEMA, ROOT, SYSTEM_CHUNKS,
                   TRACK_HEADER, TRACK_KEYS, track_schema)
from .records import (GROUP_DTYPE, NOT_WRITTEN_NEW, TRACK_DEFAULTS, PROPERTY_BY_ID, PROPERTY_DEFAULTS, TRACK_NAMES,
                      UNNAMED_PROPERTY_DEFAULTS, Emitter, ParticleSystem, UawParticleSystem)

SYSTEM_ORDER = ("name", "id", "emitters", "persist")
EMITTER_ORDER = ("properties", "texture", "name", "groups", "tracks", "links",
                 "secondary_texture")
_SYSTEM_IDS = {tag: cid for cid, tag in SYSTEM_CHUNKS.items()}
_EMITTER_IDS = {tag: cid for cid, tag in EMITTER_CHUNKS.items()}
_LINK_DEFAULTS = {"death": 0xFFFFFFFF, "birth": 0xFFFFFFFF}


def write_particles(system: ParticleSystem | UawParticleSystem) -> bytes:
    """The file's bytes; raises :class:`AlamoFormatError` naming the emitter and field that
    cannot be written, before any byte is produced."""
    if isinstance(system, UawParticleSystem):
        return write_chunks(system.chunks)
    return write_chunks([system_chunk(system)])


def system_chunk(system: ParticleSystem) -> Chunk:
    lay = system.layout
    order = lay.order if lay is not None else SYSTEM_ORDER
    raw = lay.raw if lay is not None else {}
    children = []
    for item in order:
        if isinstance(item, Chunk):
            children.append(item)
        elif item == "emitters":
            children.append(container(_SYSTEM_IDS[item], [
                e if isinstance(e, Chunk) else _emitter_chunk(e, i)
                for i, e in enumerate(system.emitters)]))
        else:
            value = getattr(system, item)
            if item == "name":
                body = _kept(raw, item, value, lambda v: encode_cstr(v))
            else:
                size = 4 if item == "id" else 1
                body = _kept(raw, item, value, lambda v: _uint(v, size, item))
            children.append(Chunk(_SYSTEM_IDS[item], data=body))
    return container(ROOT, children)


def _kept(raw, key, value, encode):
    """The body as read when ``value`` is unchanged, else ``encode(value)``."""
    if key in raw and codec.same(raw[key][0], value):
        return raw[key][1]
    return encode(value)


def _uint(value, size, what):
    try:
        return int(value).to_bytes(size, "little")
    except (OverflowError, TypeError, ValueError):
        raise AlamoFormatError(f"{what} {value!r} does not fit {size} byte(s)") from None


def _emitter_chunk(e: Emitter, index: int) -> Chunk:
    try:
        return container(EMITTER, _emitter_children(e))
    except AlamoFormatError as err:
        raise AlamoFormatError(f"emitter {index} ({e.name!r}): {err.message}") from None


def _emitter_children(e: Emitter) -> list:
    lay = e.layout
    order = lay.order if lay is not None else EMITTER_ORDER
    raw = lay.raw if lay is not None else {}
    minis = lay.minis if lay is not None else {}
    children = []
    for item in order:
        if isinstance(item, Chunk):
            children.append(item)
            continue
        cid = _EMITTER_IDS[item]
        if item in ("texture", "name", "secondary_texture"):
            children.append(Chunk(cid, data=_kept(raw, item, getattr(e, item), encode_cstr)))
        elif item == "properties":
            values = {name: getattr(e, name) for name in PROPERTY_DEFAULTS}
            children.append(Chunk(cid, data=codec.write_schema(
                minis.get(item), values, PROPERTY_BY_ID, PROPERTY_DEFAULTS,
                UNNAMED_PROPERTY_DEFAULTS, NOT_WRITTEN_NEW)))
        elif item == "links":
            values = {"death": e.death, "birth": e.birth}
            children.append(Chunk(cid, data=codec.write_schema(
                minis.get(item), values, LINK_SCHEMA, _LINK_DEFAULTS)))
        elif item == "groups":
            children.append(container(cid, _group_chunks(e, raw.get("groups"))))
        else:
            children.append(container(cid, _track_chunks(e, raw.get("tracks"))))
    return children


def _group_chunks(e: Emitter, kept) -> list:
    if len(e.groups) != 3:
        raise AlamoFormatError(f"{len(e.groups)} groups; an emitter has 3")
    order = kept[1] if kept else (0, 1, 2)
    out = []
    for item in order:
        if isinstance(item, Chunk):
            out.append(item)
            continue
        g = e.groups[item]
        values = g.values()
        if g.layout is not None and codec.same(tuple(g.layout[0]), values):
            out.append(g.layout[1])
            continue
        try:
            body = np.array([values], GROUP_DTYPE).tobytes()
        except (OverflowError, ValueError, TypeError) as err:
            raise AlamoFormatError(f"group {item}: {err}") from None
        if g.layout is None:
            out.append(container(GROUP, [Chunk(GROUP_DATA, data=body)]))
            continue
        old = g.layout[1]
        kids = [Chunk(GROUP_DATA, data=body + bytes(c.data[GROUP_DTYPE.itemsize:]))
                if c.type == GROUP_DATA and not c.is_container else c for c in old.children]
        out.append(container(GROUP, kids))
    return out


def _track_chunks(e: Emitter, kept) -> list:
    if len(e.tracks) != len(TRACK_NAMES):
        raise AlamoFormatError(f"{len(e.tracks)} tracks; an emitter has {len(TRACK_NAMES)}")
    order = kept[1] if kept else range(len(TRACK_NAMES))
    out = []
    for item in order:
        if isinstance(item, Chunk):
            out.append(item)
            continue
        t = e.tracks[item]
        entries, old_keys, old_raw = t.layout if t.layout is not None else (None, None, b"")
        values = {"first_key": t.first_key, "last_key": t.last_key,
                  "interpolation": t.interpolation}
        out.append(Chunk(TRACK_HEADER, data=codec.write_schema(
            entries, values, track_schema(t.is_colour),
            dict(zip(("first_key", "last_key", "interpolation"), TRACK_DEFAULTS[t.name])))))
        keys = np.asarray(t.keys)
        if old_raw is not None and old_keys is not None and _same_keys(keys, old_keys):
            body = old_raw
        else:
            body = _key_bytes(t, keys)
        if old_raw is not None:             # a file's track without keys chunk stays without
            out.append(Chunk(TRACK_KEYS, data=body))
    return out


def _same_keys(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _key_bytes(t, keys: np.ndarray) -> bytes:
    """Keys as ``05`` minis of (value, time), 10 bytes each, built as one array."""
    dtype = t.key_dtype
    if keys.dtype != dtype:
        try:
            keys = np.array([tuple(k) for k in keys.tolist()], dtype) if keys.dtype.names \
                else np.zeros(0, dtype) if keys.size == 0 else None
        except (OverflowError, ValueError, TypeError) as err:
            raise AlamoFormatError(f"track {t.name}: keys do not fit: {err}") from None
        if keys is None:
            raise AlamoFormatError(f"track {t.name}: keys must be a structured array with "
                                   "fields value and time")
    if len(keys) > 25_000:
        raise AlamoFormatError(f"track {t.name}: {len(keys):,} keys; one chunk holds at most "
                               "25,000")
    out = np.zeros(len(keys), np.dtype([("type", "u1"), ("size", "u1"), ("key", dtype)]))
    out["type"] = 5
    out["size"] = 8
    out["key"] = keys
    return out.tobytes()
