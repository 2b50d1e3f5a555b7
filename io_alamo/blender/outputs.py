"""What the batch converter writes besides .blend files, for any engine's import: a glTF
binary of what the game shows and a small preview render; and how the process ends after
Blender's glTF exporter has run."""

import os
import sys

import addon_utils
import bpy
import numpy as np
from mathutils import Vector

from .alamo import particle_preview
from .alamo.preview.gltf import gltf_look
from .alamo.game_view import prepare_gltf_export

__all__ = ["export_glb", "finish", "render_preview"]

# the still of a scene with particle effects: this long after the start, when they show
PARTICLE_PREVIEW_SECONDS = 1.0

# Blender 4.2 crashes while shutting down once its glTF exporter has run: after such a run
# the batch ends the process directly (files are written and closed by then).
_hard_exit = False


def finish(status):
    """The batch's exit status, ending the process at once where Blender would crash at exit."""
    if _hard_exit:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def _particle_still(scene):
    """With particle effects, go to the still frame that shows them; returns the frame before
    (None without effects)."""
    if not particle_preview.scene_systems(scene):
        return None
    before = scene.frame_current
    fps = scene.render.fps / (scene.render.fps_base or 1.0)
    scene.frame_set(scene.frame_start + round(PARTICLE_PREVIEW_SECONDS * fps))
    return before


def export_glb(target, everything=False):
    """A .glb of the scene through Blender's glTF exporter (what the game shows, or
    ``everything``); particle effects as their quads at the preview's still frame."""

    enabled = "io_scene_gltf2" in bpy.context.preferences.addons
    if not enabled:
        addon_utils.enable("io_scene_gltf2", default_set=False)
    global _hard_exit
    _hard_exit = _hard_exit or bpy.app.version < (4, 5, 0)
    # the particles of the still frame, as real quads (glTF has no such instances)
    scene = bpy.context.scene
    before = _particle_still(scene)
    baked = particle_preview.baked_quads(scene)
    try:
        with gltf_look(bpy.context.scene):       # glTF cannot mask: the preview's colours baked
            chosen = prepare_gltf_export(bpy.context, everything)
            for quads, emitter in baked:
                quads.select_set(True)
                emitter.select_set(False)
            bpy.ops.export_scene.gltf(filepath=str(target), export_format="GLB",
                                      export_animations=True, check_existing=False, **chosen)
    finally:
        for quads, _ in baked:
            mesh = quads.data
            bpy.data.objects.remove(quads)
            bpy.data.meshes.remove(mesh)
        if before is not None:
            scene.frame_set(before)
        if not enabled:      # Blender 4.2/4.5 crash at exit if its classes stay registered
            addon_utils.disable("io_scene_gltf2", default_set=False)


def render_preview(context, target, size=256, samples=16):
    """A small PNG of the visible meshes from a three-quarter view (Cycles, CPU); with
    particle effects, at :data:`PARTICLE_PREVIEW_SECONDS` after the start."""
    scene = context.scene
    _particle_still(scene)
    corners = []
    for obj in scene.objects:
        if obj.type == "MESH" and obj.visible_get():
            if particle_preview.is_preview(obj):     # live particles, their quads included
                box = particle_preview.particle_bounds(obj)
                corners += [Vector(c) for c in box] if box is not None else []
                continue
            mw = obj.matrix_world
            corners += [mw @ Vector(c) for c in obj.bound_box]
    pts = np.array([tuple(c) for c in corners]) if corners else np.zeros((1, 3))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    center = (lo + hi) / 2
    radius = max(float(np.linalg.norm(hi - lo)) / 2, 1e-3)
    cam_data = bpy.data.cameras.new("Alamo Preview")
    cam_data.lens = 50
    cam = bpy.data.objects.new("Alamo Preview", cam_data)
    scene.collection.objects.link(cam)
    direction = Vector((1.0, -1.2, 0.8)).normalized()
    distance = radius / np.tan(cam_data.angle / 2) * 1.1
    cam.location = Vector(center) + direction * distance
    cam.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    cam_data.clip_end = distance + 4 * radius
    cam_data.clip_start = max(distance - 4 * radius, distance / 1000)
    scene.camera = cam
    particle_preview.refresh(scene, force=True)     # billboards face the preview camera
    sun_data = bpy.data.lights.new("Alamo Preview Sun", "SUN")
    sun_data.energy = 3.0
    sun = bpy.data.objects.new("Alamo Preview Sun", sun_data)
    sun.rotation_euler = (0.8, 0.2, 0.6)
    scene.collection.objects.link(sun)
    if scene.world is None:
        scene.world = bpy.data.worlds.new("Alamo Preview")
    scene.world.color = (0.2, 0.22, 0.25)
    r = scene.render
    r.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    if hasattr(scene.cycles, "use_denoising"):
        scene.cycles.use_denoising = False
    r.resolution_x = r.resolution_y = size
    r.resolution_percentage = 100
    r.image_settings.file_format = "PNG"
    r.filepath = str(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.render.render(write_still=True)
