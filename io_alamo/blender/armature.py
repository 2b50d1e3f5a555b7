"""Which armature a tool works on: shared by import and export (and by every engine's
importer: how far out a bone may be drawn). Which of its bones an animation's bones are is
Alamo's (:func:`io_alamo.blender.alamo.unit_actions.match_bones`)."""

BONE_REACH = 1e30         # bones are drawn at most this far out (Blender: float32)


class AnimationTargetError(Exception):
    """There is no armature to put the animation on."""


def find_armature(context, objects=None, required=False):
    """The selected armature (or the armature of a selected object), else the only armature
    among ``objects`` (default: the scene's). None when there is no single one, or with
    ``required`` an AnimationTargetError saying why."""
    for obj in [context.active_object] + list(context.selected_objects or []):
        while obj is not None:
            if obj.type == "ARMATURE":
                return obj
            obj = obj.parent
    arms = [o for o in (objects or context.scene.objects) if o.type == "ARMATURE"]
    if len(arms) == 1:
        return arms[0]
    if not required:
        return None
    if not arms:
        raise AnimationTargetError("no armature in the scene: import the model (.alo) first")
    raise AnimationTargetError(f"{len(arms)} armatures in the scene: select the one to animate")
