"""Build small binarized P3D (ODOL) files from the published layout, for versions 40 and 47
(and others where the layout is the same), so tests know every value the reader must find.

Arrays of 1,024 bytes or more are compressed as the version requires (LZSS before 44, LZO
from 44), smaller ones stored raw, exactly as the binariser does.
"""

import struct
from dataclasses import dataclass, field

import numpy as np
from p3d_compress import lzo_compress, lzss_compress


@dataclass
class SpecLod:
    resolution: float
    points: np.ndarray                       # (n, 3) file axes
    faces: list                              # corner lists (3 or 4 each)
    normals: np.ndarray = None               # (n, 3) unit
    uvs: list = field(default_factory=list)  # (n, 2) each
    textures: list = field(default_factory=list)
    sections: list = field(default_factory=list)     # (first face, end face, texture, material
    #                                                    [, special flags])
    materials: list = field(default_factory=list)    # .rvmat paths
    selections: list = field(default_factory=list)   # (name, vertex indices, weights bytes)
    proxies: list = field(default_factory=list)      # (path, 4x4 matrix, sequence id[, bone])
    properties: list = field(default_factory=list)
    frames: list = field(default_factory=list)       # (time, (n, 3) points)
    lod_bones: list = field(default_factory=list)    # LOD bone -> skeleton bone
    bone_refs: np.ndarray = None                     # (n, 9): count, then 4 (bone, weight)


class _Writer:
    def __init__(self, version):
        self.version = version
        self.out = bytearray()

    def raw(self, b):
        self.out += b

    def u8(self, v):
        self.out += struct.pack("<B", v)

    def u16(self, v):
        self.out += struct.pack("<H", v)

    def u32(self, v):
        self.out += struct.pack("<I", v)

    def i32(self, v):
        self.out += struct.pack("<i", v)

    def f32(self, *vals):
        self.out += struct.pack(f"<{len(vals)}f", *vals)

    def text(self, s):
        self.out += s.encode("cp1252") + b"\0"

    def packed(self, data):
        if not data:
            return
        if self.version >= 64:                # a flag byte: 2 compressed, 0 stored
            self.u8(2 if len(data) >= 1024 else 0)
            self.raw(lzo_compress(data) if len(data) >= 1024 else data)
        elif len(data) < 1024:
            self.raw(data)
        else:
            self.raw(lzo_compress(data) if self.version >= 44 else lzss_compress(data))

    def packed_array(self, count, data):
        self.u32(count)
        self.packed(data)


PROXY_FLAG = 0x10000000        # a section holding proxy marker triangles (with 0x2000)


def pack_normals(normals):
    q = np.rint(np.asarray(normals, np.float64) * -511.0).astype(np.int64) & 0x3FF
    return (q[:, 0] | (q[:, 1] << 10) | (q[:, 2] << 20)).astype("<u4").tobytes()


def _dayz(version):
    return version in (53, 54)


def _model_info(w, n_lods, centre=None):
    w.i32(0)
    w.f32(2.0, 2.0)                           # bounding spheres
    w.i32(0), w.u32(0), w.u32(0)
    w.f32(0, 0, 0)                            # aiming centre
    w.u32(0xFFFFFFFF), w.u32(0xFFFFFFFF)
    w.f32(1.0)
    w.f32(-1, -1, -1), w.f32(1, 1, 1)         # bounding box
    if not _dayz(w.version):
        if w.version >= 70:
            w.f32(1.0)                        # LOD density coefficient
        if w.version >= 71:
            w.f32(1.0)                        # draw importance
    if w.version >= 52:
        w.f32(-1, -1, -1), w.f32(1, 1, 1)     # visual bounding box
    # bounding centre (what the binariser took off every point when it centred the model),
    # geometry centre, centre of mass
    w.f32(*(centre if centre is not None else (0, 0, 0))), w.f32(0, 0, 0)
    w.f32(0.25, 0.5, 0.75)
    w.f32(*np.eye(3).ravel())
    w.raw(bytes([1, 0, 1, 1]))                # auto centre, lock, occlusion
    if _dayz(w.version):
        w.u8(0), w.f32(0.0)                   # DayZ: a flag and a float
    elif w.version >= 73:
        w.u8(1)                               # AI covers
    if w.version >= 42:
        w.f32(1, 2, 3, 4)
    if w.version >= 43:
        w.f32(5, 6)
    w.u8(0)                                   # force not alpha
    w.i32(0), w.u8(0)                         # shadow buffer source, prefer shadow volume
    if w.version >= 48:
        w.f32(0.0)
    w.u8(0)                                   # animated
    w.text("TestSkeleton")
    w.u8(0)
    w.u32(2)
    w.text("root"), w.text("")
    w.text("arm"), w.text("root")
    if w.version > 40:
        w.text("")
    w.u8(3)                                   # map type
    w.u32(0)                                  # mass array
    w.f32(1500.0, 1 / 1500.0, 10.0, 0.1)      # mass, 1/mass, armor, 1/armor
    if not _dayz(w.version) and w.version >= 72:
        w.f32(0.0)                            # explosion shielding
    indices = [255] * 12
    indices[1] = n_lods - 1                   # geometry is the last LOD
    if _dayz(w.version) and w.version >= 54:
        indices.insert(2, 255)
    elif not _dayz(w.version):
        indices = [255] * ((w.version >= 53) + (w.version >= 54)) + indices
    w.raw(bytes(indices))
    w.u32(0), w.u8(0)
    w.text("house"), w.text("")
    w.u8(0), w.u32(0)
    if w.version >= 57:
        for _ in range(3):
            w.raw(struct.pack(f"<{n_lods}i", *([-1] * n_lods)))


