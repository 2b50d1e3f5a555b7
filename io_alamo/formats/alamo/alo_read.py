"""Decode .alo bytes into :mod:`.model` records, remembering layout for lossless writing."""

import struct

import numpy as np

from ..errors import AlamoFormatError
from ..run_cache import own, viewing
from .chunk_types import ChunkType
from .chunks import BytesLike, Chunk, read_chunks, read_minis
from .collision import FILE_NODE_DTYPE, NODE_DTYPE, CollisionTree
from .fields import CT, check_size, decode_cstr, decode_minis, f32, viewed_cstr
from .layout import Layout, note_count
from .model import (VERTEX_CHUNK_DTYPES, Bone, Connections, Dazzle, Light, Material, Mesh, Model,
                    ObjectConnection, ParamType, ParticleEffect, Proxy, ShaderParam, Skeleton,
                    SubMesh)
from .sniff import PARTICLE_ROOTS
from .schemas import (COLLISION_HEADER_SCHEMA, CONNECTIONS_HEADER_SCHEMA, DAZZLE_SCHEMA,
                      OBJECT_CONNECTION_SCHEMA, PARAM_SCHEMAS, PROXY_SCHEMA)

ANIMATION_ROOT = ChunkType.ANIMATION

_BONE_DATA_TYPES = (ChunkType.BONE_DATA_NO_BILLBOARD, ChunkType.BONE_DATA)
_SUBMESH_KEYS = {
    ChunkType.SUBMESH_HEADER: "header", ChunkType.VERTEX_FORMAT: "format",
    ChunkType.VERTEX_BUFFER_NO_UNUSED: "vertices", ChunkType.VERTEX_BUFFER: "vertices",
    ChunkType.INDEX_BUFFER: "indices", ChunkType.BONE_MAP: "bone_map",
    ChunkType.COLLISION_TREE: "collision",
}
_COLLISION_KEYS = {ChunkType.COLLISION_HEADER: "header", ChunkType.COLLISION_NODES: "nodes",
                   ChunkType.COLLISION_TRIANGLES: "triangles"}
_BONE_206 = struct.Struct("<iII")
_BONE_205 = struct.Struct("<iI")
_MESH_INFO = struct.Struct("<I6fIII")
_LIGHT_INFO = struct.Struct("<I8f")


def read_alo(data: BytesLike, filename: str | None = None) -> Model | ParticleEffect:
    """Decode a whole .alo file: a :class:`Model`, or a :class:`ParticleEffect` kept raw."""
    try:
        return decode_alo(read_chunks(data))
    except AlamoFormatError as e:
        raise e.with_filename(filename)


def decode_alo(roots: list[Chunk]) -> Model | ParticleEffect:
    if not roots:
        raise AlamoFormatError("empty file: no chunks", offset=0)
    first = roots[0].type
    if first in PARTICLE_ROOTS:
        return ParticleEffect(roots)
    if first == ANIMATION_ROOT:
        raise AlamoFormatError("this is an animation (.ala), not a model", offset=0,
                               path=roots[0].path)
    model = Model(skeleton=None, connections=None, layout=Layout())
    for c in roots:
        if c.type == CT.SKELETON and model.skeleton is None:
            model.skeleton = _skeleton(_need_container(c))
            model.layout.order.append("skeleton")
        elif c.type in (CT.MESH, CT.LIGHT):
            decode = _mesh if c.type == CT.MESH else _light
            model.layout.order.append(("object", len(model.objects)))
            model.objects.append(decode(_need_container(c)))
        elif c.type == CT.CONNECTIONS and model.connections is None:
            model.connections = _connections(_need_container(c))
            model.layout.order.append("connections")
        else:
            model.layout.order.append(c)
    if model.skeleton is None and model.connections is None and not model.objects:
        raise AlamoFormatError(f"not an Alamo model: first chunk is 0x{first:x}", offset=0,
                               path=roots[0].path)
    return model


