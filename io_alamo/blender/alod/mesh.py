"""The meshes, materials and images of an ALOD import (see alod.py).

Each mesh (the full-detail one and each lower level) has its vertices on the file's positions
at rest, UVs per corner from the file's vertices, a vertex group per bone, and the raw
per-bone coordinates as point attributes (``alod_bone<k>``, ``alod_coords<k>``,
``alod_w<k>``: the k-th weight of the position), since Blender's linear-blend skinning
cannot express "Animation Space" coordinates exactly. ``alod_position`` (points) and
``alod_vertex`` (corners) name the file's records each element came from.
"""

import bpy
import numpy as np

from ...formats.alod.normal_map import normal_map
from .. import compat
from ..alamo.hub import NO_TEAM_COLOUR_KEY, find_param, refresh_preview, switch_shader
from ..mesh_data import add_vertex_groups
from ..names import IMPORT_NAME_KEY

SKIN_SHADER = "RSkinGloss.fx"           # what the .alo exporter writes for these materials
BUMP_SHADER = "RSkinBumpColorize.fx"    # ... for those with a tangent map (a normal map)
BLENDED_FORMAT = "alD3dVertB4I4NU2"      # four weights per vertex: ALOD weights blend
BLENDED_BUMP_FORMAT = "alD3dVertB4I4NU2U3U3"   # and tangents, binormals
TANGENT_NODE = "ALOD Tangent Map"


def texture_images(tx, alod, name, warn):
    """One packed image per embedded texture (signed ones as non-colour data)."""
    out = []
    for k, t in enumerate(alod.textures):
        w, h, c = int(t.width), int(t.height), int(t.channels)
        img = tx.add(bpy.data.images.new(f"{name}_texture{k}.tga", max(w, 1), max(h, 1),
                                         alpha=c >= 4))
        rgba = np.ones((max(w, 1) * max(h, 1), 4), np.float32)
        if w * h and c:
            values = np.frombuffer(t.values, np.uint8).reshape(w * h, c)[:, :4]
            rgba[:, :values.shape[1]] = values / np.float32(255.0)
            if c < 3:
                rgba[:, 1:3] = rgba[:, :1]        # grey: one channel shown in all three
        else:
            warn(f"texture {k} is empty ({w} x {h} x {c}); a 1 x 1 image stands for it")
        # the file's rows in order: row r is t = r / height, as Blender's row r is v
        img.pixels.foreach_set(rgba.ravel())
        img.pack()                       # before the colour space: Blender would not pack it
        if t.signed:
            img.colorspace_settings.name = "Non-Color"
        img["alod_texture"], img["alod_signed"], img["alod_channels"] = k, int(t.signed), c
        out.append(img)
    return out


def tangent_images(tx, alod, name):
    """One float image per tangent map: U tangents on the left half, V on the right, each
    entry's components summed (the per-bone parts are in the kept file bytes)."""
    out = []
    for k, tm in enumerate(alod.tangent_maps):
        w, h = max(int(tm.width), 1), max(int(tm.height), 1)
        img = tx.add(bpy.data.images.new(f"{name}_tangents{k}", 2 * w, h, float_buffer=True))
        px = np.zeros((h, 2 * w, 4), np.float32)
        px[..., 3] = 1.0
        n = int(tm.width) * int(tm.height)
        for half, vs in enumerate(tm.tangents):
            if n:
                summed = np.zeros((n, 3))
                np.add.at(summed, vs.owner(), vs.components["coords"][:, :3].astype(np.float64))
                px[:, half * w:(half + 1) * w, :3] = summed.reshape(h, w, 3)
        img.pixels.foreach_set(px.ravel())
        img.pack()
        img.colorspace_settings.name = "Non-Color"
        img["alod_tangent_map"] = k
        out.append(img)
    return out


def build_materials(tx, alod, name, textures, tangents, rest=None):
    """One material per file material: a skinning shader whose base texture is the diffuse
    map, previewed through its nodes; a tangent map as an unlinked image node and, with the
    bones' ``rest`` matrices and vertex tangents, as a tangent-space normal map in a bump
    shader (issue 35)."""
    out = []
    for k, m in enumerate(alod.materials):
        mat = tx.add(bpy.data.materials.new(f"{name}_material{k}"))
        pixels = normal_map(alod, k, rest) if rest is not None else None
        switch_shader(mat, SKIN_SHADER if pixels is None else BUMP_SHADER)
        mat.alamo.vertex_format = BLENDED_FORMAT if pixels is None else BLENDED_BUMP_FORMAT
        base = find_param(mat.alamo, "BaseTexture")
        base.texture = textures[m.texture_id].name if m.texture_id >= 0 else ""
        if pixels is not None:
            find_param(mat.alamo, "NormalTexture").texture = _normal_image(
                tx, pixels, f"{name}_normal{k}.tga").name
            if m.texture_id >= 0 and textures[m.texture_id].get("alod_channels", 4) < 4:
                textures[m.texture_id][NO_TEAM_COLOUR_KEY] = True   # no mask: none
        refresh_preview(mat)
        if m.tangent_id is not None and m.tangent_id >= 0:
            tree = compat.ensure_node_tree(mat)
            node = tree.nodes.new("ShaderNodeTexImage")
            node.name = node.label = TANGENT_NODE
            node.image = tangents[m.tangent_id]
            node.location = (-700, -400)
        mat["alod_material"] = k
        out.append(mat)
    return out


