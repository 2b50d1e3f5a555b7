"""Human-readable views of files: the chunk tree (``dump``) and a summary (``info``)."""

from ..errors import AlamoFormatError, without_filename  # noqa: F401 (importable from here)
from .animation import BONE_SCHEMA, HEADER_SCHEMA, Animation
from .chunk_types import ChunkType
from .chunks import read_minis
from .fields import KINDS
from .model import Mesh, Model
from .schemas import DAZZLE_SCHEMA, MODEL_MINI_SCHEMAS

CHUNK_NAMES = {
    ChunkType.SKELETON: "skeleton",
    ChunkType.SKELETON_HEADER: "skeleton header",
    ChunkType.BONE: "bone",
    ChunkType.BONE_NAME: "bone name",
    ChunkType.BONE_DATA_NO_BILLBOARD: "bone data (no billboard)",
    ChunkType.BONE_DATA: "bone data",
    ChunkType.MESH: "mesh",
    ChunkType.MESH_NAME: "mesh name",
    ChunkType.MESH_INFO: "mesh info",
    ChunkType.MATERIAL: "sub-mesh material",
    ChunkType.SHADER_NAME: "shader name",
    ChunkType.PARAM_INT: "INT parameter",
    ChunkType.PARAM_FLOAT: "FLOAT parameter",
    ChunkType.PARAM_FLOAT3: "FLOAT3 parameter",
    ChunkType.PARAM_TEXTURE: "TEXTURE parameter",
    ChunkType.PARAM_FLOAT4: "FLOAT4 parameter",
    ChunkType.SUBMESH_DATA: "sub-mesh data",
    ChunkType.SUBMESH_HEADER: "sub-mesh header",
    ChunkType.VERTEX_FORMAT: "vertex format",
    ChunkType.INDEX_BUFFER: "index buffer",
    ChunkType.VERTEX_BUFFER_NO_UNUSED: "vertex buffer (no unused)",
    ChunkType.VERTEX_BUFFER: "vertex buffer",
    ChunkType.BONE_MAP: "bone map",
    ChunkType.COLLISION_TREE: "collision tree",
    ChunkType.COLLISION_HEADER: "collision tree header",
    ChunkType.COLLISION_NODES: "collision nodes",
    ChunkType.COLLISION_TRIANGLES: "collision triangles",
    ChunkType.LIGHT: "light",
    ChunkType.LIGHT_NAME: "light name",
    ChunkType.LIGHT_INFO: "light info",
    ChunkType.CONNECTIONS: "connections",
    ChunkType.CONNECTIONS_HEADER: "connections header",
    ChunkType.OBJECT_CONNECTION: "object connection",
    ChunkType.PROXY: "proxy",
    ChunkType.DAZZLE: "dazzle",
    ChunkType.PARTICLE_EFFECT: "particle effect",
    ChunkType.PARTICLE_EFFECT_UAW: "particle effect (UaW)",
    ChunkType.ANIMATION: "animation",
    ChunkType.ANIMATION_HEADER: "animation header",
    ChunkType.BONE_ANIMATION: "bone animation",
    ChunkType.BONE_ANIMATION_HEADER: "bone animation header",
    ChunkType.TRANSLATION_TRACK: "translation track",
    ChunkType.SCALE_TRACK: "scale track",
    ChunkType.ROTATION_TRACK: "rotation track",
    ChunkType.VISIBILITY_BITS: "visibility bits",
    ChunkType.STEP_BITS: "step bits",
    ChunkType.ROTATION_FRAMES: "rotation frames",
    ChunkType.TRANSLATION_FRAMES: "translation frames",
    ChunkType.SCALE_FRAMES: "scale frames",
}

# Data chunks that hold one zero-terminated string: shown as text, not hex.
STRING_CHUNKS = frozenset({ChunkType.BONE_NAME, ChunkType.MESH_NAME, ChunkType.SHADER_NAME,
                           ChunkType.LIGHT_NAME})

