"""The Blender-free half of the batch converter (io_alamo.blender.batch is the other): its
verbs and arguments, the files a run takes, and the worker processes of ``--jobs``."""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

from ..formats import registry
from ..formats.options import add_flags, worker_flags
from ..inputs import expand

RESULT_PREFIX = "@@alamo-result "


def verb_formats(verb):
    """The registry entries whose files the batch ``verb`` takes (their ``batch`` says so);
    ``export`` writes the first of its formats (.alo) from .blend files, and also takes the
    files of formats that declare ``convert`` (the other engines' models, exported straight
    to an Alamo unit)."""
    if verb == "export":
        return tuple(fmt for fmt in registry.FORMATS if "export" in fmt.batch) + \
            tuple(fmt for fmt in registry.FORMATS if "convert" in fmt.batch)
    return tuple(fmt for fmt in registry.FORMATS if verb in fmt.batch)


def verb_extensions(verb):
    """The file endings the batch ``verb`` gathers: for export .blend files and the
    convertible formats' files, else its formats'."""
    if verb == "export":
        formats = [fmt for fmt in registry.FORMATS if "convert" in fmt.batch]
        return tuple(dict.fromkeys((".blend",) + tuple(ext for fmt in formats
                                                        for ext in fmt.extensions)))
    return tuple(dict.fromkeys(ext for fmt in verb_formats(verb) for ext in fmt.extensions))


def verb_option_classes(verb):
    """The option dataclasses whose batch flags ``verb`` takes: the import options of its
    formats for import; for export the export options of the formats it writes, and the
    import options of the formats it converts (imported, then written as Alamo units)."""
    if verb == "import":
        classes = [fmt.import_options for fmt in verb_formats(verb)]
    elif verb == "export":
        classes = [fmt.export_options for fmt in verb_formats(verb)] + \
            [fmt.import_options for fmt in registry.FORMATS if "convert" in fmt.batch]
    else:
        classes = []
    return [cls for cls in dict.fromkeys(classes) if cls is not None]
NEEDS_BPY = ("{prog}: needs Blender's Python module bpy, which this Python ({version}) does "
             "not have. Either install it beside io_alamo (Python 3.11 only):\n"
             "    pip install bpy==4.5.* 'numpy<2'\n"
             "or run the same verbs in Blender, with the io_alamo extension enabled:\n"
             "    blender -b -c alamo {verb} ...")


# --- files ---------------------------------------------------------------------------------

def gather(inputs, suffixes, empty=None):
    """(file, output stem relative to the output folder) for every matching file of
    ``inputs`` (files, folders walked recursively, wildcards: :mod:`io_alamo.inputs`);
    a folder's files keep their structure below the output folder. Folders and wildcards
    without a matching file are appended to ``empty``."""
    found, nothing = expand(inputs, set(suffixes))
    for f in found:
        if not f.path.is_file():
            raise FileNotFoundError(f"{f.path}: no such file or folder")
    if empty is not None:
        empty += nothing
    return [(f.path, f.relative.with_suffix("")) for f in found]


# --- running many -------------------------------------------------------------------------

def _worker_command(args, files, blender_binary):
    rest = [args.verb] + [str(f) for f in files] + ["--jobs", "1", "--worker"]
    if args.out:
        rest += ["--out", str(args.out)]
    if getattr(args, "glb", False):
        rest.append("--glb")
    if getattr(args, "glb_all", False):
        rest.append("--glb-all")
    if getattr(args, "preview", False):
        rest.append("--preview")
    if getattr(args, "overwrite", False):
        rest.append("--overwrite")
    for folder in getattr(args, "textures", None) or ():
        rest += ["--textures", str(folder)]
    rest += worker_flags(args, verb_option_classes(args.verb))
    if args.verbose:
        rest.append("--verbose")
    if blender_binary:
        return [blender_binary, "-b", "-c", "alamo"] + rest
    return [sys.executable, "-m", __package__] + rest


def run_parallel(args, tasks, report, blender_binary=None):
    """Split the files over ``args.jobs`` worker processes (largest first, round robin) and
    report their results as they come."""
    tasks = sorted(tasks, key=lambda t: -t[0].stat().st_size)
    shares = [tasks[k::args.jobs] for k in range(args.jobs)]
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    results, procs, threads = queue.Queue(), [], []

    def pump(proc, share):
        seen = set()
        for line in proc.stdout:
            if line.startswith(RESULT_PREFIX):
                r = json.loads(line[len(RESULT_PREFIX):])
                seen.add(r["path"])
                results.put(r)
        proc.wait()
        for f, _ in share:                 # a worker that died takes its files with it
            if str(f) not in seen:
                results.put({"path": str(f), "status": "failed", "seconds": 0.0,
                             "message": f"worker exited with status {proc.returncode}",
                             "outputs": []})

    for share in shares:
        if not share:
            continue
        # inputs are passed as files; the worker writes below the same output folder
        cmd = _worker_command(args, [f for f, _ in share], blender_binary)
        rels = {str(f): str(rel) for f, rel in share}
        env_k = dict(env, ALAMO_BATCH_RELS=json.dumps(rels))
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, env=env_k)
        procs.append(proc)
        t = threading.Thread(target=pump, args=(proc, share), daemon=True)
        t.start()
        threads.append(t)
    for _ in range(len(tasks)):
        report.add(results.get())
    for t in threads:
        t.join()


def build_parser(prog):
    ap = argparse.ArgumentParser(prog=prog, description="Batch conversion with Blender, "
                                 "headless: Alamo models, animations and particle effects, and "
                                 "the other engines' models. VERB --help for each.")
    sub = ap.add_subparsers(dest="verb", required=True, metavar="VERB", title="verbs")
    for verb, helptext in (("import", ".alo (+ animations), .p3d or .alm to .blend"),
                           ("export", ".blend to .alo (+ .ala); .p3d or .alm to .alo with "
                            "its textures"),
                           ("roundtrip", "import and export; report what comes back "
                            "identical")):
        p = sub.add_parser(verb, help=helptext)
        p.add_argument("inputs", nargs="+", metavar="FILES_OR_DIRS",
                       help="files, folders (searched recursively) or wildcards (any case)")
        p.add_argument("--jobs", "-j", type=int, default=1, help="worker processes: N files converted at once, each in its own "
                            "Blender (default 1)")
        p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
        p.add_argument("--verbose", "-v", action="store_true",
                       help="list every warning, and show Blender's own output")
        add_flags(p, verb_option_classes(verb))   # the options the engines declare
        if verb == "import":
            p.add_argument("--textures", action="append", default=[], metavar="DIR",
                           help="also look for textures in DIR (repeatable): a folder, a "
                                "game's Data folder or a .meg (its archives are searched "
                                "after the loose folders); the mod's Data/Art/Textures and "
                                "Data/*.meg are found from the input path")
        if verb != "roundtrip":
            p.add_argument("--out", type=Path, required=True, help="output folder")
        else:
            p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
        if verb == "import":
            p.add_argument("--glb", action="store_true", help="also write a .glb (glTF) of "
                           "what the game shows: highest LOD, ALT0, no hidden, shadow or "
                           "collision meshes")
            p.add_argument("--glb-all", action="store_true", help="also write a .glb with "
                           "every mesh, LOD and ALT")
            p.add_argument("--preview", action="store_true",
                           help="also render a 256 px PNG preview (Cycles, CPU)")
        if verb != "roundtrip":
            p.add_argument("--overwrite", action="store_true",
                           help="replace files that exist in --out (without it such a file "
                                "is left as it is and its input reported as failed)")
    return ap
