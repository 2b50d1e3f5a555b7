"""The batch converter's verbs on the other engines' models (Arma .p3d, Alithia and ALOD
.alm; issue 35), in this process: ``import`` to a .blend (and optionally a .glb and a preview),
``export`` straight to an Alamo unit (.alo with its textures beside it, DXT-compressed by
default). The options are the File menu's: Arma models at game scale and on the ground, their
proxied parts imported; Write Textures on. io_alamo.blender.batch runs them."""

import os
import tempfile
from pathlib import Path

import bpy

from ..formats.saving import check_overwrite
from .alamo.batch import replaced_note
from .alamo.exp.alo import ExportOptions, export_alo
from .alamo.exp.textures_out import write_textures
from .alithia.importer import AlmImportOptions, import_alm_file
from .alod.importer import AlodImportOptions, import_alod
from .arma.importer import P3dImportOptions, import_p3d
from .outputs import export_glb, render_preview

__all__ = ["ENGINE_FORMATS", "run_verb"]

ENGINE_FORMATS = ("p3d", "alm1", "alod")


def _reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _import(key, path, options):
    """Import ``path`` (format ``key``) into the empty scene; returns the import's result."""
    path = str(path)
    if key == "p3d":
        return import_p3d(bpy.context, path, P3dImportOptions(
            texture_folders=list(options.get("texture_folders", ())),
            game_scale=not options.get("metres", False),
            on_ground=not options.get("not_on_ground", False),
            import_parts=not options.get("no_parts", False)))
    if key == "alm1":
        return import_alm_file(bpy.context, path, AlmImportOptions())
    return import_alod(bpy.context, path, AlodImportOptions())


def _no_stage(what):
    """Where a verb says which stage it is at (the batch's progress line); by default nowhere."""


def do_import(key, path, rel, out, glb=False, preview=False, glb_all=False, overwrite=False,
              stage=_no_stage, **options):
    blend = out / rel.with_suffix(".blend")
    wanted = [blend] + ([blend.with_suffix(".glb")] if glb or glb_all else []) \
        + ([blend.with_suffix(".png")] if preview else [])
    replaced = check_overwrite(wanted, overwrite)
    stage("importing")
    _reset()
    result = _import(key, path, options)
    blend.parent.mkdir(parents=True, exist_ok=True)
    stage("saving .blend")
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    outputs = [blend]
    if glb or glb_all:
        stage("writing .glb")
        target = out / rel.with_suffix(".glb")
        export_glb(target, everything=glb_all)
        outputs.append(target)
    if preview:
        stage("rendering preview")
        target = out / rel.with_suffix(".png")
        render_preview(bpy.context, target)
        outputs.append(target)
    return "ok", result.summary() + replaced_note(replaced), outputs, result.warnings


def do_export(key, path, rel, out, uncompressed_textures=False, overwrite=False,
              stage=_no_stage, **options):
    stage("importing")
    _reset()
    imported = _import(key, path, options)
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
                            ExportOptions(scope="ARMATURE" if arm else "SCENE"))
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


WORKERS = {"import": do_import, "export": do_export}


def run_verb(verb, key, path, rel, out, **options):
    """(status, message, outputs, warnings) of one file of format ``key``."""
    return WORKERS[verb](key, path, rel, out, **options)