def _need_container(c):
    if c.children is None:
        raise c.error("expected a chunk of child chunks, found raw data")
    return c


def _need_data(c):
    if c.children is not None:
        raise c.error("expected a data chunk, found child chunks")
    return c


def _string(c, key, layout):
    if layout.__class__ is _Looked:
        return viewed_cstr(_need_data(c).data, c, key)
    return decode_cstr(_need_data(c).data, c, key, layout)


def _first(children, ctype):
    return next((c for c in children if c.type == ctype), None)


class _Dropped(dict):
    """Order, tails and sub-layouts of a record only looked at: nothing is kept."""

    __slots__ = ()

    def __setitem__(self, key, value):
        pass

    def append(self, item):
        pass


class _Looked:
    """The layout of a record read inside :func:`~io_alamo.formats.run_cache.read_only`
    (``validate``): only the header counts that disagree with their data, which validate
    reports; the order, tails and sub-layouts only writing back needs are dropped."""

    __slots__ = ("counts",)
    order = tails = sub = _Dropped()

    def __init__(self):
        self.counts = {}


class _Children:
    """Walk a container's children: known ones by key, the rest kept raw in the layout
    (a :class:`_Looked` one inside ``read_only()``)."""

    def __init__(self, parent):
        self.parent = parent
        self.layout = _Looked() if viewing() else Layout()
        self.seen = set()

    def take(self, c, key):
        """Record ``c`` under ``key`` unless that key was seen (the caller keeps a repeat
        raw)."""
        if key in self.seen:
            return False
        self.seen.add(key)
        self.layout.order.append(key)
        return True

    def keep(self, c):
        self.layout.order.append(c)

    def require(self, key, what):
        if key not in self.seen:
            raise self.parent.error(f"missing {what}")


# --- skeleton ---------------------------------------------------------------------------

def _skeleton(chunk):
    walk = _Children(chunk)
    skel = Skeleton(layout=walk.layout)
    count = None
    read_bone = _viewed_bone if viewing() else _bone
    for c in chunk.children:
        if c.type == CT.SKELETON_HEADER and walk.take(c, "header"):
            check_size(_need_data(c), 4, "skeleton header")
            count = struct.unpack_from("<I", c.data)[0]
            walk.layout.tails["header"] = bytes(c.data[4:])
        elif c.type == CT.BONE:
            walk.take(c, ("bone", len(skel.bones)))
            skel.bones.append(read_bone(_need_container(c)))
        else:
            walk.keep(c)
    walk.require("header", "skeleton header (0x201)")
    note_count(walk.layout, "bones", count, len(skel.bones))
    return skel


def _bone(chunk):
    walk = _Children(chunk)
    name = data = None
    for c in chunk.children:
        if c.type == CT.BONE_NAME and walk.take(c, "name"):
            name = _string(c, "name", walk.layout)
        elif c.type in _BONE_DATA_TYPES and walk.take(c, "data"):
            data = c
        else:
            walk.keep(c)
    walk.require("name", "bone name (0x203)")
    walk.require("data", "bone data (0x205 or 0x206)")
    return _bone_data(name, data, walk.layout)


def _viewed_bone(chunk):
    """:func:`_bone` inside :func:`~io_alamo.formats.run_cache.read_only` (``validate``):
    the same chunks taken, checks and errors, without the layout only writing back needs."""
    name = data = None
    named = False
    for c in chunk.children:
        if c.type == CT.BONE_NAME and not named:
            named = True
            name = viewed_cstr(_need_data(c).data, c, "name")
        elif data is None and c.type in _BONE_DATA_TYPES:
            data = c
    if not named:
        raise chunk.error("missing bone name (0x203)")
    if data is None:
        raise chunk.error("missing bone data (0x205 or 0x206)")
    return _bone_data(name, data, None)


