"""validate against info over the same files (issue 44 point 3): seconds, or instructions.

The corpus (``../shared/corpus``) and the particle corpus (``../shared/corpus-particles``) are
copied ``--copies`` times into a temporary folder (one sub-folder per copy, so animations keep
their models beside them); ``info``, ``validate`` and ``validate --jobs N`` run over it through
the command line's own functions, output discarded, after one warm-up of each verb.

Seconds (the default) -- interleaved rounds: each round runs the three once, in a rotated
order, so a machine shared with other work slows each alike. Every run's wall-clock and CPU
seconds (user + sys, workers included) are printed, then the median and the best, and the
ratios to info: validate's CPU (target <= 1), ``--jobs``' wall (target <= 0.5) and its bound on
a quiet machine, CPU / N over info's CPU. This VM's figures vary by +-20 % from run to run
even when quiet (CPU seconds too: a busy host lends its cores out), so read the spread::

    .venv/bin/python scripts/bench_validate.py --copies 40 --rounds 5
    .venv/bin/python scripts/bench_validate.py --copies 80 --rounds 3 --jobs 2

Instructions (``--instructions``) -- the figure to trust for one core, load or not: the same
calls run under ``valgrind --tool=callgrind`` (about 50x slower), counted from just before to
just after each measured call (instrumentation toggled with ``callgrind_control``, after a
warm-up run of each). ``validate --jobs N`` is counted too when the folder makes more than
one part: the parent and each worker on their own, their sum against one core (what spreading
the work adds) and the parent plus the busiest worker against info (the bound of the wall-clock
ratio on N idle cores)::

    .venv/bin/python scripts/bench_validate.py --instructions                 # 1 copy, 38 files
    .venv/bin/python scripts/bench_validate.py --instructions --copies 4      # with --jobs 2
"""

import argparse
import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from io_alamo import cli_validate  # noqa: E402
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


def verbs(folder, jobs):
    """{name: argv} of the three measured calls."""
    return {"info": ["info", folder], "validate": ["validate", "-q", folder],
            f"validate --jobs {jobs}": ["validate", "-q", "--jobs", str(jobs), folder]}


def run(argv):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(argv)


def cpu_seconds():
    """user + sys CPU time of this process and of its finished child processes (the
    ``--jobs`` workers are reaped when their pool shuts down)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def warm_up(folder):
    """The lazy imports and first-call caches, once, on the first copy."""
    run(["info", f"{folder}/copy000"])
    run(["validate", "-q", f"{folder}/copy000"])


# --- seconds -------------------------------------------------------------------------------

def rounds(runs, count):
    """[{name: (wall s, CPU s)}] per round; each round runs every one of ``runs`` once, the
    order rotated by one each round."""
    names, out = list(runs), []
    for k in range(count):
        got = {}
        for name in names[k % len(names):] + names[:k % len(names)]:
            start, cpu = time.perf_counter(), cpu_seconds()
            run(runs[name])
            got[name] = (time.perf_counter() - start, cpu_seconds() - cpu)
        out.append(got)
    return out


def ratios(r, names, jobs):
    """(validate's CPU, --jobs' wall, --jobs' CPU / jobs), each over info's."""
    first, one, many = names
    return (r[one][1] / r[first][1], r[many][0] / r[first][0], r[many][1] / jobs / r[first][1])



def report_seconds(got, names, jobs):
    """One line per round, then the median of each figure and of each round's ratio, and the
    best of each figure with the ratios of the bests."""
    print("         " + "".join(f"{n:>22s}" for n in names)
          + "     validate   --jobs   --jobs")
    print("   wall / CPU s:" + " " * (22 * len(names) - 7) + "CPU     wall    bound")
    rows = [(f"round {k}", r, ratios(r, names, jobs)) for k, r in enumerate(got, 1)]
    per = [row[2] for row in rows]
    middle = {n: (statistics.median(r[n][0] for r in got),
                  statistics.median(r[n][1] for r in got)) for n in names}
    best = {n: (min(r[n][0] for r in got), min(r[n][1] for r in got)) for n in names}
    rows += [("median", middle, [statistics.median(x) for x in zip(*per)]),
             ("best", best, ratios(best, names, jobs))]
    for label, r, q in rows:
        print(f"{label:>9s}" + "".join(f"{r[n][0]:13.2f} /{r[n][1]:6.2f}  " for n in names)
              + "".join(f"{x:8.2f}x" for x in q))
    print(f"ratios to info: validate's CPU (target <= 1); --jobs wall (target <= 0.5); "
          f"--jobs bound = its CPU / {jobs} (processes) over info's CPU (its wall on {jobs} "
          "idle cores, at best)")


# --- instructions --------------------------------------------------------------------------

def callgrind(*args):
    """``callgrind_control ARGS`` for this process (run by the counted process itself)."""
    done = subprocess.run(["callgrind_control", *args, str(os.getpid())], text=True,
                          capture_output=True)
    if "OK." not in done.stdout:        # it exits with 0 when it finds no such process
        sys.exit(f"callgrind_control {' '.join(args)}: {done.stdout}{done.stderr}")


def counted(folder, jobs):
    """Under callgrind: warm up, then each measured call counted and dumped by its name. A
    forked worker would inherit its parent's count so far (and callgrind_control cannot reach
    it), so the parent dumps, which zeroes its count, just before each fork."""
    measuring = []
    os.register_at_fork(before=lambda: measuring and callgrind("-d", measuring[0]))
    warm_up(folder)
    for name, argv in verbs(folder, jobs).items():
        run(argv)                       # this verb's own first-call caches
        measuring[:] = [name.replace(" ", "_")]
        callgrind("-z")
        callgrind("-i", "on")
        run(argv)
        callgrind("-i", "off")
        callgrind("-d", measuring.pop())


def totals(out):
    """{pid: [(dump name, instructions)]} of callgrind's output files ``out.*``."""
    found = {}
    for f in sorted(out.parent.glob(out.name + ".*")):
        desc = total = pid = None
        for line in f.open(errors="replace"):
            if line.startswith("pid: "):
                pid = int(line.split()[1])
            elif line.startswith("desc: Trigger: "):
                desc = line.split("Trigger: ", 1)[1].strip()
            elif line.startswith("totals: "):
                total = int(line.split()[1])
        if total:
            found.setdefault(pid, []).append((desc, total))
    return found


