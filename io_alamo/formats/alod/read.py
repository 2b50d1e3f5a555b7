"""Read ALOD ``ALM\\0`` meshes (versions 2-10) into :class:`AlodMesh` records.

Every count is checked against the bytes left before anything is allocated for it, and every
index the records hold is checked against what it points into, so a bad file gives one
:class:`AlodFormatError` naming the offset and the record (``position 17/weight 2``).
"""

import struct

import numpy as np

from ..errors import FormatError
from .ragged import gather, gather_runs
from .records import (INFLUENCE_MARKER, MAGIC, MAX_VERSION, MIN_VERSION, AlodMesh, Collapses,
                      Material, TangentMap, Texture, VectorSet, Vertices, bone_dtype, bone_order,
                      component_dtype, edge_collapse_dtype, float_dtype, header_fields,
                      matrix_floats, triangle_dtype)

_U32 = struct.Struct(">I")


class AlodFormatError(FormatError):
    """An ALOD ``ALM\\0`` file breaks its format."""


def read_alod(data: bytes, filename: str | None = None) -> AlodMesh:
    """The mesh in ``data`` (bytes-like), checked; raises :class:`AlodFormatError`."""
    reader = _Reader(data)
    try:
        mesh = reader.read()
        check_indices(mesh)
        return mesh
    except AlodFormatError as e:
        raise (_paired_ids_error(data, reader) or e).with_filename(filename)


def _paired_ids_error(data, failed):
    """Before version 8, files older than the documented layout store each material's
    tangent ids as pairs (the spec: "was a pair in earlier versions"). Read as singles, the
    records after the materials start in the wrong place and fail somewhere else; when the
    file reads cleanly with pairs, the error names the first material that has tangent ids
    instead. None when that is not the case."""
    if getattr(failed, "version", 99) >= 8 or not failed.material_starts:
        return None
    retry = _Reader(data)
    retry.paired_ids = True
    try:
        mesh = retry.read()
        check_indices(mesh)
    except AlodFormatError:
        return None
    k = next((k for k, m in enumerate(mesh.materials) if len(m.bones)), None)
    if k is None:
        return None
    w = len(mesh.materials[k].bones)
    return AlodFormatError(f"stores its {w} tangent id(s) as pairs ({2 * w} values), the "
                           "layout of files older than the documented version-7 one, which "
                           "io_alamo does not read", offset=retry.material_starts[k] + 8 + 4 * w,
                           path=f"material {k}/tangent_ids")


