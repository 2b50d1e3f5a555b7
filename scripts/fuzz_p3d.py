"""Fuzz the binarized P3D reader: mutated files may only raise P3dFormatError, quickly.

Seeds: files built from the published layout by ``tests/p3d_build.py`` (versions 40, 43,
47, 48, with and without animations) and, when present, the samples in
``../shared/corpus-odol``. Each input is a seed with one to four mutations: bit flips,
bytes set to 0x00/0xFF/0x7F/0x80, 32-bit words set to extreme counts, truncation, bytes
inserted or removed, NUL bytes turned into spaces. Every input goes through ``read_p3d`` and
the command line's ``info`` lines.

    python scripts/fuzz_p3d.py --minutes 2 [--seed S] [--out DIR]

Prints what it ran and every failure (other exceptions, or an input taking over a second);
exits 1 if there was one. Failing inputs are written to ``--out DIR`` when given.
"""

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
from p3d_build import SpecLod, build_odol, grid_lod  # noqa: E402

from io_alamo.formats.arma import P3dFormatError, read_p3d  # noqa: E402
from io_alamo.formats.arma.describe import info_lines  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus-odol"
EXTREMES = (0, 1, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x20202020, 1 << 20)
TIME_LIMIT = 1.0


def seeds():
    lods = [grid_lod(1.0, 9, 9), grid_lod(2.0, 4, 3, quads=False),
            SpecLod(1e15, np.array([[0, 1, 2]], np.float32), [])]
    out = [build_odol(v, lods, animations=a) for v in (40, 43, 47, 48) for a in (False, True)]
    if CORPUS.is_dir():
        out += [p.read_bytes() for p in sorted(CORPUS.rglob("*.p3d"))
                if p.stat().st_size < 200_000]
    return out


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        at = rng.randrange(len(data))
        if kind == 0:
            data[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            data[at] = rng.choice((0, 0xFF, 0x7F, 0x80))
        elif kind == 2 and at + 4 <= len(data):
            data[at:at + 4] = rng.choice(EXTREMES).to_bytes(4, "little")
        elif kind == 3:
            del data[at:]
            if len(data) < 8:
                data += bytes(8)
        elif kind == 4:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif kind == 5:
            del data[at:at + rng.randint(1, 8)]
        else:
            data = bytearray(bytes(data).replace(b"\0", b" ", rng.randint(1, 50)))
    return bytes(data)


def run(seconds, seed, save):
    rng = random.Random(seed)
    pool = seeds()
    end = time.monotonic() + seconds
    counts = {"inputs": 0, "read": 0, "format errors": 0}
    failures = []
    while time.monotonic() < end:
        data = mutate(rng.choice(pool), rng)
        counts["inputs"] += 1
        t = time.process_time()   # CPU time: load must not count
        try:
            read_p3d(data)
            info_lines(data)
            counts["read"] += 1
        except P3dFormatError:
            counts["format errors"] += 1
        except Exception as e:          # noqa: BLE001  (what a fuzzer is for)
            failures.append((f"{type(e).__name__}: {e}", data))
        took = time.process_time() - t
        if took > TIME_LIMIT:
            failures.append((f"took {took:.2f} s of CPU", data))
    print(", ".join(f"{v:,} {k}" for k, v in counts.items()) + f", {len(failures)} failures")
    return report(failures, save, f"p3d_fuzz_{seed}_{{}}.p3d")


def report(failures, save, name):
    """Print the first 20 ``(what, input)`` failures, save their inputs to the folder ``save``
    (when given) under ``name.format(k)``; the exit status (1 if there was a failure)."""
    for k, (what, data) in enumerate(failures[:20]):
        print(f"  failure {k}: {what}")
        if save:
            Path(save).mkdir(parents=True, exist_ok=True)
            (Path(save) / name.format(k)).write_bytes(data)
    return 1 if failures else 0


def main(argv=None, run=run, doc=__doc__):
    """The command line of this fuzzer (or another's ``run(seconds, seed, save)``)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1.0, help="how long to run (default 1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="where failing inputs are saved")
    args = ap.parse_args(argv)
    return run(args.minutes * 60, args.seed, args.out)


if __name__ == "__main__":
    sys.exit(main())