_MODEL_MINIS = MODEL_MINI_SCHEMAS
_ANIM_MINIS = {ChunkType.ANIMATION_HEADER: HEADER_SCHEMA,
               ChunkType.BONE_ANIMATION_HEADER: BONE_SCHEMA}


def _mini_schema(chunk, parent_type, is_animation):
    if is_animation:
        return _ANIM_MINIS.get(chunk.type)
    if chunk.type == ChunkType.DAZZLE_MINIS and parent_type == ChunkType.DAZZLE:
        return DAZZLE_SCHEMA
    return _MODEL_MINIS.get(chunk.type)


def _mini_value(data, kind):
    if kind == "str":
        raw = bytes(data)
        return raw.split(b"\0", 1)[0].decode("cp1252", "replace")
    dec, _, sizes = KINDS[kind]
    if len(data) not in sizes:
        return bytes(data).hex()
    v = dec(data)
    return v.tolist() if hasattr(v, "tolist") else v


def chunk_tree(roots):
    """The chunk tree as plain dicts (types, sizes, offsets, decoded mini-chunks)."""
    is_animation = bool(roots) and roots[0].type == ChunkType.ANIMATION

    def node(c, parent_type):
        d = {"type": f"0x{c.type:x}", "name": CHUNK_NAMES.get(c.type, "unknown"),
             "offset": c.offset, "size": c.size(), "path": c.path}
        if c.is_container:
            d["children"] = [node(k, c.type) for k in c.children]
            return d
        if c.type in STRING_CHUNKS and not is_animation:
            raw = bytes(c.data)
            d["text"] = _mini_value(raw, "str")
            if raw != raw.split(b"\0", 1)[0] + b"\0":     # no terminator, or bytes after it
                d["head"] = raw[:32].hex()
            return d
        schema = _mini_schema(c, parent_type, is_animation)
        if schema is not None:
            try:
                d["minis"] = [
                    {"type": m.type, "size": len(m.data),
                     **({"field": schema[m.type][0],
                         "value": _mini_value(m.data, schema[m.type][1])}
                        if m.type in schema else {"data": bytes(m.data).hex()})}
                    for m in read_minis(c)]
                return d
            except AlamoFormatError:
                pass
        d["head"] = bytes(c.data[:32]).hex()
        return d

    return [node(c, None) for c in roots]


def format_tree(nodes, indent=0):
    lines = []
    for n in nodes:
        pad = "  " * indent
        lines.append(f"{pad}{n['type']} {n['name']}  size {n['size']} @ 0x{n['offset']:x}")
        if "children" in n:
            lines += format_tree(n["children"], indent + 1)
        elif "decoded" in n:            # a particle group's shape, in words
            lines += [f"{pad}    {line}" for line in n["decoded"]]
        elif "minis" in n:
            for m in n["minis"]:
                label = m.get("field", "?")
                value = m.get("value", m.get("data"))
                lines.append(f"{pad}    mini {m['type']} {label} = {value}")
        elif "text" in n:
            lines.append(f"{pad}    {n['text']!r}"
                         + (f"  (bytes: {n['head']}{'...' if n['size'] > 32 else ''})"
                            if "head" in n else ""))
        elif n["size"]:
            more = "..." if n["size"] > 32 else ""
            lines.append(f"{pad}    {n['head']}{more}")
    return lines


def _n(n, word, words=None):
    """``1 bone``, ``2,048 bones``: one thousands separator style everywhere."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def counts(obj) -> dict:
    """What ``info`` counts, as data (``info --json``): a model's bones, meshes, materials,
    lights, proxies and dazzles; an animation's format, frames, fps and bones animated."""
    if isinstance(obj, Animation):
        return {"kind": "animation", "animation_format": int(obj.format),
                "frames": int(obj.num_frames), "fps": float(obj.fps),
                "bones_animated": len(obj.bones)}
    conn = obj.connections
    return {"kind": "model", "bones": len(obj.bones), "meshes": len(obj.meshes),
            "materials": sum(len(m.submeshes) for m in obj.meshes),
            "vertices": sum(len(s.vertices) for m in obj.meshes for s in m.submeshes),
            "triangles": sum(len(s.indices) for m in obj.meshes for s in m.submeshes),
            "lights": len(obj.lights), "proxies": len(conn.proxies) if conn else 0,
            "dazzles": len(conn.dazzles) if conn else 0}


