"""Encode :mod:`.model` records back into .alo bytes.

Every record is written with the layout it was read with (unknown chunks and mini-chunks in
place, string and struct tails kept), so an unchanged model gives back the identical bytes.
Counts in headers are derived from the data, and limits are checked before any byte is made.
"""

import struct

import numpy as np

from ..errors import AlamoFormatError
from .chunk_types import ChunkType
from .chunks import Chunk, write_chunks
from .collision import FILE_NODE_DTYPE
from .fields import encode_cstr, encode_minis
from .layout import arrange, count_for, sub_of, tail_of
from .model import VERTEX_CHUNK_DTYPES, Light, Mesh, Model, ParamType, ParticleEffect
from .schemas import MODEL_MINI_SCHEMAS as MINI_SCHEMAS

# Data chunks that hold mini-chunks
MINI_CHUNK_TYPES = (ChunkType.DAZZLE_MINIS, ChunkType.CONNECTIONS_HEADER,
                    ChunkType.OBJECT_CONNECTION, ChunkType.PROXY, ChunkType.DAZZLE,
                    ChunkType.COLLISION_HEADER, *(int(t) for t in ParamType))


def write_alo(model: Model | ParticleEffect) -> bytes:
    """Encode a :class:`Model` (or :class:`ParticleEffect`) to bytes."""
    if isinstance(model, ParticleEffect):
        return write_chunks(encode_alo(model))
    return write_chunks(encode_alo(model), MINI_CHUNK_TYPES)


def encode_alo(model: Model | ParticleEffect) -> list[Chunk]:
    if isinstance(model, ParticleEffect):
        return model.chunks
    slots = {}
    if model.skeleton is not None:
        slots["skeleton"] = _skeleton(model.skeleton)
    for i, obj in enumerate(model.objects):
        if isinstance(obj, Mesh):
            slots[("object", i)] = _mesh(obj, f"mesh {obj.name!r}")
        elif isinstance(obj, Light):
            slots[("object", i)] = _light(obj)
        else:
            raise AlamoFormatError(f"object {i} is a {type(obj).__name__}, not a Mesh or Light")
    if model.connections is not None:
        slots["connections"] = _connections(model.connections)
    order = ["skeleton"] + [("object", i) for i in range(len(model.objects))] + ["connections"]
    return arrange(slots, order, model.layout)


def _data(ctype, data):
    return Chunk(ctype, data=data)


def _box(ctype, slots, order, layout):
    return Chunk(ctype, children=arrange(slots, order, layout))


def _u32(v, what):
    if not 0 <= int(v) <= 0xFFFFFFFF:
        raise AlamoFormatError(f"{what} {v} does not fit an unsigned 32-bit field")
    return int(v)


# --- skeleton ---------------------------------------------------------------------------

def _skeleton(skel):
    lay = skel.layout
    n = len(skel.bones)
    header = struct.pack("<I", count_for(lay, "bones", n)) + (
        tail_of(lay, "header") if lay else bytes(124))
    slots = {"header": _data(ChunkType.SKELETON_HEADER, header)}
    for i, bone in enumerate(skel.bones):
        slots[("bone", i)] = _bone(bone, i)
    return _box(ChunkType.SKELETON, slots, ["header"] + [("bone", i) for i in range(n)], lay)


def _bone(bone, index):
    lay = bone.layout
    matrix = np.asarray(bone.matrix, "<f4")
    if matrix.shape != (3, 4):
        raise AlamoFormatError(f"bone {index} ({bone.name!r}): matrix must be 3x4, "
                               f"got {matrix.shape}")
    if bone.chunk_type == ChunkType.BONE_DATA_NO_BILLBOARD:
        head = struct.pack("<iI", bone.parent, _u32(bone.visible, "visible"))
    elif bone.chunk_type == ChunkType.BONE_DATA:
        head = struct.pack("<iII", bone.parent, _u32(bone.visible, "visible"),
                           _u32(bone.billboard, "billboard"))
    else:
        raise AlamoFormatError(f"bone {index}: chunk type must be 0x205 or 0x206")
    slots = {
        "name": _data(ChunkType.BONE_NAME, encode_cstr(bone.name, tail_of(lay, "name"))),
        "data": _data(bone.chunk_type, head + matrix.tobytes() + tail_of(lay, "data")),
    }
    return _box(ChunkType.BONE, slots, ["name", "data"], lay)


