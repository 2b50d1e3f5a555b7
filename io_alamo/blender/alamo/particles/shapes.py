"""The mesh an emitter's object shows: its position group's shape (exact: a small cross-hair
box; box, cube, sphere, cylinder: their volume), drawn as wire."""

import bmesh
import bpy
from mathutils import Matrix

POINT_SIZE = 0.5


def shape_mesh(name, group):
    """A new mesh of the position group's shape (a record's Group)."""
    bm = bmesh.new()
    try:
        kind = group.type
        if kind == 1:           # box
            lo = (group.min_x, group.min_y, group.min_z)
            hi = (group.max_x, group.max_y, group.max_z)
            size = [max(abs(h - lo_), 1e-3) for lo_, h in zip(lo, hi)]
            centre = [(a + b) / 2 for a, b in zip(lo, hi)]
            bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre)
                                  @ Matrix.Diagonal((*size, 1.0)))
        elif kind == 2:         # cube
            bmesh.ops.create_cube(bm, size=max(abs(group.side_length), 1e-3))
        elif kind == 3:         # sphere
            bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8,
                                      radius=max(abs(group.sphere_radius), 1e-3))
        elif kind == 4:         # cylinder, its bottom circle at the origin
            h = max(abs(group.cylinder_height), 1e-3)
            r = max(abs(group.cylinder_radius), 1e-3)
            bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=r, radius2=r,
                                  depth=h, matrix=Matrix.Translation((0, 0, h / 2)))
        else:                   # exact: a point, shown as a small box around the value
            bmesh.ops.create_cube(bm, size=POINT_SIZE, matrix=Matrix.Translation(
                (group.val_x, group.val_y, group.val_z)))
        mesh = bpy.data.meshes.new(name)
        bm.to_mesh(mesh)
        return mesh
    finally:
        bm.free()
