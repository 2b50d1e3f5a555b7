"""The Alithia engine's model format, ``.alm`` with the magic ``ALM1``: a morph-animated
triangle mesh (spec: ``alithia-alm1-format.html``). Stdlib + numpy only.

Layout, all little-endian 32-bit unless said: ``ALM1``, flags (0), vertex count, face count,
frame count; then one vertex array per frame (position xyz, normal xyz, uv; float32 each);
then the faces, three uint16 vertex indices each. The engine's loader (``mdl_load``) reads
exactly that and ignores anything after the faces; io_alamo keeps such bytes so an unedited
file writes back byte for byte. Axes and v are as the file stores them; the Blender layer
converts (file (x, y, z) = Blender (x, z, -y), v = 1 - v).
"""

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError

MAGIC = b"ALM1"
ALOD_MAGIC = b"ALM\0"            # the other ``.alm`` format (ALOD): told apart by the magic
FRAMES_PER_SECOND = 20           # the engine plays the frames as steps at this rate
HEADER_DTYPE = np.dtype([("magic", "S4"), ("flags", "<u4"), ("vertex_count", "<u4"),
                         ("face_count", "<u4"), ("frame_count", "<u4")])
VERTEX_DTYPE = np.dtype([("position", "<f4", (3,)), ("normal", "<f4", (3,)),
                         ("uv", "<f4", (2,))])
INDEX_DTYPE = np.dtype("<u2")
HEADER_SIZE = HEADER_DTYPE.itemsize                     # 20
FACE_SIZE = 3 * INDEX_DTYPE.itemsize                    # 6
MAX_INDEX = np.iinfo(INDEX_DTYPE).max                   # 65,535
ENGINE_MAX_INDEX = np.iinfo(np.int16).max               # mdl_load reads indices as int16
ENGINE_MAX_VERTICES = ENGINE_MAX_INDEX + 1              # 32,768: indices 0..32,767
MAX_COUNT = np.iinfo(np.uint32).max
# where each field of a vertex starts, and its name in error paths ("frame 3/normals")
_FIELDS = ((0, "positions"), (12, "normals"), (24, "uvs"))


class Alm1FormatError(FormatError):
    """An ALM1 file (or a model about to be written as one) breaks the format."""


@dataclass(slots=True)
class Alm1Model:
    """One ALM1 model. ``vertices`` is (frames, vertex count) of :data:`VERTEX_DTYPE`, every
    frame with the same vertex order; ``faces`` is (face count, 3) indices into it."""
    vertices: np.ndarray
    faces: np.ndarray
    flags: int = 0
    trailing: bytes = b""        # bytes after the faces (the engine ignores them); kept

    @property
    def frame_count(self):
        return int(self.vertices.shape[0])

    @property
    def vertex_count(self):
        return int(self.vertices.shape[1])

    @property
    def face_count(self):
        return int(len(self.faces))

    @property
    def positions(self):
        return self.vertices["position"]

    @property
    def normals(self):
        return self.vertices["normal"]

    @property
    def uvs(self):
        return self.vertices["uv"]


def new_model(positions, normals, uvs, faces, flags=0):
    """An :class:`Alm1Model` from (frames, V, 3), (frames, V, 3), (frames or 1, V, 2) and
    (F, 3) arrays (file axes)."""
    positions = np.asarray(positions, np.float32)
    if positions.ndim != 3:
        raise Alm1FormatError("positions must be (frames, vertices, 3)", path="vertices")
    verts = np.zeros(positions.shape[:2], VERTEX_DTYPE)
    verts["position"] = positions
    verts["normal"] = np.asarray(normals, np.float32)
    verts["uv"] = np.asarray(uvs, np.float32)
    return Alm1Model(verts, np.asarray(faces, INDEX_DTYPE).reshape(-1, 3), int(flags))


def read_alm1(data: bytes, filename: str | None = None) -> Alm1Model:
    """Decode an ALM1 file. Every count is checked against the file's size before anything
    is allocated; face indices are checked against the vertex count."""
    view = memoryview(data).cast("B")
    size = len(view)

    def fail(message, offset, path):
        return Alm1FormatError(message, offset=offset, path=path, filename=filename)

    if size < HEADER_SIZE:
        raise fail(f"the file is {size} bytes; an ALM1 header alone is {HEADER_SIZE}",
                   0, "header")
    head = np.frombuffer(view, HEADER_DTYPE, count=1)[0]
    if bytes(head["magic"]).ljust(4, b"\0") != MAGIC:
        raise fail(f"not an Alithia ALM1 model: the file starts with {bytes(view[:4])!r}",
                   0, "header/magic")
    nv, nf, frames = (int(head["vertex_count"]), int(head["face_count"]),
                      int(head["frame_count"]))
    if frames == 0:
        raise fail("zero frames: an ALM1 model has at least one vertex array", 16,
                   "header/frame count")
    frame_bytes = nv * VERTEX_DTYPE.itemsize
    faces_at = HEADER_SIZE + frames * frame_bytes
    end = faces_at + nf * FACE_SIZE
    if end > size:
        raise _truncated(fail, size, nv, nf, frames, faces_at, end)
    vertices = np.frombuffer(view, VERTEX_DTYPE, count=frames * nv, offset=HEADER_SIZE)
    faces = np.frombuffer(view, INDEX_DTYPE, count=3 * nf, offset=faces_at)
    bad = np.flatnonzero(faces >= nv)
    if len(bad):
        k = int(bad[0])
        raise fail(f"index {int(faces[k])} names a vertex beyond the model's {nv:,} "
                   f"vertices ({len(bad):,} such indices)", faces_at + 2 * k,
                   f"faces/face {k // 3}")
    return Alm1Model(vertices.reshape(frames, nv).copy(), faces.reshape(nf, 3).copy(),
                     int(head["flags"]), bytes(view[end:]))