# --- meshes -----------------------------------------------------------------------------

def _mesh(mesh, what):
    lay = mesh.layout
    n = len(mesh.submeshes)
    box = np.concatenate([np.asarray(mesh.bbox_min, "<f4").reshape(3),
                          np.asarray(mesh.bbox_max, "<f4").reshape(3)])
    info = (struct.pack("<I", count_for(lay, "submeshes", n)) + box.tobytes()
            + struct.pack("<III", _u32(mesh.unused, "unused"), _u32(mesh.hidden, "hidden"),
                          _u32(mesh.collision, "collision"))
            + (tail_of(lay, "info") if lay else bytes(88)))
    slots = {"name": _data(ChunkType.MESH_NAME, encode_cstr(mesh.name, tail_of(lay, "name"))),
             "info": _data(ChunkType.MESH_INFO, info)}
    order = ["name", "info"]
    for i, sub in enumerate(mesh.submeshes):
        slots[("material", i)] = _material(sub.material)
        slots[("data", i)] = _submesh(sub, f"{what} sub-mesh {i}")
        order += [("material", i), ("data", i)]
    return _box(ChunkType.MESH, slots, order, lay)


def _material(mat):
    lay = mat.layout
    slots = {"shader": _data(ChunkType.SHADER_NAME,
                             encode_cstr(mat.shader, tail_of(lay, "shader")))}
    for i, p in enumerate(mat.params):
        ptype = ParamType(p.type)
        if ptype == ParamType.INT and not -2**31 <= int(p.value) < 2**31:
            raise AlamoFormatError(f"shader parameter {p.name!r}: {p.value} does not fit int32")
        body = encode_minis({"name": p.name, "value": p.value}, MINI_SCHEMAS[int(ptype)], p.layout)
        slots[("param", i)] = _data(int(ptype), body)
    order = ["shader"] + [("param", i) for i in range(len(mat.params))]
    return _box(ChunkType.MATERIAL, slots, order, lay)


def _submesh(sub, what):
    lay = sub.layout
    v = sub.vertices
    if v.dtype not in VERTEX_CHUNK_DTYPES.values():
        raise AlamoFormatError(f"{what}: vertices must use VERTEX_DTYPE or VERTEX_DTYPE_NO_UNUSED")
    idx = np.asarray(sub.indices)
    if idx.ndim != 2 or idx.shape[1] != 3:
        raise AlamoFormatError(f"{what}: indices must be (n, 3), got {idx.shape}")
    if len(v) > 65535:
        raise AlamoFormatError(f"{what}: {len(v)} vertices; a sub-mesh holds at most 65,535")
    if idx.size and (idx.min() < 0 or idx.max() > 65535):
        raise AlamoFormatError(f"{what}: vertex index out of the 16-bit range")
    header = (struct.pack("<II", count_for(lay, "vertices", len(v)),
                          count_for(lay, "triangles", len(idx)))
              + (tail_of(lay, "header") if lay else bytes(120)))
    slots = {
        "header": _data(ChunkType.SUBMESH_HEADER, header),
        "format": _data(ChunkType.VERTEX_FORMAT,
                        encode_cstr(sub.vertex_format, tail_of(lay, "format"))),
        "vertices": _data(sub.vertex_chunk_type, v.tobytes()),
        "indices": _data(ChunkType.INDEX_BUFFER, idx.astype("<u2").tobytes()),
    }
    if sub.bone_map is not None:
        bm = np.asarray(sub.bone_map)
        if bm.size and (bm.min() < 0 or bm.max() > 0xFFFFFFFF):
            raise AlamoFormatError(f"{what}: bone map index out of range")
        slots["bone_map"] = _data(ChunkType.BONE_MAP, bm.astype("<u4").tobytes())
    if sub.collision_tree is not None:
        slots["collision"] = _collision_tree(sub.collision_tree, what)
    order = ["header", "format", "vertices", "indices", "bone_map", "collision"]
    return _box(ChunkType.SUBMESH_DATA, slots, order, lay)


