"""Proxies, dazzles and lights added at a bone, where the game puts them."""

import bpy
from mathutils import Matrix

from .follow import remember
from .units import LIGHT_WATTS_PER_INTENSITY


def add_at_bone(context, arm, bone_name, role, name):
    """A new proxy, dazzle or light hanging on the bone, at the bone's head (where the game
    puts it), in the armature's collection."""
    bone = arm.data.bones[bone_name]
    data = None
    if role == "LIGHT":
        data = bpy.data.lights.new(name, "POINT")
        data.energy = LIGHT_WATTS_PER_INTENSITY
    obj = bpy.data.objects.new(name, data)
    collection = arm.users_collection[0] if arm.users_collection else context.scene.collection
    collection.objects.link(obj)
    obj.parent = arm
    obj.parent_type = "BONE"
    obj.parent_bone = bone_name
    obj.matrix_parent_inverse = Matrix.Identity(4)
    if bone.use_relative_parent:        # imported bones: relative to the bone's rest
        obj.matrix_basis = bone.matrix_local.copy()
    else:                               # else bone parents place it at the tail
        obj.matrix_basis = Matrix.Translation((0.0, -bone.length, 0.0))
    p = obj.alamo
    p.role = role
    if role == "PROXY":
        obj.empty_display_type = "ARROWS"
        obj.empty_display_size = max(bone.length, 0.05)
    elif role == "DAZZLE":
        obj.empty_display_type = "SPHERE"
        obj.empty_display_size = p.radius
        obj.color = (*p.color, 1.0)
    remember(obj)                       # it moves with its bone from now on
    return obj
