"""Which armature a tool works on, and which of its bones an animation's bones are: shared
by import and export (and by every engine's importer: how far out a bone may be drawn)."""

from .names import to_blender

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


def match_bones(armature, anim):
    """Armature bone for each animated bone: by index when the names agree (ignoring case),
    otherwise by name; None where there is none."""
    bones = list(armature.data.bones)
    by_index = {b.alamo.index: b for b in bones if b.alamo.index >= 0}
    by_name = {}
    for b in bones:
        for key in {(b.alamo.name or b.name).lower(), b.name.lower()}:
            by_name.setdefault(key, []).append(b)
    used, out = set(), []
    for ab in anim.bones:
        name = to_blender(ab.name).lower()
        cand = by_index.get(ab.index)
        if cand is None or (cand.alamo.name or cand.name).lower() != name or cand.name in used:
            cand = next((b for b in by_name.get(name, []) if b.name not in used), None)
        if cand is not None:
            used.add(cand.name)
        out.append(cand)
    return out