def _collision_tree(tree, what):
    lay = tree.layout
    nodes = tree.nodes
    if len(nodes) > 65536 or (len(nodes) and (nodes["count"].max() > 0xFFFF
                                              or nodes["link"].max() > 0xFFFF)):
        raise AlamoFormatError(f"{what}: collision tree too large for the format "
                               f"({len(nodes)} nodes; counts and links must fit 16 bits)")
    tris = np.asarray(tree.triangles)
    if tris.size and tris.max() > 0xFFFF:
        raise AlamoFormatError(f"{what}: collision tree triangle id above 65,535")
    raw = np.empty(len(nodes), FILE_NODE_DTYPE)
    for name in ("min", "max", "count", "link"):
        raw[name] = nodes[name]
    head = encode_minis({"box_min": tree.box_min, "box_max": tree.box_max,
                         "nodes": count_for(lay, "nodes", len(nodes)),
                         "triangles": count_for(lay, "triangles", len(tris))},
                        MINI_SCHEMAS[ChunkType.COLLISION_HEADER], sub_of(lay, "header"))
    slots = {"header": _data(ChunkType.COLLISION_HEADER, head),
             "nodes": _data(ChunkType.COLLISION_NODES, raw.tobytes()),
             "triangles": _data(ChunkType.COLLISION_TRIANGLES, tris.astype("<u2").tobytes())}
    return _box(ChunkType.COLLISION_TREE, slots, ["header", "nodes", "triangles"], lay)


def _light(light):
    lay = light.layout
    floats = np.empty(8, "<f4")
    floats[:3] = np.asarray(light.color, "<f4").reshape(3)
    floats[3:] = [light.intensity, light.far_attenuation_end, light.far_attenuation_start,
                  light.hotspot, light.falloff]
    # Assigning numpy float32 scalars element-wise keeps their bits; bytes go out unchanged.
    info = struct.pack("<I", _u32(light.type, "light type")) + floats.tobytes() + tail_of(lay, "info")
    slots = {"name": _data(ChunkType.LIGHT_NAME, encode_cstr(light.name, tail_of(lay, "name"))),
             "info": _data(ChunkType.LIGHT_INFO, info)}
    return _box(ChunkType.LIGHT, slots, ["name", "info"], lay)


# --- connections ------------------------------------------------------------------------

def _connections(conn):
    lay = conn.layout
    write_count = conn.write_dazzle_count
    if write_count is None:
        write_count = bool(conn.dazzles)
    elif not write_count and conn.dazzles:
        # a header read without the count (mini 9) stays so while its dazzles are as read
        as_read = lay is not None and lay.counts.get("dazzles", (0, -1))[1] == len(conn.dazzles)
        write_count = not as_read
    counts = {"objects": count_for(lay, "objects", len(conn.objects)),
              "proxies": count_for(lay, "proxies", len(conn.proxies)),
              "dazzles": count_for(lay, "dazzles", len(conn.dazzles)) if write_count else None}
    header = encode_minis(counts, MINI_SCHEMAS[ChunkType.CONNECTIONS_HEADER],
                          sub_of(lay, "header"))
    slots = {"header": _data(ChunkType.CONNECTIONS_HEADER, header)}
    order = ["header"]
    for i, c in enumerate(conn.objects):
        slots[("object", i)] = _data(ChunkType.OBJECT_CONNECTION, encode_minis(
            {"object": c.object, "bone": c.bone}, MINI_SCHEMAS[ChunkType.OBJECT_CONNECTION],
            c.layout))
        order.append(("object", i))
    for i, p in enumerate(conn.proxies):
        values = {"name": p.name, "bone": p.bone, "hidden": p.hidden,
                  "alt_decrease_stay_hidden": p.alt_decrease_stay_hidden}
        minis = encode_minis(values, MINI_SCHEMAS[ChunkType.PROXY], p.layout)
        slots[("proxy", i)] = _data(ChunkType.PROXY, minis)
        order.append(("proxy", i))
    for i, d in enumerate(conn.dazzles):
        slots[("dazzle", i)] = _dazzle(d)
        order.append(("dazzle", i))
    return _box(ChunkType.CONNECTIONS, slots, order, lay)


def _dazzle(d):
    schema = MINI_SCHEMAS[ChunkType.DAZZLE]
    values = {name: getattr(d, name) for name, _ in schema.values()}
    minis = encode_minis(values, schema, sub_of(d.layout, "minis"))
    if not d.nested:
        return _data(ChunkType.DAZZLE, minis)
    return _box(ChunkType.DAZZLE, {"minis": _data(ChunkType.DAZZLE_MINIS, minis)}, ["minis"],
                d.layout)
