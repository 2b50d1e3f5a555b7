"""What the importer made, as a hash, so export can tell an untouched mesh from an edited one.

Import hashes the arrays it handed to Blender; export reads the same things back from the
mesh and hashes them the same way. Equal hashes: the mesh is as imported and export writes
the file's own data for it, byte for byte.
"""

import hashlib

import bpy
import numpy as np

from .. import compat

KEY = "alamo_fingerprint"


# the file's vertex colours of a vertex format that has none (written back when rebuilt)
FILE_COLOR = "alamo_file_color"


def digest(parts):
    """Hash of named arrays (order-independent in the names)."""
    h = hashlib.sha1()
    for name in sorted(parts):
        a = np.ascontiguousarray(parts[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a if a.ndim else a.tobytes())     # its bytes, not copied
    return h.hexdigest()


def weight_arrays(vertices, groups, group_names, weights):
    """Canonical vertex weights: rows sorted by (vertex, group name), float32 weights.

    ``groups`` are indices into ``group_names``; the canonical form names groups by their
    rank among the sorted names, and hashes that sorted table once."""
    v = np.asarray(vertices, np.int64)
    g = np.asarray(groups, np.int64)
    w = np.asarray(weights, np.float32)
    names = sorted(set(group_names[i] for i in np.unique(g).tolist())) if len(g) else []
    rank = {n: k for k, n in enumerate(names)}
    lut = np.array([rank.get(n, -1) for n in group_names], np.int64) if group_names else \
        np.zeros(0, np.int64)
    code = lut[g] if len(g) else np.zeros(0, np.int64)
    order = np.lexsort((code, v))
    table = "\0".join(names).encode("utf-8", "surrogateescape")
    return {"weight_vertex": v[order], "weight_group": code[order],
            "weight_value": w[order], "weight_names": np.frombuffer(table, np.uint8)}


def read_weights(me, obj=None):
    """Every non-zero vertex weight of a mesh as flat arrays (vertex, group index, weight),
    sorted by group then vertex.

    Blender has no bulk access to vertex groups. For an object's own mesh a throwaway
    Geometry Nodes modifier copies each group into a float attribute, which can be read in
    bulk (about ten times faster); otherwise, or if that fails, a loop over the vertices."""
    if obj is not None and obj.data is me and len(obj.vertex_groups):
        try:
            return _weights_by_nodes(obj, me)
        except Exception:           # noqa: BLE001 - any failure: the plain loop below
            pass
    return _weights_by_loop(me)


def _weights_by_loop(me):
    vs, gs, ws = [], [], []
    for v in me.vertices:
        i = v.index
        for g in v.groups:
            vs.append(i)
            gs.append(g.group)
            ws.append(g.weight)
    v, g, w = (np.array(vs, np.int64), np.array(gs, np.int64), np.array(ws, np.float32))
    keep = w != 0
    v, g, w = v[keep], g[keep], w[keep]
    order = np.lexsort((v, g))
    return v[order], g[order], w[order]


_TEMP = "io_alamo weights"


def _weights_by_nodes(obj, me):
    names = [g.name for g in obj.vertex_groups]
    taken = set(me.attributes.keys())
    if any(not n or n in taken for n in names) or len(set(names)) != len(names):
        raise ValueError("a group name the attribute system would read as something else")
    tree = bpy.data.node_groups.new(_TEMP, "GeometryNodeTree")
    temp = None
    try:
        tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
        tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
        socket = tree.nodes.new("NodeGroupInput").outputs[0]
        out = tree.nodes.new("NodeGroupOutput")
        for k, name in enumerate(names):
            read = tree.nodes.new("GeometryNodeInputNamedAttribute")
            read.data_type = "FLOAT"
            read.inputs["Name"].default_value = name
            store = tree.nodes.new("GeometryNodeStoreNamedAttribute")
            store.data_type = "FLOAT"
            store.domain = "POINT"
            store.inputs["Name"].default_value = f"{_TEMP} {k}"
            tree.links.new(socket, store.inputs["Geometry"])
            tree.links.new(read.outputs["Attribute"], store.inputs["Value"])
            socket = store.outputs["Geometry"]
        tree.links.new(socket, out.inputs[0])
        temp = bpy.data.objects.new(_TEMP, me)
        bpy.context.scene.collection.objects.link(temp)
        temp.modifiers.new(_TEMP, "NODES").node_group = tree
        depsgraph = bpy.context.evaluated_depsgraph_get()
        depsgraph.update()
        evaluated = temp.evaluated_get(depsgraph)
        em = evaluated.to_mesh()
        try:
            nv = len(em.vertices)
            if nv != len(me.vertices):
                raise ValueError("vertex count changed")
            vs, gs, ws = [], [], []
            column = np.empty(nv, np.float32)
            for k in range(len(names)):
                em.attributes[f"{_TEMP} {k}"].data.foreach_get("value", column)
                nz = np.flatnonzero(column)
                vs.append(nz)
                gs.append(np.full(len(nz), k, np.int64))
                ws.append(column[nz])
        finally:
            evaluated.to_mesh_clear()
    finally:
        if temp is not None:
            bpy.data.objects.remove(temp)
        bpy.data.node_groups.remove(tree)
    # group k is the k-th vertex group, whose index is k
    return (np.concatenate(vs).astype(np.int64), np.concatenate(gs),
            np.concatenate(ws).astype(np.float32))


def mesh_parts(me, obj, weights=None):
    """Read back from Blender what the importer set (see importer/alo.py _fill_mesh);
    ``weights``: what read_weights(me) gives, when the caller has it already."""
    parts = {}
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    parts["co"] = co
    parts["loops"] = compat.corner_vertices(me)
    parts["material_index"] = compat.material_indices(me)
    for layer in me.uv_layers:
        parts[f"uv:{layer.name}"] = compat.uv_layer(me, layer).ravel()
    for name, width, prop in (("Color", 4, "color"), (FILE_COLOR, 4, "color"),
                              ("alamo_tangent", 3, "vector"),
                              ("alamo_binormal", 3, "vector")):
        att = me.attributes.get(name)
        if att is not None:
            a = np.empty(len(att.data) * width, np.float32)
            att.data.foreach_get(prop, a)
            parts[f"{name}:{att.domain}"] = a
    import_names = bone_import_names(obj)
    # a renamed bone renames its groups: hashed by the names they had at import
    names = [import_names.get(g.name, g.name) for g in obj.vertex_groups]  # index i is group i
    if not names:
        v = g = w = np.zeros(0, np.int64)
    else:
        v, g, w = weights if weights is not None else read_weights(me, obj)
    keep = (g >= 0) & (g < len(names))
    parts.update(weight_arrays(v[keep], g[keep], names, w[keep]))
    parts.update(placement_parts(obj, import_names))
    return parts


def bone_import_names(obj):
    """{bone name now: its name at import} for the armature ``obj`` hangs on or is skinned
    to, so that renaming a bone (which renames groups and parent bones) is not an edit of
    the mesh."""
    arm = obj.parent if obj.parent is not None and obj.parent.type == "ARMATURE" else None
    if arm is None:
        arm = next((m.object for m in obj.modifiers if m.type == "ARMATURE"
                    and m.object is not None), None)
    if arm is None or arm.type != "ARMATURE":
        return {}
    return {b.name: b.alamo.blender_name for b in arm.data.bones if b.alamo.blender_name}


def placement_parts(obj, import_names=None):
    bone = (import_names or {}).get(obj.parent_bone, obj.parent_bone)
    return {"matrix_basis": np.array(obj.matrix_basis, np.float32),
            "matrix_parent_inverse": np.array(obj.matrix_parent_inverse, np.float32),
            "parent": np.frombuffer(f"{obj.parent_type}:{bone}:"
                                    f"{obj.parent.name if obj.parent else ''}".encode(), np.uint8),
            "modifiers": np.frombuffer(",".join(m.type for m in obj.modifiers
                                                if m.show_viewport).encode(), np.uint8)}


def bone_of_path(path):
    """(bone name, property path) of 'pose.bones["NAME"].prop' (None, None otherwise);
    quotes and backslashes in names come escaped."""
    if not path.startswith('pose.bones["'):
        return None, None
    i, name = 12, []
    while i < len(path):
        c = path[i]
        if c == "\\" and i + 1 < len(path):
            name.append(path[i + 1])
            i += 2
            continue
        if c == '"':
            rest = path[i + 1:]
            return "".join(name), rest[2:] if rest.startswith("].") else None
        name.append(c)
        i += 1
    return None, None


def curve_arrays(fc):
    """An F-curve's keys as read back from Blender: (co as float32 (frame, value) pairs,
    interpolation codes as int32, mute)."""
    n = len(fc.keyframe_points)
    co = np.empty(2 * n, np.float32)
    fc.keyframe_points.foreach_get("co", co)
    interp = np.empty(n, np.int32)
    fc.keyframe_points.foreach_get("interpolation", interp)
    return co, interp, fc.mute


def action_curves(action):
    """``[(data_path, array_index, co, interpolation, mute)]`` of every F-curve of an action,
    each read once (:func:`curve_arrays`). An importer that has just written the keys passes
    the arrays it wrote instead of reading them back."""
    return [(fc.data_path, fc.array_index, *curve_arrays(fc))
            for fc in compat.action_fcurves(action)]


def keys_parts(co, interp, mute, key):
    """What an F-curve's keys are, for a digest: its key points, their interpolation and
    whether it is muted, under names that carry ``key``."""
    return {f"co:{key}": np.asarray(co, np.float32),
            f"interpolation:{key}": np.asarray(interp, np.int32),
            f"mute:{key}": np.array([mute], np.uint8)}


def curve_parts(fc, key):
    """:func:`keys_parts` of an F-curve, read from Blender."""
    return keys_parts(*curve_arrays(fc), key)


def _path_as_imported(path, import_names):
    """``path`` with a renamed bone's name put back to its name at import."""
    name, prop = bone_of_path(path)
    old = import_names.get(name, name) if name is not None else None
    if old == name or prop is None:
        return path
    escaped = old.replace("\\", "\\\\").replace('"', '\\"')
    return f'pose.bones["{escaped}"].{prop}'


def action_parts(action, armature, curves=None):
    """What an imported action's motion depends on: every key of every F-curve (frame, value,
    interpolation), the action's frame range and rate, and the rest pose of the bones the
    model import made (a bone added since is no edit). Bones are named as at import, so a
    rename alone is not an edit. ``curves``: :func:`action_curves` of the action when the
    caller has them (read from Blender if not given)."""
    parts = {}
    import_names = {b.name: b.alamo.blender_name for b in armature.data.bones
                    if b.alamo.blender_name}
    for path, index, co, interp, mute in (action_curves(action) if curves is None else curves):
        parts.update(keys_parts(co, interp, mute,
                                f"{_path_as_imported(path, import_names)}[{index}]"))
    parts["range"] = np.array([*action.frame_range, action.use_frame_range, action.alamo.fps,
                               action.alamo.frames], np.float64)
    def named(bone):
        return import_names.get(bone.name, bone.name) if bone is not None else ""

    # the bones the model import made: a bone added since is no edit of the action
    imported = [b for b in armature.data.bones if b.alamo.blender_name]
    bones = sorted(imported, key=named)
    parts["rest"] = np.array([list(b.matrix_local) for b in bones], np.float32)
    parts["bones"] = np.frombuffer("\0".join(
        f"{named(b)}\1{named(b.parent)}\1{b.alamo.index}"
        for b in bones).encode("utf-8", "surrogateescape"), np.uint8)
    constraints = [f"{import_names.get(pb.name, pb.name)}:{c.type}:{c.influence}:{c.mute}"
                   for pb in armature.pose.bones if pb.bone.alamo.blender_name
                   for c in pb.constraints]
    parts["constraints"] = np.frombuffer("\0".join(constraints).encode(), np.uint8)
    return parts
