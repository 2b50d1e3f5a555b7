"""Headless batch conversion with Blender: a run of many files, each checked against the
format registry and handed to the verbs of its engine (io_alamo.blender.alamo.batch: import
to .blend, export back, roundtrip). ``python -m io_alamo.batch`` (Blender-free: it says so
when bpy is missing) and ``blender -b -c alamo`` come here; the arguments and the worker
processes are in io_alamo.batch_jobs, the output lines in io_alamo.batch_report."""

import json
import os
import sys
import time
from pathlib import Path

import bpy

from ..batch_jobs import INPUT_FORMAT, RESULT_PREFIX, VERBS, build_parser, gather, run_parallel
from ..batch_report import BatchReport, blender_output_hidden
from ..formats import registry
from ..formats.alamo.game_data import is_archive_file
from ..formats.errors import FormatError, without_filename
from .alamo import batch as alamo_batch
from .outputs import finish
from .prefs import user_texture_folders
from .texture_lookup import texture_folders


def run_one(verb, path, rel, out, options, verbose=False):
    """{"path", "status" (ok/identical/differs/failed), "message", "seconds", "outputs",
    "warnings"}. Blender's own output is hidden unless ``verbose``."""
    start = time.perf_counter()
    warnings = []
    try:
        if INPUT_FORMAT[verb]:
            with open(path, "rb") as f:
                head = f.read(16)
            registry.recognise(head, str(path))         # a PNG named .alo, say
            registry.require(head, str(path), INPUT_FORMAT[verb])   # a .p3d named .alo
        with blender_output_hidden(not verbose):
            status, message, outputs, warnings = alamo_batch.run_verb(verb, path, rel, out,
                                                                      **options)
    except Exception as e:         # noqa: BLE001 - reported, and the run goes on
        status, message, outputs = "failed", _one_line(e, path), []
    return {"path": str(path), "status": status, "message": message,
            "seconds": time.perf_counter() - start, "outputs": [str(p) for p in outputs],
            "warnings": list(warnings)}


def _one_line(e, path):
    """What went wrong, in words (the line names the file already): ``not an Alamo file
    (starts with 89 50 4e 47)``, ``chunk size 9 runs past ... (offset 0x1c, chunk 0x400)``."""
    text = e.line(str(path)) if isinstance(e, FormatError) else str(e)
    text = without_filename(text, path).strip().splitlines()
    return text[0] if text else type(e).__name__


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
        missing = [d for d in getattr(args, "textures", ())
                   if not (Path(d).is_dir() or is_archive_file(d))]
        if missing:
            raise FileNotFoundError(f"--textures {missing[0]}: no such folder or .meg")
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
    return finish(run(list(argv), "blender -b -c alamo", blender_binary=bpy.app.binary_path))


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
    return finish(status)
