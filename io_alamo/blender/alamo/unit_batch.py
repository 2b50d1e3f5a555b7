"""The batch converter's verbs on the other engines' models (Arma .p3d, Alithia and ALOD
.alm), as Alamo units: ``import`` to a .blend (and optionally a .glb and a preview),
``export`` straight to an Alamo unit (.alo with its textures beside it, DXT-compressed by
default). Each engine's ``batch`` module declares its step with :func:`unit_batch_step`,
giving the function that imports its file (with the File menu's options)."""

import os
import tempfile
from pathlib import Path

import bpy

from ...formats.saving import check_overwrite
from .batch import import_to_blend, replaced_note
from .exporter.alo import AloExportOptions, export_alo
from .exporter.textures import write_textures

__all__ = ["unit_batch_step"]


def _reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _no_stage(what):
    """Where a verb says which stage it is at (the batch's progress line); by default nowhere."""


def do_export(importer, path, rel, out, uncompressed_textures=False, overwrite=False,
              stage=_no_stage, **options):
    stage("importing")
    _reset()
    imported = importer(bpy.context, str(path), options)
    target = out / rel.with_suffix(".alo")
    target.parent.mkdir(parents=True, exist_ok=True)
    arm = getattr(imported, "armature", None)
    view_layer = bpy.context.view_layer
    for o in view_layer.objects:
        o.select_set(o == arm)
    view_layer.objects.active = arm
    stage(f"writing {target.name}")
    # written into a temporary folder beside the target, then moved into place under the
    # one overwrite rule: an existing file stops the export unless --overwrite
    with tempfile.TemporaryDirectory(prefix=".alamo-export-", dir=target.parent) as tmp:
        staged = Path(tmp) / target.name
        result = export_alo(bpy.context, str(staged),
                            AloExportOptions(scope="ARMATURE" if arm else "SCENE"))
        textures = []
        if result.model is not None:
            textures = write_textures(result.model, str(staged), result.problems,
                                      "A8R8G8B8" if uncompressed_textures else "DXT")
        made = [p for p in sorted(Path(tmp).rglob("*")) if p.is_file()
                and not _same_file(p, target.parent / p.relative_to(tmp))]
        final = [target.parent / p.relative_to(tmp) for p in made]
        replaced = check_overwrite(final, overwrite)
        for p, f in zip(made, final):
            f.parent.mkdir(parents=True, exist_ok=True)
            os.replace(p, f)
    c = result.counts
    outputs = [target] + [target.parent / Path(p).name for p in textures]
    return ("ok", f"{target.name}: {c.get('bones', 0)} bones, {c.get('meshes', 0)} meshes, "
            f"{len(textures)} textures" + replaced_note(replaced), outputs,
            imported.warnings + result.warnings)


def _same_file(made, existing):
    """Whether ``existing`` already holds exactly ``made``'s bytes (a texture two units of
    one folder share): nothing to write, and nothing in the way."""
    try:
        return (existing.is_file() and existing.stat().st_size == made.stat().st_size
                and existing.read_bytes() == made.read_bytes())
    except OSError:
        return False


WORKERS = {"import": import_to_blend, "export": do_export}


def unit_batch_step(importer):
    """The batch step (``run_verb(verb, path, rel, out, **options)``) of a format whose
    ``importer(context, path, options)`` imports one file as an Alamo unit and returns its
    result; ``options`` holds the batch's options (``metres``, ``texture_folders``, ...)."""
    def run_verb(verb, path, rel, out, **options):
        return WORKERS[verb](importer, path, rel, out, **options)
    return run_verb
