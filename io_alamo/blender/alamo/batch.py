"""The batch converter's verbs on one Alamo file, in this process: import an .alo (with its
animations) to a .blend (and optionally a .glb and a preview), export a .blend back to .alo
and .ala, and round trip a model and its animations. io_alamo.blender.batch runs them."""

import tempfile
from pathlib import Path

import bpy

from ...formats import registry
from ...formats.files import first_difference
from ..outputs import export_glb, render_preview
from ..source import SOURCE_NAME_KEY, source_file_name
from .exporter.ala import AlaExportOptions, export_ala
from .exporter.alo import AloExportOptions, export_alo
from .importer.alo import AloImportOptions, NotAModelError, import_alo
from .particles.importer import is_particle_file

__all__ = ["VERBS", "run_verb"]


def _reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def do_import(path, rel, out, glb=False, preview=False, glb_all=False, texture_folders=(),
              **_):

    _reset()
    result = import_alo(bpy.context, str(path),
                        AloImportOptions(texture_folders=list(texture_folders)))
    blend = out / rel.with_suffix(".blend")
    blend.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    outputs = [blend]
    if glb or glb_all:
        target = out / rel.with_suffix(".glb")
        export_glb(target, everything=glb_all)
        outputs.append(target)
    if preview:
        target = out / rel.with_suffix(".png")
        render_preview(bpy.context, target)
        outputs.append(target)
    return "ok", result.summary(), outputs, result.warnings


def do_export(path, rel, out, ala_format=None, **_):

    bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False, use_scripts=False)
    scene = bpy.context.scene
    arms = [o for o in scene.objects if o.type == "ARMATURE"]
    outputs, summaries, warnings = [], [], []
    for arm in arms or [None]:
        name = rel if len(arms) <= 1 else rel.parent / arm.name
        target = out / _model_file_name(name, arm)
        target.parent.mkdir(parents=True, exist_ok=True)
        for o in bpy.context.view_layer.objects:
            o.select_set(o == arm)
        bpy.context.view_layer.objects.active = arm
        options = AloExportOptions(scope="ARMATURE" if arm else "SCENE", animations=True,
                                   ala_format=int(ala_format) if ala_format else None)
        result = export_alo(bpy.context, str(target), options)
        warnings += result.warnings
        outputs += [target] + [Path(p) for p in result.animations]
        c = result.counts
        summaries.append(f"{target.name}: {c['bones']} bones, {c['meshes']} meshes, "
                         f"{len(result.animations)} animations")
    return "ok", "; ".join(summaries), outputs, warnings


def _model_file_name(name, arm):
    """``name``.alo, or the imported file's exact name when it is that model (EI_VADER.ALO
    stays EI_VADER.ALO)."""
    exact = source_file_name(arm, name.name + ".alo")
    return name.parent / exact if exact else name.with_suffix(".alo")


def do_roundtrip(path, rel, out=None, **_):

    _reset()
    result = import_alo(bpy.context, str(path), AloImportOptions())
    arm = result.armature
    bpy.context.view_layer.objects.active = arm
    differ = []
    with tempfile.TemporaryDirectory(prefix="alamo-roundtrip-") as tmp:
        pairs = [(path, Path(tmp) / "model.alo", None)]
        export_alo(bpy.context, str(pairs[0][1]), AloExportOptions())
        actions = [a for a in bpy.data.actions if a.get(SOURCE_NAME_KEY)]
        for k, action in enumerate(actions):
            original = path.parent / action[SOURCE_NAME_KEY]
            target = Path(tmp) / f"anim{k}.ala"
            export_ala(bpy.context, arm, action, str(target),
                       AlaExportOptions(format=int(action.alamo.format)))
            pairs.append((original, target, action))
        for original, written, _ in pairs:
            a, b = original.read_bytes(), written.read_bytes()
            at = first_difference(a, b)
            if at is not None:
                fmt = registry.recognise(a, str(original))
                differ.append(f"{original.name} differs ({fmt.where(a, at)})")
    if differ:
        return "differs", "; ".join(differ), [], []
    return "identical", f"model and {len(pairs) - 1} animations byte-identical", [], []


WORKERS = {"import": do_import, "export": do_export, "roundtrip": do_roundtrip}


def run_verb(verb, path, rel, out, **options):
    """(status, message, outputs, warnings) of one file; a particle effect is skipped."""
    if is_particle_file(Path(path).read_bytes()[:4]):      # issue 33: imported by File >
        return "skipped", "a particle effect, not a model", [], []   # Import, not the batch
    try:
        return WORKERS[verb](path, rel, out, **options)
    except NotAModelError:
        return "skipped", "a particle effect, not a model", [], []


VERBS = tuple(WORKERS)