def instructions(folder, n, jobs):
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        sys.exit("--instructions needs valgrind (with callgrind_control) on PATH: "
                 "apt-get install valgrind")
    out = Path(folder) / "callgrind.out"
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
           f"--callgrind-out-file={out}.%p", sys.executable, __file__,
           "--counted", folder, "--jobs", str(jobs)]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"callgrind run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    found = totals(out)
    parent = next(pid for pid, dumps in found.items()
                  if any(d.startswith("dump ") for d, _ in dumps))
    count = {}
    for d, t in found.pop(parent):
        if d.startswith("dump "):
            count[d[5:]] = count.get(d[5:], 0) + t
    workers = sorted((t for dumps in found.values() for _, t in dumps), reverse=True)
    info, one = count["info"], count["validate"]
    print(f"{n:,} files; instructions counted by callgrind (independent of the load)")
    print(f"info                {info / 1e6:10.1f} M")
    print(f"validate            {one / 1e6:10.1f} M  {one / info:.3f}x info  (target <= 1)")
    many = count[f"validate_--jobs_{jobs}"]
    if not workers:
        print(f"validate --jobs {jobs}: {n} files run in one process (parts of "
              f"{cli_validate.CHUNK} files); --copies 2 or more counts the workers")
        return
    alls = many + sum(workers)
    print(f"validate --jobs {jobs}  parent {many / 1e6:.1f} M + {len(workers)} workers "
          + " + ".join(f"{w / 1e6:.1f} M" for w in workers)
          + f" = {alls / 1e6:.1f} M, {alls / one:.3f}x one core")
    print(f"   bound on {jobs} idle cores: parent + busiest worker = "
          f"{(many + workers[0]) / 1e6:.1f} M = {(many + workers[0]) / info:.3f}x info  "
          "(target <= 0.5)")


def main_bench():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, help="copies of the corpora (40; 1 with "
                    "--instructions)")
    ap.add_argument("--rounds", "--repeat", type=int, default=3,
                    help="rounds of the three runs, interleaved")
    ap.add_argument("--jobs", type=int, default=2, help="processes for validate --jobs")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions under valgrind's callgrind instead of seconds")
    ap.add_argument("--counted", metavar="FOLDER", help=argparse.SUPPRESS)  # under callgrind
    args = ap.parse_args()
    if args.counted:
        return counted(args.counted, args.jobs)
    copies = args.copies or (1 if args.instructions else 40)
    with tempfile.TemporaryDirectory(prefix="bench_validate-") as tmp:
        n = replicate(Path(tmp), copies)
        if args.instructions:
            return instructions(tmp, n, args.jobs)
        warm_up(tmp)
        load = os.getloadavg()[0]
        runs = verbs(tmp, args.jobs)
        got = rounds(runs, args.rounds)
    used = cli_validate.processes(n, args.jobs)
    print(f"{n:,} files ({copies} cop{'y' if copies == 1 else 'ies'} of the corpus and the "
          f"particle corpus; --jobs {args.jobs} uses {used} process{'es' if used > 1 else ''}), "
          f"{args.rounds} interleaved rounds; load average {load:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    report_seconds(got, list(runs), used)


if __name__ == "__main__":
    main_bench()
