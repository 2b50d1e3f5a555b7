"""Objects that hang on an armature without being its children: a Child Of constraint
targeting one of its bones (how the older ALAMO plugin attaches meshes) or an Armature
modifier (its skinned meshes). The export counts them as part of the armature."""

import numpy as np


def child_of(obj, arm):
    """The first working Child Of constraint of ``obj`` that targets a bone of ``arm``, or
    None (muted, zero influence, no bone or another target do not count)."""
    if arm is None or arm.type != "ARMATURE":
        return None
    for con in obj.constraints:
        if (con.type == "CHILD_OF" and con.target == arm and not con.mute
                and con.influence > 0.0 and con.subtarget in arm.data.bones):
            return con
    return None


def child_of_bone(obj, arm):
    """The name of the bone ``obj`` hangs on through a Child Of constraint, or None."""
    con = child_of(obj, arm)
    return con.subtarget if con is not None else None


def deformed_by(obj, arm):
    return any(m.type == "ARMATURE" and m.object == arm for m in getattr(obj, "modifiers", ()))


def attached_objects(objects, arm):
    """Objects of ``objects`` attached to ``arm`` by a Child Of constraint or an Armature
    modifier (its children are found through ``parent`` already)."""
    if arm is None:
        return []
    return [o for o in objects if o is not arm and (child_of(o, arm) is not None
                                                      or deformed_by(o, arm))]


def owner_armature(obj):
    """The armature ``obj`` belongs to (parent, Child Of target or Armature modifier), or
    None."""
    parent = obj.parent
    while parent is not None:
        if parent.type == "ARMATURE":
            return parent
        parent = parent.parent
    for con in obj.constraints:
        if con.type == "CHILD_OF" and con.target is not None and con.target.type == "ARMATURE":
            return con.target
    for m in getattr(obj, "modifiers", ()):
        if m.type == "ARMATURE" and m.object is not None:
            return m.object
    return None


def child_of_rest_world(obj, arm):
    """World matrix (float64 4x4) the Child Of constraint gives ``obj`` with the armature in
    its rest pose, or None when ``obj`` does not hang on ``arm`` that way. A constraint that
    uses only some channels or part influence cannot be undone from the pose: then the
    object's evaluated world matrix is used as it is."""
    con = child_of(obj, arm)
    if con is None:
        return None
    full = con.influence >= 1.0 and obj.parent is None and all(
        getattr(con, f"use_{kind}_{axis}") for kind in ("location", "rotation", "scale")
        for axis in "xyz")
    if not full:
        return np.array(obj.matrix_world, np.float64)
    bone = arm.data.bones[con.subtarget]
    return (np.array(arm.matrix_world, np.float64) @ np.array(bone.matrix_local, np.float64)
            @ np.array(con.inverse_matrix, np.float64) @ np.array(obj.matrix_basis, np.float64))
