"""What the batch converter writes besides .blend files, for any engine's import: a glTF
binary of what the game shows and a small preview render; and how the process ends after
Blender's glTF exporter has run."""

import contextlib
import os
import sys

import addon_utils
import bpy
import numpy as np
from mathutils import Vector

from ..scratch import remove_scratch_folders
from .gltf_animation import add_animations, animation_plan
from .gltf_images import encoded_once
from .gltf_materials import reachable_materials
from .preview_images import small_images

__all__ = ["SceneExtras", "export_glb", "finish", "render_preview"]

# Blender 4.2 crashes while shutting down once its glTF exporter has run: after such a run
# the batch ends the process directly (files are written and closed by then).
_hard_exit = False


def finish(status):
    """The batch's exit status, ending the process at once where Blender would crash at exit."""
    if _hard_exit:
        remove_scratch_folders()              # os._exit skips atexit
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


class SceneExtras:
    """What an engine's batch step adds to a scene's .glb and preview beyond its meshes (by
    default nothing; Alamo's particle effects: io_alamo.blender.alamo.particle_preview)."""

    def still(self, scene):
        """Go to the frame that shows the extras; returns the frame before (None: stay)."""
        return None

    def bounds(self, obj):
        """The world corners ``obj`` covers when it is an extra (its live particles), or
        None for an ordinary object (framed by its bounding box)."""
        return None

    def camera_placed(self, scene):
        """Called once the preview's camera is in place (billboards face it)."""

    def baked(self, scene):
        """[(object to export, object to leave out)]: the extras as real meshes for glTF;
        the caller removes the first of each pair afterwards."""
        return []


def export_glb(target, everything=False, look=None, prepare=None, extras=None,
               put_back=True):
    """A .glb of the scene through Blender's glTF exporter. The engine's batch step says what
    its game shows: ``look(scene, put_back=...)`` (a context manager) sets the scene up as
    it looks there, ``prepare(context, everything)`` gives the exporter's options (which
    objects: what the game shows, or ``everything``), ``extras`` (a :class:`SceneExtras`)
    what it adds at its still frame (particle effects as their quads). Without
    ``put_back`` (the caller throws the scene away after: saved before, nothing follows)
    the materials are left as the export set them up, where putting them back costs time."""

    enabled = "io_scene_gltf2" in bpy.context.preferences.addons
    if not enabled:
        addon_utils.enable("io_scene_gltf2", default_set=False)
    global _hard_exit
    _hard_exit = _hard_exit or bpy.app.version < (4, 5, 0)
    scene = bpy.context.scene
    extras = extras or SceneExtras()
    before = extras.still(scene)
    baked = extras.baked(scene)
    arm, curves = animation_plan(scene)         # every curve's keys read once
    actions = list(curves)
    try:
        with look(scene, put_back=put_back) if look else contextlib.nullcontext():
            options = prepare(bpy.context, everything) if prepare else {}   # ^ e.g. baked
            for shown, left_out in baked:
                shown.select_set(True)
                left_out.select_set(False)
            exported = [o for o in scene.objects
                        if not options.get("use_selection") or _selected(o)]
            with reachable_materials(exported, put_back), \
                    encoded_once({slot.material for o in exported for slot in o.material_slots},
                                 put_back, stand_ins=_copies_pngs(options)) as images:
                def export(**how):
                    bpy.ops.export_scene.gltf(filepath=str(target), export_format="GLB",
                                              check_existing=False, **how, **options)
                    if not images.fill(str(target)):   # a layout replace_views refuses
                        images.without_stand_ins()
                        export(**how)
                # at frame 0 the exporter's going there and back is nothing but time
                export(export_animations=arm is None,
                       export_current_frame=scene.frame_current == 0)
                if actions:     # the exporter samples every bone and frame in Python: slow
                    fps = scene.render.fps / scene.render.fps_base
                    try:
                        add_animations(str(target), arm, actions, fps, curves)
                    except ValueError:       # something add_animations does not cover
                        export(export_animations=True)
    finally:
        for shown, _ in baked:
            mesh = shown.data
            bpy.data.objects.remove(shown)
            if mesh is not None and mesh.users == 0:
                bpy.data.meshes.remove(mesh)
        if before is not None:
            scene.frame_set(before)
        if not enabled:      # Blender 4.2/4.5 crash at exit if its classes stay registered
            addon_utils.disable("io_scene_gltf2", default_set=False)


def _copies_pngs(options):
    """Whether the exporter, with ``options``, copies clean PNG files as they are (so it
    may be shown :class:`~.gltf_images.StandIns`): it writes PNG or what the image is, and
    no WebP besides."""
    return options.get("export_image_format", "AUTO") in ("AUTO", "PNG") and \
        not options.get("export_image_add_webp") and not options.get("export_image_webp_fallback")


def _selected(obj):
    try:
        return obj.select_get()
    except RuntimeError:          # not in the view layer: not exported either
        return False


def _rendered(view_layer):
    """The objects a render of ``view_layer`` draws: in collections neither excluded nor
    off in renders, not off in renders themselves (and what their collection instances
    hold)."""
    found, todo = {}, [view_layer.layer_collection]
    while todo:
        layer = todo.pop()
        if layer.exclude or layer.collection.hide_render:
            continue
        objects = list(layer.collection.objects)
        while objects:
            obj = objects.pop()
            if obj.hide_render or obj.as_pointer() in found:
                continue
            found[obj.as_pointer()] = obj
            if obj.instance_type == "COLLECTION" and obj.instance_collection is not None:
                objects += obj.instance_collection.all_objects
        todo += layer.children
    return list(found.values())