def _bone_data(name, data, layout):
    """The bone named ``name`` with its data chunk (0x205 or 0x206) decoded."""
    _need_data(data)
    if data.type == CT.BONE_DATA:
        check_size(data, 60, "bone data 0x206")
        parent, visible, billboard = _BONE_206.unpack_from(data.data)
        mat_at = 12
    else:
        check_size(data, 56, "bone data 0x205")
        parent, visible = _BONE_205.unpack_from(data.data)
        billboard, mat_at = 0, 8
    matrix = own(np.frombuffer(data.data, "<f4", 12, mat_at).reshape(3, 4))
    if layout is not None:
        layout.tails["data"] = bytes(data.data[mat_at + 48:])
    return Bone(name, parent, matrix, visible, billboard, data.type, layout)


# --- meshes -----------------------------------------------------------------------------

def _mesh(chunk):
    walk = _Children(chunk)
    name = info = None
    materials, datas = [], []
    read_material = _viewed_material if viewing() else _material
    for c in chunk.children:
        if c.type == CT.MESH_NAME and walk.take(c, "name"):
            name = _string(c, "name", walk.layout)
        elif c.type == CT.MESH_INFO and walk.take(c, "info"):
            info = _need_data(c)
        elif c.type == CT.MATERIAL:
            walk.take(c, ("material", len(materials)))
            materials.append(read_material(_need_container(c)))
        elif c.type == CT.SUBMESH_DATA:
            walk.take(c, ("data", len(datas)))
            datas.append(c)
        else:
            walk.keep(c)
    walk.require("name", "mesh name (0x401)")
    walk.require("info", "mesh info (0x402)")
    check_size(info, _MESH_INFO.size, "mesh info")
    n, x0, y0, z0, x1, y1, z1, unused, hidden, collision = _MESH_INFO.unpack_from(info.data)
    walk.layout.tails["info"] = bytes(info.data[_MESH_INFO.size:])
    if len(materials) != len(datas):
        raise chunk.error(f"mesh has {len(materials)} materials (0x10100) but {len(datas)} "
                          f"sub-mesh data chunks (0x10000)")
    note_count(walk.layout, "submeshes", n, len(materials))
    box = np.frombuffer(info.data, "<f4", 6, 4).copy()
    mesh = Mesh(name, [], box[:3], box[3:], hidden, collision, unused, walk.layout)
    mesh.submeshes = [_submesh(m, _need_container(d)) for m, d in zip(materials, datas)]
    return mesh


def _material(chunk):
    walk = _Children(chunk)
    shader = None
    params = []
    for c in chunk.children:
        if c.type == CT.SHADER_NAME and walk.take(c, "shader"):
            shader = _string(c, "shader", walk.layout)
        elif c.type in PARAM_SCHEMAS and c.children is None:
            walk.take(c, ("param", len(params)))
            params.append(_param(c))
        else:
            walk.keep(c)
    walk.require("shader", "material shader name (0x10101)")
    return Material(shader, params, walk.layout)


def _viewed_material(chunk):
    """:func:`_material` inside :func:`~io_alamo.formats.run_cache.read_only` (``validate``):
    the same chunks taken, checks and errors, without the layout only writing back needs."""
    shader = None
    named = False
    params = []
    for c in chunk.children:
        if c.type == CT.SHADER_NAME and not named:
            named = True
            shader = viewed_cstr(_need_data(c).data, c, "shader")
        elif c.children is None and c.type in PARAM_SCHEMAS:
            params.append(_param(c))
    if not named:
        raise chunk.error("missing material shader name (0x10101)")
    return Material(shader, params, None)


_PARAM_TYPES = {t.value: t for t in ParamType}     # the members, without ParamType()'s call


def _param(c):
    ptype = _PARAM_TYPES[c.type]
    values, layout = decode_minis(c, PARAM_SCHEMAS[ptype])
    if "name" not in values or "value" not in values:
        raise c.error("shader parameter needs a name (mini 1) and a value (mini 2)")
    return ShaderParam(values["name"], ptype, values["value"], layout)


