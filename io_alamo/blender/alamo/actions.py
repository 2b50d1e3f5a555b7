"""Playing an armature's animations in Blender: the active action with its frame range and
rate, and back to the bind pose."""

import bpy

from .. import compat
from ..source import has_source


def set_active_action(arm, action, scene=None):
    """Make ``action`` the armature's action (on Blender 4.4+ with a slot of it); with a scene,
    its frame range (and an imported animation's frame rate) become the scene's."""
    ad = arm.animation_data or arm.animation_data_create()
    if ad.action != action:
        ad.action = action
    if compat.HAS_SLOTTED_ACTIONS and ad.action_slot is None and len(action.slots):
        slots = list(ad.action_suitable_slots) or list(action.slots)
        ad.action_slot = slots[0]
    if scene is not None:
        start, end = action.frame_range
        scene.frame_start = int(round(start))
        scene.frame_end = max(int(round(end)), scene.frame_start)
        fps = float(action.alamo.fps)
        if fps > 0 and has_source(action):
            scene.render.fps = max(1, int(round(fps)))
            scene.render.fps_base = scene.render.fps / fps
    wm = bpy.context.window_manager
    index = bpy.data.actions.find(action.name)
    if wm is not None and index >= 0 and wm.alamo_action_index != index:
        wm.alamo_action_index = index


def show_bind_pose(arm):
    """The file's bind pose, as after import: no active animation, every bone at rest (and
    shown as the file's bone says). The actions stay."""
    ad = arm.animation_data
    if ad is not None and ad.action is not None:
        ad.action = None
    for pb in arm.pose.bones:
        pb.location = (0.0, 0.0, 0.0)
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        pb.rotation_euler = (0.0, 0.0, 0.0)
        pb.rotation_axis_angle = (0.0, 0.0, 1.0, 0.0)
        pb.scale = (1.0, 1.0, 1.0)
        pb.alamo.visible = pb.bone.alamo.visible
    wm = bpy.context.window_manager
    if wm is not None:
        wm.alamo_action_index = -1
