"""validate against info over the same files, in one process (issue 44 point 3).

The corpus (``../shared/corpus``) and the particle corpus (``../shared/corpus-particles``) are
copied ``--copies`` times into a temporary folder (one sub-folder per copy, so animations
keep their models beside them), then ``info``, ``validate`` and ``validate --jobs N`` run
over it through the command line's own functions, output discarded; best of ``--repeat``.

    .venv/bin/python scripts/bench_validate.py --copies 40 --repeat 3
"""

import argparse
import contextlib
import io
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


def timed(argv, repeat):
    best = None
    for _ in range(repeat):
        sink = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
            main(argv)
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
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
        info = timed(["info", folder], args.repeat)
        one = timed(["validate", "-q", folder], args.repeat)
        many = timed(["validate", "-q", "--jobs", str(args.jobs), folder], args.repeat)
    print(f"{n:,} files ({args.copies} copies of the corpus and the particle corpus), "
          f"best of {args.repeat}")
    print(f"info                  {info:7.2f} s")
    print(f"validate              {one:7.2f} s   {one / info:.2f}x info   (target <= 1)")
    print(f"validate --jobs {args.jobs:<5} {many:7.2f} s   {many / info:.2f}x info   "
          "(target <= 0.5)")


if __name__ == "__main__":
    main_bench()