def _submesh(material, chunk):
    walk = _Children(chunk)
    header = fmt = vbuf = ibuf = bone_map = tree = None
    for c in chunk.children:
        key = _SUBMESH_KEYS.get(c.type)
        if key is None or not walk.take(c, key):
            walk.keep(c)
        elif key == "header":
            header = _need_data(c)
        elif key == "format":
            fmt = _string(c, "format", walk.layout)
        elif key == "vertices":
            vbuf = _need_data(c)
        elif key == "indices":
            ibuf = _need_data(c)
        elif key == "bone_map":
            bone_map = _need_data(c)
        else:
            tree = _collision_tree(_need_container(c))
    walk.require("header", "sub-mesh header (0x10001)")
    walk.require("format", "vertex format (0x10002)")
    walk.require("vertices", "vertex buffer (0x10007 or 0x10005)")
    walk.require("indices", "index buffer (0x10004)")
    check_size(header, 8, "sub-mesh header")
    nv, nt = struct.unpack_from("<II", header.data)
    walk.layout.tails["header"] = bytes(header.data[8:])
    dtype = VERTEX_CHUNK_DTYPES[vbuf.type]
    # The buffers say how much data there is; a header that disagrees is kept and reported.
    if len(vbuf.data) % dtype.itemsize:
        raise vbuf.error(f"vertex buffer is {len(vbuf.data)} bytes, not a whole number of "
                         f"{dtype.itemsize}-byte vertices (header says {nv})")
    if len(ibuf.data) % 6:
        raise ibuf.error(f"index buffer is {len(ibuf.data)} bytes, not a whole number of "
                         f"triangles (header says {nt})")
    vertices = own(np.frombuffer(vbuf.data, dtype))
    indices = own(np.frombuffer(ibuf.data, "<u2").reshape(-1, 3))
    note_count(walk.layout, "vertices", nv, len(vertices))
    note_count(walk.layout, "triangles", nt, len(indices))
    if bone_map is not None:
        if len(bone_map.data) % 4:
            raise bone_map.error(f"bone map is {len(bone_map.data)} bytes, not a multiple of 4")
        bone_map = own(np.frombuffer(bone_map.data, "<u4"))
    return SubMesh(material, fmt, vertices, indices, bone_map, tree, walk.layout)


def _collision_tree(chunk):
    walk = _Children(chunk)
    head = nodes = tris = None
    for c in chunk.children:
        key = _COLLISION_KEYS.get(c.type)
        if key is None or c.children is not None or not walk.take(c, key):
            walk.keep(c)
        elif key == "header":
            head, walk.layout.sub["header"] = decode_minis(c, COLLISION_HEADER_SCHEMA)
        elif key == "nodes":
            nodes = c
        else:
            tris = c
    walk.require("header", "collision tree header (0x1201)")
    walk.require("nodes", "collision tree nodes (0x1202)")
    walk.require("triangles", "collision tree triangles (0x1203)")
    for name in COLLISION_HEADER_SCHEMA.values():
        if name[0] not in head:
            raise chunk.error(f"collision tree header lacks {name[0]}")
    nn, nt = head["nodes"], head["triangles"]
    if len(nodes.data) % FILE_NODE_DTYPE.itemsize:
        raise nodes.error(f"collision nodes are {len(nodes.data)} bytes, not a whole number "
                          f"of {FILE_NODE_DTYPE.itemsize}-byte nodes (header says {nn})")
    if len(tris.data) % 2:
        raise tris.error(f"collision triangle list is {len(tris.data)} bytes, an odd number "
                         f"(header says {nt} entries)")
    raw = np.frombuffer(nodes.data, FILE_NODE_DTYPE)
    nn = len(raw)
    wide = np.empty(nn, NODE_DTYPE)
    for name in ("min", "max", "count", "link"):
        wide[name] = raw[name]
    triangles = np.frombuffer(tris.data, "<u2").astype(np.uint32)
    note_count(walk.layout, "nodes", head["nodes"], nn)
    note_count(walk.layout, "triangles", nt, len(triangles))
    return CollisionTree(head["box_min"], head["box_max"], wide, triangles, walk.layout)


