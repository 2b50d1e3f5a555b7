"""Universe at War emitters' plugin parameters: the ones a modder edits (names, textures,
lifetimes, spawn rates, speeds, sizes, colours) decoded with their types, and written back
into their own value chunk only, so that an unedited system stays byte for byte and an edit
changes only its bytes (a longer or shorter text also the sizes of the chunks holding it).

The parameter ids and their types are facts read in the alo-viewer's plugin readers
(``ReadFormat_V2``, ``CheckParameter`` of each plugin; read, never copied): a plugin chunk holds
its id (0x0, uint32) and a container 0x1 whose container 0x0 lists (0x0 parameter id, 0x1
value) pairs; floats and integers are 4 bytes, booleans 1 byte, colours four floats (r, g, b,
a in 0..1), texts NUL-terminated. A parameter is decoded only when its value chunk has the
size its type says; anything else is kept and not offered for editing.

Blender-free: stdlib only.
"""

import struct
from dataclasses import dataclass
from typing import Any

from ...errors import AlamoFormatError
from ..fields import encode_cstr
from .records import UawParticleSystem
from .uaw import (DEFAULT_TEXTURE_PARAMS, PLUGIN_NAMES, SLOTS, TEXTURE_PARAMS, chunk_text,
                  read_plugin)

FLOAT, INT, BOOL, COLOUR, TEXT, SHAPE, VECTOR = ("float", "int", "bool", "colour", "text",
                                                 "shape", "vector")
_SIZES = {FLOAT: 4, INT: 4, BOOL: 1, COLOUR: 16, SHAPE: 4, VECTOR: 12}
#: a property group's types (the viewer's ``PropertyGroup::Type``), by their value
SHAPES = ("point", "direction", "sphere", "range", "spherical_range", "cylinder", "torus")

# the simple creators (point, trail, sphere, box, torus): a stream and a speed
_SIMPLE = {0: ("particles_per_second", FLOAT), 1: ("speed", FLOAT),
           2: ("speed_variation", FLOAT)}
# how a creator's particles take their velocity (the shape creators' 109-112, the death
# creator's 105-108): the velocity group in the emitter's frame or the world's, and the
# velocity of the particle that started the instance added, scaled and capped
_VELOCITY = {9: ("local_velocity", BOOL), 10: ("inherit_velocity", BOOL),
             11: ("inherited_velocity_scale", FLOAT), 12: ("max_inherited_velocity", FLOAT)}
# the shape creators (shape, enhanced trail, aligned shape, outward velocity shape, enhanced
# mesh): particles per interval, bursts or a stream, a delay and a stop time
_SHAPE = {6: ("pre_simulate_seconds", FLOAT), 100: ("particles_per_interval", FLOAT),
          101: ("spawn_interval", FLOAT), 102: ("bursting", BOOL), 103: ("start_delay", FLOAT),
          104: ("stop_time", FLOAT), 106: ("hollow_position", BOOL),
          108: ("hollow_velocity", BOOL), **{100 + k: v for k, v in _VELOCITY.items()}}
_KILLER = {0: ("lifetime", FLOAT), 1: ("lifetime_variation", FLOAT),
           3: ("spawn_on_death", BOOL)}
