"""The batch converter's verbs on one Alamo file, in this process: import an .alo (with its
animations) to a .blend (and optionally a .glb and a preview), export a .blend back to .alo
and .ala, and round trip a model and its animations. io_alamo.blender.batch runs them."""

import os
import tempfile
from pathlib import Path

import bpy

from ...formats import registry
from ...formats.files import first_difference
from ...formats.saving import check_overwrite
from ..outputs import export_glb, render_preview
from ..source import SOURCE_NAME_KEY, source_file_name
from .exporter.ala import AlaExportOptions, export_ala
from .exporter.alo import AloExportOptions, export_alo
from .game_view import prepare_gltf_export
from .particle_preview.batch_extras import ParticleExtras
from .importer.alo import AloImportOptions, import_alamo
from .particles.exporter import export_particles
from .preview.gltf import gltf_look

__all__ = ["STEPS", "VERBS", "import_to_blend", "no_stage", "replaced_note", "reset_scene",
           "run_verb", "write_staged"]


def reset_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def no_stage(what):
    """Where a verb says which stage it is at (the batch's progress line); by default nowhere."""


def do_import(path, rel, out, texture_folders=(), **options):
    return import_to_blend(
        lambda context, filepath, _: import_alamo(          # a model or a particle effect
            context, filepath, AloImportOptions(texture_folders=list(texture_folders))),
        path, rel, out, **options)


def import_to_blend(importer, path, rel, out, glb=False, preview=False, glb_all=False,
                    overwrite=False, stage=no_stage, **options):
    """``importer(context, path, options)`` into an empty scene, saved as a .blend (and a
    .glb and a preview on request) below ``out``; nothing is imported when one of them
    exists (unless ``overwrite``). Every engine's batch import comes here."""
    blend = out / rel.with_suffix(".blend")
    wanted = [blend] + ([blend.with_suffix(".glb")] if glb or glb_all else []) \
        + ([blend.with_suffix(".png")] if preview else [])
    replaced = check_overwrite(wanted, overwrite)
    stage("importing")
    reset_scene()
    result = importer(bpy.context, str(path), options)
    blend.parent.mkdir(parents=True, exist_ok=True)
    stage("saving .blend")
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    outputs = [blend]
    if glb or glb_all:
        stage("writing .glb")
        target = out / rel.with_suffix(".glb")
        # glTF cannot mask: the preview's colours baked; what the game shows, or everything
        # saved above and thrown away after: only the preview, when asked for, needs it back
        export_glb(target, everything=glb_all, look=gltf_look, prepare=prepare_gltf_export,
                   extras=ParticleExtras(), put_back=preview)
        outputs.append(target)
    if preview:
        stage("rendering preview")
        target = out / rel.with_suffix(".png")
        render_preview(bpy.context, target, extras=ParticleExtras())
        outputs.append(target)
    return "ok", result.summary() + replaced_note(replaced), outputs, result.warnings


def replaced_note(replaced):
    """``; replaced 2 existing files`` when --overwrite replaced any."""
    n = len(replaced)
    return f"; replaced {n} existing file{'s' if n != 1 else ''}" if n else ""


def do_export(path, rel, out, ala_format=None, overwrite=False, stage=no_stage, **_):
    with open(path, "rb") as f:
        head = f.read(64)
    fmt = registry.identify(head)   # Blender's own message: "File format is not supported"
    if fmt is not None:
        raise ValueError(f"is {fmt.what(head)}, not a .blend: batch export writes the units of "
                         ".blend scenes; to convert game files use batch import (or batch "
                         "roundtrip)")
    stage("opening .blend")
    bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False, use_scripts=False)
    scene = bpy.context.scene
    arms = [o for o in scene.objects if o.type == "ARMATURE"]
    systems = [o for o in scene.objects if o.alamo_particle_system.is_system]
    if systems and not arms:               # a particle effect's .blend: the effects
        return _export_effects(systems, rel, out, overwrite, stage)
    outputs, summaries, warnings, replaced = [], [], [], []
    for arm in arms or [None]:
        name = rel if len(arms) <= 1 else rel.parent / arm.name
        target = out / _model_file_name(name, arm)
        target.parent.mkdir(parents=True, exist_ok=True)
        for o in bpy.context.view_layer.objects:
            o.select_set(o == arm)
        bpy.context.view_layer.objects.active = arm
        options = AloExportOptions(scope="ARMATURE" if arm else "SCENE", animations=True,
                                   ala_format=int(ala_format or 0) or None)
        stage(f"writing {target.name}")
        result, written = _export_checked(target, options, overwrite)
        replaced += written
        warnings += result.warnings
        outputs += [target] + [target.parent / Path(p).name for p in result.animations]
        c = result.counts
        summaries.append(f"{target.name}: {c['bones']} bones, {c['meshes']} meshes, "
                         f"{len(result.animations)} animations")
    return "ok", "; ".join(summaries) + replaced_note(replaced), outputs, warnings


