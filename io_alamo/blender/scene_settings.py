"""What an import may set on the scene, shared by every engine's importer: the frame rate
a file plays at."""

__all__ = ["SCENE_FPS_RANGE", "set_scene_frame_rate"]

SCENE_FPS_RANGE = (0.01, 1000.0)     # what the scene is given (files say 1 to 30)


def set_scene_frame_rate(scene, fps: float) -> list[str]:
    """Give the scene a file's frame rate (fps and fps_base); the warnings, if Blender
    cannot take it."""
    if SCENE_FPS_RANGE[0] <= fps <= SCENE_FPS_RANGE[1]:
        scene.render.fps = max(1, int(round(fps)))
        scene.render.fps_base = scene.render.fps / fps
        return []
    return [f"frame rate {fps:g} not given to the scene (Blender takes "
            f"{SCENE_FPS_RANGE[0]:g} to {SCENE_FPS_RANGE[1]:g})"]