def summary(obj):
    """A readable multi-line summary of a Model, ParticleEffect or Animation."""
    if isinstance(obj, Animation):
        return _animation_summary(obj)
    if not isinstance(obj, Model):
        return [f"particle effect (root 0x{obj.root_type:x}), {_n(len(obj.chunks), 'root chunk')}"
                ", kept as raw chunks"]
    c = counts(obj)
    lines = ["model: " + ", ".join(_n(c[k], w, ws) for k, w, ws in (
        ("bones", "bone", None), ("meshes", "mesh", "meshes"), ("lights", "light", None),
        ("proxies", "proxy", "proxies"), ("dazzles", "dazzle", None)))]
    for i, b in enumerate(obj.bones):
        flags = ("" if b.visible else " hidden") + (f" billboard={b.billboard}" if b.billboard else "")
        lines.append(f"  bone {i} {b.name!r} parent {b.parent}{flags}")
    bones_of = obj.object_bones()
    for oi, o in enumerate(obj.objects):
        bone = bones_of.get(oi)
        at = f" on bone {bone}" if bone is not None else " (not connected)"
        if isinstance(o, Mesh):
            nv = sum(len(s.vertices) for s in o.submeshes)
            nt = sum(len(s.indices) for s in o.submeshes)
            flags = (" hidden" if o.hidden else "") + (" collision" if o.collision else "")
            lines.append(f"  mesh {o.name!r}{at}: {_n(len(o.submeshes), 'sub-mesh', 'sub-meshes')}"
                         f", {_n(nv, 'vertex', 'vertices')}, {_n(nt, 'triangle')}{flags}")
            for s in o.submeshes:
                skin = f", skinned to {_n(len(s.bone_map), 'bone')}" if s.bone_map is not None \
                    else ""
                tree = (f", collision tree {_n(len(s.collision_tree.nodes), 'node')}"
                        if s.collision_tree is not None else "")
                tex = [p.value for p in s.material.params if p.type == ChunkType.PARAM_TEXTURE]
                lines.append(f"    {s.material.shader} / {s.vertex_format}: "
                             f"{_n(len(s.vertices), 'vertex', 'vertices')}, "
                             f"{_n(len(s.indices), 'triangle')}{skin}{tree}"
                             + (f", textures {', '.join(tex)}" if tex else ""))
        else:
            kinds = {0: "omni", 1: "directional", 2: "spot"}
            lines.append(f"  light {o.name!r}{at}: {kinds.get(o.type, o.type)}, colour "
                         f"{[round(float(c), 3) for c in o.color]}, intensity {float(o.intensity):g}")
    if obj.connections:
        for p in obj.connections.proxies:
            flags = (" hidden" if p.hidden else "") + (" alt-decrease-stay-hidden"
                                                       if p.alt_decrease_stay_hidden else "")
            lines.append(f"  proxy {p.name!r} on bone {p.bone}{flags}")
        for d in obj.connections.dazzles:
            lines.append(f"  dazzle {d.name!r} on bone {d.bone}, texture {d.texture!r}")
    return lines


def _animation_summary(anim):
    lines = [f"animation: format #{anim.format} ({'EaW' if anim.format == 1 else 'FoC'}), "
             f"{_n(anim.num_frames, 'frame')} at {float(anim.fps):g} fps, "
             f"{_n(len(anim.bones), 'bone')}"]
    for b in anim.bones:
        tracks = [name for name in ("translation", "rotation", "scale", "visibility", "step")
                  if getattr(b, name) is not None]
        lines.append(f"  bone {b.index} {b.name!r}: "
                     + (", ".join(tracks) if tracks else "constant"))
    return lines
