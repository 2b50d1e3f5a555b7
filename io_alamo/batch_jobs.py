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

from .formats.alamo.choices import ALA_FORMATS
from .formats import registry

RESULT_PREFIX = "@@alamo-result "
# the format each verb takes (the registry's key; None: .blend files), and so its files
INPUT_FORMAT = {"import": "alo", "export": None, "roundtrip": "alo"}
VERBS = {verb: registry.by_key(key).extensions if key else (".blend",)
         for verb, key in INPUT_FORMAT.items()}
NEEDS_BPY = ("{prog}: needs Blender's Python module bpy, which this Python ({version}) does "
             "not have. Either install it beside io_alamo (Python 3.11 only):\n"
             "    pip install bpy==4.5.* 'numpy<2'\n"
             "or run the same verbs in Blender, with the io_alamo extension enabled:\n"
             "    blender -b -c alamo {verb} ...")


# --- files ---------------------------------------------------------------------------------

def gather(inputs, suffixes, empty=None):
    """(file, output stem relative to the output folder) for every matching file; folders
    are walked recursively and keep their structure below the output folder. Folders
    without a matching file are appended to ``empty``."""
    out, seen = [], set()
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file()
                           and f.suffix.lower() in suffixes)
            if not found and empty is not None:
                empty.append(p)
            pairs = [(f, f.relative_to(p).with_suffix("")) for f in found]
        elif p.is_file():
            pairs = [(p, Path(p.stem))]
        else:
            raise FileNotFoundError(f"{item}: no such file or folder")
        for f, rel in pairs:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                out.append((f, rel))
    return out


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
    if getattr(args, "ala_format", None):
        rest += ["--ala-format", str(args.ala_format)]
    for folder in getattr(args, "textures", None) or ():
        rest += ["--textures", str(folder)]
    if args.verbose:
        rest.append("--verbose")
    if blender_binary:
        return [blender_binary, "-b", "-c", "alamo"] + rest
    return [sys.executable, "-m", __package__ + ".batch"] + rest


def run_parallel(args, tasks, report, blender_binary=None):
    """Split the files over ``args.jobs`` worker processes (largest first, round robin) and
    report their results as they come."""
    tasks = sorted(tasks, key=lambda t: -t[0].stat().st_size)
    shares = [tasks[k::args.jobs] for k in range(args.jobs)]
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
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
    ap = argparse.ArgumentParser(prog=prog, description="Batch conversion of Alamo models "
                                 "and animations with Blender, headless.")
    sub = ap.add_subparsers(dest="verb", required=True)
    for verb, helptext in (("import", ".alo (+ animations) to .blend"),
                           ("export", ".blend to .alo (+ .ala)"),
                           ("roundtrip", "import and export; report what comes back "
                            "identical")):
        p = sub.add_parser(verb, help=helptext)
        p.add_argument("inputs", nargs="+", metavar="FILES_OR_DIRS")
        p.add_argument("--jobs", "-j", type=int, default=1, help="worker processes")
        p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
        p.add_argument("--verbose", "-v", action="store_true",
                       help="list every warning, and show Blender's own output")
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
        if verb == "export":
            p.add_argument("--ala-format", type=int, choices=sorted(ALA_FORMATS), default=None,
                           help="animation format: 2 Forces of Corruption, 1 Empire at War "
                                "(default: each action's own, #2 for new ones)")
    return ap
