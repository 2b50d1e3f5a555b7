"""Proxies, dazzles and lights move with their bone (issue 39, point 4).

The game puts a proxy, a dazzle and a light at their bone (a dazzle at an offset in the
bone's frame): when the modder moves the bone in Edit Mode, the file moves them. Imported
bones have Relative Parent (so that Apply Scale keeps meshes in place: BLENDER-NOTES), which
leaves objects on them where they were when the bone's rest moves. So each such object
remembers its bone's rest and its own placement; when the rest changes and the object was
not placed anew at the same time (Apply Scale and Scale Model place it themselves), it is
carried along by the bone's change, and Blender shows what the file will hold."""

import bpy
import numpy as np
from bpy.app.handlers import persistent
from mathutils import Matrix

REST = "alamo_bone_rest"        # the bone's rest (4x4, row by row) when last seen
BASIS = "alamo_bone_basis"      # the object's matrix_basis then
ROLES = ("PROXY", "DAZZLE", "LIGHT")


def _bone(obj):
    arm = obj.parent
    if arm is None or arm.type != "ARMATURE" or obj.parent_type != "BONE":
        return None
    bone = arm.data.bones.get(obj.parent_bone)
    return bone if bone is not None and bone.use_relative_parent else None


def _flat(matrix):
    return np.array(matrix, np.float64).ravel()


def remember(obj):
    """Store where ``obj``'s bone rests and where ``obj`` is (import and Add call it)."""
    bone = _bone(obj)
    if bone is None or obj.alamo.role not in ROLES:
        return
    obj[REST] = _flat(bone.matrix_local).tolist()
    obj[BASIS] = _flat(obj.matrix_basis).tolist()


def follow(objects):
    """Carry each remembered object of ``objects`` along with its bone's rest change; returns
    how many moved."""
    moved = 0
    for obj in objects:
        stored = obj.get(REST)
        if stored is None:
            continue
        bone = _bone(obj)
        if bone is None:
            continue
        rest, old = _flat(bone.matrix_local), np.array(stored, np.float64)
        if np.allclose(rest, old, rtol=0.0, atol=1e-6 * max(1.0, np.abs(old).max())):
            continue
        basis = _flat(obj.matrix_basis)
        if np.allclose(basis, np.array(obj.get(BASIS, basis.tolist()), np.float64),
                       rtol=0.0, atol=1e-6 * max(1.0, np.abs(basis).max())):
            change = rest.reshape(4, 4) @ np.linalg.inv(old.reshape(4, 4))
            obj.matrix_basis = Matrix((change @ basis.reshape(4, 4)).tolist())
            moved += 1
        remember(obj)
    return moved


@persistent
def _on_update(scene, depsgraph=None):
    if depsgraph is not None and not depsgraph.id_type_updated("ARMATURE"):
        return
    follow([o for o in scene.objects if REST in o])


def register():
    if _on_update not in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.append(_on_update)


def unregister():
    while _on_update in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.remove(_on_update)
