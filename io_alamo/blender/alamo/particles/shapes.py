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


# --- redrawing: the shape after edits of the position group in the panel ---------------------
# (an operator, not property update callbacks: the 4.2 wheel crashes at exit when this
# add-on's group properties have update callbacks)

class _GroupValues:
    """What :func:`shape_mesh` reads of a group, taken from its properties."""

    def __init__(self, pg):
        items = pg.bl_rna.properties["type"].enum_items
        self.type = items[pg.type].value
        self.min_x, self.min_y, self.min_z = pg.min
        self.max_x, self.max_y, self.max_z = pg.max
        self.val_x, self.val_y, self.val_z = pg.val
        self.side_length = pg.side_length
        self.sphere_radius = pg.sphere_radius
        self.cylinder_radius = pg.cylinder_radius
        self.cylinder_height = pg.cylinder_height


def redraw_shape(obj) -> bool:
    """Give an emitter's object the mesh of its position group as the properties now say;
    False when ``obj`` is no emitter mesh."""
    groups = obj.alamo_emitter.groups
    if obj.type != "MESH" or obj.alamo_emitter.index < 0 or len(groups) != 3:
        return False
    old = obj.data
    obj.data = shape_mesh(old.name, _GroupValues(groups[2]))
    if old.users == 0:
        bpy.data.meshes.remove(old)
    return True