def _export_effects(systems, rel, out, overwrite, stage):
    """Each particle system of the scene written as an .alo below ``out`` (one: named as the
    .blend; several: by their objects' names)."""
    outputs, summaries, warnings, replaced = [], [], [], []
    for system in systems:
        name = rel if len(systems) == 1 else rel.parent / system.name
        target = out / name.with_suffix(".alo")
        target.parent.mkdir(parents=True, exist_ok=True)
        stage(f"writing {target.name}")
        result, written = write_staged(
            target, lambda staged, s=system: export_particles(bpy.context, str(staged), s),
            overwrite)
        replaced += written
        warnings += result.warnings
        outputs.append(target)
        summaries.append(f"{target.name}: particle effect, {result.emitters} emitters")
    return "ok", "; ".join(summaries) + replaced_note(replaced), outputs, warnings


def _export_checked(target, options, overwrite):
    """Export to a temporary folder beside ``target`` and move the files into place
    (:func:`write_staged`). Returns (result, the files replaced)."""
    return write_staged(target, lambda staged: export_alo(bpy.context, str(staged), options),
                        overwrite)


def write_staged(target, write, overwrite, skip_same=False):
    """``write(staged)`` into a temporary folder beside ``target`` (``staged`` has its
    name), then every file it wrote moved into place under the one overwrite rule
    (check_overwrite): an existing file stops the export (nothing is written) unless
    ``overwrite``; with ``skip_same`` a file already there with the same bytes is left as it
    is (not in the way). Returns (what ``write`` returned, the files replaced)."""
    with tempfile.TemporaryDirectory(prefix=".alamo-export-", dir=target.parent) as tmp:
        result = write(Path(tmp) / target.name)
        made = [p for p in sorted(Path(tmp).iterdir())
                if not (skip_same and _same_file(p, target.parent / p.name))]
        replaced = check_overwrite([target.parent / p.name for p in made], overwrite)
        for p in made:
            os.replace(p, target.parent / p.name)
    return result, replaced


def _same_file(made, existing):
    """Whether ``existing`` already holds exactly ``made``'s bytes (a texture two units of
    one folder share): nothing to write, and nothing in the way."""
    try:
        return (existing.is_file() and existing.stat().st_size == made.stat().st_size
                and existing.read_bytes() == made.read_bytes())
    except OSError:
        return False


def _model_file_name(name, arm):
    """``name``.alo, or the imported file's exact name when it is that model (EI_VADER.ALO
    stays EI_VADER.ALO)."""
    exact = source_file_name(arm, name.name + ".alo")
    return name.parent / exact if exact else name.with_suffix(".alo")


def do_roundtrip(path, rel, out=None, stage=no_stage, **_):

    stage("importing")
    reset_scene()
    result = import_alamo(bpy.context, str(path), AloImportOptions())
    arm = result.armature
    bpy.context.view_layer.objects.active = arm
    differ = []
    stage("exporting and comparing")
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
    """(status, message, outputs, warnings) of one model."""
    return WORKERS[verb](path, rel, out, **options)


def do_effect_roundtrip(path, rel, out=None, stage=no_stage, **_):
    """A particle effect imported and exported again: whether it comes back identical."""
    stage("importing")
    reset_scene()
    result = import_alamo(bpy.context, str(path), AloImportOptions())
    stage("exporting and comparing")
    with tempfile.TemporaryDirectory(prefix="alamo-roundtrip-") as tmp:
        written = Path(tmp) / path.name
        export_particles(bpy.context, str(written), result.system)
        a, b = path.read_bytes(), written.read_bytes()
    at = first_difference(a, b)
    if at is not None:
        return "differs", f"{path.name} differs ({registry.recognise(a).where(a, at)})", [], []
    return "identical", f"particle effect, {len(result.emitters)} emitters byte-identical", \
        [], []


EFFECT_WORKERS = {"import": do_import, "roundtrip": do_effect_roundtrip}


def run_effect_verb(verb, path, rel, out, **options):
    """(status, message, outputs, warnings) of one particle effect."""
    return EFFECT_WORKERS[verb](path, rel, out, **options)


VERBS = tuple(WORKERS)
# the batch converter's steps for the formats this package imports (found by
# io_alamo.blender.discovery)
STEPS = {"alo": run_verb, "alo-particles": run_effect_verb}
