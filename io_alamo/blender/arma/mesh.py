"""One P3D LOD as a Blender mesh: points, triangles and quads, custom normals, UV sets,
named selections as vertex groups and animation frames as shape keys.

Axes: P3D is y-up (x right, y up, z forward); Blender is z-up. Swapping y and z maps one
onto the other (x, y, z) -> (x, z, y). What real files hold (111 of 111 checked): in the
file's own axes the right-handed cross product of each face points outward and the decoded
normals point inward. The swap is a mirror, so keeping the file's corner order would face
inward in Blender: each face's corner order is reversed and the normals are negated (both
are needed: reversing only the winding leaves normals against the faces and renders black).
Proxy marker triangles (:mod:`io_alamo.formats.arma.markers`) are left out of the mesh; their
vertices stay (one Blender vertex per file vertex, so selections, weights and frames keep
their indices).
"""

import numpy as np

from ...formats.arma.markers import face_corners
from .. import compat
from .cleanup import agreeing_normals
from ..names import to_blender

AXES = [0, 2, 1]
NORMALS_TURNED_KEY = "p3d_normals_turned"   # corner normals turned to their face's side                       # Blender x, y, z from the file's x, z, y


def to_blender_axes(points):
    return np.ascontiguousarray(np.asarray(points, np.float32).reshape(-1, 3)[:, AXES])


def blender_matrix(matrix):
    """A 4x4 file-space transform as a Blender-space one (rows and columns swapped)."""
    m = np.asarray(matrix, np.float64)
    return m[np.ix_(AXES + [3], AXES + [3])]


def usable_faces(faces, n_vertices, skip=None, reverse=True):
    """Corner lists Blender can hold, each in reversed order (outward in Blender): faces
    naming missing vertices are left out, a quad with one corner twice becomes a triangle, a
    triangle with one twice is left out; faces where ``skip`` is True are left out silently.
    Returns (corner vertex per loop, loop starts, corners per face, kept face indices,
    number left out as unusable)."""
    sizes = faces.sizes.astype(np.int64)
    if not len(sizes):
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty, 0
    corners = face_corners(faces).copy()
    flip = np.broadcast_to(np.asarray(reverse, bool), (len(sizes),))   # per face, or all
    corners[flip] = corners[flip][:, ::-1]          # the -1 padding comes first
    bad = ((corners >= n_vertices) | (corners < -1)).any(axis=1)
    # repeated corners: compare each pair among the four (missing 4th corner = -1)
    same = np.zeros((len(sizes), 4), bool)
    for a in range(4):
        for b in range(a + 1, 4):
            dup = (corners[:, a] == corners[:, b]) & (corners[:, b] >= 0)
            same[:, b] |= dup
    repeats = same.sum(axis=1)
    keep = ~bad & ((sizes - repeats) >= 3)
    unusable = int((~keep).sum())
    if skip is not None:
        keep &= ~skip
    corners[same] = -1
    kept = np.flatnonzero(keep)
    corners = corners[kept]
    valid = corners >= 0
    counts = valid.sum(axis=1)
    loops = corners[valid]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return loops, starts, counts, kept, unusable


def fill_mesh(me, lod, warn, skip=None, reverse=True, drop_loose=False):
    """Put the LOD's points and faces (but those where ``skip`` is True) into the empty mesh
    ``me``; returns (the kept faces, the file points the mesh holds in order: None for all).
    ``reverse`` False keeps the file's corner order and normals (for a shadow LOD wound the
    other way, see the importer); a face mask does so face by face (parts wound inward,
    :func:`.cleanup.inward_parts`). Corner normals that point against their face are turned
    to its side. ``drop_loose``: points no kept face uses (stray points, the proxy markers'
    own) are left out (a mortar's six stray points stretched its bounds and framing); what
    is indexed by point goes through :func:`mesh_points` then."""
    points = file_points(lod)
    n = len(points)
    loops, starts, counts, kept, dropped = usable_faces(lod.faces, n, skip, reverse)
    if dropped:
        warn(f"{dropped:,} faces name missing vertices or a vertex twice and were left out")
    held = loose_dropped(loops, n) if drop_loose and len(kept) else None
    pick = slice(None) if held is None else held
    if held is not None:
        loops = mesh_points(loops, held, n)[0]
    points = points[pick]
    me.vertices.add(len(points))
    me.vertices.foreach_set("co", to_blender_axes(points).ravel())
    me.loops.add(len(loops))
    compat.set_corner_vertices(me, loops)
    me.polygons.add(len(kept))
    me.polygons.foreach_set("loop_start", starts.astype(np.int32))
    me.update(calc_edges=True)
    for k, uv in enumerate(lod.uv_sets):
        if len(uv) != n or not len(loops):
            continue
        corner_uv = uv[pick][loops].astype(np.float32)
        corner_uv[:, 1] = 1.0 - corner_uv[:, 1]         # DirectX v runs down, Blender's up
        compat.new_uv_layer(me, f"UVSet{k}", corner_uv.ravel())
    if len(kept):
        compat.shade_smooth(me)
        if len(lod.normals) == n:
            normals = to_blender_axes(lod.normals[pick])[loops]
            flip = np.broadcast_to(np.asarray(reverse, bool), (len(lod.faces),))[kept]
            normals[np.repeat(flip, counts)] *= -1.0           # stored inward
            normals, turned = agreeing_normals(to_blender_axes(points), loops, starts,
                                               counts, normals)
            if turned:                                  # counted in the import's result
                me[NORMALS_TURNED_KEY] = turned
            length = np.linalg.norm(normals, axis=1, keepdims=True)
            normals = np.divide(normals, length, out=np.zeros_like(normals), where=length > 0)
            compat.set_custom_normals(me, normals)
    return kept, held


