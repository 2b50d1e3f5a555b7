"""Test-only builder for particle .alo files, written straight from the specs.

Independent of the add-on (it never imports ``io_alamo``): plain values in, ``struct.pack``
bytes out, so that the reader is checked against what the specification and the notes say,
including layouts the corpus lacks. Sources: ``shared/specs/alo-particle-format.md`` and
``FORMAT-NOTES.md`` (which wins: mini 9 is one float, the link minis are 0x37/0x39, property
mini ids are the spec's read as decimal); for Universe at War (root 0x1500) the alo-viewer's
particle reader, as described in ``io_alamo/formats/alamo/particles/uaw.py``.

    data, spec = particle_system(name, emitters=[emitter(...), ...])
    data, spec = uaw_system(name, emitters=[uaw_emitter(...), ...])

``spec`` is the plain dict of what was written, to compare a reader's records against. Values
are float32-exact so that ``==`` comparisons hold.
"""

from __future__ import annotations

import struct

TRACK_NAMES = ("red", "green", "blue", "alpha", "size", "texture_index", "rotation_speed")
GROUP_KEYS = ("type", "min_x", "min_y", "min_z", "max_x", "max_y", "max_z", "side_length",
              "sphere_radius", "sphere_surface", "cylinder_radius", "cylinder_surface",
              "cylinder_height", "val_x", "val_y", "val_z")
GROUP_FORMAT = "<I8fIfIf3f"            # 64 bytes

# id: (name, struct format) from the spec's property list (ids read as decimal)
PROPERTIES = {
    4: ("blend_mode", "<I"), 5: ("primitive_type", "<I"), 6: ("unused1", "<I"),
    7: ("in_bursts", "<B"), 8: ("link_to_system", "<B"), 9: ("inward_speed", "<f"),
    10: ("acceleration", "<3f"), 11: ("outward_acceleration", "<f"), 12: ("gravity", "<f"),
    15: ("lifetime", "<f"), 16: ("num_texture_elements", "<I"), 18: ("randomized_scale", "<f"),
    19: ("randomized_lifetime", "<f"), 20: ("index", "<I"), 21: ("unused3", "<B"),
    23: ("randomized_rotation", "<f"), 35: ("rotation_direction", "<B"),
    36: ("initial_delay", "<f"), 37: ("burst_delay", "<f"),
    38: ("num_particles_per_burst", "<I"), 39: ("num_bursts", "<I"),
    40: ("emitter_speed_mult", "<f"), 42: ("num_particles_per_second", "<I"),
    43: ("unused4", "<B"), 44: ("randomized_color", "<4f"),
    45: ("randomized_is_grayscale", "<B"), 46: ("is_not_billboarded", "<B"),
    47: ("ground_interaction", "<I"), 48: ("bounciness", "<f"), 49: ("affected_by_wind", "<B"),
    50: ("freeze_time", "<f"), 51: ("skip_time", "<f"), 52: ("emit_mode", "<I"),
    53: ("object_space_acceleration", "<B"), 59: ("is_heat_particle", "<B"),
    60: ("emit_offset", "<f"), 61: ("is_weather_particle", "<B"),
    62: ("weather_cube_size", "<f"), 63: ("unused5", "<f"), 64: ("unused6", "<f"),
    65: ("has_tail", "<B"), 66: ("tail_size", "<f"), 67: ("use_emitter_speed_mult", "<B"),
    68: ("wind_disturbance", "<B"), 70: ("no_depth_test", "<B"),
    71: ("weather_cube_distance", "<f"), 72: ("fixed_rotation", "<B"),
}
DEFAULTS = {"acceleration": (0.0, 0.0, 0.0), "randomized_color": (0.0, 0.0, 0.0, 0.0),
            "blend_mode": 1, "primitive_type": 1, "lifetime": 1.0, "num_texture_elements": 1,
            "burst_delay": 1.0, "num_particles_per_burst": 1, "num_particles_per_second": 5}


def chunk(ctype: int, body: bytes) -> bytes:
    return struct.pack("<II", ctype, len(body)) + body


def container(ctype: int, *children: bytes) -> bytes:
    body = b"".join(children)
    return struct.pack("<II", ctype, len(body) | 0x80000000) + body


def mini(mtype: int, body: bytes) -> bytes:
    return bytes((mtype, len(body))) + body


