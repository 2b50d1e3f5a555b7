"""Animated bone visibility: what the .ala stores to show or hide everything on a bone."""

from .. import compat


def key_visibility(arm, bone_name, frame, visible=None):
    """Key the bone's animated visibility (what the .ala stores; it shows or hides everything
    on the bone) at ``frame``, set to ``visible`` first unless None; keys are constant, as the
    game switches visibility. Returns the F-curve."""
    pb = arm.pose.bones[bone_name]
    if visible is not None:
        pb.alamo.visible = visible
    path = pb.path_from_id() + ".alamo.visible"
    arm.keyframe_insert(path, frame=frame, group=bone_name)
    fc = next(f for f in compat.action_fcurves(arm.animation_data.action)
              if f.data_path == path)
    for k in fc.keyframe_points:
        k.interpolation = "CONSTANT"
    return fc