#: plugin id -> {parameter id: (name, type)} of the parameters offered for editing
PARAMETERS = {
    **{pid: _SIMPLE for pid in (0, 1)},
    2: {**_SIMPLE, 100: ("sphere_radius", FLOAT)},                      # sphere creator
    3: {**_SIMPLE, 100: ("box_length", FLOAT), 101: ("box_width", FLOAT),
        102: ("box_height", FLOAT)},                                    # box creator
    4: {**_SIMPLE, 100: ("torus_radius", FLOAT), 101: ("tube_radius", FLOAT)},
    **{pid: _SHAPE for pid in (34, 39, 43, 50)},
    35: {k: v for k, v in _SHAPE.items() if k != 106},                 # enhanced mesh
    40: {100: ("particles_per_interval", FLOAT), 102: ("hollow_position", BOOL),
         104: ("hollow_velocity", BOOL),
         **{96 + k: v for k, v in _VELOCITY.items()}},                  # death creator
    **{pid: _KILLER for pid in (19, 20, 21, 44)},
    7: {100: ("start_time", FLOAT), 101: ("end_time", FLOAT), 200: ("start_size", FLOAT),
        201: ("end_size", FLOAT), 202: ("size_variation", FLOAT)},      # linear size
    57: {200: ("size", FLOAT), 201: ("size_variation", FLOAT)},         # constant size
    8: {100: ("start_time", FLOAT), 101: ("end_time", FLOAT), 200: ("start_colour", COLOUR),
        201: ("end_colour", COLOUR)},                                   # linear colour
    59: {200: ("colour", COLOUR)},                                      # constant colour
    # modifiers: plain values (which of them the preview plays: uaw_play)
    10: {200: ("acceleration", VECTOR), 201: ("acceleration_local", BOOL)},
    11: {200: ("attract_acceleration", FLOAT)},
    13: {200: ("vortex_axis", VECTOR), 201: ("vortex_speed", FLOAT),
         202: ("vortex_local", BOOL)},
    15: {200: ("smooth_sizes", BOOL), 301: ("keyed_size_variation", FLOAT)},
    17: {200: ("smooth_colours", BOOL)},
    31: {200: ("smooth_acceleration", BOOL), 300: ("keyed_acceleration_direction", VECTOR),
         302: ("keyed_acceleration_local", BOOL)},
    42: {100: ("min_speed", FLOAT), 101: ("max_speed", FLOAT)},
    46: {100: ("speed_start_time", FLOAT), 101: ("speed_end_time", FLOAT),
         102: ("smooth_speed", BOOL), 200: ("start_speed", FLOAT), 201: ("end_speed", FLOAT)},
    54: {200: ("wind_response", FLOAT)},
}
#: keyed modifiers' key lists (a uint32 count, then per key a float time in the particle's
#: life 0..1 and its value): plugin id -> (parameter id, value type, name); each key's time
#: and value are editable in place (the count is kept)
KEYED = {15: (300, FLOAT, "size"), 17: (300, COLOUR, "colour")}
MAX_KEYS = 64            # keys offered per list (more are kept, not offered)
RENDERERS = (22, 23, 24, 25, 28, 29, 36, 37, 38, 47, 52, 61)
# the shape creators' position (105) and velocity (107) property groups; the death creator's
# at 101 and 103
GROUP_PARAMS = {34: (105, 107), 35: (None, 107), 39: (105, 107), 43: (105, 107),
                50: (105, 107), 40: (101, 103)}
PARENT_NAME_PARAMS = {40: 109, 39: 300}      # the emitter whose particles start this one
#: a property group's 104 bytes: (field, byte offset, type); the sphere angles as the file
#: holds them (0 the pole, 1 the equator, 2 the other pole)
GROUP_LAYOUT = (("shape", 0, SHAPE),
                *((f"point_{a}", 4 + 4 * i, FLOAT) for i, a in enumerate("xyz")),
                *((f"direction_{a}", 16 + 4 * i, FLOAT) for i, a in enumerate("xyz")),
                ("magnitude_min", 28, FLOAT), ("magnitude_max", 32, FLOAT),
                ("radius_min", 36, FLOAT), ("radius_max", 40, FLOAT),
                *((f"min_{a}", 44 + 4 * i, FLOAT) for i, a in enumerate("xyz")),
                *((f"max_{a}", 56 + 4 * i, FLOAT) for i, a in enumerate("xyz")),
                ("angle_min", 68, FLOAT), ("angle_max", 72, FLOAT),
                ("sphere_radius_min", 76, FLOAT), ("sphere_radius_max", 80, FLOAT),
                ("cylinder_radius", 84, FLOAT), ("height_min", 88, FLOAT),
                ("height_max", 92, FLOAT), ("torus_radius", 96, FLOAT),
                ("tube_radius", 100, FLOAT))
GROUP_SIZE = 104
#: shape -> the group fields its sampling reads (the others are kept, not used)
SHAPE_FIELDS = {
    "point": ("point_x", "point_y", "point_z"),
    "direction": ("direction_x", "direction_y", "direction_z", "magnitude_min",
                  "magnitude_max"),
    "sphere": ("radius_min", "radius_max"),
    "range": ("min_x", "min_y", "min_z", "max_x", "max_y", "max_z"),
    "spherical_range": ("angle_min", "angle_max", "sphere_radius_min", "sphere_radius_max"),
    "cylinder": ("cylinder_radius", "height_min", "height_max"),
    "torus": ("torus_radius", "tube_radius")}