def cstr(text: str) -> bytes:
    return text.encode("cp1252") + b"\0"


def _pack(fmt, value):
    return struct.pack(fmt, *value) if isinstance(value, tuple) else struct.pack(fmt, value)


def emitter(name="emitter", texture="p_particle_master.tga", secondary="", *, index=0,
            groups=None, tracks=None, death=0xFFFFFFFF, birth=0xFFFFFFFF, extra_minis=(),
            extra_chunks=(), **props) -> dict:
    """An emitter's spec: properties (every one named in PROPERTIES; defaults 0), groups
    (three dicts of GROUP_KEYS; the lifetime group filled as the spec requires), tracks
    (name: (first, last, interpolation, [(value, time), ...])), extra minis appended to the
    property chunk ([(id, bytes)]) and extra chunks at the emitter's end ([(id, bytes)])."""
    values = {name_: DEFAULTS.get(name_, 0.0 if fmt.endswith("f") else 0)
              for name_, fmt in PROPERTIES.values()}
    values["index"] = index
    unknown = set(props) - set(values)
    if unknown:
        raise ValueError(f"not emitter properties: {sorted(unknown)}")
    values.update(props)
    life, rand = values["lifetime"], values["randomized_lifetime"]
    groups = [dict(g) for g in groups] if groups else [{}, {}, {}]
    groups[1] = {"type": 1, "min_y": struct.unpack("<f", struct.pack("<f", life * (1 - rand)))[0],
                 "max_y": life, **groups[1]}
    groups = [{k: g.get(k, 0) for k in GROUP_KEYS} for g in groups]
    base = {"red": (255, 255, 0, []), "green": (255, 255, 0, []), "blue": (255, 255, 0, []),
            "alpha": (255, 255, 0, []), "size": (20.0, 20.0, 0, []),
            "texture_index": (0.0, 0.0, 2, []), "rotation_speed": (0.0, 0.0, 0, [])}
    base.update(tracks or {})
    return {"name": name, "texture": texture, "secondary_texture": secondary,
            "properties": values, "groups": groups, "tracks": base, "death": death,
            "birth": birth, "extra_minis": list(extra_minis), "extra_chunks": list(extra_chunks)}


def emitter_bytes(e: dict) -> bytes:
    props = b"".join(mini(mid, _pack(fmt, e["properties"][name]))
                     for mid, (name, fmt) in sorted(PROPERTIES.items()))
    props += b"".join(mini(mid, body) for mid, body in e["extra_minis"])
    groups = container(0x29, *(container(0x1100, chunk(0x1101, struct.pack(
        GROUP_FORMAT, *(g[k] for k in GROUP_KEYS)))) for g in e["groups"]))
    parts = []
    for i, tname in enumerate(TRACK_NAMES):
        first, last, interp, keys = e["tracks"][tname]
        kind = "<B" if i < 4 else "<f"
        vkind = "<I" if i < 4 else "<f"
        parts.append(chunk(0x0, mini(2, struct.pack(kind, first)) + mini(3, struct.pack(
            kind, last)) + mini(4, struct.pack("<I", interp))))
        parts.append(chunk(0x1, b"".join(mini(5, struct.pack(vkind, v) + struct.pack("<f", t))
                                         for v, t in keys)))
    links = chunk(0x36, mini(0x37, struct.pack("<I", e["death"]))
                  + mini(0x39, struct.pack("<I", e["birth"])))
    return container(0x700, chunk(0x2, props), chunk(0x3, cstr(e["texture"])),
                     chunk(0x16, cstr(e["name"])), groups, container(0x1, *parts), links,
                     chunk(0x45, cstr(e["secondary_texture"])),
                     *(chunk(cid, body) for cid, body in e["extra_chunks"]))


def particle_system(name="p_test", emitters=None, *, id=0, persist=1) -> tuple[bytes, dict]:
    """A 0x900 system: name, id, emitter list, persistence (the order real files have)."""
    emitters = emitters if emitters is not None else [emitter()]
    data = container(0x900, chunk(0x0, cstr(name)), chunk(0x1, struct.pack("<I", id)),
                     container(0x800, *(emitter_bytes(e) for e in emitters)),
                     chunk(0x2, bytes((persist,))))
    return data, {"name": name, "id": id, "persist": persist, "emitters": emitters}