def _normal_image(tx, pixels, name):
    """A packed non-colour image of (h, w, 3) ``pixels``, rows as the texture's."""
    h, w = pixels.shape[:2]
    img = tx.add(bpy.data.images.new(name, w, h))
    rgba = np.ones((h, w, 4), np.float32)
    rgba[:, :, :3] = pixels
    img.pixels.foreach_set(rgba.ravel())
    img.pack()
    img.colorspace_settings.name = "Non-Color"
    return img


def mesh_data(tx, alod, name, tri_vertices, tri_material, points):
    """A mesh of the triangles ``tri_vertices`` (file vertex ids) on the rest ``points`` of
    the positions they use; returns (mesh, file position of each mesh vertex)."""
    vpos = np.asarray(alod.vertices.position, np.int64)
    corner_v = np.asarray(tri_vertices, np.int64).ravel()
    used, loops = np.unique(vpos[corner_v], return_inverse=True)
    n_tri = len(corner_v) // 3
    me = tx.add(bpy.data.meshes.new(name))
    me.vertices.add(len(used))
    me.vertices.foreach_set("co", np.ascontiguousarray(points[used], np.float32).ravel())
    me.loops.add(3 * n_tri)
    me.loops.foreach_set("vertex_index", loops.astype(np.int32).ravel())
    me.polygons.add(n_tri)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * n_tri, 3, dtype=np.int32))
    compat.set_material_indices(me, tri_material)
    me.update(calc_edges=True)
    uv = me.uv_layers.new(name="UVMap", do_init=False)
    uv.data.foreach_set("uv", np.asarray(alod.vertices.tex_coords, np.float32)[corner_v].ravel())
    _attribute(me, "alod_vertex", "INT", "CORNER", corner_v)
    _attribute(me, "alod_position", "INT", "POINT", used)
    return me, used


def _attribute(me, name, kind, domain, values):
    att = me.attributes.new(name, kind, domain)
    prop = "vector" if kind == "FLOAT_VECTOR" else "value"
    dtype = np.int32 if kind == "INT" else np.float32
    att.data.foreach_set(prop, np.ascontiguousarray(values, dtype).ravel())


def skin(obj, alod, used, bone_names, warn):
    """Vertex groups (weight: each component's fourth coordinate, the Animation Space
    weight) and the raw per-bone coordinates as point attributes."""
    ps = alod.positions
    comp = ps.components
    counts = ps.counts.astype(np.int64)
    slot_of_position = np.full(len(ps), -1, np.int64)
    slot_of_position[used] = np.arange(len(used))
    owner = ps.owner()
    mine = slot_of_position[owner] >= 0
    v = slot_of_position[owner[mine]]
    b = comp["bone"][mine].astype(np.int64)
    coords = comp["coords"][mine].astype(np.float64)
    rank = (np.arange(len(owner)) - ps.starts[owner])[mine]
    me = obj.data
    for k in range(int(counts[used].max()) if len(used) else 0):
        at = rank == k
        bone = np.full(len(used), -1, np.int64)
        xyz = np.zeros((len(used), 3))
        w = np.zeros(len(used))
        bone[v[at]], xyz[v[at]], w[v[at]] = b[at], coords[at, :3], coords[at, 3]
        _attribute(me, f"alod_bone{k}", "INT", "POINT", bone)
        _attribute(me, f"alod_coords{k}", "FLOAT_VECTOR", "POINT", xyz)
        _attribute(me, f"alod_w{k}", "FLOAT", "POINT", w)
    weight = coords[:, 3]
    if (weight < 0).any() or (weight > 1).any():
        warn(f"mesh {obj.name!r}: weights outside 0..1 were clipped for the vertex groups "
             "(the attributes keep them)")
    # a bone twice on one position adds up: (vertex, bone) as one int64 key
    nb = max(len(bone_names), 1)
    keys, inverse = np.unique(v * nb + b, return_inverse=True)
    total = np.bincount(inverse.ravel(), weight, len(keys))
    add_vertex_groups(obj, bone_names, keys // nb, keys % nb,
                      np.clip(total, 0.0, 1.0).astype(np.float32))


def mesh_object(tx, alod, name, tris, points, materials, bone_names, arm_obj, warn):
    """A skinned mesh object of ``tris``: (triangle corners as file vertex ids, index of each
    in the file's triangles, for its material)."""
    tri_vertices, tri_index = tris
    tri_material = np.asarray(alod.triangles["material"], np.int64)[tri_index]
    me, used = mesh_data(tx, alod, name, tri_vertices, tri_material, points)
    for mat in materials:
        me.materials.append(mat)
    obj = tx.add(bpy.data.objects.new(name, me))
    obj.parent = arm_obj
    skin(obj, alod, used, bone_names, warn)
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = arm_obj
    p = obj.alamo
    p.role, p.name = "MESH", name
    obj[IMPORT_NAME_KEY] = obj.name
    return obj
