"""Fuzz the particle-effect reader (issue 33): the twin of ``scripts/fuzz.py`` for particle
.alo files.

Seeds are spec-built files (``tests/particle_build.py``: linked emitters with keys and every
group type, a default emitter, a Universe at War system) and, when ``../shared/corpus-particles``
exists, the real particle files. Each input is a seed with one to four of fuzz.py's mutations
(byte level and chunk/mini-chunk aware). Every input goes through ``read_particles``,
``info_lines``, ``info_json``, ``problems`` and ``dump_tree``, and, when it reads, writing back
(which must give the same bytes) and reading that again. Only AlamoFormatError may come out,
in one line naming the file; each step must finish in under a second and allocate at most
``max(128 MB, 50 x the input)``.

    python scripts/fuzz_particles.py --minutes N [--seed S]
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests"), str(ROOT / "scripts")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import particle_build as pb  # noqa: E402
from fuzz import RandomDraw, check_steps, mutate  # noqa: E402

from io_alamo.formats.alamo import AlamoFormatError  # noqa: E402
from io_alamo.formats.alamo.particles import describe, read_particles  # noqa: E402
from io_alamo.formats.alamo.particles.write import write_particles  # noqa: E402

FILENAME = "fuzz-input.alo"
TIME_LIMIT = 1.0
CORPUS = ROOT.parent / "shared" / "corpus-particles"


def seeds(real=True):
    out = [pb.linked_system()[0], pb.particle_system("p_one")[0],
           pb.uaw_system("p_uaw", [pb.uaw_emitter("a"), pb.uaw_emitter("b", renderer=37)])[0]]
    if real and CORPUS.is_dir():
        out += [p.read_bytes() for p in sorted(CORPUS.iterdir())
                if p.suffix.lower() == ".alo" and p.stat().st_size < 40_000]
    return out


def run_one(data):
    """Problems with one input (an empty list when all is well)."""
    steps = [("read_particles", lambda: read_particles(data, FILENAME)),
             ("problems", lambda: describe.problems(data, FILENAME)),
             ("info", lambda: describe.info_lines(data, FILENAME)),
             ("info --json", lambda: describe.info_json(data, FILENAME)),
             ("dump", lambda: describe.dump_tree(data, FILENAME))]
    found, outputs = check_steps(data, steps, AlamoFormatError, FILENAME, TIME_LIMIT)
    system = outputs.get("read_particles")
    if system is not None:
        try:
            out = write_particles(system)
            if out != data:
                found.append("write back: not byte-identical")
            read_particles(out)
        except BaseException as e:  # noqa: BLE001
            found.append(f"write back: {type(e).__name__}: {e}"[:300])
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    pool = seeds()
    end = time.monotonic() + 60 * args.minutes
    runs = readable = failures = 0
    while time.monotonic() < end:
        draw = RandomDraw(args.seed * 1_000_003 + runs)
        data, steps = mutate(draw.choice(pool), draw)
        found = run_one(data)
        runs += 1
        try:
            read_particles(data)
            readable += 1
        except AlamoFormatError:
            pass
        if found:
            failures += 1
            print(f"input {runs} (seed {args.seed}, {'; '.join(steps)}): {found}")
    print(f"{runs:,} inputs, {readable:,} read as particle systems, {failures} with problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
