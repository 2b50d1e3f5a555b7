"""Mini-chunk lists with a schema: decode the minis a record names, keep the rest, and write
each one back as read unless its value changed.

An entry of a read list is ``(mini id, bytes as read, field name or None, value as read)``;
the name is None for minis the schema does not know (or whose size it does not expect), which
are written back untouched, in place.
"""

import math
import struct

from ...errors import AlamoFormatError
from ..chunks import Chunk, Mini, read_minis, write_minis

_STRUCTS = {"u32": struct.Struct("<I"), "u8": struct.Struct("<B"), "f32": struct.Struct("<f"),
            "f32x3": struct.Struct("<3f"), "f32x4": struct.Struct("<4f")}
SIZES = {codec: s.size for codec, s in _STRUCTS.items()}


def decode(codec: str, data) -> object:
    values = _STRUCTS[codec].unpack(data)
    return values if len(values) > 1 else values[0]


def encode(codec: str, value, name: str = "") -> bytes:
    s = _STRUCTS[codec]
    if codec in ("u8", "u32") and isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        return s.pack(*value) if s.size > 4 else s.pack(value)
    except (struct.error, TypeError) as e:
        raise AlamoFormatError(f"{name or 'value'} {value!r} does not fit a {codec}: {e}") \
            from None


def same(a, b) -> bool:
    """Whether two values would be written the same: floats bit for bit (-0.0 is not 0.0),
    NaNs of any payload equal, tuples element by element."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        try:
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        except TypeError:
            return False
    if isinstance(a, float) or isinstance(b, float):
        try:
            fa, fb = float(a), float(b)
        except (TypeError, ValueError):
            return False
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return fa == fb and math.copysign(1.0, fa) == math.copysign(1.0, fb)
    return a == b


def read_schema(chunk: Chunk, schema: dict) -> tuple[dict, list]:
    """({field: value}, entries) of a data chunk of minis; ``schema`` maps a mini id to
    (field name, codec)."""
    values = {}
    entries = []
    for m in read_minis(chunk):
        known = schema.get(m.type)
        if known and len(m.data) == SIZES[known[1]] and known[0] not in values:
            value = decode(known[1], m.data)
            values[known[0]] = value
            entries.append((m.type, m.data, known[0], value))
        else:
            entries.append((m.type, m.data, None, None))
    return values, entries


def write_schema(entries, values: dict, schema: dict, defaults: dict,
                 extra_new: dict = None, skip_new=frozenset()) -> bytes:
    """The minis of ``entries`` with their current ``values`` (re-encoded only where changed);
    fields the schema names that the file had no mini for are added (in id order) when their
    value differs from ``defaults``. ``entries`` None: a new record, every field in id order
    (and ``extra_new``'s unnamed minis, {id: bytes}, among them; ``skip_new`` ids left out)."""
    minis = []
    if entries is None:
        extra_new = extra_new or {}
        for mid in sorted((set(schema) | set(extra_new)) - skip_new):
            if mid in schema:
                name, codec = schema[mid]
                minis.append(Mini(mid, encode(codec, values[name], name)))
            else:
                minis.append(Mini(mid, extra_new[mid]))
        return write_minis(minis)
    seen = set()
    for mid, raw, name, original in entries:
        if name is None:
            minis.append(Mini(mid, raw))
            continue
        seen.add(name)
        value = values[name]
        minis.append(Mini(mid, raw if same(value, original) else
                          encode(schema[mid][1], value, name)))
    for mid, (name, codec) in sorted(schema.items()):
        if name not in seen and not same(values[name], defaults[name]):
            minis.append(Mini(mid, encode(codec, values[name], name)))
    return write_minis(minis)
