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