class _Reader:
    def __init__(self, data):
        self.data = bytes(data)
        self.buf = np.frombuffer(self.data, np.uint8)
        self.end = len(self.data)
        self.off = 0
        self.offsets = {}
        self.paired_ids = False         # the pre-documentation layout: tangent ids as pairs
        self.material_starts = []

    def error(self, message, path, offset=None):
        return AlodFormatError(message, offset=self.off if offset is None else offset,
                               path=path)

    def need(self, nbytes, path):
        if nbytes > self.end - self.off:
            raise self.error(f"needs {nbytes:,} bytes, {self.end - self.off:,} left in the "
                             "file", path)

    def count_check(self, count, min_size, path):
        """``count`` records of at least ``min_size`` bytes must fit in what is left."""
        if count * min_size > self.end - self.off:
            raise self.error(f"{count:,} records of at least {min_size} bytes each cannot "
                             f"fit in the {self.end - self.off:,} bytes left", path)

    def u32(self, path):
        self.need(4, path)
        value = _U32.unpack_from(self.data, self.off)[0]
        self.off += 4
        return value

    def array(self, dtype, count, path):
        dtype = np.dtype(dtype)
        self.count_check(count, dtype.itemsize, path)
        out = np.frombuffer(self.data, dtype, count, self.off).copy()
        self.off += count * dtype.itemsize
        return out

    def walk(self, n, before, nvec, after, stride, path):
        """Find ``n`` records of ``before`` fixed bytes, ``nvec`` AlmVectors and ``after``
        fixed bytes: (record starts, (n, nvec) count offsets, (n, nvec) counts).

        Where a record starts depends on every count before it, so this is the one loop per
        record the reader has: a tight one that only adds up lengths. If it runs off the end,
        the checked walk runs again to say exactly where."""
        self.count_check(n, before + 4 * nvec + after, path)
        try:
            locs = _fast_walk(self.data, self.off, n, before, nvec, after, stride)
        except struct.error:
            locs = None
        if locs is None or (n and self._end_of(locs[-1], stride, after) > self.end):
            self._checked_walk(n, before, nvec, after, stride, path)   # raises
        locs = np.asarray(locs, np.int64).reshape(n, nvec)
        counts = gather(self.buf, locs.ravel(), 4, np.dtype(">u4")).astype(np.int64)
        counts = counts.reshape(n, nvec)
        self.off = self._end_of(int(locs[-1, -1]), stride, after) if n else self.off
        starts = locs[:, 0] - before if nvec else np.zeros(0, np.int64)
        return starts, locs, counts

    def _end_of(self, last_loc, stride, after):
        return last_loc + 4 + _U32.unpack_from(self.data, last_loc)[0] * stride + after

    def _checked_walk(self, n, before, nvec, after, stride, path):
        data, end, off = self.data, self.end, self.off
        for k in range(n):
            start = off
            off += before
            for j in range(nvec):
                if off + 4 > end:
                    raise self.error("the record runs past the end of the file",
                                     f"{path} {k}", off)
                c = _U32.unpack_from(data, off)[0]
                off += 4
                if c * stride > end - off:
                    raise self.error(f"{c:,} weights need {c * stride:,} bytes, {end - off:,} "
                                     "left in the file", f"{path} {k}/vector {j}", off - 4)
                off += c * stride
            off += after
            if off > end:
                raise self.error("the record runs past the end of the file", f"{path} {k}",
                                 start)
        raise AssertionError("the fast walk and the checked walk disagree")

    def vectors(self, locs, counts):
        comp = component_dtype(self.version)
        return VectorSet(counts.astype(">u4"), gather_runs(self.buf, locs + 4, counts, comp))

    # --- sections ---------------------------------------------------------------------------

    def read(self):
        self.need(8, "header")
        if self.data[:4] != MAGIC:
            raise self.error(f"not an ALOD mesh: starts with {self.data[:4]!r}, not {MAGIC!r}",
                             "header", 0)
        self.off = 4
        version = self.version = self.u32("header/version")
        if not MIN_VERSION <= version <= MAX_VERSION:
            raise self.error(f"version {version} is not supported (versions {MIN_VERSION}-"
                             f"{MAX_VERSION} are)", "header/version", 4)
        self.fs = float_dtype(version)
        h = {name: self.u32(f"header/{name}") for name in header_fields(version)}
        self.h = h
        frame_rate = override_p = p_matrix = None
        if version >= 6:
            self.need(8, "header/frame_rate")
            frame_rate = np.frombuffer(self.data, ">f4", 1, self.off)[0]
            self.off += 4
            override_p = self.u32("header/override_P")
        comments = self._comments(h["num_comments"])
        nb = h["num_bones"]
        self.offsets["bones"] = self.off
        bones = self.array(bone_dtype(version), nb, "bones")
        if override_p:
            side = 4 * nb
            self.offsets["P"] = self.off
            p_matrix = self.array(self.fs, side * side, "P").reshape(side, side)
        positions = self._positions(h["num_positions"])
        vertices = self._vertices(h["num_vertices"])
        textures = self._textures(h["num_textures"])
        tangent_maps = self._tangent_maps(h.get("num_tangents", 0))
        materials = self._materials(h["num_materials"], h)
        self.offsets["triangles"] = self.off
        triangles = self.array(triangle_dtype(), h["num_triangles"], "triangles")
        collapses = self._collapses(h["num_collapses"])
        self.offsets["frames"] = self.off
        nf = h.get("num_frames", 0)
        per_frame = nb * matrix_floats(version)
        if per_frame == 0 and nf:
            raise self.error(f"{nf:,} animation frames for a mesh without bones",
                             "header/num_frames", 4 * (2 + header_fields(version).index(
                                 "num_frames")))
        frames = self.array(self.fs, nf * per_frame, "frames").reshape(
            nf, nb, matrix_floats(version))
        trailing = self.data[self.off:]
        return AlodMesh(version, comments, bones, positions, vertices, textures, tangent_maps,
                        materials, triangles, collapses, frames, frame_rate, override_p,
                        p_matrix, trailing, self.offsets)

    def _comments(self, n):
        self.count_check(n, 4, "comments")
        out = []
        for k in range(n):
            length = self.u32(f"comment {k}/length")
            self.need(length, f"comment {k}")
            out.append(self.data[self.off:self.off + length])
            self.off += length
        return out

    def _positions(self, n):
        stride = component_dtype(self.version).itemsize
        starts, locs, counts = self.walk(n, 0, 1, 0, stride, "position")
        self.offsets["positions"] = starts
        return self.vectors(locs[:, 0], counts[:, 0])

    def _vertices(self, n):
        fs = self.fs.itemsize
        self.offsets["vertices"] = self.off
        if self.version < 7:
            rec = self.array([("position", ">u4"), ("tex_coords", self.fs, (2,))], n, "vertex")
            self.offsets["vertices"] += np.arange(n, dtype=np.int64) * rec.dtype.itemsize
            return Vertices(rec["position"].copy(), rec["tex_coords"].copy())
        stride = component_dtype(self.version).itemsize
        starts, locs, counts = self.walk(n, 4, 2, 2 * fs, stride, "vertex")
        self.offsets["vertices"] = starts
        position = gather(self.buf, starts, 4, np.dtype(">u4"))
        tangent_ends = locs[:, 1] + 4 + counts[:, 1] * stride
        tex = gather(self.buf, tangent_ends, 2 * fs).view(self.fs).reshape(n, 2)
        return Vertices(position, tex, (self.vectors(locs[:, 0], counts[:, 0]),
                                        self.vectors(locs[:, 1], counts[:, 1])))

    def _textures(self, n):
        self.count_check(n, 16, "textures")
        out = []
        for k in range(n):
            w, h, c, signed = (self.u32(f"texture {k}/header") for _ in range(4))
            size = w * h * c
            self.need(size, f"texture {k}/values")
            out.append(Texture(w, h, c, signed, self.data[self.off:self.off + size]))
            self.off += size
        return out

    def _tangent_maps(self, n):
        self.count_check(n, 8, "tangent maps")
        stride = component_dtype(self.version).itemsize
        out = []
        for k in range(n):
            w, h = self.u32(f"tangent map {k}/width"), self.u32(f"tangent map {k}/height")
            starts, locs, counts = self.walk(w * h, 4, 2, 0, stride, f"tangent map {k}/entry")
            patch = gather(self.buf, starts, 4, np.dtype(">i4"))
            out.append(TangentMap(w, h, patch, (self.vectors(locs[:, 0], counts[:, 0]),
                                                self.vectors(locs[:, 1], counts[:, 1]))))
        return out

    def _materials(self, n, h):
        self.offsets["materials"] = self.off
        if self.version >= 8:
            rec = self.array([("texture_id", ">i4"), ("tangent_id", ">i4")], n, "materials")
            return [Material(int(t), int(g)) for t, g in rec.tolist()]
        self.count_check(n, 8, "materials")
        out, starts = [], []
        for k in range(n):
            starts.append(self.off)
            self.need(8, f"material {k}")
            texture_id = int(np.frombuffer(self.data, ">i4", 1, self.off)[0])
            self.off += 4
            weights = self.u32(f"material {k}/num_weights")
            per = 3 if self.paired_ids else 2            # bones, then ids (or id pairs)
            pairs = self.array(">u4", per * weights, f"material {k}/bones")
            out.append(Material(texture_id, None, pairs[:weights], pairs[weights:]))
        self.material_starts = starts
        return out

    def _collapses(self, n):
        self.offsets["collapses"] = self.off
        edge = edge_collapse_dtype(self.version)
        if self.version < 9:
            edges = self.array(edge, n, "collapses")
            self.offsets["collapses"] += np.arange(n, dtype=np.int64) * edge.itemsize
            return Collapses(np.zeros(n, bool), edges, np.zeros(0, ">u4"),
                             np.zeros((0, 2), ">u4"), np.zeros(0, self.fs))
        fs = self.fs.itemsize
        self.count_check(n, 8 + fs, "collapses")
        try:
            starts, end = _fast_collapses(self.data, self.off, n, edge.itemsize, fs)
        except struct.error:
            end = None
        if end is None or end > self.end:
            self._checked_collapses(n, edge.itemsize, fs)          # raises
        self.off = end
        starts = self.offsets["collapses"] = np.asarray(starts, np.int64)
        kinds = gather(self.buf, starts, 4, np.dtype(">u4")) == INFLUENCE_MARKER
        counts = gather(self.buf, starts[kinds] + 4, 4, np.dtype(">u4")).astype(np.int64)
        inf = starts[kinds]
        pairs = gather_runs(self.buf, inf + 8, 2 * counts, np.dtype(">u4"))
        errors = gather(self.buf, inf + 8 + 8 * counts, fs, self.fs)
        return Collapses(kinds, gather(self.buf, starts[~kinds], edge.itemsize, edge),
                         counts.astype(">u4"), pairs.reshape(-1, 2), errors)


    def _checked_collapses(self, n, edge_size, fs):
        data, end, off = self.data, self.end, self.off
        for k in range(n):
            if off + 8 > end:
                raise self.error("the record runs past the end of the file", f"collapse {k}",
                                 off)
            if _U32.unpack_from(data, off)[0] == INFLUENCE_MARKER:
                c = _U32.unpack_from(data, off + 4)[0]
                if 8 * c + fs > end - off - 8:
                    raise self.error(f"{c:,} vertex pairs need {8 * c + fs:,} bytes, "
                                     f"{end - off - 8:,} left", f"collapse {k}/count", off + 4)
                off += 8 + 8 * c + fs
            elif off + edge_size > end:
                raise self.error("the record runs past the end of the file", f"collapse {k}",
                                 off)
            else:
                off += edge_size
        raise AssertionError("the fast walk and the checked walk disagree")


