"""Typed records of a particle effect (.alo with root ``0x900``; Universe at War ``0x1500``).

Field names are the specification's (``alo-particle-format.md``) in snake_case. Where real
files disagree with the specification, the files win: mini 9 (``inward_speed``) is one float,
the link minis are ``0x37``/``0x39``, and property minis the specification does not name
(73 in every file seen) are kept as they are, where they are.

Every record remembers how its file laid it out (``layout``): the order of its chunks and
mini-chunks, their exact bytes, and whatever it does not understand. The writer re-encodes a
field only when its value changed, so an unedited record is written back byte for byte.
"""

from dataclasses import dataclass, field, make_dataclass
from typing import Any

import numpy as np

# --- the emitter's property mini-chunks (chunk 0x2 of an emitter) ----------------------------
# (mini id, field name, codec, default: what the particle editors write for a new emitter). Codecs: "u32", "u8" (a byte; kept as an int so that
# values other than 0/1 survive), "f32", "f32x3", "f32x4". Ids are the specification's,
# read as decimal, as the files hold them.
PROPERTY_FIELDS = (
    (4, "blend_mode", "u32", 1),
    (5, "primitive_type", "u32", 1),
    (6, "unused1", "u32", 0),
    (7, "in_bursts", "u8", 0),
    (8, "link_to_system", "u8", 0),
    (9, "inward_speed", "f32", 0.0),            # the spec says float[3]; files hold one float
    (10, "acceleration", "f32x3", (0.0, 0.0, 0.0)),
    (11, "outward_acceleration", "f32", 0.0),
    (12, "gravity", "f32", 0.0),
    (15, "lifetime", "f32", 1.0),
    (16, "num_texture_elements", "u32", 1),
    (17, "unused2", "f32", 0.0),
    (18, "randomized_scale", "f32", 0.0),
    (19, "randomized_lifetime", "f32", 0.0),
    (20, "index", "u32", 0),
    (21, "unused3", "u8", 1),
    (23, "randomized_rotation", "f32", 0.0),
    (35, "rotation_direction", "u8", 0),
    (36, "initial_delay", "f32", 0.0),
    (37, "burst_delay", "f32", 1.0),
    (38, "num_particles_per_burst", "u32", 1),
    (39, "num_bursts", "u32", 0xFFFFFFFF),
    (40, "emitter_speed_mult", "f32", 0.0),
    (42, "num_particles_per_second", "u32", 1),
    (43, "unused4", "u8", 141),
    (44, "randomized_color", "f32x4", (0.0, 0.0, 0.0, 0.0)),
    (45, "randomized_is_grayscale", "u8", 0),
    (46, "is_not_billboarded", "u8", 0),
    (47, "ground_interaction", "u32", 0),
    (48, "bounciness", "f32", 0.20000000298023224),
    (49, "affected_by_wind", "u8", 0),
    (50, "freeze_time", "f32", 0.0),
    (51, "skip_time", "f32", 0.0),
    (52, "emit_mode", "u32", 0),
    (53, "object_space_acceleration", "u8", 0),
    (59, "is_heat_particle", "u8", 0),
    (60, "emit_offset", "f32", 0.5),
    (61, "is_weather_particle", "u8", 0),
    (62, "weather_cube_size", "f32", 500.0),
    (63, "unused5", "f32", 50.0),
    (64, "unused6", "f32", 100.0),
    (65, "has_tail", "u8", 0),
    (66, "tail_size", "f32", 50.0),
    (67, "use_emitter_speed_mult", "u8", 0),
    (68, "wind_disturbance", "u8", 0),
    (70, "no_depth_test", "u8", 0),
    (71, "weather_cube_distance", "f32", 0.0),
    (72, "fixed_rotation", "u8", 0),
)
PROPERTY_NAMES = tuple(name for _, name, _, _ in PROPERTY_FIELDS)
PROPERTY_BY_ID = {mid: (name, codec) for mid, name, codec, _ in PROPERTY_FIELDS}
PROPERTY_DEFAULTS = {name: default for _, name, _, default in PROPERTY_FIELDS}
# Property minis every known writer adds that the specification does not name: written for
# new emitters too, with the value the editors write.
UNNAMED_PROPERTY_DEFAULTS = {73: b"\0\0\0\0"}
#: Property minis the specification names that no file seen holds (17, ``unused2``): read
#: when present, not written for new emitters.
NOT_WRITTEN_NEW = frozenset({17})

