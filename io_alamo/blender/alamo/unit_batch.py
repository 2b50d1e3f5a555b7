"""The batch converter's verbs on the other engines' models (Arma .p3d, Alithia and ALOD
.alm), as Alamo units: ``import`` to a .blend (and optionally a .glb and a preview),
``export`` straight to an Alamo unit (.alo with its textures beside it, DXT-compressed by
default). Each engine's ``batch`` module declares its step with :func:`unit_batch_step`,
giving the function that imports its file (with the File menu's options)."""

from pathlib import Path

import bpy

from ...formats.alamo.dds import COMPRESSED, UNCOMPRESSED
from ...formats.options import pick
from .batch import import_to_blend, no_stage, replaced_note, reset_scene, write_staged
from .exporter.alo import AloExportOptions, export_alo
from .exporter.budget import export_within
from .exporter.textures import DEFAULT_MAX_SIZE, write_textures, written_bytes

__all__ = ["unit_batch_step"]


def do_export(importer, path, rel, out, uncompressed_textures=False, overwrite=False,
              stage=no_stage, texture_size=DEFAULT_MAX_SIZE, max_triangles=0, **options):
    stage("importing")
    reset_scene()
    imported = importer(bpy.context, str(path), options)
    target = out / rel.with_suffix(".alo")
    target.parent.mkdir(parents=True, exist_ok=True)
    arm = getattr(imported, "armature", None)
    view_layer = bpy.context.view_layer
    for o in view_layer.objects:
        o.select_set(o == arm)
    view_layer.objects.active = arm
    stage(f"writing {target.name}")

    def write(staged):             # the model and its textures beside it, within the budget
        result = export_within(bpy.context, max_triangles, lambda: export_alo(
            bpy.context, str(staged), AloExportOptions(scope="ARMATURE" if arm else "SCENE")))
        textures = []
        if result.model is not None:
            textures = write_textures(result.model, str(staged), result.problems,
                                      UNCOMPRESSED if uncompressed_textures else COMPRESSED,
                                      texture_size)
        result.counts["texture_bytes"] = written_bytes(textures)
        return result, textures
    # a texture two units of one folder share is not in the way
    (result, textures), replaced = write_staged(target, write, overwrite, skip_same=True)
    c = result.counts
    outputs = [target] + [target.parent / Path(p).name for p in textures]
    return ("ok", f"{target.name}: {c.get('bones', 0)} bones, {c.get('meshes', 0)} meshes, "
            f"{len(textures)} textures ({c['texture_bytes'] / 1e6:.1f} MB)"
            + _triangles_note(c) + replaced_note(replaced), outputs,
            imported.warnings + result.warnings)


def _triangles_note(counts):
    if "triangles_before" not in counts:
        return ""
    return (f", decimated {counts['triangles_before']:,} -> {counts['triangles_after']:,} "
            "triangles")


WORKERS = {"import": import_to_blend, "export": do_export}


def unit_batch_step(importer, options_class):
    """The batch step (``run_verb(verb, path, rel, out, **options)``) of a format whose
    ``importer(context, path, options)`` imports one file as an Alamo unit and returns its
    result; its ``options`` are an ``options_class`` filled from the batch's options of that
    name (the declared ones as their flags set them, ``texture_folders``, ...)."""
    def run_verb(verb, path, rel, out, **options):
        chosen = options_class(**pick(options_class, options))
        return WORKERS[verb](lambda context, filepath, _: importer(context, filepath, chosen),
                             path, rel, out, **options)
    return run_verb
