"""Shadow volume meshes (MeshShadowVolume / RSkinShadowVolume).

The game extrudes them along face normals, so, as in the game's own files, every face gets
its own three vertices carrying the face normal, and every edge gets a degenerate quad joining
the two faces that share it.

An imported shadow mesh already holds such quads. They are told from the surface by topology,
not by area: welded by position, each quad triangle has two corners at one point, while a
surface face has three distinct points even when they are collinear (game files have a few
such faces). The surface faces are kept, exactly, and extruded afresh: two triangles per
shared edge. Edges with no opposite face (some game meshes have 3-4) stay open, as the game
file had them, and are reported.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(slots=True)
class ShadowVolume:
    vertices: np.ndarray          # records, three per surface face
    indices: np.ndarray           # (n, 3): the faces, then the edge quads
    open_edges: int = 0           # edges without an opposite face (left open)


def position_ids(positions):
    """Weld by position: the same id for equal points (-0.0 and 0.0 alike)."""
    flat = np.ascontiguousarray(np.asarray(positions, np.float32) + np.float32(0)).view(
        np.dtype((np.void, 12))).ravel()
    _, pid = np.unique(flat, return_inverse=True)
    return pid.ravel()


def surface_faces(tri_records):
    """(T,) bool: triangles with three distinct welded corners (not extrusion quads)."""
    pid = position_ids(tri_records["position"].reshape(-1, 3)).reshape(-1, 3)
    return (pid[:, 0] != pid[:, 1]) & (pid[:, 1] != pid[:, 2]) & (pid[:, 0] != pid[:, 2])


def shadow_volume(tri_records, obj=None, matrix=None):
    """The ShadowVolume of the triangles ``tri_records`` ((T, 3) vertex records);
    ``matrix`` takes the object's mesh coordinates to the records' space (to select the open
    edges of ``obj`` if there are any)."""
    faces = tri_records[surface_faces(tri_records)]
    t = len(faces)
    pos = faces["position"].astype(np.float64)
    normal = np.cross(pos[:, 1] - pos[:, 0], pos[:, 2] - pos[:, 0])
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    normal = np.divide(normal, length, out=np.zeros_like(normal), where=length > 0)
    verts = faces.reshape(-1).copy()
    flat = np.repeat(length[:, 0] > 0, 3)
    # a collinear face keeps the normal it had; the others carry their face normal
    verts["normal"][flat] = np.repeat(normal, 3, axis=0)[flat]
    corner = np.arange(3 * t).reshape(t, 3)
    pid = position_ids(verts["position"]).reshape(t, 3)
    a, b = pid.ravel(), pid[:, [1, 2, 0]].ravel()
    ca, cb = corner.ravel(), corner[:, [1, 2, 0]].ravel()
    other, matched = _opposite_edges(a, b)
    if (~matched).any():
        _select_edges(obj, matrix, verts["position"], ca[~matched], cb[~matched])
    first = np.flatnonzero(matched & (np.arange(len(a)) < other))   # each pair once
    u0, u1 = ca[first], cb[first]               # face f: a -> b
    w0, w1 = ca[other[first]], cb[other[first]]  # face g: b -> a
    quads = np.concatenate([np.stack([u1, u0, w1], 1), np.stack([u1, w1, w0], 1)])
    return ShadowVolume(verts, np.concatenate([corner, quads]), int((~matched).sum()))


def _opposite_edges(a, b):
    """For directed edges a -> b: the index of the opposite edge b -> a each is paired with
    (the k-th a -> b with the k-th b -> a, so an edge shared by four faces pairs up too), and
    whether there is one."""
    n = len(a)
    width = int(max(a.max(initial=0), b.max(initial=0))) + 1
    directed = a.astype(np.int64) * width + b
    reverse = b.astype(np.int64) * width + a
    order = np.argsort(directed, kind="stable")
    sorted_d = directed[order]
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n) - np.searchsorted(sorted_d, sorted_d, "left")
    rev_start = np.searchsorted(sorted_d, reverse, "left")
    rev_count = np.searchsorted(sorted_d, reverse, "right") - rev_start
    matched = rank < rev_count
    other = order[np.minimum(rev_start + rank, max(n - 1, 0))]
    return other, matched


def _select_edges(obj, matrix, positions, ca, cb):
    """Select the vertices of the open edges in the object's mesh, where they match."""
    if obj is None or obj.type != "MESH":
        return
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    if matrix is not None:
        m = np.asarray(matrix, np.float64)
        co = (co.astype(np.float64) @ m[:3, :3].T + m[:3, 3]).astype(np.float32)
    want = np.asarray(positions)[np.r_[ca, cb]].round(5)
    key = np.unique(want, axis=0)
    rounded = co.round(5)
    at = _rows_in(rounded, key)
    if at.any():
        me.vertices.foreach_set("select", at)
        held = me.attributes.get(".select_edge")
        if held is not None and held.data_type != "BOOLEAN":
            return      # Blender 5.0 can leave it INT32_2D on imported meshes: writing crashes
        ev = np.empty(len(me.edges) * 2, np.int32)
        me.edges.foreach_get("vertices", ev)
        me.edges.foreach_set("select", at[ev.reshape(-1, 2)].all(axis=1))


def _rows_in(rows, table):
    """(n,) bool: which of ``rows`` ((n, 3) float32) are rows of ``table``."""
    both = np.ascontiguousarray(np.concatenate([table, rows]).astype(np.float32) + 0.0)
    _, inv = np.unique(both.view(np.dtype((np.void, 12))).ravel(), return_inverse=True)
    inv = inv.ravel()
    return np.isin(inv[len(table):], inv[:len(table)])
