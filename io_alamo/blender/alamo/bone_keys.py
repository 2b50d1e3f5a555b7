"""Which bones of an imported action were not edited, from their keys: at import each bone's
F-curves (every key, interpolation and mute), its rest and its parent's rest, and its
constraints are hashed; at export a bone whose hash is unchanged, and that no driver moves,
is written from the file's stored data exactly (issue 31: re-quantising an unedited bone
from its evaluated pose moved 1-2 bones of format #1 files by one quantum)."""

import numpy as np

from .fingerprint import action_curves, bone_of_path, digest, keys_parts

KEY = "alamo_bone_keys"        # on an imported action: {Blender bone name: hash}


def _bone_digests(action, armature, curves=None):
    parts = {}
    for path, index, co, interp, mute in (action_curves(action) if curves is None else curves):
        name, _ = bone_of_path(path)
        if name is None:
            continue
        parts.setdefault(name, {}).update(keys_parts(co, interp, mute, f"{path}[{index}]"))
    out = {}
    for name, own in parts.items():
        bone = armature.data.bones.get(name)
        pb = armature.pose.bones.get(name)
        if bone is None or pb is None:
            continue
        own["rest"] = np.array(bone.matrix_local, np.float32)
        own["parent"] = np.array(bone.parent.matrix_local if bone.parent else np.eye(4),
                                 np.float32)
        own["constraints"] = np.frombuffer("\0".join(
            f"{c.type}:{c.influence}:{c.mute}" for c in pb.constraints).encode(), np.uint8)
        own["modes"] = np.frombuffer(f"{pb.rotation_mode}:{bone.use_inherit_rotation}:"
                                     f"{bone.inherit_scale}".encode(), np.uint8)
        out[name] = digest(own)
    return out


def remember(action, armature, curves=None):
    """Store the hash of every bone the imported action animates (import calls it;
    ``curves``: the keys it wrote, as :func:`~.fingerprint.action_curves` reads them, so
    they need not be read back)."""
    action[KEY] = _bone_digests(action, armature, curves)


def untouched(action, armature, curves=None):
    """Names of the Blender bones whose keys, rests and constraints are as imported and that
    no driver moves (``curves``: the action's keys as :func:`~.fingerprint.action_curves`
    reads them, when the caller has read them already)."""
    stored = action.get(KEY)
    if stored is None:
        return set()
    stored = dict(stored)
    now = _bone_digests(action, armature, curves)
    driven = set()
    ad = armature.animation_data
    if ad is not None:
        driven = {bone_of_path(d.data_path)[0] for d in ad.drivers}
    return {n for n, h in now.items() if stored.get(n) == h and n not in driven}
