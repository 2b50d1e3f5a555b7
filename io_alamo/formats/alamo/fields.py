"""Codecs for the small values inside chunks and mini-chunks.

Floats stay numpy float32 so their bits (NaN payloads included) survive a round trip.
Strings are zero-terminated; bytes >= 0x80 are cp1252, and bytes cp1252 leaves undefined
survive as surrogates, so every name is written back byte for byte.
"""

import struct
from types import SimpleNamespace

import numpy as np

from ..errors import AlamoFormatError
from ..run_cache import own, viewing
from .chunk_types import ChunkType
from .chunks import Mini, read_minis, write_minis
from .layout import Layout, arrange

ENCODING = "cp1252"
# The chunk types as plain ints, for the readers' loops that compare every child's type: an
# IntEnum member is a lookup through the enum machinery each time (about 6x a plain name).
CT = SimpleNamespace(**{t.name: t.value for t in ChunkType})


def decode_cstr(data, where, key, layout):
    """Text up to the first NUL; the NUL and what follows it is kept in ``layout`` tails."""
    raw = bytes(data)
    nul = raw.find(b"\0")
    if nul < 0:
        raise where.error(f"string {key!r} has no zero terminator")
    if nul + 1 < len(raw) and layout is not None:
        layout.tails[key] = raw[nul + 1:]
    return raw[:nul].decode(ENCODING, "surrogateescape")


def viewed_cstr(data, where, key):
    """:func:`decode_cstr` for records only looked at (inside
    :func:`~io_alamo.formats.run_cache.read_only`): the same text and errors, no tail kept,
    and an ASCII string decoded by Python's own ASCII decoder."""
    raw = bytes(data)
    nul = raw.find(b"\0")
    if nul >= 0 and raw.isascii():
        return raw[:nul].decode("ascii")
    return decode_cstr(raw, where, key, None)


def encode_cstr(text, tail=b""):
    if not isinstance(text, str):
        raise AlamoFormatError(f"expected a string, got {type(text).__name__}")
    try:
        raw = text.encode(ENCODING, "surrogateescape")
    except UnicodeEncodeError as e:
        raise AlamoFormatError(f"name {text!r} cannot be written in cp1252: {e.reason}") from None
    if b"\0" in raw:
        raise AlamoFormatError(f"name {text!r} contains a NUL character")
    return raw + b"\0" + tail


def f32(data, n=None):
    """float32 scalar (n None) or array of n from little-endian bytes, owning a copy (a
    view inside :func:`~io_alamo.formats.run_cache.read_only`)."""
    a = own(np.frombuffer(data, "<f4", count=1 if n is None else n))
    return a[0] if n is None else a


def f32_bytes(value, n=None):
    a = np.asarray(value, dtype="<f4")
    if (n is None and a.shape != ()) or (n is not None and a.shape != (n,)):
        raise AlamoFormatError(f"expected {'a float' if n is None else f'{n} floats'}, got shape {a.shape}")
    return a.tobytes()


# Mini-chunk value kinds: (decode(data) -> value, encode(value, width) -> bytes, sizes allowed)
def _int_codec(fmt):
    s = struct.Struct(fmt)

    def enc(v, width=None):
        try:
            return s.pack(int(v))
        except struct.error:
            raise AlamoFormatError(f"integer {v!r} does not fit the field ({fmt})") from None
    return (lambda d: s.unpack(d)[0]), enc, (s.size,)


def _flex_index_decode(d):
    return struct.unpack("<h" if len(d) == 2 else "<i", d)[0]


def _flex_index_encode(v, width=2):
    try:
        return struct.pack("<h" if width == 2 else "<i", int(v))
    except struct.error:
        raise AlamoFormatError(f"index {v!r} does not fit {width} bytes") from None


KINDS = {
    "u32": _int_codec("<I"),
    "i32": _int_codec("<i"),
    "f32": (lambda d: f32(d), lambda v, w=None: f32_bytes(v), (4,)),
    "vec3": (lambda d: f32(d, 3), lambda v, w=None: f32_bytes(v, 3), (12,)),
    "vec4": (lambda d: f32(d, 4), lambda v, w=None: f32_bytes(v, 4), (16,)),
    "q16": (lambda d: own(np.frombuffer(d, "<i2", 4)),
            lambda v, w=None: _q16_bytes(v), (8,)),
    "index": (_flex_index_decode, _flex_index_encode, (2, 4)),
    "str": (None, None, None),
}


_F4, _I2 = np.dtype("<f4"), np.dtype("<i2")
# The kinds as decoded inside read_only() (validate): the same values, as the read-only views
# ``own`` hands out there, made in one step (a mini's size is checked before it is decoded).
VIEWED_KINDS = {**KINDS,
                "f32": (lambda d: np.frombuffer(d, _F4)[0], *KINDS["f32"][1:]),
                "vec3": (lambda d: np.frombuffer(d, _F4), *KINDS["vec3"][1:]),
                "vec4": (lambda d: np.frombuffer(d, _F4), *KINDS["vec4"][1:]),
                "q16": (lambda d: np.frombuffer(d, _I2), *KINDS["q16"][1:])}


def _q16_bytes(v):
    a = np.asarray(v)
    if a.shape != (4,):
        raise AlamoFormatError(f"expected 4 int16 values, got shape {a.shape}")
    return a.astype("<i2").tobytes()


def decode_minis(chunk, schema):
    """Decode ``chunk``'s mini-chunks by ``schema`` {type: (name, kind)}.

    Returns (values by name, layout). Unknown mini-chunks, repeats of a known one, their
    order, string tails and integer widths go into the layout; inside
    :func:`~io_alamo.formats.run_cache.read_only` (records only looked at, never written)
    the layout is None, and the checks and errors are the same.
    """
    viewed = viewing()
    layout = None if viewed else Layout()
    kinds = VIEWED_KINDS if viewed else KINDS
    values = {}
    for m in read_minis(chunk):
        spec = schema.get(m.type)
        if spec is None or spec[0] in values:
            if layout is not None:
                layout.order.append(Mini(m.type, bytes(m.data)))
            continue
        name, kind = spec
        if kind == "str":
            values[name] = (viewed_cstr(m.data, chunk, m.type) if viewed
                            else decode_cstr(m.data, chunk, m.type, layout))
        else:
            dec, _, sizes = kinds[kind]
            if len(m.data) not in sizes:
                raise chunk.error(
                    f"mini-chunk 0x{m.type:x} ({name}) is {len(m.data)} bytes, expected "
                    + " or ".join(map(str, sizes)), at=m.offset - chunk.body_offset - 2
                    if m.offset is not None and chunk.offset is not None else None)
            if kind == "index" and layout is not None:
                layout.widths[m.type] = len(m.data)
            values[name] = dec(m.data)
        if layout is not None:
            layout.order.append(m.type)
    return values, layout


def encode_minis(values, schema, layout):
    """Inverse of :func:`decode_minis`; ``None`` values are left out (optional minis)."""
    slots = {}
    for mtype, (name, kind) in schema.items():
        v = values.get(name)
        if v is None:
            continue
        if kind == "str":
            data = encode_cstr(v, layout.tails.get(mtype, b"") if layout else b"")
        else:
            enc = KINDS[kind][1]
            width = layout.widths.get(mtype, 2) if (layout and kind == "index") else 2
            data = enc(v, width)
        slots[mtype] = Mini(mtype, data)
    return write_minis(arrange(slots, list(schema), layout))


def check_size(chunk, need, what):
    if len(chunk.data) < need:
        raise chunk.error(f"{what} is {len(chunk.data)} bytes, needs at least {need}")