def _animations(w, n_lods):
    w.u8(1)
    w.u32(2)
    a3 = w.version >= 56
    w.u32(0), w.text("door"), w.text("door_source"), w.f32(0, 1, 0, 1)
    if a3:
        w.f32(1.0, 0.0)                       # period, initial phase
    w.u32(0), w.f32(0, 1.5)
    w.u32(9), w.text("hide"), w.text("damage"), w.f32(0, 1, 0, 1)
    if a3:
        w.f32(1.0, 0.0)
    w.u32(0), w.f32(0.5)
    if w.version >= 55:
        w.f32(0.0)
    w.i32(n_lods)
    for _ in range(n_lods):
        w.u32(1), w.u32(2), w.u32(0), w.u32(1)
    for _ in range(n_lods):
        w.i32(0), w.f32(0, 0, 0, 0, 1, 0)     # door: bone 0 and an axis
        w.i32(0)                              # hide: bone 0, no axis


def _material(w, path, texture):
    w.text(path)
    if _dayz(w.version):
        w.u32(20)
        for _ in range(8):
            w.f32(0.5, 0.5, 0.5, 1.0)
        w.f32(10.0), w.i32(0), w.i32(0), w.f32(0, 0, 0, 0)
        w.raw(bytes(48))                      # DayZ material version 20 values
    else:
        w.u32(11)
        for _ in range(6):
            w.f32(0.5, 0.5, 0.5, 1.0)
        w.f32(10.0)
    w.u32(2), w.u32(1), w.u32(1), w.u32(0)
    w.text("a3\\data_f\\penetration\\metal.bisurf")
    w.u32(1), w.u32(0)
    w.u32(2), w.u32(2)                         # stages, transforms
    for k, tex in enumerate(["", texture]):
        w.u32(3), w.text(tex), w.u32(k), w.u8(0)
    for k in range(2):
        w.u32(k), w.f32(*np.eye(4, 3).ravel())
    w.u32(3), w.text(""), w.u32(0), w.u8(0)    # thermal stage


def _uv_set(w, uv):
    n = len(uv)
    if w.version >= 45:
        lo, hi = -1.0, 3.0
        w.f32(lo, lo, hi, hi)
        steps = np.rint((uv - lo) / (hi - lo) * 65536.0 - 32767.0).astype("<i2")
        data = steps.tobytes()
    else:
        data = np.asarray(uv, "<f4").tobytes()
    w.u32(n), w.u8(0)
    w.packed(data)


def _index_bytes(indices, version):
    return np.asarray(indices, "<u4" if version >= 69 else "<u2").tobytes()