def _truncated(fail, size, nv, nf, frames, faces_at, end):
    """The error for a file shorter than its header promises, naming where it ends."""
    promise = (f"the header promises {frames:,} frames of {nv:,} vertices and {nf:,} faces "
               f"({end:,} bytes); the file has {size:,}")
    if size < faces_at:
        frame_bytes = nv * VERTEX_DTYPE.itemsize
        k, rest = divmod(size - HEADER_SIZE, frame_bytes)
        vertex, inside = divmod(rest, VERTEX_DTYPE.itemsize)
        at, name = max((f for f in _FIELDS if f[0] <= inside), key=lambda f: f[0])
        offset = HEADER_SIZE + k * frame_bytes + vertex * VERTEX_DTYPE.itemsize + at
        return fail(f"the file ends inside vertex {vertex:,} of frame {k:,}: {promise}",
                    offset, f"frame {k}/{name}")
    face = (size - faces_at) // FACE_SIZE
    return fail(f"the file ends inside face {face:,}: {promise}", faces_at + face * FACE_SIZE,
                f"faces/face {face}")


def write_alm1(model: Alm1Model) -> bytes:
    """Encode ``model``; the inverse of :func:`read_alm1` (byte for byte)."""
    verts = np.asarray(model.vertices)
    if verts.ndim != 2 or verts.dtype.names != VERTEX_DTYPE.names:
        raise Alm1FormatError("vertices must be a (frames, vertices) array of VERTEX_DTYPE",
                              path="vertices")
    frames, nv = verts.shape
    faces = np.asarray(model.faces)
    if faces.ndim != 2 or faces.shape[1] != 3:
        raise Alm1FormatError("faces must be a (faces, 3) array", path="faces")
    if frames < 1:
        raise Alm1FormatError("a model needs at least one frame", path="header/frame count")
    if max(frames, nv, len(faces)) > MAX_COUNT:
        raise Alm1FormatError("more frames, vertices or faces than 32 bits can count",
                              path="header")
    if len(faces) and (faces.min() < 0 or faces.max() >= min(nv, MAX_INDEX + 1)):
        raise Alm1FormatError(f"face indices must lie in 0..{min(nv, MAX_INDEX + 1) - 1} "
                              f"(the model has {nv:,} vertices; indices are 16-bit)",
                              path="faces")
    if not 0 <= int(model.flags) <= MAX_COUNT:
        raise Alm1FormatError(f"flags {model.flags} do not fit 32 bits", path="header/flags")
    head = np.array([(MAGIC, model.flags, nv, len(faces), frames)], HEADER_DTYPE)
    return b"".join((head.tobytes(), verts.astype(VERTEX_DTYPE, copy=False).tobytes(),
                     faces.astype(INDEX_DTYPE).tobytes(), bytes(model.trailing)))


# --- command line: info, validate, roundtrip (registered in registry.py) -----------------

def info_lines(data: bytes, filename: str | None = None) -> list[str]:
    model = read_alm1(data, filename)
    lines = [f"Alithia ALM1 model: {model.vertex_count:,} vertices, {model.face_count:,} "
             f"triangles, {model.frame_count:,} frames "
             f"({model.frame_count / FRAMES_PER_SECOND:g} s at {FRAMES_PER_SECOND} fps)"]
    p = model.positions[0]
    if len(p) and np.isfinite(p).all():
        lo, hi = p.min(axis=0), p.max(axis=0)
        lines.append("frame 0 bounds: " + " .. ".join(
            "(" + ", ".join(f"{x:g}" for x in v) + ")" for v in (lo, hi)))
    if model.flags:
        lines.append(f"flags 0x{model.flags:x}")
    if model.trailing:
        lines.append(f"{len(model.trailing):,} bytes after the faces (kept as they are)")
    return lines


def problems(data: bytes, filename: str | None = None) -> list[str]:
    """What is wrong with a file, one line each ([] for a good file)."""
    try:
        model = read_alm1(data, filename)
    except Alm1FormatError as e:
        return [str(e)]
    out = []
    if model.flags:
        out.append(f"flags are 0x{model.flags:x}; the format defines none (0)")
    for name in ("position", "normal", "uv"):
        bad = ~np.isfinite(model.vertices[name]).all(axis=-1)
        if bad.any():
            k = int(np.flatnonzero(bad.ravel())[0]) // model.vertex_count
            out.append(f"{int(bad.sum()):,} vertices have a NaN or infinite {name} "
                       f"(first in frame {k})")
    f = model.faces
    if len(f) and int(f.max()) > ENGINE_MAX_INDEX:
        out.append(f"face indices above {ENGINE_MAX_INDEX:,}: the engine's loader reads "
                   "indices as signed 16-bit and would see them as negative")
    same = (f[:, 0] == f[:, 1]) | (f[:, 1] == f[:, 2]) | (f[:, 0] == f[:, 2])
    if same.any():
        out.append(f"{int(same.sum()):,} triangles use a vertex twice (first: face "
                   f"{int(np.flatnonzero(same)[0])})")
    if model.vertex_count > MAX_INDEX + 1:
        out.append(f"{model.vertex_count:,} vertices; 16-bit indices reach only the first "
                   f"{MAX_INDEX + 1:,}")
    if model.trailing:
        out.append(f"{len(model.trailing):,} bytes after the faces; the engine ignores them")
    return out


def roundtrip(data: bytes, filename: str | None = None) -> bytes:
    return write_alm1(read_alm1(data, filename))
