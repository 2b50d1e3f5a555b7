"""ALOD ``ALM\\0`` progressive meshes (big-endian; versions 2-10): read, write, levels of
detail. Blender-free (stdlib + numpy). ``read_alod(data) -> AlodMesh``,
``write_alod(mesh) -> bytes``; the command line's info, validate and roundtrip use
:func:`info_lines`, :func:`problems` and :func:`roundtrip`."""

import numpy as np

from .lod import collapse_vertex_maps, lod_stops, lod_triangles
from .read import AlodFormatError, check_indices, read_alod
from .records import (MAGIC, AlodMesh, Collapses, Material, TangentMap, Texture, VectorSet,
                      Vertices, bone_dtype, component_dtype, edge_collapse_dtype, float_dtype,
                      matrix_row_problems, rest_matrices, triangle_dtype)
from .write import write_alod

__all__ = [
    "MAGIC", "AlodFormatError", "AlodMesh", "Collapses", "Material", "TangentMap", "Texture",
    "VectorSet", "Vertices", "bone_dtype", "check_indices", "collapse_vertex_maps",
    "component_dtype", "edge_collapse_dtype", "float_dtype", "info_lines", "lod_stops",
    "lod_triangles", "matrix_row_problems", "problems", "read_alod", "rest_matrices",
    "roundtrip", "triangle_dtype",
    "write_alod",
]


def info_lines(data: bytes, filename: str | None = None) -> list[str]:
    m = read_alod(data, filename)
    c = m.collapses
    n_inf = int(c.is_influence.sum())
    lines = [f"ALOD mesh, version {m.version} ({m.bones.dtype['transform'].base.itemsize * 8}"
             "-bit floats)",
             f"{len(m.bones)} bones, {len(m.positions)} positions, {len(m.vertices)} vertices, "
             f"{len(m.triangles)} triangles, {len(m.materials)} materials",
             f"{len(m.textures)} textures, {len(m.tangent_maps)} tangent maps, "
             f"{len(m.comments)} comments",
             f"{len(c)} collapses ({len(c) - n_inf} edge, {n_inf} influence)"]
    if len(m.frames):
        lines.append(f"{len(m.frames)} frames at {m.rate():g} fps")
    if m.trailing:
        lines.append(f"{len(m.trailing)} bytes after the last record (kept)")
    return lines


def problems(data: bytes, filename: str | None = None) -> list[str]:
    """What is odd but readable; [] for a clean file. Unreadable files raise."""
    m = read_alod(data, filename)
    out = []
    e = m.collapses.edges
    pos = np.asarray(m.vertices.position, np.int64)
    split = pos[e["vl"].astype(np.int64)] != pos[e["vr"].astype(np.int64)]
    if split.any():
        out.append(f"{int(split.sum())} edge collapses have vl and vr on different positions "
                   "(the spec says they share one)")
    err = m.collapses.errors()
    if len(err) > 1 and (np.diff(err) < 0).any():
        out.append("collapse errors do not grow along the list")
    if m.trailing:
        out.append(f"{len(m.trailing)} bytes after the last record")
    return out + matrix_row_problems(m)


def roundtrip(data: bytes, filename: str | None = None) -> bytes:
    return write_alod(read_alod(data, filename))
