"""What the modder's tools work on: the active bone, the bone an object hangs on. Operators,
panels and scripts share these (the name an object gets in the file is
:func:`io_alamo.blender.alamo.exporter.common.object_export_name`)."""

import bpy


def active_bone(context):
    """(armature object, bone name) of the active armature's active bone, else (None, None)."""
    obj = context.object
    if obj is None or obj.type != "ARMATURE":
        return None, None
    bone = obj.data.edit_bones.active if obj.mode == "EDIT" else obj.data.bones.active
    return (obj, bone.name) if bone is not None else (None, None)


def target_bone(context):
    """(armature, bone name) the bone tools work on: the active bone of the active armature,
    else the bone the active object hangs on; (None, None) when there is neither."""
    arm, name = active_bone(context)
    if arm is not None:
        return arm, name
    obj = context.object
    if (obj is not None and obj.parent is not None and obj.parent.type == "ARMATURE"
            and obj.parent_type == "BONE" and obj.parent_bone in obj.parent.data.bones):
        return obj.parent, obj.parent_bone
    return None, None


def set_mode(context, obj, mode):
    """Switch the active object ``obj`` to ``mode`` (nothing when it is not the active one)."""
    if obj is not None and obj.mode != mode and context.view_layer.objects.active == obj:
        bpy.ops.object.mode_set(mode=mode)