@dataclass(eq=False)
class UawParam:
    """One editable parameter: where it is (emitter, the plugin chunk's place among the
    emitter's chunks), what it is, its value, and its value chunk (edited in place)."""

    emitter: int
    plugin: int
    slot: str
    plugin_id: int
    param: int
    name: str
    kind: str
    value: Any
    chunk: Any
    offset: int = -1          # a property group's field: its place in the value's bytes

    @property
    def label(self) -> str:
        plugin = PLUGIN_NAMES[self.plugin_id] if self.plugin_id < len(PLUGIN_NAMES) else \
            f"plugin {self.plugin_id}"
        return f"{plugin}: {self.name.replace('_', ' ')}"

    @property
    def key(self) -> tuple:
        head = (self.emitter, self.plugin, self.param)
        return head if self.offset < 0 else head + (self.offset,)

    def raw(self) -> bytes:
        """The bytes this parameter's value occupies."""
        data = bytes(self.chunk.data)
        return data if self.offset < 0 else data[self.offset:self.offset + _SIZES[self.kind]]


def _decode(kind, data):
    raw = bytes(data)
    if kind == TEXT:
        nul = raw.find(b"\0")
        return None if nul < 0 else raw[:nul].decode("cp1252", "surrogateescape")
    if len(raw) != _SIZES[kind]:
        return None
    if kind == FLOAT:
        return struct.unpack("<f", raw)[0]
    if kind == VECTOR:
        return struct.unpack("<3f", raw)
    if kind == INT:
        return struct.unpack("<i", raw)[0]
    if kind == BOOL:
        return raw[0]
    if kind == SHAPE:
        value = struct.unpack("<I", raw)[0]
        return value if value < len(SHAPES) else None
    return struct.unpack("<4f", raw)


def _encode(kind, value, old):
    if kind == TEXT:
        tail = bytes(old)[bytes(old).find(b"\0") + 1:]
        return encode_cstr(value, tail)
    if kind == FLOAT:
        return struct.pack("<f", float(value))
    if kind == VECTOR:
        return struct.pack("<3f", *(float(v) for v in value))
    if kind == INT:
        return struct.pack("<i", int(value))
    if kind == BOOL:
        return bytes([int(value) & 0xFF])
    if kind == SHAPE:
        if not 0 <= int(value) < len(SHAPES):
            raise ValueError(f"a shape is 0-{len(SHAPES) - 1}")
        return struct.pack("<I", int(value))
    return struct.pack("<4f", *(float(v) for v in value))


def _same(kind, a, b):
    if kind in (COLOUR, VECTOR):
        return all(struct.pack("<f", x) == struct.pack("<f", y) for x, y in zip(a, b))
    if kind == FLOAT:
        return struct.pack("<f", float(a)) == struct.pack("<f", float(b))
    return a == b


def plugins(emitter_chunk):
    """[(place among the emitter's chunks, slot, plugin id, {parameter id: value chunk})]."""
    out = []
    for place, c in enumerate(emitter_chunk.children or ()):
        slot = SLOTS.get(c.type)
        found = read_plugin(c) if slot and c.is_container else None
        if found is not None:
            out.append((place, slot, found[0], found[1]))
    return out


def plugin_parameters(pid, params, table=None, where=(-1, -1, "")) -> list:
    """The plain parameters (not group fields, not keys) of one plugin: ``params`` its
    {parameter id: value chunk}, ``table`` {parameter id: (name, type)} (its
    :data:`PARAMETERS` by default), ``where`` (emitter, plugin place, slot)."""
    out = []
    for param, (name, kind) in (PARAMETERS.get(pid, {}) if table is None else table).items():
        chunk = params.get(param)
        if chunk is None or chunk.is_container:
            continue
        value = _decode(kind, chunk.data)
        if value is None or (kind == TEXT and value.lower().endswith(".fx")):
            continue
        out.append(UawParam(where[0], where[1], where[2], pid, param, name, kind, value,
                            chunk))
    return out


def emitter_parameters(emitter) -> list:
    """The editable parameters of a :class:`UawEmitter` (its chunk), in file order."""
    out = []
    for place, slot, pid, params in plugins(emitter.chunk):
        table = dict(PARAMETERS.get(pid, {}))
        if slot == "renderer" and pid in RENDERERS:
            names = TEXTURE_PARAMS.get(pid, DEFAULT_TEXTURE_PARAMS)
            for n, k in enumerate(names):
                table[k] = ("texture" if n == 0 else f"texture_{n + 1}", TEXT)
        out.extend(plugin_parameters(pid, params, table, (emitter.index, place, slot)))
        for which, param in zip(("position", "velocity"), GROUP_PARAMS.get(pid, ())):
            leaf = group_leaf(params.get(param))
            for name, offset, kind in GROUP_LAYOUT if leaf is not None else ():
                value = _decode(kind, bytes(leaf.data)[offset:offset + _SIZES[kind]])
                if value is not None:
                    out.append(UawParam(emitter.index, place, slot, pid, param,
                                        f"{which}_{name}", kind, value, leaf, offset))
        out.extend(_key_parameters(emitter.index, place, slot, pid, params))
    return out


