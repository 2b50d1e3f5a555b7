"""The armature object's rotation and scale, baked into what is written (issue 25).

A modder who scales or turns the armature object (S 1.5) and leaves it unapplied sees the
unit bigger: the files hold what Blender shows. The object's location is the model's origin
and is not written. Rotation turns bones; scale moves bone positions and vertices only, so
the written bone matrices stay rigid, as the game's are.

Ctrl+A > Apply Scale on the armature lengthens the bones but leaves the action location keys
at the old size; the factor is found by comparing each imported bone's rest with the one
import made, and the keys are written scaled by it.
"""

from dataclasses import dataclass

import numpy as np

from ...matrices import nearest_rotation
from ..bone_rest import REST_KEY

IDENTITY_TOLERANCE = 1e-6


@dataclass(slots=True)
class Bake:
    """``linear``: the object's 3x3 rotation and scale; ``rotation``: its rotation alone
    (the polar factor); ``origin``: the object's world translation as a 4x4."""
    linear: np.ndarray
    rotation: np.ndarray
    origin: np.ndarray

    @property
    def identity(self):
        return bool(np.allclose(self.linear, np.eye(3), atol=IDENTITY_TOLERANCE))

    @property
    def factor(self):
        """The mean size factor (cube root of the volume scale), for radii."""
        return float(abs(np.linalg.det(self.linear)) ** (1.0 / 3.0))

    def full(self):
        m = np.eye(4)
        m[:3, :3] = self.linear
        return m

    def rigid(self, m):
        """A rest or pose matrix (..., 4, 4) of the armature's space in the baked space:
        turned by the rotation, its position moved by rotation and scale; any scale it had
        itself (animated bone scale) is kept."""
        m = np.asarray(m, np.float64)
        out = m.copy()
        out[..., :3, :3] = self.rotation @ m[..., :3, :3]
        out[..., :3, 3] = m[..., :3, 3] @ self.linear.T
        return out


def bake_of(arm):
    """The Bake of the armature object ``arm`` (identity for None)."""
    if arm is None:
        return Bake(np.eye(3), np.eye(3), np.eye(4))
    world = np.array(arm.matrix_world, np.float64)
    linear = world[:3, :3]
    origin = np.eye(4)
    origin[:3, 3] = world[:3, 3]
    return Bake(linear, nearest_rotation(linear), origin)


def origin_note(bake, name):
    """Text of the warning for an armature away from the world origin, or None."""
    if np.allclose(bake.origin[:3, 3], 0.0, atol=IDENTITY_TOLERANCE):
        return None
    x, y, z = bake.origin[:3, 3]
    return (f"armature {name!r} is at ({x:.4g}, {y:.4g}, {z:.4g}), not at the world origin: "
            "its location is the model's origin and is not written")


def applied_scale(arm):
    """The uniform factor by which the imported bones' rests were scaled since import
    (Ctrl+A > Apply Scale on the armature), or 1.0: heads moved by one factor about the
    armature's origin, rotations unchanged."""
    if arm is None:
        return 1.0
    now, then = [], []
    for b in arm.data.bones:
        kept = b.get(REST_KEY)
        if not b.alamo.blender_name or kept is None or len(kept) != 16:
            continue
        now.append(np.array(b.matrix_local, np.float64))
        then.append(np.array(kept, np.float64).reshape(4, 4))
    if not now:
        return 1.0
    now, then = np.array(now), np.array(then)
    if not np.allclose(now[:, :3, :3], then[:, :3, :3], atol=1e-4):
        return 1.0
    a, b = then[:, :3, 3].ravel(), now[:, :3, 3].ravel()
    reach = float(np.abs(a).max())
    if reach < 1e-6:
        return 1.0
    k = float(a @ b / (a @ a))
    if abs(k - 1.0) < 1e-5 or not np.allclose(k * a, b, atol=1e-4 * max(reach * abs(k), 1.0)):
        return 1.0
    return k