#: What the preview render sets, restored afterwards: (path from the scene, attributes).
_PREVIEW_SETTINGS = (("render", ("engine", "resolution_x", "resolution_y",
                                 "resolution_percentage", "use_simplify", "filepath")),
                     ("render.image_settings", ("file_format", "color_mode", "color_depth",
                                                "compression")),
                     ("cycles", ("device", "samples", "use_denoising", "texture_limit_render")),
                     ("", ("camera", "world")))


def _settings(scene):
    """[(owner, attribute, value)] of what the preview changes, as the scene has it now."""
    out = []
    for path, names in _PREVIEW_SETTINGS:
        owner = scene
        for part in filter(None, path.split(".")):
            owner = getattr(owner, part, None)
        out += [(owner, n, getattr(owner, n)) for n in names
                if owner is not None and hasattr(owner, n)]
    return out


@contextlib.contextmanager
def _scene_restored(scene, extras):
    """The scene as it was once the preview is rendered (also when it fails): its frame,
    camera, world (and the world's colour), render and Cycles settings; the preview's own
    camera, sun, world and render result removed. Yields the list the preview adds the
    data-blocks it makes to, as (``bpy.data`` collection, data-block)."""
    settings = _settings(scene)
    world = scene.world
    colour = tuple(world.color) if world is not None else None
    result = {i.as_pointer() for i in bpy.data.images if i.type == "RENDER_RESULT"}
    made = []
    before = extras.still(scene)
    try:
        yield made
    finally:
        for owner, name, value in settings:       # the file format before its colour depth
            setattr(owner, name, value)
        if world is not None:
            world.color = colour
        for collection, block in reversed(made):    # objects before their data
            collection.remove(block)
        for img in [i for i in bpy.data.images if i.type == "RENDER_RESULT"
                    and i.as_pointer() not in result]:
            bpy.data.images.remove(img)
        if before is not None:
            scene.frame_set(before)
        extras.camera_placed(scene)         # billboards face the scene's own camera again


def render_preview(context, target, size=256, samples=16, extras=None):
    """A small PNG of the visible meshes from a three-quarter view (Cycles, CPU); with
    ``extras`` (a :class:`SceneExtras`), at their still frame and framed to show them. The
    scene is left as it was (:func:`_scene_restored`)."""
    scene = context.scene
    extras = extras or SceneExtras()
    with _scene_restored(scene, extras) as made:
        _render_preview(context, scene, target, size, samples, extras, made)


def _render_preview(context, scene, target, size, samples, extras, made):
    corners = []
    for obj in scene.objects:
        if obj.type == "MESH" and obj.visible_get():
            box = extras.bounds(obj)
            if box is not None:                     # live particles, their quads included
                corners += [Vector(c) for c in box]
                continue
            mw = obj.matrix_world
            corners += [mw @ Vector(c) for c in obj.bound_box]
    pts = np.array([tuple(c) for c in corners]) if corners else np.zeros((1, 3))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    center = (lo + hi) / 2
    radius = max(float(np.linalg.norm(hi - lo)) / 2, 1e-3)
    cam_data = bpy.data.cameras.new("Alamo Preview")
    made.append((bpy.data.cameras, cam_data))
    cam_data.lens = 50
    cam = bpy.data.objects.new("Alamo Preview", cam_data)
    made.append((bpy.data.objects, cam))
    scene.collection.objects.link(cam)
    direction = Vector((1.0, -1.2, 0.8)).normalized()
    distance = radius / np.tan(cam_data.angle / 2) * 1.1
    cam.location = Vector(center) + direction * distance
    cam.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    cam_data.clip_end = distance + 4 * radius
    cam_data.clip_start = max(distance - 4 * radius, distance / 1000)
    scene.camera = cam
    extras.camera_placed(scene)                 # billboards face the preview camera
    sun_data = bpy.data.lights.new("Alamo Preview Sun", "SUN")
    made.append((bpy.data.lights, sun_data))
    sun_data.energy = 3.0
    sun = bpy.data.objects.new("Alamo Preview Sun", sun_data)
    made.append((bpy.data.objects, sun))
    sun.rotation_euler = (0.8, 0.2, 0.6)
    scene.collection.objects.link(sun)
    if scene.world is None:
        scene.world = bpy.data.worlds.new("Alamo Preview")
        made.append((bpy.data.worlds, scene.world))
    scene.world.color = (0.2, 0.22, 0.25)
    r = scene.render
    r.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    if hasattr(scene.cycles, "use_denoising"):
        scene.cycles.use_denoising = False
    r.resolution_x = r.resolution_y = size
    r.resolution_percentage = 100
    # a small picture needs no big textures: Cycles gets each at most twice the picture's
    # size, as small images that stand in for them during the render (an Arma truck's 30
    # maps of 2,048-4,096 pixels otherwise take seconds and gigabytes to decode; issue 44)
    limit = next((k for k in (128, 256, 512, 1024, 2048, 4096, 8192) if k >= 2 * size), None)
    r.use_simplify = True
    scene.cycles.texture_limit_render = str(limit or "OFF")
    r.image_settings.file_format = "PNG"
    r.filepath = str(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with small_images(_rendered(context.view_layer), limit) if limit else \
            contextlib.nullcontext():
        bpy.ops.render.render(write_still=True)
