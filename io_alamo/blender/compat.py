"""Differences between the Blender versions we support (4.2 LTS, 4.5 LTS, 5.0)."""

import bpy
import numpy as np

HAS_CUSTOM_NORMAL_ATTRIBUTE = bpy.app.version >= (4, 5, 0)


def set_custom_normals(mesh, corner_normals):
    """Custom split normals, one per face corner. On 4.5+ a ``custom_normal`` corner attribute
    (exact and fast); on 4.2 ``normals_split_custom_set``."""
    n = np.ascontiguousarray(corner_normals, np.float32).reshape(-1, 3)
    if HAS_CUSTOM_NORMAL_ATTRIBUTE:
        att = mesh.attributes.get("custom_normal") or mesh.attributes.new(
            "custom_normal", "FLOAT_VECTOR", "CORNER")
        att.data.foreach_set("vector", n.ravel())
    else:
        # 4.2 stores custom normals relative to each smooth fan's own normal, which zero-area
        # faces (the degenerate quads of shadow meshes) leave undefined: fence them off with
        # sharp edges so the real faces around them keep their exact normals.
        area = np.empty(len(mesh.polygons), np.float32)
        mesh.polygons.foreach_get("area", area)
        flat = area <= 0.0
        if flat.any():
            edge = np.empty(len(mesh.loops), np.int32)
            mesh.loops.foreach_get("edge_index", edge)
            sizes = np.empty(len(mesh.polygons), np.int32)     # triangles, or quads too
            mesh.polygons.foreach_get("loop_total", sizes)
            sharp = np.zeros(len(mesh.edges), bool)
            sharp[edge[np.repeat(flat, sizes)]] = True
            att = mesh.attributes.get("sharp_edge") or mesh.attributes.new(
                "sharp_edge", "BOOLEAN", "EDGE")
            att.data.foreach_set("value", sharp)
        mesh.normals_split_custom_set(n)


def uses_nodes(material):
    """Whether a material draws with its node tree. Blender 5.0 always does (and warns that
    ``Material.use_nodes`` goes away); older versions may have a tree that is switched off."""
    if material.node_tree is None:
        return False
    return bpy.app.version >= (5, 0, 0) or material.use_nodes


def ensure_node_tree(material):
    """Blender 5.0 always gives materials a node tree; older versions need use_nodes."""
    if material.node_tree is None:
        material.use_nodes = True
    return material.node_tree


HAS_SLOTTED_ACTIONS = bpy.app.version >= (4, 4, 0)
INTERPOLATION = {"CONSTANT": 0, "LINEAR": 1, "BEZIER": 2}


class ActionWriter:
    """Makes F-curves in a new action for one object (or other ID: ``id_type`` "KEY" for
    shape-key values): the legacy API on 4.2, layers, strips and channelbags (slotted
    actions) on 4.4+ where Action.fcurves is gone."""

    def __init__(self, action, obj, id_type="OBJECT"):
        self.action = action
        self.obj = obj
        self.groups = {}
        if HAS_SLOTTED_ACTIONS:
            self.slot = action.slots.new(id_type=id_type, name=obj.name)
            strip = action.layers.new("Layer").strips.new(type="KEYFRAME")
            self.bag = strip.channelbag(self.slot, ensure=True)
        else:
            action.id_root = id_type        # as assigning would, also for an unassigned action

    def fcurve(self, data_path, index, group):
        if not HAS_SLOTTED_ACTIONS:
            return self.action.fcurves.new(data_path, index=index, action_group=group)
        fc = self.bag.fcurves.new(data_path, index=index)
        grp = self.groups.get(group)
        if grp is None:
            grp = self.groups[group] = self.bag.groups.new(group)
        fc.group = grp
        return fc

    def assign(self):
        ad = self.obj.animation_data or self.obj.animation_data_create()
        ad.action = self.action
        if HAS_SLOTTED_ACTIONS:
            ad.action_slot = self.slot


def action_fcurves(action):
    """Every F-curve of an action, on any supported version."""
    if not HAS_SLOTTED_ACTIONS:
        return list(action.fcurves)
    out = []
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                out.extend(bag.fcurves)
    return out


def set_keys(fcurve, frames, values, interpolation):
    """All keys of an F-curve at once: frames, values and per-key interpolation codes.
    Returns what was written, as Blender holds it: (frame, value) pairs as float32 and the
    interpolation codes as int32."""
    n = len(frames)
    kp = fcurve.keyframe_points
    kp.add(n)
    co = np.empty(2 * n, np.float32)
    co[0::2] = frames
    co[1::2] = values
    interp = np.asarray(interpolation, np.int32)
    kp.foreach_set("co", co)
    kp.foreach_set("interpolation", interp)
    fcurve.update()
    return co, interp