def _fast_collapses(data, off, n, edge_size, fs):
    """(start of each collapse, end offset); struct.error past the end of ``data``."""
    unpack = _U32.unpack_from
    starts = []
    append = starts.append
    for _ in range(n):
        append(off)
        if unpack(data, off)[0] == INFLUENCE_MARKER:
            off += 8 + 8 * unpack(data, off + 4)[0] + fs
        else:
            off += edge_size
    return starts, off


def _fast_walk(data, off, n, before, nvec, after, stride):
    """Offsets of every count of ``n`` records (see ``_Reader.walk``); struct.error when a
    count lies past the end of ``data``."""
    unpack = _U32.unpack_from
    locs = []
    append = locs.append
    if nvec == 1:
        for _ in range(n):
            off += before
            append(off)
            off += 4 + unpack(data, off)[0] * stride + after
    elif nvec == 2:
        for _ in range(n):
            off += before
            append(off)
            off += 4 + unpack(data, off)[0] * stride
            append(off)
            off += 4 + unpack(data, off)[0] * stride + after
    else:
        raise ValueError(nvec)
    return locs


def check_indices(mesh):
    """Every index in ``mesh`` points at something that exists, bones have no parent loops;
    else :class:`AlodFormatError` naming the first bad record."""
    nb, npos, nv = len(mesh.bones), len(mesh.positions), len(mesh.vertices)
    o = mesh.offsets
    bsize = mesh.bones.dtype.itemsize
    parent = mesh.bones["parent"].astype(np.int64)
    _first((parent < -1) | (parent >= nb), "bone {}/parent",
           lambda k: o.get("bones", 0) + k * bsize, f"names a bone that does not exist "
           f"({nb} bones)")
    try:
        bone_order(parent)
    except ValueError as e:
        k = e.args[0]
        raise AlodFormatError("bone parents form a loop", offset=o.get("bones", 0) + k * bsize,
                              path=f"bone {k}/parent")
    _check_vectors(mesh.positions, nb, "position {}", o.get("positions"))
    if (mesh.vertices.position >= npos).any():
        _first(mesh.vertices.position >= npos, "vertex {}/position",
               lambda k: int(o["vertices"][k]), f"names a position that does "
               f"not exist ({npos} positions)")
    for j, vs in enumerate(mesh.vertices.tangents or ()):
        _check_vectors(vs, nb, f"vertex {{}}/tangent {j}", o.get("vertices"))
    for k, tm in enumerate(mesh.tangent_maps):
        for j, vs in enumerate(tm.tangents):
            _check_vectors(vs, nb, f"tangent map {k}/entry {{}}/tangent {j}", None)
    ntex, ntan, nmat = len(mesh.textures), len(mesh.tangent_maps), len(mesh.materials)
    for k, m in enumerate(mesh.materials):
        if not -1 <= m.texture_id < ntex:
            raise AlodFormatError(f"texture_id {m.texture_id} names a texture that does not "
                                  f"exist ({ntex} textures)", path=f"material {k}/texture_id")
        if m.tangent_id is not None and not -1 <= m.tangent_id < ntan:
            raise AlodFormatError(f"tangent_id {m.tangent_id} names a tangent map that does "
                                  f"not exist ({ntan} maps)", path=f"material {k}/tangent_id")
        if m.bones is not None and (m.bones >= nb).any():
            raise AlodFormatError(f"names a bone that does not exist ({nb} bones)",
                                  path=f"material {k}/bones")
    tri = mesh.triangles
    tstart = o.get("triangles", 0)
    _first((tri["vertices"] >= nv).any(axis=1), "triangle {}/vertices",
           lambda k: tstart + 16 * k, f"names a vertex that does not exist ({nv} vertices)")
    _first(tri["material"] >= nmat, "triangle {}/material",
           lambda k: tstart + 16 * k + 12, f"names a material that does not exist "
           f"({nmat} materials)")
    _check_collapses(mesh.collapses, npos, nv, o.get("collapses"))