BLEND_MODES = ("opaque", "additive", "alpha", "modulate", "depthsprite_additive",
               "depthsprite_alpha", "depthsprite_modulate", "diffuse_alpha", "stencil_darken",
               "stencil_darken_blur", "heat", "particle_bump_alpha", "decal_bump_alpha",
               "alpha_scanlines")
GROUND_INTERACTIONS = ("nothing", "die", "bounce", "stop")
EMIT_MODES = ("none", "random_vertex", "random_point", "all_vertices")
INTERPOLATIONS = ("linear", "cosine", "step")
GROUP_TYPES = ("exact", "box", "cube", "sphere", "cylinder")

# --- tracks: seven (time, value) curves over a particle's life ------------------------------
TRACK_NAMES = ("red", "green", "blue", "alpha", "size", "texture_index", "rotation_speed")
#: (first_key, last_key, interpolation) of a new track: what the particle editors write for a
#: new emitter (white, opaque, size 20, texture element 0 stepped, no rotation).
TRACK_DEFAULTS = {"red": (255, 255, 0), "green": (255, 255, 0), "blue": (255, 255, 0),
                  "alpha": (255, 255, 0), "size": (20.0, 20.0, 0),
                  "texture_index": (0.0, 0.0, 2), "rotation_speed": (0.0, 0.0, 0)}
COLOUR_TRACKS = 4            # the first four hold bytes/uint32 values, the rest floats
#: One key as the file holds it, inside a ``05`` mini of 8 bytes: value then time.
COLOUR_KEY_DTYPE = np.dtype([("value", "<u4"), ("time", "<f4")])
FLOAT_KEY_DTYPE = np.dtype([("value", "<f4"), ("time", "<f4")])

GROUP_NAMES = ("velocity", "lifetime", "position")
#: The 64 bytes of a group's data chunk (0x1101), in the specification's names.
GROUP_DTYPE = np.dtype([
    ("type", "<u4"), ("min_x", "<f4"), ("min_y", "<f4"), ("min_z", "<f4"),
    ("max_x", "<f4"), ("max_y", "<f4"), ("max_z", "<f4"), ("side_length", "<f4"),
    ("sphere_radius", "<f4"), ("sphere_surface", "<u4"), ("cylinder_radius", "<f4"),
    ("cylinder_surface", "<u4"), ("cylinder_height", "<f4"),
    ("val_x", "<f4"), ("val_y", "<f4"), ("val_z", "<f4")])
GROUP_FIELDS = GROUP_DTYPE.names
NO_EMITTER = 0xFFFFFFFF      # a link's "none" (-1 as uint32)


@dataclass(eq=False, slots=True)
class Group:
    """A property group: a volume the initial velocity, lifetime or position is drawn from
    (type 0 exact, 1 box, 2 cube, 3 sphere, 4 cylinder)."""

    type: int = 0
    min_x: float = 0.0
    min_y: float = 0.0
    min_z: float = 0.0
    max_x: float = 0.0
    max_y: float = 0.0
    max_z: float = 0.0
    side_length: float = 0.0
    sphere_radius: float = 0.0
    sphere_surface: int = 0
    cylinder_radius: float = 0.0
    cylinder_surface: int = 0
    cylinder_height: float = 0.0
    val_x: float = 0.0
    val_y: float = 0.0
    val_z: float = 0.0
    layout: Any = None           # the chunk as read (kept when nothing changed)

    def values(self) -> tuple:
        return tuple(getattr(self, name) for name in GROUP_FIELDS)

    @property
    def type_name(self) -> str:
        return GROUP_TYPES[self.type] if self.type < len(GROUP_TYPES) else f"type {self.type}"


@dataclass(eq=False, slots=True)
class Track:
    """One of the seven curves: the value at t=0 (``first_key``) and t=1 (``last_key``), the
    ``interpolation`` (0 linear, 1 cosine, 2 step) and the keys between, as a structured array
    with fields ``value`` and ``time`` (colour tracks: uint32 0-255 values; others float)."""

    name: str = "red"
    first_key: float = None
    last_key: float = None
    interpolation: int = None
    keys: np.ndarray = None
    layout: Any = None

    def __post_init__(self):
        first, last, interpolation = TRACK_DEFAULTS[self.name]
        if self.first_key is None:
            self.first_key = first
        if self.last_key is None:
            self.last_key = last
        if self.interpolation is None:
            self.interpolation = interpolation
        if self.keys is None:
            self.keys = np.zeros(0, self.key_dtype)

    @property
    def is_colour(self) -> bool:
        return self.name in TRACK_NAMES[:COLOUR_TRACKS]

    @property
    def key_dtype(self) -> np.dtype:
        return COLOUR_KEY_DTYPE if self.is_colour else FLOAT_KEY_DTYPE

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """(times, values) of the whole curve as float64 arrays, first and last key
        included: what the curve passes through from t=0 to t=1."""
        times = np.concatenate(([0.0], self.keys["time"].astype(np.float64), [1.0]))
        values = np.concatenate(([float(self.first_key)],
                                 self.keys["value"].astype(np.float64),
                                 [float(self.last_key)]))
        return times, values


