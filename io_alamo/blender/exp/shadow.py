"""Shadow volume meshes (MeshShadowVolume / RSkinShadowVolume).

The game extrudes them along face normals, so, as in the game's own files, every face gets
its own three vertices carrying the face normal, and every edge gets a degenerate quad joining
the two faces that share it (3 vertices and 4 triangles per face: 0.75 vertices a triangle).
That only closes the volume if the mesh is closed and manifold, so other meshes are refused.
"""

import numpy as np

from .alo import ExportError


def shadow_submesh_arrays(tri_records, obj=None, matrix=None):
    """(vertices, (n, 3) indices) for the triangles ``tri_records`` ((T, 3) vertex records);
    ``matrix`` takes the object's mesh coordinates to the records' space (to select the open
    edges of ``obj`` if there are any)."""
    pos = tri_records["position"].astype(np.float64)              # (T, 3, 3)
    area = np.linalg.norm(np.cross(pos[:, 1] - pos[:, 0], pos[:, 2] - pos[:, 0]), axis=1)
    # zero-area faces are the quads of an earlier extrusion (an imported shadow mesh): without
    # them the faces must still close; if they do not, the quads are part of the surface
    real = area > 0
    if real.any() and not real.all():
        try:
            return _extrude(tri_records[real], None, None)
        except ExportError:
            pass
    return _extrude(tri_records, obj, matrix)


def _extrude(tri_records, obj, matrix):
    pos = tri_records["position"].astype(np.float64)
    normal = np.cross(pos[:, 1] - pos[:, 0], pos[:, 2] - pos[:, 0])
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    t = len(tri_records)
    normal = np.divide(normal, length, out=np.zeros_like(normal), where=length > 0)
    verts = tri_records.reshape(-1).copy()
    verts["normal"] = np.repeat(normal, 3, axis=0)
    corner = np.arange(3 * t).reshape(t, 3)

    # positions as exact ids, edges as (from, to) position ids with their corners
    # (+ 0 turns -0.0 into 0.0, which is the same point)
    flat = np.ascontiguousarray(verts["position"] + np.float32(0)).view(
        np.dtype((np.void, 12))).ravel()
    _, pid = np.unique(flat, return_inverse=True)
    pid = pid.ravel().reshape(t, 3)
    a = pid.ravel()
    b = pid[:, [1, 2, 0]].ravel()
    ca = corner.ravel()
    cb = corner[:, [1, 2, 0]].ravel()
    directed = a * (pid.max() + 1) + b
    reverse = b * (pid.max() + 1) + a
    # pair the k-th edge a -> b with the k-th edge b -> a (an edge shared by four faces
    # pairs up too, as long as as many faces run each way)
    n = len(directed)
    order = np.argsort(directed, kind="stable")
    sorted_d = directed[order]
    own_start = np.searchsorted(sorted_d, directed, "left")
    own_count = np.searchsorted(sorted_d, directed, "right") - own_start
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n) - np.searchsorted(sorted_d, sorted_d, "left")
    rev_start = np.searchsorted(sorted_d, reverse, "left")
    rev_count = np.searchsorted(sorted_d, reverse, "right") - rev_start
    collapsed = a == b                          # edges of earlier, zero-width quads
    bad = (rev_count != own_count) & ~collapsed
    if bad.any():
        _select_edges(obj, matrix, verts["position"], ca[bad], cb[bad])
        raise ExportError([f"shadow mesh is not closed and manifold: {int(bad.sum())} edges "
                           "have no opposite edge (they are selected); a shadow volume "
                           "must be watertight"])
    other = order[np.minimum(rev_start + rank, n - 1)]   # the opposite edge of each edge
    first = np.flatnonzero((np.arange(n) < other) & ~collapsed)  # each pair once
    u0, u1 = ca[first], cb[first]               # face f: a -> b
    w0, w1 = ca[other[first]], cb[other[first]]  # face g: b -> a
    quads = np.concatenate([np.stack([u1, u0, w1], 1), np.stack([u1, w1, w0], 1)])
    idx = np.concatenate([corner, quads])
    return verts, idx


def _select_edges(obj, matrix, positions, ca, cb):
    """Select the vertices of the offending edges in the object's mesh, where they match."""
    if obj is None or obj.type != "MESH":
        return
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    if matrix is not None:
        m = np.asarray(matrix, np.float64)
        co = (co.astype(np.float64) @ m[:3, :3].T + m[:3, 3]).astype(np.float32)
    want = {tuple(p) for p in np.asarray(positions)[np.r_[ca, cb]].round(5).tolist()}
    sel = np.array([tuple(p) in want for p in co.round(5).tolist()], bool)
    if sel.any():
        me.vertices.foreach_set("select", sel)
        ev = np.empty(len(me.edges) * 2, np.int32)
        me.edges.foreach_get("vertices", ev)
        me.edges.foreach_set("select", sel[ev.reshape(-1, 2)].all(axis=1))
