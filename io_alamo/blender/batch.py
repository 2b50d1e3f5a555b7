"""Headless batch conversion with Blender: the verbs' work on one file (import to .blend,
export back, roundtrip), and a run of many. ``python -m io_alamo.batch`` (Blender-free: it
says so when bpy is missing) and ``blender -b -c alamo`` come here; the arguments and the
worker processes are in io_alamo.batch_jobs."""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import addon_utils
import bpy
import numpy as np
from mathutils import Vector

from ..batch_jobs import RESULT_PREFIX, VERBS, build_parser, gather, run_parallel
from ..batch_report import BatchReport, blender_output_hidden
from ..formats.alamo.compare import chunk_path_at, first_difference
from ..formats.alamo.describe import without_filename
from ..formats.alamo.sniff import check_alamo
from .alamo.exp.ala import AnimationExportOptions, export_ala
from .alamo.exp.alo import ExportOptions, export_alo
from .alamo.imp.ala import SOURCE_NAME_KEY
from .alamo.imp.alo import ImportOptions, NotAModelError, import_alo
from .alamo.shown import prepare_gltf_export
from .prefs import user_texture_folders
from .textures import texture_folders

# --- one file, in this process ------------------------------------------------------------

def _reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def do_import(path, rel, out, glb=False, preview=False, glb_all=False, texture_folders=(),
              **_):

    _reset()
    result = import_alo(bpy.context, str(path),
                        ImportOptions(texture_folders=list(texture_folders)))
    blend = out / rel.with_suffix(".blend")
    blend.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    outputs = [blend]
    if glb or glb_all:
        target = out / rel.with_suffix(".glb")
        _export_glb(target, everything=glb_all)
        outputs.append(target)
    if preview:
        target = out / rel.with_suffix(".png")
        render_preview(bpy.context, target)
        outputs.append(target)
    return "ok", result.summary(), outputs, result.warnings


# Blender 4.2 crashes while shutting down once its glTF exporter has run: after such a run
# the batch ends the process directly (files are written and closed by then).
_hard_exit = False


def _finish(status):
    if _hard_exit:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def _export_glb(target, everything=False):

    enabled = "io_scene_gltf2" in bpy.context.preferences.addons
    if not enabled:
        addon_utils.enable("io_scene_gltf2", default_set=False)
    global _hard_exit
    _hard_exit = _hard_exit or bpy.app.version < (4, 5, 0)
    try:
        bpy.ops.export_scene.gltf(filepath=str(target), export_format="GLB",
                                  export_animations=True, check_existing=False,
                                  **prepare_gltf_export(bpy.context, everything))
    finally:
        if not enabled:      # Blender 4.2/4.5 crash at exit if its classes stay registered
            addon_utils.disable("io_scene_gltf2", default_set=False)


def render_preview(context, target, size=256, samples=16):
    """A small PNG of the visible meshes from a three-quarter view (Cycles, CPU)."""
    scene = context.scene
    corners = []
    for obj in scene.objects:
        if obj.type == "MESH" and obj.visible_get():
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
        options = ExportOptions(scope="ARMATURE" if arm else "SCENE", animations=True,
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
    stays EI_VADER.ALO: on a case-sensitive file system another case is a second file)."""
    source = arm.get(SOURCE_NAME_KEY) if arm is not None else None
    if isinstance(source, str) and Path(source).name == source \
            and source.lower() == name.name.lower() + ".alo":
        return name.parent / source
    return name.with_suffix(".alo")


def do_roundtrip(path, rel, out=None, **_):

    _reset()
    result = import_alo(bpy.context, str(path), ImportOptions())
    arm = result.armature
    bpy.context.view_layer.objects.active = arm
    differ = []
    with tempfile.TemporaryDirectory(prefix="alamo-roundtrip-") as tmp:
        pairs = [(path, Path(tmp) / "model.alo", None)]
        export_alo(bpy.context, str(pairs[0][1]), ExportOptions())
        actions = [a for a in bpy.data.actions if a.get(SOURCE_NAME_KEY)]
        for k, action in enumerate(actions):
            original = path.parent / action[SOURCE_NAME_KEY]
            target = Path(tmp) / f"anim{k}.ala"
            export_ala(bpy.context, arm, action, str(target),
                       AnimationExportOptions(format=int(action.alamo.format)))
            pairs.append((original, target, action))
        for original, written, _ in pairs:
            a, b = original.read_bytes(), written.read_bytes()
            at = first_difference(a, b)
            if at is not None:
                differ.append(f"{original.name} differs at 0x{at:x} in {chunk_path_at(a, at)}")
    if differ:
        return "differs", "; ".join(differ), [], []
    return "identical", f"model and {len(pairs) - 1} animations byte-identical", [], []


WORKERS = {"import": do_import, "export": do_export, "roundtrip": do_roundtrip}


def run_one(verb, path, rel, out, options, verbose=False):
    """{"path", "status" (ok/identical/differs/failed), "message", "seconds", "outputs",
    "warnings"}. Blender's own output is hidden unless ``verbose``."""
    start = time.perf_counter()
    warnings = []
    try:
        if VERBS[verb] == (".alo",):
            with open(path, "rb") as f:
                check_alamo(f.read(4), filename=str(path))     # a PNG named .alo, say
        with blender_output_hidden(not verbose):
            status, message, outputs, warnings = WORKERS[verb](path, rel, out, **options)
    except NotAModelError:
        status, message, outputs = "skipped", "a particle effect, not a model", []
    except Exception as e:         # noqa: BLE001 - reported, and the run goes on
        status, message, outputs = "failed", _one_line(e, path), []
    return {"path": str(path), "status": status, "message": message,
            "seconds": time.perf_counter() - start, "outputs": [str(p) for p in outputs],
            "warnings": list(warnings)}