def _light(chunk):
    walk = _Children(chunk)
    name = info = None
    for c in chunk.children:
        if c.type == CT.LIGHT_NAME and walk.take(c, "name"):
            name = _string(c, "name", walk.layout)
        elif c.type == CT.LIGHT_INFO and walk.take(c, "info"):
            info = _need_data(c)
        else:
            walk.keep(c)
    walk.require("name", "light name (0x1301)")
    walk.require("info", "light info (0x1302)")
    check_size(info, _LIGHT_INFO.size, "light info")
    ltype = struct.unpack_from("<I", info.data)[0]
    v = f32(info.data[4:36], 8)
    walk.layout.tails["info"] = bytes(info.data[_LIGHT_INFO.size:])
    return Light(name, ltype, v[:3].copy(), v[3], v[4], v[5], v[6], v[7], walk.layout)


# --- connections ------------------------------------------------------------------------

def _connections(chunk):
    walk = _Children(chunk)
    conn = Connections(layout=walk.layout)
    counts = None
    for c in chunk.children:
        if (c.type == CT.CONNECTIONS_HEADER and c.children is None
                and walk.take(c, "header")):
            counts, walk.layout.sub["header"] = decode_minis(c, CONNECTIONS_HEADER_SCHEMA)
        elif c.type == CT.OBJECT_CONNECTION and c.children is None:
            walk.take(c, ("object", len(conn.objects)))
            v, layout = decode_minis(c, OBJECT_CONNECTION_SCHEMA)
            _require_fields(c, v, ("object", "bone"))
            conn.objects.append(ObjectConnection(v["object"], v["bone"], layout))
        elif c.type == CT.PROXY and c.children is None:
            walk.take(c, ("proxy", len(conn.proxies)))
            v, layout = decode_minis(c, PROXY_SCHEMA)
            _require_fields(c, v, ("name", "bone"))
            conn.proxies.append(Proxy(v["name"], v["bone"], v.get("hidden"),
                                      v.get("alt_decrease_stay_hidden"), layout))
        elif c.type == CT.DAZZLE:
            walk.take(c, ("dazzle", len(conn.dazzles)))
            conn.dazzles.append(_dazzle(c))
        else:
            walk.keep(c)
    walk.require("header", "connections header (0x601)")
    conn.write_dazzle_count = "dazzles" in counts
    for key, found in (("objects", conn.objects), ("proxies", conn.proxies),
                       ("dazzles", conn.dazzles)):
        declared = counts.get(key, 0 if key == "dazzles" else None)
        if declared is None:
            raise chunk.error(f"connections header lacks the {key} count")
        note_count(walk.layout, key, declared, len(found))
    return conn


def _require_fields(chunk, values, names):
    missing = [n for n in names if n not in values]
    if missing:
        raise chunk.error("missing mini-chunk for " + ", ".join(missing))


def _dazzle(chunk):
    layout = Layout()
    if chunk.children is not None:
        minis_chunk = None
        for c in chunk.children:
            if c.type == CT.DAZZLE_MINIS and c.children is None and minis_chunk is None:
                minis_chunk = c
                layout.order.append("minis")
            else:
                layout.order.append(c)
        if minis_chunk is None:
            raise chunk.error("dazzle has no mini-chunk data (child chunk 0x0)")
    else:
        minis_chunk = chunk
    v, layout.sub["minis"] = decode_minis(minis_chunk, DAZZLE_SCHEMA)
    _require_fields(minis_chunk, v, ("name", "bone"))
    fields = {f: v.get(f) for _, (f, _) in DAZZLE_SCHEMA.items()}
    return Dazzle(nested=chunk.children is not None, layout=layout, **fields)


__all__ = ["read_alo", "decode_alo", "read_minis"]
