"""What the export keeps or adds so that the file follows the bones by name, not by number
(issue 39): a kept skin's bone map after bones were deleted or added, and a bone of its own
for a proxy whose empty was moved off its bone (the file places a proxy at its bone)."""

import copy

import numpy as np

from ....formats.alamo import Bone
from ...matrices import inverse, nearest_rotation
from .shadow_keep import with_submeshes


def bones_followed(mesh, export_of):
    """``mesh`` (the file's record) with its skin's bone indices those the bones have now
    (``export_of``: export index of each file bone), itself when none moved, None when it
    is skinned to a bone that was deleted (it is rebuilt)."""
    subs = []
    for s in mesh.submeshes:
        if s.bone_map is None or not len(s.bone_map):
            subs.append(s)
            continue
        old = np.asarray(s.bone_map, np.int64)
        if old.max() >= len(export_of) or (export_of[old] < 0).any():
            return None
        new = export_of[old]
        if not np.array_equal(new, old):
            dtype = np.asarray(s.bone_map).dtype
            s = copy.copy(s)
            s.bone_map = new.astype(dtype)
        subs.append(s)
    return with_submeshes(mesh, subs)


def off_bone(world, bone_world):
    """Whether an empty at ``world`` (model space) is away from its bone's origin, or turned
    from its axes (by more than a bone roll Blender cannot hold exactly, 2e-4 rad)."""
    world, bone_world = np.asarray(world, np.float64), np.asarray(bone_world, np.float64)
    at, bone_at = world[:3, 3], bone_world[:3, 3]
    reach = max(1.0, float(np.abs(bone_at).max()), float(np.abs(at).max()))
    if np.linalg.norm(at - bone_at) > 1e-4 * reach:
        return True
    turn = nearest_rotation(world[:3, :3]) - nearest_rotation(bone_world[:3, :3])
    return bool(np.abs(turn).max() > 1e-3)


def bone_for_proxy(skeleton, worlds, world, bone, name):
    """A new bone under ``bone`` at ``world`` (rigid) for a proxy moved there: returns the
    skeleton (a copy: the one given may be the source model's, which animations reuse) and
    the new bone's index. Its name is ``name``, made unique among the bones."""
    taken = {b.name.upper() for b in skeleton.bones}
    new_name, k = name, 2
    while new_name.upper() in taken:
        new_name, k = f"{name}_{k}", k + 1
    m = np.eye(4)
    m[:3, :3] = nearest_rotation(np.asarray(world, np.float64)[:3, :3])
    m[:3, 3] = np.asarray(world, np.float64)[:3, 3]
    local = inverse(worlds[bone]) @ m
    out = copy.copy(skeleton)
    out.bones = list(skeleton.bones) + [Bone(new_name, bone, local[:3, :].astype("<f4"))]
    worlds.append(m)
    return out, len(out.bones) - 1
