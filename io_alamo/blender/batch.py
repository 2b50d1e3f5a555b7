"""Headless batch conversion with Blender: a run of many files, each checked against the
format registry and handed to the verbs of its engine (io_alamo.blender.alamo.batch: import
to .blend, export back, roundtrip). ``python -m io_alamo.batch`` (Blender-free: it says so
when bpy is missing) and ``blender -b -c alamo`` come here; the arguments and the worker
processes are in io_alamo.batch.jobs, the output lines in io_alamo.batch.report."""

import json
import os
import sys
import time
from pathlib import Path

import bpy

from ..batch.jobs import (RESULT_PREFIX, build_parser, gather, run_parallel, verb_extensions,
                          verb_formats, verb_option_classes)
from ..batch.report import BatchReport, blender_output_hidden
from ..formats import registry
from ..formats.content import is_archive_file
from ..formats.errors import FormatError, without_filename
from ..formats.options import flag_values
from ..inputs import nothing_found_line
from .discovery import declared_batch_steps
from .outputs import finish
from .prefs import user_texture_folders
from .texture_lookup import texture_folders


def run_one(verb, path, rel, out, options, verbose=False, report=None):
    """{"path", "status" (ok/identical/differs/failed), "message", "seconds", "outputs",
    "warnings"}. Blender's own output is hidden unless ``verbose``; ``report`` (a
    BatchReport) shows the stage the file is at on a terminal's progress line."""
    start = time.perf_counter()
    warnings = []
    try:
        fmt = batch_format(verb, path)
        with blender_output_hidden(not verbose) as write:
            def stage(what):
                if report is not None:
                    report.stage(path, what, write)
            status, message, outputs, warnings = declared_batch_steps()[fmt.key](
                verb, path, rel, out, stage=stage, **options)
    except Exception as e:         # noqa: BLE001 - reported, and the run goes on
        status, message, outputs = "failed", _one_line(e, path), []
    return {"path": str(path), "status": status, "message": message,
            "seconds": time.perf_counter() - start, "outputs": [str(p) for p in outputs],
            "warnings": list(warnings)}


def batch_format(verb, path):
    """The registry entry of the file ``verb`` is given (export of a .blend: the format it
    writes; of another engine's model: that model's format, whose step converts it); a file
    in another format than its name says is refused as File > Import would."""
    formats = verb_formats(verb)
    if verb == "export" and Path(path).suffix.lower() == ".blend":
        return formats[0]
    with open(path, "rb") as f:
        head = f.read(16)
    fmt = registry.recognise(head, str(path))                  # a PNG named .alo, say
    if fmt in formats:
        return fmt
    named = [f for f in formats if Path(path).suffix.lower() in f.extensions] or formats
    return registry.require(head, str(path), named[0].key)     # a .p3d named .alo


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
    """The options every step is given: the run's, and the engines' declared options (by
    name, as their flags set them; each step picks its own)."""
    declared = flag_values(args, verb_option_classes(args.verb))
    if args.verb == "import":
        return {"glb": args.glb, "preview": args.preview, "glb_all": args.glb_all,
                "texture_folders": search_folders(args), "overwrite": args.overwrite,
                **declared}
    if args.verb == "export":
        return {"overwrite": args.overwrite, **declared}
    return declared


def run(argv, prog, blender_binary=None):
    """Parse ``argv`` and convert; returns the exit status. The add-on must be registered."""
    args = build_parser(prog).parse_args(argv)
    start = time.perf_counter()
    empty = []
    try:
        tasks = gather(args.inputs, verb_extensions(args.verb), empty)
        missing = [d for d in getattr(args, "textures", ())
                   if not (Path(d).is_dir() or is_archive_file(d))]
        if missing:
            raise FileNotFoundError(f"--textures {missing[0]}: no such folder or .meg")
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2
    if args.out and args.out.exists() and not args.out.is_dir():
        print(f"{args.out}: is a file; --out names the output folder (it is made if "
              "missing)", file=sys.stderr)
        return 2
    for item in empty:
        print(nothing_found_line(item, verb_extensions(args.verb)), file=sys.stderr)
    if not tasks:
        return 1 if empty else 0
    if args.worker:
        rels = json.loads(os.environ.get("ALAMO_BATCH_RELS", "{}"))
        tasks = [(f, Path(rels.get(str(f), str(rel)))) for f, rel in tasks]
    options = _options(args)
    if args.verbose and options.get("texture_folders") and not args.worker:
        print("texture folders (after each model's own): "
              + ", ".join(options["texture_folders"]), flush=True)
    made = bool(args.out) and not args.out.exists() and not args.worker
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    try:
        return _convert(args, tasks, options, blender_binary, start)
    finally:
        if made and args.out.is_dir() and not any(args.out.iterdir()):
            args.out.rmdir()        # a run that wrote nothing leaves no empty --out folder


def _convert(args, tasks, options, blender_binary, start):
    report = BatchReport(len(tasks), sys.stdout, verbose=args.verbose)
    if args.jobs > 1 and len(tasks) > 1 and not args.worker:
        args.jobs = min(args.jobs, len(tasks))
        args.textures = options.get("texture_folders", [])
        run_parallel(args, tasks, report, blender_binary)
    else:
        for path, rel in tasks:
            if not args.worker:
                report.start(path)
            r = run_one(args.verb, path, rel, args.out, options, args.verbose,
                        None if args.worker else report)
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
