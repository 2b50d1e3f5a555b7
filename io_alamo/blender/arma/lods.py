"""Which Alamo part each LOD of a binarized P3D becomes (no bpy here).

- visual resolutions (below 1,000) -> ``<model>_LOD<n>`` meshes; the most detailed (the
  smallest resolution) gets the highest n, as in Alamo files, so the game and the LOD panel
  show one at a time;
- Geometry -> the collision mesh ``<model>_Collision`` (hidden, collision, MeshCollision.fx);
- the most detailed ShadowVolume (``ShadowVolume 0`` where there is one) -> the shadow volume
  ``<model>_Shadow`` (MeshShadowVolume.fx, never drawn);
- every other LOD (Memory, LandContact, HitPoints, view and pilot LODs, other shadow LODs,
  shadow buffers, ...) stays in the scene, but off the armature, so the default export (the
  armature and what hangs on it) leaves it out.
"""

from dataclasses import dataclass

import numpy as np

from ...formats.arma.resolution import VISUAL_LIMIT, lod_name

VISUAL, COLLISION, SHADOW, OTHER = "VISUAL", "COLLISION", "SHADOW", "OTHER"
GEOMETRY = float(np.float32(1.0e13))
SHADOW_VOLUME = (1.0e4, 1.1e4)


@dataclass(frozen=True)
class LodRole:
    role: str            # VISUAL, COLLISION, SHADOW or OTHER
    name: str            # the object's name (VISUAL, COLLISION, SHADOW: the Alamo mesh name)
    level: int = -1      # VISUAL: the Alamo LOD number

    @property
    def exported(self):
        return self.role != OTHER


def lod_roles(model_name, lods):
    """One :class:`LodRole` per LOD (each has ``resolution``, ``faces``)."""
    res = np.array([float(np.float32(lod.resolution)) for lod in lods], np.float64)
    has_faces = np.array([lod.faces is not None and len(lod.faces) > 0 for lod in lods], bool)
    visual = np.flatnonzero((res < VISUAL_LIMIT) & has_faces)
    order = visual[np.argsort(-res[visual], kind="stable")]      # coarsest first: LOD0
    level = {int(i): k for k, i in enumerate(order)}
    geometry = np.flatnonzero((res == GEOMETRY) & has_faces)
    shadows = np.flatnonzero((res >= SHADOW_VOLUME[0]) & (res < SHADOW_VOLUME[1]) & has_faces)
    shadow = int(shadows[np.argmin(res[shadows])]) if len(shadows) else -1
    collision = int(geometry[0]) if len(geometry) else -1
    out = []
    for i, lod in enumerate(lods):
        if i in level:
            out.append(LodRole(VISUAL, f"{model_name}_LOD{level[i]}", level[i]))
        elif i == collision:
            out.append(LodRole(COLLISION, f"{model_name}_Collision"))
        elif i == shadow:
            out.append(LodRole(SHADOW, f"{model_name}_Shadow"))
        else:
            out.append(LodRole(OTHER, lod_name(lod.resolution)))
    return out