def _first(bad, path, offset_of, message):
    bad = np.asarray(bad)
    if bad.any():
        k = int(np.argmax(bad))
        raise AlodFormatError(message, offset=offset_of(k), path=path.format(k))


def _check_vectors(vs, nb, path, starts):
    bad = vs.components["bone"] >= nb
    if bad.any():
        g = int(np.argmax(bad))
        owner = int(np.searchsorted(np.cumsum(vs.counts.astype(np.int64)), g, side="right"))
        weight = g - int(vs.starts[owner])
        offset = int(starts[owner]) if isinstance(starts, np.ndarray) and len(starts) else None
        raise AlodFormatError(f"bone {int(vs.components['bone'][g])} does not exist "
                              f"({nb} bones)", offset=offset,
                              path=path.format(owner) + f"/weight {weight}")


def _check_collapses(c, npos, nv, starts):
    e = c.edges
    order = np.flatnonzero(~c.is_influence)
    for name, limit, what in (("p1", npos, "position"), ("p2", npos, "position"),
                              ("vl", nv, "vertex"), ("vr", nv, "vertex")):
        bad = e[name] >= limit
        if bad.any():
            k = int(order[np.argmax(bad)])
            raise AlodFormatError(f"{name} {int(e[name][np.argmax(bad)])} names a {what} that "
                                  f"does not exist ({limit} {what}s)", path=f"collapse {k}/{name}",
                                  offset=_offset(starts, k))
    bad = (c.influence_pairs >= nv).any(axis=1)
    if bad.any():
        owner = int(np.searchsorted(np.cumsum(c.influence_counts.astype(np.int64)),
                                    int(np.argmax(bad)), side="right"))
        k = int(np.flatnonzero(c.is_influence)[owner])
        raise AlodFormatError(f"names a vertex that does not exist ({nv} vertices)",
                              path=f"collapse {k}/vertices", offset=_offset(starts, k))


def _offset(starts, k):
    return int(starts[k]) if isinstance(starts, np.ndarray) and k < len(starts) else None
