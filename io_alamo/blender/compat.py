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
            sharp = np.zeros(len(mesh.edges), bool)
            sharp[edge[np.repeat(flat, 3)]] = True
            att = mesh.attributes.get("sharp_edge") or mesh.attributes.new(
                "sharp_edge", "BOOLEAN", "EDGE")
            att.data.foreach_set("value", sharp)
        mesh.normals_split_custom_set(n)


def ensure_node_tree(material):
    """Blender 5.0 always gives materials a node tree; older versions need use_nodes."""
    if material.node_tree is None:
        material.use_nodes = True
    return material.node_tree