class _EmitterMethods:
    __slots__ = ()

    def track(self, name: str) -> Track:
        return self.tracks[TRACK_NAMES.index(name)]

    def group(self, name: str) -> Group:
        return self.groups[GROUP_NAMES.index(name)]

    @property
    def velocity_group(self) -> Group:
        return self.groups[0]

    @property
    def lifetime_group(self) -> Group:
        return self.groups[1]

    @property
    def position_group(self) -> Group:
        return self.groups[2]

    def properties(self) -> dict:
        """Every named property mini as {name: value}."""
        return {name: getattr(self, name) for name in PROPERTY_NAMES}

    def sync_lifetime_group(self) -> None:
        """Fill the redundant lifetime group from ``lifetime``/``randomized_lifetime`` as the
        specification requires (type 1, min_y = lifetime * (1 - randomized), max_y = lifetime,
        the other min/max zero); the fields it does not mention are left as they are."""
        g = self.groups[1]
        life = float(np.float32(self.lifetime))
        rand = float(np.float32(self.randomized_lifetime))
        g.type = 1
        g.min_x = g.max_x = g.min_z = g.max_z = 0.0
        g.min_y = float(np.float32(life * (1.0 - rand)))
        g.max_y = life


_VALUE_TYPES = {"u32": int, "u8": int, "f32": float, "f32x3": tuple, "f32x4": tuple}

#: One particle emitter (chunk 0x700): a field for every property the specification names
#: (:data:`PROPERTY_FIELDS`: ``emitter.lifetime``, ``emitter.gravity``, ...), its textures,
#: name, three groups (velocity, lifetime, position), seven tracks and its links (``death``
#: and ``birth``: an emitter index, or 0xFFFFFFFF for none). ``layout`` is how the file laid it
#: out (chunk and mini order, exact bytes, unknown chunks and minis).
Emitter = make_dataclass("Emitter", [
    ("name", str, field(default="")),                      # chunk 0x16
    ("texture", str, field(default="p_particle_master.tga")),           # colour, chunk 0x3
    ("secondary_texture", str, field(default="p_particle_depth_master.tga")),  # 0x45
    *((name, _VALUE_TYPES[codec], field(default=default))
      for _, name, codec, default in PROPERTY_FIELDS),
    ("groups", list, field(default_factory=lambda: [Group(), Group(type=1, min_y=1.0, max_y=1.0), Group()])),
    ("tracks", list, field(default_factory=lambda: [Track(n) for n in TRACK_NAMES])),
    ("death", int, field(default=NO_EMITTER)),             # mini 0x37 of chunk 0x36
    ("birth", int, field(default=NO_EMITTER)),             # mini 0x39 of chunk 0x36
    ("layout", Any, field(default=None)),
], bases=(_EmitterMethods,), eq=False, slots=True)
Emitter.__module__ = __name__


@dataclass(eq=False, slots=True)
class ParticleSystem:
    """An Empire at War / Forces of Corruption particle system (root chunk 0x900): its name
    (must match the file name), editor id, ``persist`` flag and emitters."""

    name: str = ""
    id: int = 0
    persist: int = 0
    emitters: list = field(default_factory=list)
    layout: Any = None                      # root chunk order and unknown root chunks
    kind = "particle"
    root_type = 0x900


@dataclass(eq=False, slots=True)
class UawEmitter:
    """A Universe at War emitter (chunk 0x1540), listed by name and textures; its chunks are
    kept as read (``chunk``) and written back byte for byte."""

    name: str = ""
    textures: list = field(default_factory=list)
    lifetime: float | None = None
    index: int = 0
    info: dict = field(default_factory=dict)     # what else the public reader names
    chunk: Any = None


@dataclass(eq=False, slots=True)
class UawParticleSystem:
    """A Universe at War particle system (root chunk 0x1500), kept byte for byte: its name
    and emitters are read for listing; ``chunks`` are the file's own."""

    name: str = ""
    emitters: list = field(default_factory=list)
    chunks: list = field(default_factory=list)
    kind = "particle"
    root_type = 0x1500
