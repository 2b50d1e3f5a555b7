"""Write :class:`AlodMesh` records back as ALOD ``ALM\\0`` bytes.

An unedited mesh from :func:`read_alod` gives back the bytes it was read from: arrays keep
the file's dtypes, the header's counts are the records' lengths, and bytes after the last
record are kept. Tests also build their spec files with it.
"""

import struct

import numpy as np

from .ragged import interleave
from .read import AlodFormatError
from .records import (INFLUENCE_MARKER, MAGIC, MAX_VERSION, MIN_VERSION, AlodMesh, bone_dtype,
                      component_dtype, edge_collapse_dtype, float_dtype, header_fields,
                      matrix_floats, triangle_dtype)


def write_alod(mesh: AlodMesh) -> bytes:
    """The file bytes of ``mesh``; raises :class:`AlodFormatError` for records that do not
    fit its version (nothing is written half)."""
    v = mesh.version
    if not MIN_VERSION <= v <= MAX_VERSION:
        raise AlodFormatError(f"version {v} cannot be written (versions {MIN_VERSION}-"
                              f"{MAX_VERSION} can)", path="header/version")
    fs = float_dtype(v)
    nb = len(mesh.bones)
    counts = {"num_comments": len(mesh.comments), "num_bones": nb,
              "num_positions": len(mesh.positions), "num_vertices": len(mesh.vertices),
              "num_textures": len(mesh.textures), "num_tangents": len(mesh.tangent_maps),
              "num_materials": len(mesh.materials), "num_triangles": len(mesh.triangles),
              "num_collapses": len(mesh.collapses), "num_frames": len(mesh.frames)}
    if v < 8 and mesh.tangent_maps:
        raise AlodFormatError("tangent maps need version 8 or later", path="tangent maps")
    if v < 9 and mesh.collapses.is_influence.any():
        raise AlodFormatError("influence collapses need version 9 or later", path="collapses")
    if v < 4 and len(mesh.frames):
        raise AlodFormatError("animation frames need version 4 or later", path="frames")
    parts = [MAGIC, struct.pack(">I", v)]
    parts += [struct.pack(">I", counts[name]) for name in header_fields(v)]
    override = 0
    if v >= 6:
        override = int(mesh.override_p or 0)
        rate = mesh.frame_rate if mesh.frame_rate is not None else np.float32(0)
        parts += [np.asarray(rate, ">f4").tobytes(), struct.pack(">I", override)]
    for c in mesh.comments:
        parts += [struct.pack(">I", len(c)), bytes(c)]
    parts.append(_array(mesh.bones, bone_dtype(v), "bones"))
    if override:
        side = 4 * nb
        p = np.asarray(mesh.p_matrix, fs)
        if p.shape != (side, side):
            raise AlodFormatError(f"the P matrix must be {side} x {side}", path="P")
        parts.append(p.tobytes())
    parts.append(_vectors_only(mesh.positions, v))
    parts.append(_vertices(mesh.vertices, v))
    for t in mesh.textures:
        if len(t.values) != t.width * t.height * t.channels:
            raise AlodFormatError("values do not match width x height x channels",
                                  path="texture")
        parts += [struct.pack(">4I", t.width, t.height, t.channels, t.signed), bytes(t.values)]
    for k, tm in enumerate(mesh.tangent_maps):
        parts += [struct.pack(">2I", tm.width, tm.height), _tangent_map(tm, v, k)]
    parts.append(_materials(mesh.materials, v))
    parts.append(_array(mesh.triangles, triangle_dtype(), "triangles"))
    parts.append(_collapses(mesh.collapses, v))
    frames = np.asarray(mesh.frames, fs)
    if len(frames) and frames.shape[1:] != (nb, matrix_floats(v)):
        raise AlodFormatError(f"frames must hold {nb} bones x {matrix_floats(v)} floats",
                              path="frames")
    parts += [frames.tobytes(), bytes(mesh.trailing)]
    return b"".join(parts)


def _array(a, dtype, path):
    a = np.asarray(a)
    if a.dtype != dtype:
        try:
            a = a.astype(dtype)
        except (TypeError, ValueError) as e:
            raise AlodFormatError(f"records do not fit the version's layout: {e}", path=path)
    return a.tobytes()


def _vector_fields(vs, v):
    """(lengths, data) fields of AlmVectors: the count, then the components."""
    comp = component_dtype(v)
    counts = np.asarray(vs.counts, np.int64)
    components = np.asarray(vs.components).astype(comp, copy=False)
    if int(counts.sum()) != len(components):
        raise AlodFormatError("vector counts do not add up to the components held",
                              path="vectors")
    return [(np.full(len(counts), 4), counts.astype(">u4").tobytes()),
            (counts * comp.itemsize, components.tobytes())]


def _vectors_only(vs, v):
    return interleave(_vector_fields(vs, v))


def _vertices(vx, v):
    fs = float_dtype(v)
    n = len(vx.position)
    position = np.asarray(vx.position, ">u4")
    tex = np.asarray(vx.tex_coords, fs).reshape(n, 2)
    if v < 7:
        rec = np.empty(n, [("position", ">u4"), ("tex_coords", fs, (2,))])
        rec["position"], rec["tex_coords"] = position, tex
        return rec.tobytes()
    if vx.tangents is None:
        raise AlodFormatError("version 7+ vertices need tangent planes", path="vertices")
    fields = [(np.full(n, 4), position.tobytes())]
    for vs in vx.tangents:
        fields += _vector_fields(vs, v)
    fields.append((np.full(n, 2 * fs.itemsize), tex.tobytes()))
    return interleave(fields)


def _tangent_map(tm, v, k):
    n = tm.width * tm.height
    patch = np.asarray(tm.patch, ">i4")
    if len(patch) != n or any(len(vs) != n for vs in tm.tangents):
        raise AlodFormatError("entries do not match width x height", path=f"tangent map {k}")
    fields = [(np.full(n, 4), patch.tobytes())]
    for vs in tm.tangents:
        fields += _vector_fields(vs, v)
    return interleave(fields)


def _materials(materials, v):
    out = []
    for k, m in enumerate(materials):
        if v >= 8:
            out.append(struct.pack(">ii", m.texture_id, m.tangent_id))
            continue
        bones = np.asarray(m.bones if m.bones is not None else [], ">u4")
        tangent_ids = np.asarray(m.tangent_ids if m.tangent_ids is not None else [], ">u4")
        if len(bones) != len(tangent_ids):
            raise AlodFormatError("bones and tangent ids must pair up", path=f"material {k}")
        out += [struct.pack(">iI", m.texture_id, len(bones)), bones.tobytes(),
                tangent_ids.tobytes()]
    return b"".join(out)


def _collapses(c, v):
    fs = float_dtype(v)
    edge = edge_collapse_dtype(v)
    edges = np.asarray(c.edges).astype(edge, copy=False)
    if v < 9:
        return edges.tobytes()
    inf = np.asarray(c.is_influence, bool)
    n = len(inf)
    counts = np.zeros(n, np.int64)
    counts[inf] = np.asarray(c.influence_counts, np.int64)
    header = np.empty((int(inf.sum()), 2), ">u4")
    header[:, 0] = INFLUENCE_MARKER
    header[:, 1] = counts[inf]
    return interleave([
        (np.where(inf, 0, edge.itemsize), edges.tobytes()),
        (np.where(inf, 8, 0), header.tobytes()),
        (8 * counts, np.asarray(c.influence_pairs, ">u4").tobytes()),
        (np.where(inf, fs.itemsize, 0), np.asarray(c.influence_errors, fs).tobytes()),
    ])
