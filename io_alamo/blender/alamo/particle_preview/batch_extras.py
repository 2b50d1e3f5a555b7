"""Particle effects in the batch's .glb and preview (issue 34): the still frame one second
after the start, the live particles framed by their own bounds, billboards turned to the
preview camera, and the still's particles as real quads for glTF (which has no instances)."""

from ...outputs import SceneExtras
from .handlers import refresh
from .systems import baked_quads, is_preview, particle_bounds, scene_systems

__all__ = ["PARTICLE_PREVIEW_SECONDS", "ParticleExtras"]

# the still of a scene with particle effects: this long after the start, when they show
PARTICLE_PREVIEW_SECONDS = 1.0


class ParticleExtras(SceneExtras):
    """The particle effects of a scene, as the batch's outputs show them."""

    def still(self, scene):
        if not scene_systems(scene):
            return None
        before = scene.frame_current
        fps = scene.render.fps / (scene.render.fps_base or 1.0)
        scene.frame_set(scene.frame_start + round(PARTICLE_PREVIEW_SECONDS * fps))
        return before

    def bounds(self, obj):
        if not is_preview(obj):
            return None
        box = particle_bounds(obj)
        return list(box) if box is not None else []

    def camera_placed(self, scene):
        refresh(scene, force=True)

    def baked(self, scene):
        return baked_quads(scene)