def key_list(pid, params):
    """(value chunk, value type, key count, bytes per key) of a keyed modifier's key list,
    or None when the plugin has none or its bytes are not a whole list."""
    param, kind, _ = KEYED.get(pid, (None, None, None))
    chunk = params.get(param)
    if chunk is None or chunk.is_container or len(chunk.data) < 4:
        return None
    count = struct.unpack_from("<I", bytes(chunk.data))[0]
    stride = 4 + _SIZES[kind]
    return (chunk, kind, count, stride) if len(chunk.data) == 4 + count * stride else None


def _key_parameters(emitter, place, slot, pid, params):
    found = key_list(pid, params)
    if found is None:
        return []
    chunk, kind, count, stride = found
    param, _, what = KEYED[pid]
    raw, out = bytes(chunk.data), []
    for i in range(min(count, MAX_KEYS)):
        at = 4 + i * stride
        for name, k, offset in ((f"{what}_key_{i + 1}_time", FLOAT, at),
                                (f"{what}_key_{i + 1}", kind, at + 4)):
            value = _decode(k, raw[offset:offset + _SIZES[k]])
            out.append(UawParam(emitter, place, slot, pid, param, name, k, value, chunk,
                                offset))
    return out


def group_leaf(chunk):
    """The chunk holding a property group's bytes (its value chunk, or the 0x1 inside a
    container value as the viewer's ``PropertyGroup::Read`` accepts), or None when it holds
    fewer than a group's 104 bytes."""
    if chunk is not None and chunk.is_container:
        kids = [c for c in chunk.children if c.type == 0x1 and not c.is_container]
        chunk = kids[0] if len(chunk.children) == 1 and kids else None
    if chunk is None or len(chunk.data) < GROUP_SIZE:
        return None
    return chunk


def _name_chunk(emitter):
    return next((c for c in emitter.chunk.children or ()
                 if c.type == 0x0 and not c.is_container), None)


def set_parameter(param: UawParam, value) -> bool:
    """Put ``value`` into the parameter's value chunk when it differs from what the chunk
    holds (True when it did); the chunk's other bytes (a text's tail after its NUL) are
    kept."""
    current = _decode(param.kind, param.raw())
    if current is not None and _same(param.kind, current, value):
        return False
    try:
        new = _encode(param.kind, value, param.raw())
        if param.offset >= 0:
            data = bytes(param.chunk.data)
            new = data[:param.offset] + new + data[param.offset + len(new):]
        param.chunk.data = new
    except (struct.error, TypeError, ValueError) as e:
        raise AlamoFormatError(f"emitter {param.emitter}, {param.label}: {value!r} cannot be "
                               f"written as a {param.kind}: {e}") from None
    param.value = value
    return True


def set_emitter_name(emitter, name: str) -> bool:
    """Rename a :class:`UawEmitter` in its own name chunk (True when it changed)."""
    chunk = _name_chunk(emitter)
    if chunk is None:
        raise AlamoFormatError(f"Universe at War emitter {emitter.index} has no name chunk")
    if chunk_text(chunk) == name:
        return False
    raw = bytes(chunk.data)
    chunk.data = encode_cstr(name, raw[raw.find(b"\0") + 1:] if b"\0" in raw else b"")
    emitter.name = name
    return True


def apply_edits(system: UawParticleSystem, names: dict, values: dict) -> list:
    """Lay edits onto ``system`` (read from the file's bytes): ``names`` {emitter index: new
    name}, ``values`` {(emitter, plugin place, parameter id): value}. Returns what changed,
    as labels; a key that names no editable parameter raises :class:`AlamoFormatError`."""
    changed = []
    by_key = {p.key: p for e in system.emitters for p in emitter_parameters(e)}
    for key, value in values.items():
        param = by_key.get(tuple(key))
        if param is None:
            raise AlamoFormatError(f"Universe at War emitter {key[0]}: no editable parameter "
                                   f"{key[2]} in its chunk {key[1]}")
        if set_parameter(param, value):
            changed.append(f"emitter {param.emitter}: {param.label}")
    for index, name in names.items():
        if set_emitter_name(system.emitters[index], name):
            changed.append(f"emitter {index}: name")
    return changed
