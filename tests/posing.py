"""Where a model's bones and meshes are, computed from the files alone (numpy, independent of
the Blender layer): the resize tests and scripts/measure_workflows.py compare a resized
unit's files against the original's with these."""

import numpy as np

from io_alamo.formats.alamo import decode_animation


def quaternion_matrices(q):
    """(..., 3, 3) of (..., 4) x, y, z, w quaternions (normalised first)."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)],
        -2)


def posed_positions(model, anim):
    """(F, B) model-space bone positions at every frame of ``anim`` on ``model``."""
    data = decode_animation(anim)
    frames = data.num_frames
    local = np.tile(np.stack([b.matrix4() for b in model.bones]), (frames, 1, 1, 1))
    for k, index in enumerate(data.indices):
        m = np.tile(np.eye(4), (frames, 1, 1))
        m[:, :3, :3] = quaternion_matrices(data.rotation[k].astype(np.float64)) * \
            data.scale[k, :, None, :]
        m[:, :3, 3] = data.translation[k]
        local[:, index] = m
    world = np.empty_like(local)
    for i, b in enumerate(model.bones):
        world[:, i] = world[:, b.parent] @ local[:, i] if 0 <= b.parent < i else local[:, i]
    return world[:, :, :3, 3]


def mesh_positions(model):
    """Per mesh: (its name, its vertices' model-space positions): rigid sub-meshes placed by
    the bone the mesh hangs on, skinned ones as stored."""
    worlds = model.skeleton.world_matrices()
    out = []
    for i, mesh in enumerate(model.objects):
        subs = getattr(mesh, "submeshes", None)
        if not subs:
            continue
        w = worlds[model.object_bone(i) or 0]
        pts = []
        for s in subs:
            p = s.vertices["position"].astype(np.float64)
            skinned = s.bone_map is not None and len(s.bone_map) > 0
            pts.append(p if skinned else p @ w[:3, :3].T + w[:3, 3])
        out.append((mesh.name, np.concatenate(pts)))
    return out