def _lod(w, lod):
    n = len(lod.points)
    w.u32(len(lod.proxies))
    for path, m, seq, *bone in lod.proxies:              # (..., skeleton bone) optional
        w.text(path)
        w.f32(*np.asarray(m, np.float64)[:3, :4].T.ravel())
        w.i32(seq), w.i32(0), w.i32(bone[0] if bone else -1), w.i32(0)
    w.u32(len(lod.lod_bones))                 # LOD bones (sub-skeleton -> skeleton)
    for b in lod.lod_bones:
        w.u32(b)
    w.u32(0)                                  # bone links
    if w.version < 50:
        w.u32(n), w.u8(1), w.u32(0)           # point flags: all zero (one fill value)
    else:
        w.u32(n)
    if w.version >= 51:
        w.f32(1.0)                            # face area
    w.u32(0), w.u32(0)
    w.f32(-1, -1, -1), w.f32(1, 1, 1), w.f32(0, 0, 0), w.f32(1.7)
    w.u32(len(lod.textures))
    for t in lod.textures:
        w.text(t)
    w.u32(len(lod.materials))
    for m in lod.materials:
        _material(w, m, lod.textures[0] if lod.textures else "")
    w.packed_array(0, b""), w.packed_array(0, b"")        # edges
    w.u32(len(lod.faces)), w.u32(0), w.u16(0)
    for f in lod.faces:
        w.u8(len(f))
        w.raw(_index_bytes(f, w.version))
    tri, quad = (16, 20) if w.version >= 69 else (8, 10)
    unit = np.cumsum([0] + [quad if len(f) == 4 else tri for f in lod.faces])
    w.u32(len(lod.sections))
    for first, end, tex, mat, *special in lod.sections:
        special = special[0] if special else 0
        w.u32(int(unit[first])), w.u32(int(unit[end])), w.u32(0), w.u32(0), w.u32(0)
        w.raw(struct.pack("<h", tex)), w.u32(special), w.i32(mat)
        if mat == -1:
            w.text("" if special & PROXY_FLAG else "inline.rvmat")
        w.u32(1), w.f32(1.0)
        if w.version >= 67:
            w.i32(0)
    w.u32(len(lod.selections))
    for name, verts, weights in lod.selections:
        w.text(name)
        w.packed_array(0, b"")
        w.u32(0), w.u8(0)
        w.packed_array(0, b"")
        w.packed_array(len(verts), _index_bytes(verts, w.version))
        w.packed_array(len(weights), bytes(weights))
    w.u32(len(lod.properties))
    for k, v in lod.properties:
        w.text(k), w.text(v)
    w.u32(len(lod.frames))
    for time, pts in lod.frames:
        w.f32(time), w.u32(len(pts)), w.raw(np.asarray(pts, "<f4").tobytes())
    w.u32(0xFFFFFFFF), w.u32(0), w.u32(0), w.u8(0)
    _vertex_table(w, lod)


def _vertex_table(w, lod):
    n = len(lod.points)
    size_at = len(w.out)
    w.u32(0)
    if w.version >= 50:
        w.u32(n), w.u8(1), w.u32(0)           # point flags
    uvs = lod.uvs or [np.zeros((n, 2))]
    _uv_set(w, uvs[0])
    w.u32(len(uvs))
    for uv in uvs[1:]:
        _uv_set(w, uv)
    w.packed_array(n, np.asarray(lod.points, "<f4").tobytes())
    normals = lod.normals if lod.normals is not None else np.zeros((n, 3))
    w.u32(n), w.u8(0)
    w.packed(pack_normals(normals) if w.version >= 45 else np.asarray(normals, "<f4").tobytes())
    w.packed_array(0, b"")                    # tangent space
    if lod.bone_refs is None:
        w.packed_array(0, b"")                # bone weights
    else:
        refs = np.asarray(lod.bone_refs, np.int64)
        rows = np.zeros((n, 12), np.uint8)
        rows[:, :4] = refs[:, :1].astype("<i4").view(np.uint8)
        rows[:, 4:] = refs[:, 1:9].astype(np.uint8)
        w.packed_array(n, rows.tobytes())
    w.packed_array(0, b"")                    # neighbours
    w.out[size_at:size_at + 4] = struct.pack("<I", len(w.out) - size_at)
    if w.version >= 67:
        w.u32(0)                              # no collimator
    if w.version >= 68:
        w.u8(0)


def build_odol(version, lods, animations=False, centre=None):
    """The bytes of an ODOL file of ``version`` holding ``lods`` (SpecLod); ``centre``: the
    bounding centre of a model binarised with autocenter on (its points already moved by
    minus it, as the binariser stores them)."""
    w = _Writer(version)
    w.raw(b"ODOL"), w.u32(version)
    if version >= 59:
        w.u32(0)                              # application id
    if version >= 58:
        w.text("\\test\\house")
    w.u32(len(lods))
    w.f32(*[lod.resolution for lod in lods])
    _model_info(w, len(lods), centre)
    if animations:
        _animations(w, len(lods))
    else:
        w.u8(0)
    table = len(w.out)
    w.raw(bytes(8 * len(lods)))
    w.raw(bytes([1] * len(lods)))             # every LOD permanent: no face defaults
    starts, ends = [], []
    for lod in lods:
        starts.append(len(w.out))
        _lod(w, lod)
        ends.append(len(w.out))
    w.out[table:table + 8 * len(lods)] = struct.pack(f"<{2 * len(lods)}I", *starts, *ends)
    return bytes(w.out)