def linked_system(name="p_linked") -> tuple[bytes, dict]:
    """Three emitters: 0 spawns 1 during each particle's life and 2 at its death; keyed
    colour and size tracks; every group type; mini 73 kept."""
    e0 = emitter("trail head", index=0, lifetime=2.0, randomized_lifetime=0.25, gravity=9.5,
                 num_particles_per_second=12, birth=1, death=2, blend_mode=2,
                 acceleration=(0.0, 0.5, 1.0), randomized_color=(0.25, 0.0, 0.0, 0.5),
                 groups=[{"type": 3, "sphere_radius": 4.0, "sphere_surface": 1}, {},
                         {"type": 4, "cylinder_radius": 2.0, "cylinder_height": 8.0}],
                 tracks={"red": (255, 0, 1, [(128, 0.25), (64, 0.75)]),
                         "size": (1.0, 16.0, 0, [(8.0, 0.5)])},
                 extra_minis=[(73, b"\x2e\x00\x46\x00")])
    e1 = emitter("sparks", index=1, lifetime=0.5, in_bursts=1, num_particles_per_burst=20,
                 num_bursts=3, burst_delay=0.25,
                 groups=[{"type": 2, "side_length": 3.0}, {},
                         {"type": 1, "min_x": -1.0, "max_x": 1.0, "max_z": 2.0}])
    e2 = emitter("smoke", "p_smoke.tga", "p_smoke_depth.tga", index=2, lifetime=4.0,
                 groups=[{"type": 0, "val_x": 0.5, "val_y": 0.25, "val_z": 3.0}, {}, {}],
                 tracks={"alpha": (200, 0, 1, [(255, 0.125)]),
                         "rotation_speed": (0.5, -0.5, 0, [])},
                 extra_chunks=[(0x100, b"\x01\x00\x00\x00")])
    return particle_system(name, [e0, e1, e2])


# --- Universe at War (0x1500) -----------------------------------------------------------------

def plugin(pid: int, params=()) -> list:
    """A plugin spec: its id and [(parameter id, value bytes)]."""
    return [pid, list(params)]


# renderer plugin id -> the parameter holding its shader's name (101 for most)
SHADER_PARAM = {23: 102, 24: 102, 25: 103, 37: 102, 61: 6401}


def uaw_emitter(name, texture="p_uaw_fire.tga", lifetime=1.5, *, renderer=22, extra=()):
    """A 0x1540 emitter: Shape Creator (34), World Translater (27), Age Killer (19) with the
    lifetime, a renderer with the texture, and one Keyed Color modifier (17)."""
    tex = cstr(texture)
    return {"name": name, "texture": texture, "lifetime": lifetime, "plugins": [
        (0x1, plugin(34, [(0, b"\x01")])), (0x2, plugin(27)),
        (0x3, plugin(19, [(0, struct.pack("<f", lifetime)), (1, struct.pack("<f", 10.0))])),
        (0x4, plugin(renderer, [(100, tex), (SHADER_PARAM.get(renderer, 101),
                                              cstr("Engine/PrimAdditive.fx"))])),
        (0x5, plugin(17, [])), *extra]}


def _plugin_bytes(slot, spec):
    pid, params = spec
    pairs = b"".join(chunk(0x0, struct.pack("<I", k)) + chunk(0x1, v) for k, v in params)
    return container(slot, chunk(0x0, struct.pack("<I", pid)),
                     container(0x1, container(0x0, pairs) if pairs else chunk(0x0, b"")))


def uaw_system(name="p_uaw_test", emitters=None) -> tuple[bytes, dict]:
    """A 0x1500 system in the order the game's loader reads (``ReadFormat_V2``): name, the
    optional 0x1 and 0x2, then the emitter list (the loader refuses a 0x2 after the list)."""
    emitters = emitters if emitters is not None else [uaw_emitter("fire")]
    body = [container(0x1540, chunk(0x0, cstr(e["name"])),
                      *(_plugin_bytes(slot, spec) for slot, spec in e["plugins"]))
            for e in emitters]
    data = container(0x1500, chunk(0x0, cstr(name)), chunk(0x1, b"\x01"), chunk(0x2, b"\x00"),
                     container(0x1520, *body))
    return data, {"name": name, "emitters": emitters}
