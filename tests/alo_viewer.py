"""The game's loaders in the tests: the alo-viewer's model and animation loaders and its
particle-system loader, built from ``../shared/tools/alo-viewer-check`` as two Linux commands
(``alo_check``, ``particle_check``).

The sources are copied to ``<repo>/.cache/alo-viewer-check/`` (gitignored) and built there
with ``make`` when a C++ compiler that can build 32-bit programs is present (the viewer is an
x86 program; on Debian/Ubuntu ``g++-multilib``). Without one, :func:`viewer` gives None and
:func:`reason` says why, so tests skip with that message.

:func:`check` runs it over files; every file checked is counted (:data:`RUNS`) for the
session's summary line.
"""

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "tools" / "alo-viewer-check"
BUILD = ROOT / ".cache" / "alo-viewer-check"
SOURCE_PARTS = ("Makefile", "compat", "harness", "src", "orig")

RUNS = {"files": 0, "calls": 0, "particle files": 0}
_state = {}


def viewer():
    """Path of the built ``alo_check``, or None (see :func:`reason`)."""
    if "path" not in _state:
        _state["path"], _state["reason"] = _build()
    return _state["path"]


def particle_viewer():
    """Path of the built ``particle_check``, or None (see :func:`reason`)."""
    if "particle path" not in _state:
        _state["particle path"], why = _build("particle_check")
        _state.setdefault("reason", why)
        _state["particle reason"] = why
    return _state["particle path"]


def reason(tool="alo_check"):
    if tool == "particle_check":
        particle_viewer()
        return _state["particle reason"]
    viewer()
    return _state["reason"]


def _build(tool="alo_check"):
    if not SOURCE.is_dir():
        return None, f"alo-viewer-check not found at {SOURCE} (../shared beside the checkout)"
    if shutil.which(os.environ.get("CXX", "g++")) is None or shutil.which("make") is None:
        return None, "no C++ compiler or make: install g++-multilib and make to run the " \
                     "game's loaders in the tests"
    exe = BUILD / tool
    if exe.exists() and _fresh(exe):
        return str(exe), ""
    BUILD.mkdir(parents=True, exist_ok=True)
    for part in SOURCE_PARTS:     # copytree keeps mtimes: the other tool's objects stay built
        src, dst = SOURCE / part, BUILD / part
        if src.is_dir():
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst)
        elif src.exists():
            shutil.copy2(src, dst)
    run = subprocess.run(["make", "-C", str(BUILD), tool], capture_output=True, text=True)
    if run.returncode != 0 or not exe.exists():
        tail = (run.stdout + run.stderr).strip().splitlines()[-3:]
        return None, "could not build alo-viewer-check (a compiler with 32-bit support, " \
                     "g++-multilib, is needed): " + " | ".join(tail)
    return str(exe), ""


def _fresh(exe):
    built = exe.stat().st_mtime
    for part in SOURCE_PARTS:
        src = SOURCE / part
        files = src.rglob("*") if src.is_dir() else [src]
        if any(f.is_file() and f.stat().st_mtime > built for f in files):
            return False
    return True


def check_particles(paths):
    """``{path: (ok, line)}`` from the viewer's particle-system loader for each of ``paths``."""
    exe = particle_viewer()
    if exe is None:
        raise RuntimeError(reason("particle_check"))
    return _run(exe, [], paths, "particle files")


def check(paths, model=None):
    """``{path: (ok, line)}`` from the viewer's loaders for each of ``paths`` (animations
    against ``model``, else the model beside them the viewer's way)."""
    exe = viewer()
    if exe is None:
        raise RuntimeError(reason())
    # options before --files-from: alo_check ignores a --model after it
    return _run(exe, ["--model", str(model)] if model else [], paths, "files")


def _run(exe, options, paths, counter):
    """One run of a checker over ``paths``: its OK/FAIL line per path, in input order."""
    paths = [str(p) for p in paths]
    if not paths:
        return {}
    run = subprocess.run([exe, *options, "--files-from", "-"], input="\n".join(paths) + "\n",
                         capture_output=True, text=True, timeout=600)
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith(("OK ", "FAIL "))]
    if len(lines) != len(paths):
        raise RuntimeError(f"{Path(exe).name} gave {len(lines)} lines for {len(paths)} files: "
                           f"{run.stdout[-500:]} {run.stderr[-500:]}")
    RUNS[counter] += len(paths)
    RUNS["calls"] += 1
    return {p: (ln.startswith("OK "), ln) for p, ln in zip(paths, lines)}


def is_particle(path):
    with open(path, "rb") as f:
        head = f.read(4)
    return len(head) == 4 and int.from_bytes(head, "little") in (0x900, 0x1500)


def checkable(paths):
    """The ``.alo`` and ``.ala`` among ``paths`` that the viewer's loaders take on: models
    that are not particle effects, animations with their model beside them."""
    from io_alamo.formats.alamo.game_rules import model_beside
    out = []
    for p in paths:
        low = str(p).lower()
        if low.endswith(".alo") and not is_particle(p):
            out.append(p)
        elif low.endswith(".ala") and model_beside(p) is not None:
            out.append(p)
    return out


def refused_written(paths, models=()):
    """The viewer's FAIL lines for written files ``paths``: models (not particle effects),
    animations with their model beside them, and animations without one against each of
    ``models`` (paths of .alo files: the scene's imported models, the models the test wrote)
    until one takes it (as the viewer tries every model that may be its own). Animations
    with no model to try are not checked."""
    from io_alamo.formats.alamo.game_rules import model_beside
    paired = checkable(paths)
    refused = [line for ok, line in check(paired).values() if not ok] if paired else []
    models = [m for m in models if not is_particle(m)]
    for p in paths:
        if not str(p).lower().endswith(".ala") or model_beside(p) is not None or not models:
            continue
        lines = []
        for m in models:
            ok, line = check([p], model=m)[str(p)]
            if ok:
                break
            lines.append(line)
        else:
            refused.append(lines[0])
    return refused


def summary_line():
    if "path" in _state and _state["path"] is None:
        return f"alo-viewer loaders: not run ({_state['reason']})"
    return (f"alo-viewer loaders: {RUNS['files']} model/animation and "
            f"{RUNS['particle files']} particle file checks in {RUNS['calls']} runs")
