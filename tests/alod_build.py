"""Spec-built ALOD ``ALM\\0`` meshes for tests (no public sample files exist).

``build_mesh(version)`` makes the same small skinned model for any version 2-10, with what the
version can hold: a 3-bone chain (a rotated, moved root), a 4 x 4 grid of positions, each
weighted between two bones in the "Animation Space" way (``coords = w * inverse(bone world)
@ point``, so the rest position is the grid point), a texture seam down the middle (the seam
positions have two vertices with different s), two materials, textures (a colour one and a
signed one), a tangent map (v8+), collapses down the grid, one onto a position only the lower
levels use, an influence collapse (v9+), animation frames (v4+) and tails (v10).
Bytes come from the add-on's writer; ``test_alod.py`` checks that writer against a file packed
by hand with ``struct`` from the spec's layout.
"""

import numpy as np

from io_alamo.formats.alod import (AlodMesh, Collapses, Material, TangentMap, Texture, VectorSet,
                                   Vertices, bone_dtype, component_dtype, edge_collapse_dtype,
                                   float_dtype, triangle_dtype, write_alod)

GRID = 4
SEAM_COLUMN = 2


def rot_z(deg):
    a = np.radians(deg)
    m = np.eye(4)
    m[:2, :2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
    return m


def translate(x, y, z):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


BONE_PARENTS = [-1, 0, 1]
BONE_LOCALS = [translate(1.0, 2.0, 0.5) @ rot_z(90), translate(0.0, 1.5, 0.0) @ rot_z(-30),
               translate(0.25, 1.0, 0.0)]


def bone_worlds(locals_=BONE_LOCALS, parents=BONE_PARENTS):
    out = []
    for i, m in enumerate(locals_):
        out.append(m if parents[i] < 0 else out[parents[i]] @ m)
    return np.array(out)


def _transform_rows(m, version):
    if version >= 5:
        return m.ravel()
    return np.concatenate([m[:3, :3].ravel(), m[:3, 3]])


def grid_points():
    ij = np.array([(i, j) for i in range(GRID) for j in range(GRID)], np.float64)
    return np.column_stack([ij[:, 1] * 0.5, ij[:, 0] * 0.5, 0.1 * ij[:, 0] * ij[:, 1]])


def _vector_set(rows, version):
    """rows: [[(bone, coords4), ...] per vector]."""
    comp = np.zeros(sum(len(r) for r in rows), component_dtype(version))
    k = 0
    for r in rows:
        for bone, coords in r:
            comp[k] = (bone, coords)
            k += 1
    return VectorSet(np.array([len(r) for r in rows], ">u4"), comp)


def _weighted(point, bones_weights, worlds):
    p = np.append(point, 1.0)
    return [(b, w * (np.linalg.inv(worlds[b]) @ p)) for b, w in bones_weights]


def build_mesh(version=10, frames=3):
    v = version
    fs = float_dtype(v)
    worlds = bone_worlds()
    bones = np.zeros(3, bone_dtype(v))
    bones["parent"] = BONE_PARENTS
    bones["transform"] = [_transform_rows(m, v) for m in BONE_LOCALS]
    if v >= 6:
        bones["flags"] = [0x01, 0x02 | 0x04, 0x10000]
        bones["max_singular"] = 1.0
        bones["translate_radius"] = [0.5, 0.25, 0.125]
        bones["expect_L"] = [m.ravel() for m in BONE_LOCALS]
    if v >= 10:
        bones["tail"] = [(0.0, 1.5, 0.0), (0.0, 1.0, 0.0), (0.0, 0.5, 0.0)]
    pts = grid_points()
    # weights blend bone 0 into bone 1 (rows) and bone 2 on the last row
    rows = []
    for k, p in enumerate(pts):
        i = k // GRID
        w = i / (GRID - 1)
        bw = [(0, 1.0 - w), (1, w)] if i < GRID - 1 else [(1, 0.75), (2, 0.25)]
        rows.append(_weighted(p, [x for x in bw if x[1] > 0], worlds))
    # extra positions, used only by lower levels: the midpoint of the first two points,
    # and a one-bone copy of point 5 (for the influence collapse)
    extra = [_weighted((pts[0] + pts[1]) / 2, [(0, 1.0)], worlds),
             _weighted(pts[5], [(1, 1.0)], worlds)]
    positions = _vector_set(rows + extra, v)
    # vertices: one per grid point, plus a second one (s + 1) on each seam position
    vpos, tex = [], []
    for k, p in enumerate(pts):
        vpos.append(k)
        right = k % GRID > SEAM_COLUMN           # the right patch's s run on from 2.0
        tex.append((p[0] + (1.0 if right else 0.0), p[1]))
    seam_vertex = {}
    for i in range(GRID):
        k = i * GRID + SEAM_COLUMN
        seam_vertex[k] = len(vpos)
        vpos.append(k)
        tex.append((pts[k][0] + 1.0, pts[k][1]))
    mid_vertex = len(vpos)
    vpos.append(GRID * GRID)
    tex.append(((pts[0][0] + pts[1][0]) / 2, pts[0][1]))
    inf_vertex = len(vpos)
    vpos.append(GRID * GRID + 1)
    tex.append(tuple(tex[5]))
    nvert = len(vpos)
    tangents = None
    if v >= 7:
        tangents = (_vector_set([[(0, (1.0, 0.0, 0.0, 0.0))]] * nvert, v),
                    _vector_set([[(0, (0.0, 1.0, 0.0, 0.0)), (1, (0.0, 0.5, 0.0, 0.0))]] * nvert,
                                v))
    vertices = Vertices(np.array(vpos, ">u4"), np.array(tex, fs).reshape(-1, 2), tangents)
    # triangles: two per grid cell, counter-clockwise; right of the seam uses seam vertices
    tris, mats = [], []
    for i in range(GRID - 1):
        for j in range(GRID - 1):
            a, b, c, d = (i * GRID + j, i * GRID + j + 1, (i + 1) * GRID + j + 1,
                          (i + 1) * GRID + j)
            if j >= SEAM_COLUMN:
                a, b, c, d = (seam_vertex.get(x, x) for x in (a, b, c, d))
            tris += [(a, b, c), (a, c, d)]
            mats += [0 if j < SEAM_COLUMN else 1] * 2
    triangles = np.zeros(len(tris), triangle_dtype())
    triangles["vertices"] = tris
    triangles["material"] = mats
    textures = [Texture(4, 4, 3, 0, bytes((k * 7) % 256 for k in range(48))),
                Texture(2, 2, 4, 1, bytes((128 + k * 9) % 256 for k in range(16)))]
    tangent_maps = []
    if v >= 8:
        tangent_maps = [TangentMap(2, 1, np.array([0, 1], ">i4"),
                                   (_vector_set([[(0, (1.0, 0, 0, 0))], []], v),
                                    _vector_set([[(1, (0, 1.0, 0, 0))], [(2, (0, 0, 1.0, 0))]],
                                                v)))]
        materials = [Material(0, 0), Material(1, -1)]
    else:
        materials = [Material(0, None, np.array([0], ">u4"), np.array([1], ">u4")),
                     Material(1, None, np.zeros(0, ">u4"), np.zeros(0, ">u4"))]
    collapses = _collapses(v, seam_vertex, mid_vertex, inf_vertex)
    frame_data = np.zeros((0, 3, 16 if v >= 5 else 12), fs)
    if v >= 4 and frames:
        frame_data = np.array([[_transform_rows(m @ rot_z(10 * f if b else 0), v)
                                for b, m in enumerate(BONE_LOCALS)] for f in range(frames)], fs)
    return AlodMesh(
        v, [b"made from the ALOD spec", b"second comment"], bones, positions, vertices,
        textures, tangent_maps, materials, triangles, collapses, frame_data,
        np.float32(24.0) if v >= 6 else None, 0 if v >= 6 else None)


def _collapses(v, seam_vertex, mid_vertex, inf_vertex):
    """Down the grid: points 0 and 1 onto the new midpoint; then, row by row, column 1 onto
    column 0 and column 3 onto the seam column (whose two vertices are vl and vr); the
    influence collapse (v9+) swaps vertex 5 for its one-bone copy first."""
    edges = [(0, 1, mid_vertex, mid_vertex)]
    for i in range(1, GRID):
        p2 = i * GRID + 1
        if p2 == 5 and v >= 9:
            p2 = GRID * GRID + 1                 # vertex 5 sits there after the swap
        edges.append((i * GRID, p2, i * GRID, i * GRID))
    for i in range(GRID):
        s = i * GRID + SEAM_COLUMN
        edges.append((s, s + 1, s, seam_vertex[s]))
    n = len(edges) + (1 if v >= 9 else 0)
    kinds = np.zeros(n, bool)
    if v >= 9:
        kinds[1] = True
    e = np.zeros(len(edges), edge_collapse_dtype(v))
    for k, rec in enumerate(edges):
        e[k] = rec + (0.125 * (k + (k >= 1 and v >= 9) + 1),)
    return Collapses(kinds, e, np.array([1] if v >= 9 else [], ">u4"),
                     np.array([[5, inf_vertex]] if v >= 9 else [], ">u4").reshape(-1, 2),
                     np.array([0.25] if v >= 9 else [], float_dtype(v)))


def build_bytes(version=10, frames=3):
    return write_alod(build_mesh(version, frames))
