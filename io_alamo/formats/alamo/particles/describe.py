"""What the command line says about particle effects: ``info`` lines and JSON, ``validate``
problems, the ``dump`` chunk tree with particle names, and the in-memory round trip."""

import math
import os

import numpy as np

from ...errors import AlamoFormatError
from ...run_cache import read_only
from ..chunks import BytesLike, Chunk, read_chunks, read_minis
from . import codec
from ...problems import Problem, note, warning
from .game_rules import particle_problems
from . import uaw_play
from .link_rules import link_problems
from .read import (EMITTER, EMITTER_CHUNKS, LINK_SCHEMA, ROOT, decode_particles,
                   read_particles, track_schema)
from .records import (BLEND_MODES, GROUP_DTYPE, GROUP_TYPES, NO_EMITTER, PROPERTY_BY_ID,
                      ParticleSystem, UawParticleSystem)
from .write import write_particles

__all__ = ["dump_tree", "info_json", "info_lines", "problems", "roundtrip"]


def _link(value):
    return -1 if value == NO_EMITTER else value


def _f(value):
    """A float for JSON (NaN and infinities as strings, which JSON has no words for)."""
    value = float(value)
    return value if math.isfinite(value) else str(value)


def emitter_entries(system) -> list[dict]:
    """One dict per emitter: ``name``, ``texture``, ``lifetime`` and what else helps."""
    if isinstance(system, UawParticleSystem):
        return [{"index": e.index, "name": e.name,
                 "texture": e.textures[0] if e.textures else "",
                 "textures": list(e.textures),
                 "lifetime": None if e.lifetime is None else _f(e.lifetime), **e.info}
                for e in system.emitters]
    return [{"index": int(e.index), "name": e.name, "texture": e.texture,
             "secondary_texture": e.secondary_texture, "lifetime": _f(e.lifetime),
             "randomized_lifetime": _f(e.randomized_lifetime),
             "blend_mode": int(e.blend_mode), "death": _link(e.death), "birth": _link(e.birth)}
            for e in system.emitters if not isinstance(e, Chunk)]


def info_json(data: BytesLike, filename: str | None = None) -> dict:
    """What ``info --json`` adds for a particle file: the system and its emitters."""
    system = read_particles(data, filename)
    out = {"particle_system": system.name, "game": _game(system),
           "emitters": emitter_entries(system)}
    if isinstance(system, ParticleSystem):
        out["persist"] = int(system.persist)
    return out


def _game(system):
    return ("Universe at War" if isinstance(system, UawParticleSystem)
            else "Empire at War / Forces of Corruption")


def info_lines(data: BytesLike, filename: str | None = None) -> list[str]:
    system = read_particles(data, filename)
    entries = emitter_entries(system)
    head = (f"particle system {system.name!r} ({_game(system)}, root 0x{system.root_type:x}):"
            f" {len(entries)} emitter{'' if len(entries) == 1 else 's'}")
    if isinstance(system, ParticleSystem):
        head += f", {'persistent' if system.persist else 'not persistent'}"
    lines = [head]
    for d in entries:
        life = "?" if d["lifetime"] is None else f"{d['lifetime']:g}" \
            if isinstance(d["lifetime"], float) else d["lifetime"]
        text = f"  emitter {d['index']} {d['name']!r}: texture {d['texture']!r}, lifetime {life}"
        if "blend_mode" in d:
            mode = d["blend_mode"]
            text += f" s, {BLEND_MODES[mode] if mode < len(BLEND_MODES) else mode}"
            links = [f"{k} -> {d[k]}" for k in ("birth", "death") if d[k] != -1]
            text += f" ({', '.join(links)})" if links else ""
        elif len(d.get("textures", ())) > 1:
            text += f", also {', '.join(map(repr, d['textures'][1:]))}"
        lines.append(text)
    return lines


def problems(data: BytesLike, filename: str | None = None) -> list[Problem]:
    """What the game needs of a particle file, with severities: the particle loader's rules
    (:mod:`.game_rules`: errors, and notes for the editors' chunks), then what it takes but
    plays wrong (warnings) and what is only worth knowing (notes); [] for a good file."""
    try:
        roots = read_chunks(data)
    except AlamoFormatError as e:
        raise e.with_filename(filename)
    out = particle_problems(roots=roots)
    try:
        with read_only():       # looked at only: no track records (no check reads them)
            system = decode_particles(roots)
    except AlamoFormatError as e:
        raise e.with_filename(filename)
    out += _name_problem(system, filename)
    if isinstance(system, UawParticleSystem):
        return out + link_problems(uaw_play.link_records(system))
    emitters = [e for e in system.emitters if not isinstance(e, Chunk)]
    for i, e in enumerate(emitters):
        who = f"emitter {i} ({e.name!r})"
        if e.index != i:
            out.append(note(f"index {e.index}, but it is emitter {i} of the file (no loader "
                            "reads the index)", who))
        for link in ("birth", "death"):
            if getattr(e, link) == i:
                out.append(warning(f"{link} emitter is the emitter itself", who))
        g = e.groups[1]
        life = codec.decode("f32", codec.encode("f32", e.lifetime))
        if g.type != 1 or not (codec.same(float(g.max_y), life)
                               or codec.same(float(g.max_x), life)):
            out.append(note(f"the lifetime group does not hold the lifetime {life:g} (no "
                            "loader reads it)", who))
        out += _value_problems(e, who)
        out.extend(note(text, who) for text in e.layout.notes if e.layout)
    return out + link_problems(emitters)