def file_points(lod):
    """The LOD's points (a frames-only LOD: its first frame's)."""
    points = lod.vertices
    if not len(points) and lod.frames:
        points = lod.frames[0].points
    return points


def loose_dropped(loops, n):
    """The points (of ``n``) the corners ``loops`` use, in order; None when they use all."""
    used = np.zeros(n, bool)
    used[loops] = True
    return None if used.all() else np.flatnonzero(used)


def mesh_points(verts, held, n):
    """File point indices ``verts`` as the mesh's (``held``: the file points the mesh holds,
    None for all ``n``): (indices, mask of ``verts`` the mesh holds)."""
    verts = np.asarray(verts, np.int64)
    ok = (verts >= 0) & (verts < n)
    if held is None:
        return verts[ok], ok
    remap = np.full(n, -1, np.int64)
    remap[held] = np.arange(len(held))
    mapped = remap[np.where(ok, verts, 0)]
    ok &= mapped >= 0
    return mapped[ok], ok


def face_materials(lod, kept):
    """Each kept face's material slot, and per slot (texture path, .rvmat path, the
    binarized Material or None when the section names its .rvmat inline): one slot per
    section that has kept faces."""
    section_of_face = np.zeros(len(lod.faces), np.int32)
    keys = []
    for k, s in enumerate(lod.sections):
        section_of_face[s.first_face:s.end_face] = k
        tex = lod.textures[s.texture_index] if 0 <= s.texture_index < len(lod.textures) else ""
        if 0 <= s.material_index < len(lod.materials):
            mat = lod.materials[s.material_index]
            keys.append((tex, mat.path, mat))
        else:
            keys.append((tex, s.material_path, None))
    # only sections with kept faces get a slot (a section of proxy markers gets none)
    used, slots = np.unique(section_of_face[kept], return_inverse=True)
    if not len(kept):
        used = np.arange(min(len(keys), 1))
    return slots.astype(np.int32).ravel(), [keys[k] for k in used]


def add_vertex_groups(obj, lod, n, held=None):
    """Named selections as vertex groups: weights where stored (255 = 1.0), else 1.0. One
    ``add`` call per distinct weight, not per vertex. A selection named like a bone whose
    weights are already a group (the binariser made the bone weights from it) is not added
    again. ``n`` file points, of which the mesh holds ``held`` (None: all)."""
    have = {g.name.lower() for g in obj.vertex_groups}
    for sel in lod.selections:
        if to_blender(sel.name).lower() in have:
            continue
        group = obj.vertex_groups.new(name=to_blender(sel.name))
        verts = sel.vertices
        weights = (sel.weights.astype(np.float32) / 255.0 if len(sel.weights) == len(verts)
                   else np.ones(len(verts), np.float32))
        verts, ok = mesh_points(verts, held, n)
        weights = weights[ok]
        order = np.argsort(weights, kind="stable")
        verts, weights = verts[order], weights[order]
        if not len(verts):
            continue
        cuts = np.flatnonzero(np.diff(weights)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(weights)]):
            group.add(verts[lo:hi].tolist(), float(weights[lo]), "REPLACE")


def add_shape_keys(obj, lod, n, warn, held=None):
    """Animation frames (point positions over time) as shape keys, one per frame (of ``n``
    file points, those the mesh holds: ``held``, None for all)."""
    frames = [f for f in lod.frames if len(f.points) == n]
    if len(frames) != len(lod.frames):
        warn(f"{len(lod.frames) - len(frames)} animation frames do not have one position per "
             "point and were left out")
    if not frames or not n:
        return
    obj.shape_key_add(name="Basis", from_mix=False)
    for f in frames:
        key = obj.shape_key_add(name=f"Frame {f.time:g}", from_mix=False)
        points = f.points if held is None else np.asarray(f.points)[held]
        key.data.foreach_set("co", to_blender_axes(points).ravel())
