"""One LOD of a binarized P3D, read from its start offset: proxies, textures, materials,
faces, sections, named selections, properties, frames and the vertex table."""

import numpy as np

from .materials import read_material
from .records import Faces, Frame, Lod, NamedSelection, Proxy, Section
from .vertices import read_point_flags, read_vertex_table

FACE_SIZES = (3, 4)
FACE_STRIDE_LOG2 = 6           # mixed faces are walked 64 at a time (see face_starts)
FACE_STRIDE = 1 << FACE_STRIDE_LOG2
COLLIMATOR_SIZE = 44         # optional v67+ block at a LOD's end (Vec3, Vec3, u32, Vec3, u32)


def index_size(version):
    """Vertex and face indices are 16-bit until version 69, then 32-bit."""
    return 4 if version >= 69 else 2


def _index_dtype(version):
    return "<u4" if version >= 69 else "<u2"


def read_index_array(r, what):
    _, raw = r.packed_array(index_size(r.version), what)
    return np.frombuffer(raw, _index_dtype(r.version)).astype(np.int64)


def _proxy(r):
    path = r.asciiz()
    with r.enter(f"proxy {path!r}"):
        m = r.floats(12).reshape(4, 3)            # aside, up, direction, position
        matrix = np.eye(4, dtype=np.float32)
        matrix[:3, :4] = m.T
        seq, sel, bone = r.i32(), r.i32(), r.i32()
        section = r.i32() if r.version >= 40 else -1
        return Proxy(path, matrix, seq, sel, bone, section)


def _bone_tables(r):
    with r.enter("bones"):
        n = r.count("skeleton bones", 4)
        lod_bones = np.frombuffer(r.take(4 * n), "<u4").astype(np.int64)
        links = r.count("bone links", 4)
        for _ in range(links):
            k = r.count("bone link", 4)
            r.take(4 * k)
        return lod_bones


def read_faces(r):
    """Faces: a count, an allocation size, a zero, then (n, n indices) per face."""
    with r.enter("faces"):
        count = r.count("faces", 1 + 3 * index_size(r.version))
        r.u32()                                   # the faces' size in memory
        r.take(2)
        isz = index_size(r.version)
        r.need(count * (1 + 3 * isz), f"{count:,} faces")
        data, pos = r.data, r.pos
        first = data[pos] if count else 3
        stride = 1 + first * isz
        if first in FACE_SIZES and pos + count * stride <= len(data):
            rows = np.frombuffer(data, np.uint8, count * stride, pos).reshape(count, stride)
            if (rows[:, 0] == first).all():       # one kind of face: one whole-array read
                flat = np.ascontiguousarray(rows[:, 1:]).view(_index_dtype(r.version))
                r.pos += count * stride
                sizes = np.full(count, first, np.uint8)
                return Faces(sizes, np.arange(count, dtype=np.int64) * first,
                             flat.astype(np.int64).ravel())
        return _mixed_faces(r, count, isz)


def face_starts(raw, pos, count, isz):
    """Where each of ``count`` faces starts, without a Python loop per face: every byte of
    the face block gets "where the next face would start if one started here"; that jump,
    raised to the power STRIDE by repeated squaring, walks the chain STRIDE faces at a time,
    and STRIDE single jumps over all those walkers fill in the faces between."""
    span = min(len(raw) - pos, count * (1 + 4 * isz))
    block = raw[pos:pos + span].astype(np.int32)
    sentinel = span                              # "past the block": jumps stay there
    jump = np.arange(span + 1, dtype=np.int32)
    jump[:span] += 1 + block * isz
    np.minimum(jump, sentinel, out=jump)
    far = jump
    for _ in range(FACE_STRIDE_LOG2):
        far = far[far]
    coarse = np.empty((count + FACE_STRIDE - 1) // FACE_STRIDE, np.int64)
    at = 0
    for k in range(len(coarse)):                 # one step per FACE_STRIDE faces
        coarse[k] = at
        at = int(far[at])
    starts = np.empty(len(coarse) * FACE_STRIDE, np.int64)
    walkers = coarse
    for j in range(FACE_STRIDE):
        starts[j::FACE_STRIDE] = walkers
        walkers = jump[walkers]
    return starts[:count], np.append(block, 0)


def _mixed_faces(r, count, isz):
    """Triangles and quads mixed: face starts found by :func:`face_starts`."""
    raw = np.frombuffer(r.data, np.uint8)
    rel, block = face_starts(raw, r.pos, count, isz)
    sizes = block[rel]
    bad = np.flatnonzero((sizes != 3) & (sizes != 4))
    if len(bad):
        k = int(bad[0])
        where = r.pos + int(rel[k])
        if rel[k] >= len(block) - 1:
            raise r.error(f"face {k:,} of {count:,} starts past the end of the file", where)
        raise r.error(f"face {k:,} has {int(sizes[k])} corners (3 or 4 expected)", where)
    sizes = sizes.astype(np.uint8)
    end = r.pos + int(rel[-1]) + 1 + int(sizes[-1]) * isz
    if end > len(r.data):
        raise r.error("the last face runs past the end of the file", r.pos + int(rel[-1]))
    starts = r.pos + rel.astype(np.int64) + 1
    first_corner = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)[:-1]])
    corner = np.arange(int(sizes.sum(dtype=np.int64)), dtype=np.int64)
    face_of = np.repeat(np.arange(count), sizes)
    at = starts[face_of] + (corner - first_corner[face_of]) * isz
    values = raw[at].astype(np.int64) | (raw[at + 1].astype(np.int64) << 8)
    if isz == 4:
        values |= (raw[at + 2].astype(np.int64) << 16) | (raw[at + 3].astype(np.int64) << 24)
    r.pos = end
    return Faces(sizes, first_corner, values)


