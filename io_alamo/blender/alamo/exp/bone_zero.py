"""Bone 0 of a new skeleton: an identity bone named ``Root`` with every top bone under it.

1,114 of 1,115 game models have one; the older community plugin and its users rely on it.
An armature whose only top bone is already called Root and sits at the origin gives that
bone (written as identity, however Blender draws it); any other armature gets one added.
"""

from dataclasses import dataclass

import numpy as np

ROOT_NAME = "Root"


@dataclass(slots=True)
class BoneZero:
    added: bool            # a Root bone is written that Blender does not have
    own: str = None        # or: the Blender bone written as Root (identity)


def plan_bone_zero(bones, has_source):
    """How bone 0 comes about for ``bones`` (Blender bones, parents first). Imported
    skeletons keep the file's bone 0."""
    if has_source:
        return BoneZero(False)
    top = [b for b in bones if b.parent is None]
    if len(top) == 1 and top[0].name.lower() == ROOT_NAME.lower():
        head = np.array(top[0].matrix_local, np.float64)[:3, 3]
        if np.abs(head).max() <= 1e-6:
            return BoneZero(False, top[0].name)
    return BoneZero(True)


def arm_transform_warning(arm_world, name):
    """Text of the warning for an armature object that is moved, turned or scaled (its
    transform is not in the bones; the file holds the armature's own space), or None."""
    if np.allclose(arm_world, np.eye(4), atol=1e-6):
        return None
    return (f"armature {name!r} is moved, rotated or scaled as an object: the model is written "
            "in the armature's own space, not as shown; apply its transform (Object > Apply > "
            "All Transforms) to write it as shown")
