"""Fuzz the PAA/PAC texture reader: mutated textures may only raise PaaFormatError, quickly
and without a huge allocation, whatever mipmap ``max_side`` asks for.

Seeds: mipmapped DXT1 and DXT5 textures, plain and LZO-compressed, built from the published
layout by ``tests/paa_build.py`` (square and oblong chains, down to 4 and to 1 pixel), two
16/32-bit colour ones (raw and LZSS) and, when present, the ``.paa``/``.pac`` files under
``../shared/corpus-odol`` (read at run time, never copied). Each input is a seed with one to
four mutations: fuzz_p3d.py's byte-level ones (bit flips, bytes set to 0x00/0xFF/0x7F/0x80,
32-bit words set to extreme counts, cuts, bytes inserted or removed) and mipmap headers'
width, height or 24-bit length set to an extreme. Every input is read with ``max_side`` None,
16, 4 and 1; each read must finish within a second of CPU (a watchdog stops a hang) and
allocate at most ``max(128 MB, 50 x the input)`` (fuzz.py's budget, traced).

    python scripts/fuzz_paa.py --minutes 1 [--seed S] [--out DIR]

Prints what it ran and every failure; exits 1 if there was one. Failing inputs are written
to ``--out DIR`` when given.
"""

import random
import struct
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests"), str(ROOT / "scripts")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import paa_build as pab  # noqa: E402
from fuzz import _limit_address_space, check_steps  # noqa: E402
import fuzz_p3d  # noqa: E402
from fuzz_p3d import mutate as mutate_bytes, report  # noqa: E402

from io_alamo.formats.arma.paa import PaaFormatError, read_paa  # noqa: E402

FILENAME = "fuzz-input.paa"
CORPUS = ROOT.parent / "shared" / "corpus-odol"
SIDES = (None, 16, 4, 1)
TIME_LIMIT = 1.0
SIDE_EXTREMES = (0, 1, 3, 4, 5, 0x7FFF, 0x8000, 0x8004, 0xFFFF, 8192, 8193)
LENGTH_EXTREMES = (0, 1, 7, 0x7FFFFF, 0xFFFFFF)


def _chain(kind, w, h, smallest, compress, seed):
    levels = []
    while w >= smallest and h >= smallest:
        blocks = ((w + 3) // 4) * ((h + 3) // 4)
        levels.append((w, h, pab.random_blocks(kind, blocks, seed + len(levels))))
        w, h = max(w // 2, 1), max(h // 2, 1)
        if levels[-1][:2] == (w, h):
            break
    (w0, h0, d0), *more = levels
    return pab.build_paa(kind, w0, h0, d0, compress=compress, more=more)


def seeds():
    out = [_chain(kind, w, h, smallest, compress, seed)
           for kind in (pab.DXT1, pab.DXT5) for compress in (False, True)
           for seed, (w, h, smallest) in enumerate(((64, 64, 4), (128, 32, 1)))]
    for kind, size in ((pab.ARGB8888, 4), (pab.ARGB4444, 2)):
        pixels = bytes(random.Random(kind).randrange(256) for _ in range(16 * 16 * size))
        out += [pab.build_paa(kind, 16, 16, pixels, compress=c) for c in (False, True)]
    if CORPUS.is_dir():
        out += [p.read_bytes() for p in sorted(CORPUS.rglob("*"))
                if p.suffix.lower() in (".paa", ".pac") and p.stat().st_size < 400_000]
    return out


def _level_headers(data):
    """Offsets of the mipmap headers (width, height, 24-bit length) as the file states them."""
    pos = 2
    while data[pos:pos + 4] == b"GGAT" and pos + 12 <= len(data):
        pos += 12 + struct.unpack_from("<I", data, pos + 8)[0]
    if pos + 2 > len(data):
        return []
    pos += 2 + 3 * struct.unpack_from("<H", data, pos)[0]
    found = []
    while pos + 7 <= len(data):
        found.append(pos)
        w, h = struct.unpack_from("<HH", data, pos)
        if not (w and h):
            break
        pos += 7 + int.from_bytes(data[pos + 4:pos + 7], "little")
    return found


def mutate_level(data, rng):
    """A mipmap header's width, height or length set to an extreme (or the seed unchanged)."""
    heads = _level_headers(data)
    if not heads:
        return data
    at, field = rng.choice(heads), rng.randrange(3)
    data = bytearray(data)
    if field < 2:
        data[at + 2 * field:at + 2 * field + 2] = struct.pack("<H", rng.choice(SIDE_EXTREMES))
    else:
        size = int.from_bytes(data[at + 4:at + 7], "little")
        value = rng.choice(LENGTH_EXTREMES + (size - 1, size + 1)) & 0xFFFFFF
        data[at + 4:at + 7] = value.to_bytes(3, "little")
    return bytes(data)


def mutate(data, rng):
    if rng.randrange(3) == 0:
        data = mutate_level(data, rng)
        return mutate_bytes(data, rng) if rng.randrange(2) else data
    return mutate_bytes(data, rng)


def run_one(data):
    """(problems, how many of the reads gave a texture)."""
    steps = [(f"read_paa max_side={side}",
              lambda side=side: read_paa(data, FILENAME, max_side=side)) for side in SIDES]
    found, outputs = check_steps(data, steps, PaaFormatError, FILENAME, TIME_LIMIT)
    for name, tex in outputs.items():
        if tex.rgba.shape != (tex.height, tex.width, 4):
            found.append(f"{name}: pixels {tex.rgba.shape} for {tex.width} x {tex.height}")
    return found, len(outputs)


def run(seconds, seed, save):
    _limit_address_space(4)
    rng = random.Random(seed)
    pool = seeds()
    end = time.monotonic() + seconds
    counts = {"inputs": 0, "reads": 0, "textures": 0, "format errors": 0}
    slowest, failures = 0.0, []
    while time.monotonic() < end:
        data = mutate(rng.choice(pool), rng)
        t = time.process_time()
        found, read = run_one(data)
        slowest = max(slowest, (time.process_time() - t) / len(SIDES))
        counts["inputs"] += 1
        counts["reads"] += len(SIDES)
        counts["textures"] += read
        counts["format errors"] += len(SIDES) - read - len(found)
        if found:
            failures.append((found, data))
    print(f"{len(pool)} seeds; " + ", ".join(f"{v:,} {k}" for k, v in counts.items())
          + f"; slowest read {slowest * 1000:.1f} ms of CPU; {len(failures)} failures")
    return report(failures, save, f"paa_fuzz_{seed}_{{}}.paa")


def main(argv=None):
    return fuzz_p3d.main(argv, run=run, doc=__doc__)


if __name__ == "__main__":
    sys.exit(main())