def _one_line(e, path):
    text = without_filename(e, path).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


# --- a run ---------------------------------------------------------------------------------

def search_folders(args):
    """Texture folders for every file of the run: the mod's ``Data/Art/Textures`` (and
    ``Art/Textures``, ``Textures``) found from each input path, the ``--textures`` folders,
    the add-on's preference folders. Each model adds its own as the add-on does."""
    folders = []
    for item in args.inputs:
        p = Path(item).resolve()
        found = texture_folders(str(p / "-") if p.is_dir() else str(p))
        folders += found[1:]               # [0] is the input folder itself
    folders += [str(Path(d).resolve()) for d in getattr(args, "textures", ())]
    folders += user_texture_folders(_context())
    return list(dict.fromkeys(folders))


def _context():
    return bpy.context


def _options(args):
    if args.verb == "import":
        return {"glb": args.glb, "preview": args.preview, "glb_all": args.glb_all,
                "texture_folders": search_folders(args)}
    if args.verb == "export":
        return {"ala_format": args.ala_format}
    return {}


def run(argv, prog, blender_binary=None):
    """Parse ``argv`` and convert; returns the exit status. The add-on must be registered."""
    args = build_parser(prog).parse_args(argv)
    start = time.perf_counter()
    empty = []
    try:
        tasks = gather(args.inputs, VERBS[args.verb], empty)
        missing = [d for d in getattr(args, "textures", ()) if not Path(d).is_dir()]
        if missing:
            raise FileNotFoundError(f"--textures {missing[0]}: no such folder")
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for folder in empty:
        print(f"no {' or '.join(VERBS[args.verb])} files found in {folder}", file=sys.stderr)
    if not tasks:
        return 1 if empty else 0
    if args.worker:
        rels = json.loads(os.environ.get("ALAMO_BATCH_RELS", "{}"))
        tasks = [(f, Path(rels.get(str(f), str(rel)))) for f, rel in tasks]
    options = _options(args)
    if args.verbose and options.get("texture_folders") and not args.worker:
        print("texture folders (after each model's own): "
              + ", ".join(options["texture_folders"]), flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    report = BatchReport(len(tasks), sys.stdout, verbose=args.verbose)
    if args.jobs > 1 and len(tasks) > 1 and not args.worker:
        args.jobs = min(args.jobs, len(tasks))
        args.textures = options.get("texture_folders", [])
        run_parallel(args, tasks, report, blender_binary)
    else:
        for path, rel in tasks:
            if not args.worker:
                report.start(path)
            r = run_one(args.verb, path, rel, args.out, options, args.verbose)
            if args.worker:
                print(RESULT_PREFIX + json.dumps(r), flush=True)
            else:
                report.add(r)
    if args.worker:
        return 0
    return report.summary(time.perf_counter() - start)


def cli_command(argv):
    """``blender -b -c alamo ...`` (registered by the add-on with register_cli_command)."""
    return _finish(run(list(argv), "blender -b -c alamo", blender_binary=bpy.app.binary_path))


def main(argv, prog, register, unregister):
    """``python -m io_alamo.batch ...`` (or ``io-alamo batch ...``) once io_alamo.batch has
    checked the arguments and that this Python has bpy: the add-on registered (with
    ``register``/``unregister``, the package's own) for the run unless it already is."""
    own = not hasattr(bpy.types, "EXPORT_SCENE_OT_alo")
    if own:
        register()
    try:
        status = run(argv, prog)
    finally:
        if own:
            unregister()   # Blender 4.2/4.5 crash at exit if classes stay registered
    return _finish(status)
