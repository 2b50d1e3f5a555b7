"""validate against info over the same files, in one process (issue 44 point 3).

The corpus (``../shared/corpus``) and the particle corpus (``../shared/corpus-particles``) are
copied ``--copies`` times into a temporary folder (one sub-folder per copy, so animations
keep their models beside them), then ``info``, ``validate`` and ``validate --jobs N`` run
over it through the command line's own functions, output discarded, one of each per round;
best of ``--repeat`` rounds, in wall-clock and in CPU seconds (user + sys, workers included).

    .venv/bin/python scripts/bench_validate.py --copies 40 --repeat 3
"""

import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from io_alamo.cli import main  # noqa: E402

SHARED = ROOT.parent / "shared"
SOURCES = (SHARED / "corpus", SHARED / "corpus-particles")
SUFFIXES = (".alo", ".ala")


def replicate(folder, copies):
    files = [p for src in SOURCES if src.is_dir() for p in sorted(src.iterdir())
             if p.suffix.lower() in SUFFIXES]
    for k in range(copies):
        sub = folder / f"copy{k:03d}"
        sub.mkdir()
        for p in files:
            shutil.copyfile(p, sub / p.name)
    return len(files) * copies


def cpu_seconds():
    """user + sys CPU time of this process and of its finished child processes (the
    ``--jobs`` workers are reaped when their pool shuts down)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(runs, repeat):
    """{name: (best wall-clock seconds, best CPU seconds)} over ``repeat`` rounds of
    ``runs`` ({name: argv}), one of each per round, so that a machine shared with other work
    slows each alike. The CPU time is the steadier figure there, and for ``--jobs`` it says
    how much work the workers did in all (wall = CPU / jobs on a quiet machine, at best)."""
    best = {}
    for _ in range(repeat):
        for name, argv in runs.items():
            start, cpu = time.perf_counter(), cpu_seconds()
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                main(argv)
            took, used = time.perf_counter() - start, cpu_seconds() - cpu
            wall, cpu = best.get(name, (took, used))
            best[name] = (min(wall, took), min(cpu, used))
    return best


def main_bench():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=40, help="copies of the corpora")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the best counts")
    ap.add_argument("--jobs", type=int, default=2, help="processes for validate --jobs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_validate-") as tmp:
        n = replicate(Path(tmp), args.copies)
        folder = str(tmp)
        timed({"warm": ["info", f"{folder}/copy000"],      # the lazy imports, once
               "warm validate": ["validate", f"{folder}/copy000"]}, 1)
        best = timed({"info": ["info", folder], "one": ["validate", "-q", folder],
                      "many": ["validate", "-q", "--jobs", str(args.jobs), folder]},
                     args.repeat)
        info, one, many = best["info"], best["one"], best["many"]
    print(f"{n:,} files ({args.copies} copies of the corpus and the particle corpus), "
          f"best of {args.repeat}; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print("                        wall s   ratio      CPU s   ratio  (CPU: user+sys, workers "
          "included)")
    for name, (wall, cpu), target in (("info", info, ""), ("validate", one, "(target <= 1)"),
                                      (f"validate --jobs {args.jobs}", many,
                                       "(target <= 0.5)")):
        print(f"{name:22s} {wall:7.2f} {wall / info[0]:6.2f}x  {cpu:7.2f} {cpu / info[1]:6.2f}x"
              f"  {target}")
    print(f"--jobs {args.jobs} on a quiet machine, at best: CPU / {args.jobs} = "
          f"{many[1] / args.jobs:.2f} s = {many[1] / args.jobs / info[1]:.2f}x info's CPU")


if __name__ == "__main__":
    main_bench()