def _value_problems(e, who):
    """Values the loader takes but the game plays wrong."""
    out = []
    if not e.texture:
        out.append(warning("no texture: the game draws untextured quads", who))
    mode = e.blend_mode
    if not 0 <= mode < len(BLEND_MODES):
        out.append(warning(f"blend mode {mode} is none of the {len(BLEND_MODES)} modes; the "
                           f"loader takes it modulo {len(BLEND_MODES)} (as "
                           f"{BLEND_MODES[mode % len(BLEND_MODES)]})", who))
    cells = e.num_texture_elements
    if not 1 <= cells <= 64:
        out.append(warning(f"the texture is cut into {cells:,} sprite cells per side; the "
                           "game draws slivers (or nothing) for such a sheet: 1 to 64", who))
    bad = [name for name, value in e.properties().items() if isinstance(value, float)
           and not math.isfinite(value)]
    if bad:
        out.append(warning(f"{', '.join(bad)} NaN or infinite: the game draws nothing or "
                           "garbage", who))
    return out


def _name_problem(system, filename):
    if not filename:
        return []
    stem = os.path.splitext(os.path.basename(str(filename).replace("\\", "/")))[0]
    if system.name.lower() != stem.lower():
        return [warning(f"the system's name {system.name!r} does not match the file name "
                        f"{stem!r}; the game finds effects by their system's name: rename "
                        "one of them")]
    return []


def roundtrip(data: BytesLike, filename: str | None = None) -> bytes:
    return write_particles(read_particles(data, filename))


# --- dump ----------------------------------------------------------------------------------

_SYSTEM_NAMES = {0x0: "system name", 0x1: "system id", 0x2: "persistence",
                 0x800: "emitters", ROOT: "particle system", 0x1500: "particle system (UaW)"}
_EMITTER_NAMES = {tag_id: tag.replace("_", " ") for tag_id, tag in EMITTER_CHUNKS.items()}
_STRINGS = {(ROOT, 0x0), (EMITTER, 0x3), (EMITTER, 0x16), (EMITTER, 0x45)}
_TRACK_NAMES = {0x0: "track properties", 0x1: "track keys"}


def dump_tree(data: BytesLike, filename: str | None = None) -> list[dict]:
    """The chunk tree as plain dicts (the shape of Alamo's ``dump``), with particle names and
    decoded minis."""
    try:
        roots = read_chunks(data)
    except AlamoFormatError as e:
        raise e.with_filename(filename)
    if roots and roots[0].type == 0x1500:
        return [_uaw_node(c, ()) for c in roots]
    return [_node(c, None, 0) for c in roots]


# Universe at War: names by the chain of chunk types above (see uaw.py for the layout)
_UAW_NAMES = {(): {0x1500: "particle system (UaW)"},
              (0x1500,): {0x0: "system name", 0x1520: "emitters", 0x3: "light field source"},
              (0x1500, 0x1520): {0x1540: "emitter"},
              (0x1500, 0x1520, 0x1540): {0x0: "emitter name", 0x1: "creator plugin",
                                         0x2: "translater plugin", 0x3: "killer plugin",
                                         0x4: "renderer plugin", 0x5: "modifier plugin"}}
_UAW_PLUGIN = {0x0: "plugin id", 0x1: "parameters"}


def _uaw_node(c, chain):
    name = _UAW_NAMES.get(chain, {}).get(c.type)
    if name is None and len(chain) == 4 and chain[2] == 0x1540:
        name = _UAW_PLUGIN.get(c.type)
    if name is None and len(chain) == 6 and chain[4:] == (0x1, 0x0):
        name = {0x0: "parameter id", 0x1: "parameter value"}.get(c.type)
    if name is None and len(chain) == 5 and chain[4] == 0x1 and c.type == 0x0:
        name = "parameter list"
    d = {"type": f"0x{c.type:x}", "name": name or "unknown", "offset": c.offset,
         "size": c.size(), "path": c.path}
    if c.is_container:
        d["children"] = [_uaw_node(k, chain + (c.type,)) for k in c.children]
    elif name in ("system name", "emitter name"):
        d["text"] = bytes(c.data).split(b"\0", 1)[0].decode("cp1252", "replace")
    else:
        d["head"] = bytes(c.data[:32]).hex()
    return d


