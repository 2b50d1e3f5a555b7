"""A rebuilt shadow mesh whose surface is the imported one (same faces, same order, same
welding; only positions, normals or weights changed, as after a resize) keeps the file's
shadow topology: the file's vertices and triangles, extrusion quads included, with the new
values on each face's own three vertices. Re-extruding such a mesh would add or drop quads
where the game's file had its own (845 -> 864 triangles on a real unit), and resizing is
meant to keep topology."""

import copy

import numpy as np

from ....formats.alamo import shaders
from .shadow import position_ids, surface_faces


def keep_shadow_topology(mesh, src):
    """``mesh`` (just built) with each shadow sub-mesh given the topology of the same
    sub-mesh of ``src`` (the imported Mesh record) where their surfaces match."""
    if src is None or len(mesh.submeshes) != len(src.submeshes):
        return mesh
    return with_submeshes(mesh, [_kept(new, old)
                                 for new, old in zip(mesh.submeshes, src.submeshes)])


def with_submeshes(mesh, subs):
    """``mesh`` itself when ``subs`` are its own sub-meshes, else a copy holding them."""
    if all(a is b for a, b in zip(subs, mesh.submeshes)):
        return mesh
    out = copy.copy(mesh)
    out.submeshes = subs
    return out


def _kept(new, old):
    if not shaders.is_shadow(new.material.shader) or new.vertices.dtype != old.vertices.dtype:
        return new
    old_faces = old.indices[surface_faces(old.vertices[old.indices])].astype(np.int64)
    t = len(old_faces)
    if t == 0 or len(new.indices) < t:
        return new
    new_faces = new.indices[:t].astype(np.int64)     # the export puts the faces first
    if surface_faces(new.vertices[new.indices[t:]]).any():
        return new                                   # more surface faces than the file's
    # the same surface: corner for corner the same welding of positions
    if not _same_pattern(new.vertices["position"][new_faces],
                         old.vertices["position"][old_faces]):
        return new
    corners = old_faces.ravel()
    if len(np.unique(corners)) != len(old.vertices):
        return new                                   # a file vertex on no surface face
    values = new.vertices[new_faces.ravel()]
    vertices = old.vertices.copy()
    vertices[corners] = values
    # a file vertex that several faces share (a few game files have some) must get one
    # position from all of them; it keeps the normal of one of its faces, as the file had
    if not np.array_equal(vertices["position"][corners], values["position"]):
        return new
    out = copy.copy(new)
    out.vertices, out.indices = vertices, old.indices.copy()
    return out


def _same_pattern(a, b):
    """Whether two (T, 3, 3) corner position sets weld alike (equal points in a are equal
    points in b, and no others)."""
    ia, ib = position_ids(a.reshape(-1, 3)), position_ids(b.reshape(-1, 3))
    if ia.max(initial=-1) != ib.max(initial=-1):
        return False
    # both numbered by first occurrence: the same partition gives the same sequence
    return np.array_equal(_first_seen(ia), _first_seen(ib))


def _first_seen(ids):
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.ravel()]
