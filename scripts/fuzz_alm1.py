"""Fuzz the Alithia ALM1 reader: the twin of ``scripts/fuzz.py`` for a format without chunks.

Seeds are spec-built files (``tests/alm1build.py``: 1 to 40 frames, flags, trailing bytes).
Each input is a seed with one to four mutations: fuzz.py's byte mutations (bit flips,
interesting bytes, truncation, spliced runs) and header counts set to extremes. Every input
goes through ``read_alm1``, ``problems``, ``info_lines`` and, when it reads, writing back
(which must give the same bytes) and reading that again. Only Alm1FormatError may come out,
in one line naming the file; each step must finish in under a second and allocate at most
``max(128 MB, 50 x the input)``.

    python scripts/fuzz_alm1.py --minutes N [--seed S]
"""

import argparse
import struct
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests"), str(ROOT / "scripts")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import alm1build  # noqa: E402
from fuzz import (RandomDraw, check_steps, m_bit_flip, m_interesting_byte, m_splice,
                  m_truncate)  # noqa: E402

from io_alamo.formats.alithia.alm1 import (Alm1FormatError, info_lines, problems, read_alm1,
                                           write_alm1)  # noqa: E402

FILENAME = "fuzz-input.alm"
TIME_LIMIT = 1.0
COUNT_VALUES = (0, 1, 2, 0x7FFF, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)


def m_header_count(data, draw):
    """A header field (flags or a count) set to an extreme."""
    if len(data) < 20:
        return None
    field = draw.int(1, 4)
    value = draw.choice(COUNT_VALUES)
    out = bytearray(data)
    out[4 * field:4 * field + 4] = struct.pack("<I", value)
    return bytes(out), f"header field {field} = {value:#x}"


MUTATIONS = (m_bit_flip, m_interesting_byte, m_truncate, m_splice, m_header_count,
             m_header_count)


def seeds():
    return [alm1build.wave_grid(1).data, alm1build.wave_grid(12, size=2).data,
            alm1build.wave_grid(40, size=1, flags=5, trailing=b"tail").data,
            alm1build.wave_grid(3, size=3).data]


def mutate(data, draw):
    steps = []
    for _ in range(draw.int(1, 4)):
        got = draw.choice(MUTATIONS)(data, draw)
        if got is not None:
            data, what = got
            steps.append(what)
    return data, steps


def run_one(data):
    """Problems with one input (an empty list when all is well)."""
    steps = [("read_alm1", lambda: read_alm1(data, FILENAME)),
             ("problems", lambda: problems(data, FILENAME)),
             ("info", lambda: info_lines(data, FILENAME))]
    found, outputs = check_steps(data, steps, Alm1FormatError, FILENAME, TIME_LIMIT)
    model = outputs.get("read_alm1")
    if model is not None:
        try:
            if write_alm1(model) != data:
                found.append("write back: not byte-identical")
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
            read_alm1(data)
            readable += 1
        except Alm1FormatError:
            pass
        if found:
            failures += 1
            print(f"input {runs} (seed {args.seed}, {'; '.join(steps)}): {found}")
    print(f"{runs:,} inputs, {readable:,} read as models, {failures} with problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