def _name(c, parent):
    if parent in (None, ROOT):
        return _SYSTEM_NAMES.get(c.type, "unknown") if parent == ROOT or c.type in (
            ROOT, 0x1500) else "unknown"
    table = {EMITTER: _EMITTER_NAMES, 0x1: _TRACK_NAMES, 0x800: {EMITTER: "emitter"},
             0x29: {0x1100: "group"}, 0x1100: {0x1101: "group data"}}.get(parent, {})
    return table.get(c.type, "unknown")


def _schema(c, parent, track):
    if parent == EMITTER and c.type == 0x2:
        return PROPERTY_BY_ID
    if parent == EMITTER and c.type == 0x36:
        return LINK_SCHEMA
    if parent == 0x1 and c.type == 0x0:
        return {k: v for k, v in track_schema(track < 4).items()}
    if parent == 0x1 and c.type == 0x1:
        return {5: ("key", "f32x2" if track >= 4 else "u32f32")}
    return None


def _node(c, parent, track):
    d = {"type": f"0x{c.type:x}", "name": _name(c, parent), "offset": c.offset,
         "size": c.size(), "path": c.path}
    if c.is_container:
        kids, k = [], 0
        for child in c.children:
            kids.append(_node(child, c.type, k))
            if c.type == 0x1 and child.type == 0x1:
                k += 1
        d["children"] = kids
        return d
    if (parent, c.type) in _STRINGS:
        d["text"] = bytes(c.data).split(b"\0", 1)[0].decode("cp1252", "replace")
        return d
    if parent == 0x1100 and c.type == 0x1101 and len(c.data) == GROUP_DTYPE.itemsize:
        d["decoded"] = group_lines(np.frombuffer(bytes(c.data), GROUP_DTYPE)[0])
    schema = _schema(c, parent, track)
    if schema is not None:
        try:
            d["minis"] = [_mini(m, schema) for m in read_minis(c)]
            return d
        except AlamoFormatError:
            pass
    d["head"] = bytes(c.data[:32]).hex()
    return d


def _g(v):
    return f"{float(v):g}"


def group_lines(g):
    """A group's 64 bytes (a GROUP_DTYPE record) in words: its shape and what it uses."""
    kind = int(g["type"])
    name = GROUP_TYPES[kind] if kind < len(GROUP_TYPES) else f"unknown type {kind}"
    vec = {p: "(" + ", ".join(_g(g[f"{p}_{a}"]) for a in "xyz") + ")"
           for p in ("min", "max", "val")}
    surface = {True: ", surface only", False: ""}
    shown = {0: f"value {vec['val']}", 1: f"min {vec['min']} max {vec['max']}",
             2: f"side length {_g(g['side_length'])}",
             3: f"radius {_g(g['sphere_radius'])}{surface[bool(g['sphere_surface'])]}",
             4: f"radius {_g(g['cylinder_radius'])} height {_g(g['cylinder_height'])}"
                f"{surface[bool(g['cylinder_surface'])]}"}
    lines = [f"{name}: " + shown.get(kind, f"min {vec['min']} max {vec['max']} value "
                                           f"{vec['val']}")]
    unused = [f for f in GROUP_DTYPE.names[1:]
              if g[f] != 0 and f not in _GROUP_USES.get(kind, ())]
    if kind in shown and unused:       # the editors keep the other shapes' values
        lines.append("other shapes' values (not used): "
                     + ", ".join(f"{f} {_g(g[f])}" for f in unused))
    return lines


_GROUP_USES = {0: ("val_x", "val_y", "val_z"),
               1: ("min_x", "min_y", "min_z", "max_x", "max_y", "max_z"),
               2: ("side_length",), 3: ("sphere_radius", "sphere_surface"),
               4: ("cylinder_radius", "cylinder_height", "cylinder_surface")}


def _mini(m, schema):
    known = schema.get(m.type)
    out = {"type": m.type, "size": len(m.data)}
    if known is None:
        return {**out, "data": bytes(m.data).hex()}
    name, kind = known
    if kind in ("f32x2", "u32f32") and len(m.data) == 8:
        value = codec.decode("u32" if kind == "u32f32" else "f32", m.data[:4])
        return {**out, "field": name,
                "value": {"value": value, "time": codec.decode("f32", m.data[4:])}}
    if len(m.data) != codec.SIZES.get(kind, -1):
        return {**out, "field": name, "data": bytes(m.data).hex()}
    value = codec.decode(kind, m.data)
    return {**out, "field": name, "value": list(value) if isinstance(value, tuple) else value}
