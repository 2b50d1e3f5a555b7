"""Reading back what an import made, and what the file says it should be, as numpy arrays."""

from contextlib import contextmanager

import bpy
import numpy as np

from io_alamo.formats.alamo import read_alo


def objects_by_role(role):
    return sorted((o for o in bpy.data.objects if o.alamo.role == role),
                  key=lambda o: o.alamo.file_index)


def vertex_positions(me):
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def _corners_world(me, matrix_world):
    vi = np.empty(len(me.loops), np.int32)
    me.loops.foreach_get("vertex_index", vi)
    mw = np.array(matrix_world, np.float64)
    p = vertex_positions(me)[vi].astype(np.float64)
    return p @ mw[:3, :3].T + mw[:3, 3]


def corner_positions_world(obj):
    return _corners_world(obj.data, obj.matrix_world)


@contextmanager
def evaluated_mesh(obj):
    """(evaluated object, its mesh) as drawn: modifiers, shape keys and armature applied."""
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    me = ev.to_mesh()
    try:
        yield ev, me
    finally:
        ev.to_mesh_clear()


def evaluated_positions(obj):
    """Vertex positions as drawn, in the object's space."""
    with evaluated_mesh(obj) as (_, me):
        return vertex_positions(me)


def deformed_corners_world(obj):
    """World positions of the face corners as drawn (armature deformation included)."""
    with evaluated_mesh(obj) as (ev, me):
        return _corners_world(me, ev.matrix_world)


def corner_normals(obj):
    """Per-corner normals in world space (unit length)."""
    me = obj.data
    n = np.empty(len(me.loops) * 3, np.float32)
    me.corner_normals.foreach_get("vector", n)
    lin = np.array(obj.matrix_world, np.float64)[:3, :3]
    w = n.reshape(-1, 3).astype(np.float64) @ np.linalg.inv(lin)
    return w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-12)


def corner_attribute(mesh, name, width, prop):
    """An attribute's values per face corner, whether it lives on corners or on vertices."""
    att = mesh.attributes[name]
    a = np.empty(len(att.data) * width, np.float32)
    att.data.foreach_get(prop, a)
    a = a.reshape(-1, width)
    if att.domain == "POINT":
        vi = np.empty(len(mesh.loops), np.int32)
        mesh.loops.foreach_get("vertex_index", vi)
        a = a[vi]
    else:
        assert att.domain == "CORNER"
    return a


def uv(mesh, name):
    a = np.empty(len(mesh.loops) * 2, np.float32)
    mesh.uv_layers[name].data.foreach_get("uv", a)
    return a.reshape(-1, 2)


def file_corners(model, mesh_index, worlds):
    """Expected per-corner arrays of the file's mesh ``mesh_index`` (index in model.objects)."""
    mesh = model.objects[mesh_index]
    bone = model.object_bone(mesh_index) or 0
    skinned = any(s.bone_map is not None and len(s.bone_map) for s in mesh.submeshes)
    pos, nrm, uvs, col = [], [], [], []
    for s in mesh.submeshes:
        v = s.vertices[s.indices.ravel().astype(np.int64)]
        p = v["position"].astype(np.float64)
        n = v["normal"].astype(np.float64)
        if s.bone_map is None or not skinned:
            w = worlds[bone]
            p = p @ w[:3, :3].T + w[:3, 3]
            n = n @ np.linalg.inv(w[:3, :3])
        pos.append(p)
        nrm.append(n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12))
        uvs.append(v["uv"].astype(np.float64))
        col.append(v["color"].astype(np.float64))
    return np.concatenate(pos), np.concatenate(nrm), np.concatenate(uvs), np.concatenate(col)


def load_model(path):
    return read_alo(open(path, "rb").read())


def datablock_counts():
    names = ("objects", "meshes", "materials", "armatures", "lights", "images", "collections",
             "actions", "node_groups", "textures")
    return {n: len(getattr(bpy.data, n)) for n in names}


def reaches(socket, node_type, input_name):
    """Whether a node output feeds, through any nodes between, the input ``input_name`` of a
    node of ``node_type`` (e.g. the base texture's alpha into the Principled BSDF's Alpha)."""
    seen, todo = set(), [socket]
    while todo:
        out = todo.pop()
        for link in out.links:
            node = link.to_node
            if node.type == node_type and link.to_socket.name == input_name:
                return True
            if node.as_pointer() not in seen:
                seen.add(node.as_pointer())
                todo.extend(node.outputs)
    return False


def read_glb(path):
    """(JSON document, binary chunk) of a .glb file."""
    from io_alamo.formats.glb import read_glb as read
    return read(path.read_bytes())
