"""How long the readers take to refuse hostile input: the timings the test suite used to
assert (issue 36 moved them here; tests assert behaviour, never wall-clock time).

    python scripts/bench_hostile.py          (the format layer; any Python with numpy)

Each line: the case, the slowest of its runs, the target; exit status 1 if a target is missed.
"""

import random
import struct
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import alm1build as ab  # noqa: E402
import specbuild as sb  # noqa: E402

from io_alamo.formats.alamo import AlamoFormatError, read_any  # noqa: E402
from io_alamo.formats.alamo.chunks import MAX_CHUNKS, MAX_MINIS  # noqa: E402
from io_alamo.formats.alithia.alm1 import Alm1FormatError, read_alm1  # noqa: E402
from io_alamo.formats.errors import FormatError  # noqa: E402


def slowest(make_inputs, read, errors=(FormatError,)):
    worst = 0.0
    for data in make_inputs():
        t = time.perf_counter()
        try:
            read(data)
        except errors:
            pass
        worst = max(worst, time.perf_counter() - t)
    return worst


def _chunk(ctype, body, container=False):
    return struct.pack("<II", ctype, len(body) | (0x80000000 if container else 0)) + body


def tiny_chunks():
    yield _chunk(0x200, b"") * (MAX_CHUNKS + 1)
    minis = _chunk(0x600, _chunk(0x601, b"\x63\x00" * (MAX_MINIS + 1)), container=True)
    yield _chunk(0x200, _chunk(0x201, bytes(128)), container=True) + minis


def huge_alm1_counts():
    for counts in [(0xFFFFFFFF,) * 3, (0xFFFFFFFF, 1, 1), (1, 0xFFFFFFFF, 1), (1, 1, 0xFFFFFFFF),
                   (2**31, 0, 2)]:
        yield ab.huge_counts(*counts)


def mutated_alamo(n=300):
    rng = random.Random(5)
    seeds = [getattr(sb, name)()[0] for name in sb.ALL_FIXTURES]
    for _ in range(n):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randrange(1, 5)):
            i = rng.randrange(len(data))
            data[i:i + 4] = rng.choice([b"\xff\xff\xff\x7f", b"\0\0\0\0", b"\x01\0\0\x80"])
        yield bytes(data)


CASES = [
    ("Alamo: 100,001 empty chunks / mini-chunks refused at the caps", tiny_chunks,
     lambda d: read_any(d, filename="x.alo"), 2.0),
    ("ALM1: counts of 4 billion refused before allocating", huge_alm1_counts,
     lambda d: read_alm1(d, "huge.alm"), 0.5),
    ("Alamo: 300 mutated files, slowest read", mutated_alamo,
     lambda d: read_any(d, filename="fuzz.alo"), 1.0),
]


def main():
    missed = 0
    for name, inputs, read, target in CASES:
        worst = slowest(inputs, read, (FormatError, AlamoFormatError, Alm1FormatError))
        ok = worst <= target
        missed += not ok
        print(f"{name}: {worst * 1000:.1f} ms (target {target * 1000:.0f} ms)"
              f"{'' if ok else '  MISSED'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