def _sections(r, faces):
    with r.enter("sections"):
        n = r.count("sections", 30)
        # section bounds count face bytes in memory: 8 per triangle, 10 per quad (16, 20
        # with 32-bit indices)
        unit = 8 if index_size(r.version) == 2 else 16
        extra = unit // 4
        sizes = np.where(faces.sizes == 4, unit + extra, unit).astype(np.int64)
        at = np.concatenate([[0], np.cumsum(sizes)])[:-1]
        out = []
        for k in range(n):
            with r.enter(f"section {k}"):
                lo, hi = r.u32(), r.u32()
                r.u32(), r.u32(), r.u32()         # min bone, bone count, unused
                texture = int.from_bytes(r.take(2), "little", signed=True)
                special = r.u32()
                material = r.i32()
                inline = r.asciiz() if material == -1 else ""
                if r.version >= 36:
                    m = r.count("areas over texture", 4)
                    area = tuple(float(x) for x in r.floats(m))
                    if r.version >= 67 and r.i32() >= 1:
                        r.take(COLLIMATOR_SIZE, "section extra block")
                else:
                    area = (r.f32(),)
                first = int(np.searchsorted(at, lo, "left"))
                end = int(np.searchsorted(at, hi, "left"))
                out.append(Section(first, end, texture, material, inline, special, area))
        return out


def _selections(r):
    with r.enter("named selections"):
        n = r.count("named selections", 14)
        out = []
        for _ in range(n):
            name = r.asciiz()
            with r.enter(f"selection {name!r}"):
                faces = read_index_array(r, "faces")
                r.u32()
                sectional = r.boolean()
                _, raw = r.packed_array(4, "sections")
                sections = np.frombuffer(raw, "<i4").astype(np.int64)
                vertices = read_index_array(r, "vertices")
                _, weights = r.packed_array(1, "weights")
                out.append(NamedSelection(name, faces, vertices,
                                          np.frombuffer(weights, np.uint8), sections, sectional))
        return out


def _frames(r):
    with r.enter("frames"):
        out = []
        for _ in range(r.count("frames", 8)):
            time = r.f32()
            n = r.count("frame points", 12)
            out.append(Frame(time, r.floats(3 * n).reshape(n, 3)))
        return out


def read_lod(r, resolution, start, end):
    """The LOD at ``start``; ``end`` is where the file says it ends (checked by the caller)."""
    r.pos = start
    lod = Lod(resolution, start, end)
    lod.proxies = [_proxy(r) for _ in range(r.count("proxies", 60))]
    lod_bones = _bone_tables(r)
    flags = None
    if r.version >= 50:
        r.u32()                                   # vertex count
    else:
        flags = read_point_flags(r)
    if r.version >= 51:
        r.f32()                                   # face area
    r.u32(), r.u32()                              # or and and hints
    lod.bbox = (r.vec3(), r.vec3(), r.vec3(), r.f32())
    lod.textures = r.strings("textures")
    with r.enter("materials"):
        lod.materials = [read_material(r) for _ in range(r.count("materials", 100))]
    with r.enter("edges"):
        read_index_array(r, "edges")
        read_index_array(r, "edges")
    lod.faces = read_faces(r)
    lod.sections = _sections(r, lod.faces)
    lod.selections = _selections(r)
    with r.enter("properties"):
        lod.properties = [(r.asciiz(), r.asciiz()) for _ in range(r.count("properties", 2))]
    lod.frames = _frames(r)
    r.u32(), r.u32()                              # icon colour, selected colour
    lod.special = r.u32()
    r.boolean()                                   # vertex bone references are simple
    read_vertex_table(r, lod, flags, lod_bones)
    if r.version >= 67 and r.u32() != 0:
        # the wiki's optional collimator block; taken only where the recorded end says so
        tail = 1 if r.version >= 68 else 0
        if r.pos + COLLIMATOR_SIZE + tail == end:
            r.take(COLLIMATOR_SIZE, "collimator")
    if r.version >= 68:
        r.u8()
    return lod