def grid_lod(resolution, nx, ny, quads=True):
    """A bumpy grid of points with quads (or triangles), normals, two UV sets, a texture, a
    material, two sections, a selection with weights, a proxy, properties and two frames."""
    xs, zs = np.meshgrid(np.arange(nx, dtype=np.float64), np.arange(ny, dtype=np.float64))
    pts = np.stack([xs.ravel() * 0.1, np.sin(xs.ravel()) * 0.05, zs.ravel() * 0.1], axis=1)
    faces = []
    for j in range(ny - 1):
        for i in range(nx - 1):
            a, b, c, d = j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i
            # as in real files: the right-handed cross product of a, b, c points out of
            # the surface (here -y, down) and the stored normals point in (+y, up)
            if quads and (i + j) % 3:
                faces.append([a, b, c, d])
            else:
                faces += [[a, b, c], [a, c, d]]
    n = len(pts)
    normals = np.tile([0.0, 1.0, 0.0], (n, 1))
    uv0 = np.stack([xs.ravel() / nx, zs.ravel() / ny], axis=1)
    half = len(faces) // 2
    matrix = np.eye(4)
    matrix[:3, 3] = (0.1, 0.2, 0.3)
    return SpecLod(
        resolution, pts.astype(np.float32), faces, normals, [uv0, uv0 * 0.5],
        ["data\\grid_co.paa"], [(0, half, 0, 0), (half, len(faces), -1, -1)],
        ["data\\grid.rvmat"], [("door", list(range(0, n, 2)), ([255, 128] * n)[:(n + 1) // 2])],
        [("\\a3\\data_f\\proxies\\gunner", matrix, 1)], [("lodnoshadow", "1")],
        [(0.0, pts), (1.0, pts + [0, 0.5, 0])])


CUBE_FACES = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4],
              [1, 5, 7, 3]]


def box_lod(resolution, half=(0.5, 0.3, 0.2), centre=(0.0, 0.4, 0.0), quads=False,
            proxy_at=(0.1, 0.7, 0.05), weights=False):
    """A closed box as real files hold it (right-handed cross products outward, normals
    stored inward), one texture, and a proxy with its marker triangle (three own points, one
    exactly at the proxy's origin, in a section with no texture and the proxy flag). With
    ``weights``: the upper half moved by skeleton bone 1 ("arm"), the lower by bone 0."""
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    pts = np.asarray(centre) + signs * half
    faces = []
    for q in CUBE_FACES:
        faces += [q] if quads else [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
    normals = -signs / np.sqrt(3.0)                        # inward, as stored
    origin = np.asarray(proxy_at, float)
    marker = origin + [[0, 0, 0], [0.02, 0, 0], [0, 0, 0.02]]
    pts = np.vstack([pts, marker]).astype(np.float32)
    normals = np.vstack([normals, np.tile([0.0, -1.0, 0.0], (3, 1))])
    n_box = len(faces)
    faces.append([8, 9, 10])
    matrix = np.eye(4)
    matrix[:3, 3] = origin
    uv = np.stack([(signs[:, 0] + 1) / 2, (signs[:, 1] + 1) / 2], axis=1)
    uv = np.vstack([uv, np.zeros((3, 2))])
    lod = SpecLod(resolution, pts, faces, normals, [uv], ["data\\box_co.paa"],
                  [(0, n_box, 0, 0), (n_box, n_box + 1, -1, -1, PROXY_FLAG | 0x2000)],
                  ["data\\box.rvmat"], [], [("\\a3\\data_f\\proxies\\gunner", matrix, 1)])
    if weights:
        refs = np.zeros((len(pts), 9), np.int64)
        refs[:, 0] = 1
        upper = pts[:, 1] > centre[1]
        refs[:, 1] = np.where(upper, 1, 0)                # LOD bone -> skeleton below
        refs[:, 2] = 255
        lod.lod_bones = [0, 1]
        lod.bone_refs = refs
    return lod
