"""Universe at War particle systems (root 0x1500): listed, kept byte for byte.

What is known of their layout comes from the alo-viewer's particle reader (GlyphXTools, the
only public description; read, not copied): the root holds a name (0x0), two small chunks
(0x1, 0x2), an emitter list (0x1520) of emitters (0x1540) and, in some, a light-field source
(0x3). An emitter holds its name (0x0) and plugins: a creator (0x1), a translater (0x2), a
killer (0x3), a renderer (0x4) and any number of modifiers (0x5). A plugin chunk holds its
plugin id (0x0, uint32) and a container (0x1) whose container (0x0) lists parameters as pairs
of chunks: the parameter id (0x0, uint32) and its value (0x1: a float, an int, a byte, a
string...). The renderer's string parameters name its textures; the killer's parameter 0 is
the particles' lifetime in seconds (parameter 1 its variation in percent).

Nothing here is written back from decoded values: the file's chunks are.
"""

import struct

from ..chunks import Chunk
from ..fields import decode_cstr
from .records import UawEmitter, UawParticleSystem

EMITTER_LIST, EMITTER = 0x1520, 0x1540
SLOTS = {0x1: "creator", 0x2: "translater", 0x3: "killer", 0x4: "renderer", 0x5: "modifier"}
# plugin ids 0-62 by name, as the public reader lists them
PLUGIN_NAMES = (
    "Point Creator", "Trail Creator", "Sphere Creator", "Box Creator", "Torus Creator",
    "Mesh Creator", "Terrain Creator", "Linear Size", "Linear Color", "Linear Rotation",
    "Acceleration", "Attract Acceleration", "Turbulence", "Vortex", "Constant UV", "Keyed Size",
    "Keyed Rotation", "Keyed Color", "Keyed UV", "Age Killer", "Radius Killer",
    "Terrain Killer", "Billboard Renderer", "Line Renderer", "Chain Renderer",
    "Volumetric Renderer", "Emitter Translater", "World Translater", "XY Aligned Renderer",
    "Velocity Aligned Renderer", "Random UV", "Keyed Acceleration", "Keyed Friction",
    "Slotted Random UV", "Shape Creator", "Enhanced Mesh Creator",
    "Stretched Texture Chain Renderer", "Bump Map Renderer", "Heat Saturation Renderer",
    "Enhanced Trail Creator", "Death Creator", "Attractor", "Speed Limit",
    "Aligned Shape Creator", "Target Killer", "Distance Key Time", "Linear Speed",
    "XY Aligned Chain Renderer", "Linear Rotation Rate", "Keyed Rotation Rate",
    "Outward Velocity Shape Creator", "Terrain Bounce", "Kites Renderer", "Color Variance",
    "Wind Acceleration", "Torque", "Axis Attractor", "Constant Size", "Constant Rotation",
    "Constant Color", "Hardware Spawner Creator", "Hardware Billboards Renderer",
    "Hardware Stomper Killer")
# renderer plugin id -> the parameter ids that hold texture names (others: parameter 100)
TEXTURE_PARAMS = {25: (100, 101, 102), 37: (100, 101), 61: (6400,)}
DEFAULT_TEXTURE_PARAMS = (100,)
LIFETIME_PARAM, LIFETIME_VARIATION_PARAM = 0, 1


def decode_uaw(roots: list[Chunk]) -> UawParticleSystem:
    system = UawParticleSystem(chunks=roots)
    root = roots[0]
    for c in root.children or ():
        if c.type == 0x0 and not c.is_container and not system.name:
            system.name = _text(c)
        elif c.type == EMITTER_LIST and c.is_container:
            system.emitters.extend(_emitter(e, len(system.emitters)) for e in c.children
                                   if e.type == EMITTER and e.is_container)
    return system


def _text(chunk) -> str:
    try:
        return decode_cstr(chunk.data, chunk, "name", None)
    except ValueError:
        return bytes(chunk.data).decode("cp1252", "replace")


def _u32(chunk):
    if chunk is None or chunk.is_container or len(chunk.data) != 4:
        return None
    return struct.unpack("<I", chunk.data)[0]


def _emitter(chunk: Chunk, index: int) -> UawEmitter:
    e = UawEmitter(index=index, chunk=chunk)
    modifiers = []
    for c in chunk.children:
        if c.type == 0x0 and not c.is_container and not e.name:
            e.name = _text(c)
            continue
        slot = SLOTS.get(c.type)
        plugin = _plugin(c) if slot and c.is_container else None
        if plugin is None:
            continue
        pid, params = plugin
        label = PLUGIN_NAMES[pid] if pid < len(PLUGIN_NAMES) else f"plugin {pid}"
        if slot == "modifier":
            modifiers.append(label)
            continue
        e.info[slot] = label
        if slot == "renderer":
            e.textures = [_text(params[k]) for k in TEXTURE_PARAMS.get(pid, DEFAULT_TEXTURE_PARAMS)
                          if k in params and not params[k].is_container]
            e.textures = [t for t in e.textures if t and not t.lower().endswith(".fx")]
        elif slot == "killer":
            life = params.get(LIFETIME_PARAM)
            if life is not None and not life.is_container and len(life.data) == 4:
                e.lifetime = struct.unpack("<f", life.data)[0]
    if modifiers:
        e.info["modifiers"] = modifiers
    return e


def _plugin(chunk: Chunk):
    """(plugin id, {parameter id: value chunk}) of a plugin chunk, or None when its layout is
    not the one described."""
    kids = chunk.children
    pid = _u32(kids[0]) if kids and kids[0].type == 0x0 else None
    if pid is None:
        return None
    params = {}
    holder = next((k for k in kids[1:] if k.type == 0x1 and k.is_container), None)
    inner = next((k for k in holder.children if k.type == 0x0 and k.is_container),
                 None) if holder is not None else None
    pairs = inner.children if inner is not None else []
    for key, value in zip(pairs[0::2], pairs[1::2]):
        param = _u32(key) if key.type == 0x0 else None
        if param is not None and value.type == 0x1:
            params.setdefault(param, value)
    return pid, params


#: Public names of the two readers other modules use (uaw_params, uaw_play).
read_plugin = _plugin
chunk_text = _text
