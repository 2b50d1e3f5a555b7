"""The batch's preview render (``outputs.render_preview``) leaves the scene as it was: no
camera, sun, world or render result of its own, the scene's camera, world (and its colour),
frame, render engine and settings, Cycles settings and image format back, the particle
billboards facing the scene's camera again; also when the render fails. The picture still
renders: a unit's effect seen from the preview's three-quarter view."""

import os
import shutil
from pathlib import Path

import bpy
import numpy as np
import pytest
from test_particle_preview import at, effect, import_alo, stream, unit_model, unit_emitters

from io_alamo.blender import outputs
from io_alamo.blender.alamo.particle_preview.batch_extras import ParticleExtras

# a folder to keep the rendered preview in, to look at (nothing is kept without it)
PREVIEWS = os.environ.get("ALAMO_KEEP_PREVIEWS")


def _quads(em):
    """The world matrices of the emitter's quads in the evaluated depsgraph, sorted."""
    dg = bpy.context.evaluated_depsgraph_get()
    rows = [tuple(round(v, 5) for row in i.matrix_world for v in row)
            for i in dg.object_instances
            if i.is_instance and i.parent is not None and i.parent.original == em]
    return sorted(rows)


def scene_state(em):
    scene = bpy.context.scene
    r, img, cy = scene.render, scene.render.image_settings, scene.cycles
    blocks = {kind: sorted(b.name for b in getattr(bpy.data, kind))
              for kind in ("objects", "cameras", "lights", "worlds", "images", "meshes",
                           "materials", "node_groups")}
    return dict(
        blocks=blocks, scene_objects=sorted(o.name for o in scene.objects),
        camera=scene.camera.name if scene.camera else None,
        world=scene.world.name if scene.world else None,
        world_colour=tuple(round(c, 6) for c in scene.world.color) if scene.world else None,
        frame=scene.frame_current,
        render=(r.engine, r.resolution_x, r.resolution_y, r.resolution_percentage,
                r.use_simplify, r.filepath, img.file_format, img.color_mode, img.color_depth,
                img.compression),
        cycles=(cy.device, cy.samples, cy.use_denoising, cy.texture_limit_render,
                cy.transparent_max_bounces),
        quads=_quads(em))


def unit_scene(tmp_path):
    """A unit whose Engine bone holds a rising stream, in a scene set up as a user's: EEVEE,
    640 x 480 at 50 %, JPEG, a camera of its own, a red world, at frame 5."""
    model = unit_model(tmp_path)
    effect(tmp_path, stream(groups=[{"type": 0, "val_z": 2.0}, {}, {}]), name="p_unit_glow")
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 24, 1.0, 1
    (em,) = unit_emitters(import_alo(bpy.context, str(model)))
    cam = bpy.data.objects.new("My Camera", bpy.data.cameras.new("My Camera"))
    scene.collection.objects.link(cam)
    cam.location = (0.0, -30.0, 5.0)
    cam.rotation_euler = (1.4, 0.0, 0.0)
    scene.camera = cam
    scene.world = bpy.data.worlds.new("My World")
    scene.world.color = (1.0, 0.0, 0.0)
    r = scene.render
    r.engine = "BLENDER_WORKBENCH"
    r.resolution_x, r.resolution_y, r.resolution_percentage = 640, 480, 50
    r.use_simplify = False
    r.image_settings.file_format = "JPEG"
    r.filepath = "//my_renders/"
    scene.cycles.samples, scene.cycles.device = 77, "CPU"
    at(4 / 24)
    assert _quads(em)
    return em


def test_the_preview_leaves_the_scene_as_it_was_and_still_renders(blender, tmp_path):
    em = unit_scene(tmp_path)
    before = scene_state(em)
    target = tmp_path / "preview.png"
    outputs.render_preview(bpy.context, target, size=128, samples=8, extras=ParticleExtras())
    assert scene_state(em) == before
    img = bpy.data.images.load(str(target))
    px = np.empty(len(img.pixels), np.float32)
    img.pixels.foreach_get(px)
    assert tuple(img.size) == (128, 128)
    bpy.data.images.remove(img)
    rgb = px.reshape(-1, 4)[:, :3]
    lit = np.abs(rgb - rgb[0]).max(axis=1) > 0.05          # the particles, not the world
    assert lit.sum() > 20
    if PREVIEWS:
        Path(PREVIEWS).mkdir(parents=True, exist_ok=True)
        version = bpy.app.version_string.split()[0]
        shutil.copy(target, Path(PREVIEWS) / f"unit_stream_{version}.png")


def test_a_failed_preview_also_leaves_the_scene_as_it_was(blender, tmp_path, monkeypatch):
    em = unit_scene(tmp_path)
    before = scene_state(em)

    def broken(objects, limit):
        raise RuntimeError("the render failed")
    monkeypatch.setattr(outputs, "small_images", broken)
    with pytest.raises(RuntimeError, match="the render failed"):
        outputs.render_preview(bpy.context, tmp_path / "p.png", size=96, samples=4,
                               extras=ParticleExtras())
    assert scene_state(em) == before