_ATTRIBUTE_PROP = {"FLOAT": "value", "INT": "value", "BOOLEAN": "value", "INT8": "value",
                   "FLOAT_VECTOR": "vector", "FLOAT2": "vector", "FLOAT_COLOR": "color",
                   "BYTE_COLOR": "color"}


def read_attribute(mesh, name, dtype=np.float32):
    """A mesh attribute as a flat array (fast: attribute data copies in one go), or None."""
    att = mesh.attributes.get(name)
    if att is None or att.data_type not in _ATTRIBUTE_PROP:
        return None
    width = {"FLOAT_VECTOR": 3, "FLOAT2": 2, "FLOAT_COLOR": 4, "BYTE_COLOR": 4}.get(
        att.data_type, 1)
    out = np.empty(len(att.data) * width, dtype)
    att.data.foreach_get(_ATTRIBUTE_PROP[att.data_type], out)
    return out


def material_indices(mesh):
    """Each face's material slot. Through the attribute (``polygons.foreach_get`` goes face
    by face: 0.15 s for a million faces); no attribute means every face uses slot 0."""
    out = read_attribute(mesh, "material_index", np.int32)
    if out is None or len(out) != len(mesh.polygons):
        out = np.zeros(len(mesh.polygons), np.int32)
        if mesh.attributes.get("material_index") is not None:
            mesh.polygons.foreach_get("material_index", out)
    return out


def set_material_indices(mesh, indices):
    """Set every face's material slot in one go (see :func:`material_indices`)."""
    indices = np.ascontiguousarray(indices, np.int32)
    if not indices.any():
        return                          # slot 0 everywhere: Blender's default
    att = mesh.attributes.get("material_index")
    if att is None:
        att = mesh.attributes.new("material_index", "INT", "FACE")
    att.data.foreach_set("value", indices)


def corner_vertices(mesh):
    """The vertex of each face corner (loop)."""
    out = None
    try:
        out = read_attribute(mesh, ".corner_vert", np.int32)     # hidden attribute: 4.0+
    except (KeyError, RuntimeError, TypeError):
        out = None
    if out is None or len(out) != len(mesh.loops):
        out = np.empty(len(mesh.loops), np.int32)
        mesh.loops.foreach_get("vertex_index", out)
    return out


def set_corner_vertices(mesh, vertices):
    """The vertex of every face corner, after ``mesh.loops.add``: through the hidden
    ``.corner_vert`` attribute where there is one (4.0+: one copy, where
    ``loops.foreach_set("vertex_index")`` goes corner by corner, 0.2 s per 600k triangles)."""
    vertices = np.ascontiguousarray(vertices, np.int32)
    att = mesh.attributes.get(".corner_vert")
    if (att is not None and att.data_type == "INT" and att.domain == "CORNER"
            and len(att.data) == len(vertices)):
        att.data.foreach_set("value", vertices)
    else:
        mesh.loops.foreach_set("vertex_index", vertices)


def new_uv_layer(mesh, name, uv):
    """A new UV layer holding ``uv`` ((loops * 2,) float32), written through its attribute
    (``layer.data.foreach_set("uv", ...)`` goes corner by corner: 0.1 s per million)."""
    layer = mesh.uv_layers.new(name=name, do_init=False)
    att = mesh.attributes.get(layer.name)
    if att is not None and att.data_type == "FLOAT2" and len(att.data) * 2 == len(uv):
        att.data.foreach_set("vector", uv)
    else:
        layer.data.foreach_set("uv", uv)
    return layer


def shade_smooth(mesh):
    """Every face smooth. A mesh built from arrays has no ``sharp_face`` attribute, which
    already means smooth: nothing to write then (``polygons.foreach_set("use_smooth")``
    goes face by face)."""
    att = mesh.attributes.get("sharp_face")
    if att is not None:
        mesh.attributes.remove(att)


def uv_layer(mesh, layer):
    """A UV layer's coordinates, (loops, 2) float32."""
    out = read_attribute(mesh, layer.name)
    if out is None or len(out) != 2 * len(mesh.loops):
        out = np.empty(len(mesh.loops) * 2, np.float32)
        layer.data.foreach_get("uv", out)
    return out.reshape(-1, 2)
