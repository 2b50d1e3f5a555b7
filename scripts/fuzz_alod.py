"""Fuzz the ALOD reader: mutate spec-built meshes of every version and check that only
AlodFormatError comes out, that each read is quick, and that what reads also writes back
byte for byte.

    python scripts/fuzz_alod.py --minutes 1 [--seed 1]
"""

import argparse
import random
import struct
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

from io_alamo.formats.alod import AlodFormatError, read_alod, write_alod  # noqa: E402

INTERESTING = (0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE,
               0xFFFFFFFF, 0x40000000, 0x10000)


def seeds():
    import alod_build
    return [alod_build.build_bytes(v) for v in range(2, 11)]


def mutate(data, rnd):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 3)):
        kind = rnd.randrange(5)
        if not b:
            break
        if kind == 0:                                      # flip a bit
            i = rnd.randrange(len(b))
            b[i] ^= 1 << rnd.randrange(8)
        elif kind == 1 and len(b) >= 4:                    # a word to an interesting value
            i = rnd.randrange(len(b) // 4) * 4
            struct.pack_into(">I", b, i, rnd.choice(INTERESTING))
        elif kind == 2:                                    # truncate
            del b[rnd.randrange(len(b)):]
        elif kind == 3:                                    # repeat a slice
            i = rnd.randrange(len(b))
            j = min(len(b), i + rnd.randrange(1, 64))
            b[i:i] = b[i:j]
        else:                                              # a header count nudged
            i = 8 + 4 * rnd.randrange(10)
            if i + 4 <= len(b):
                v = struct.unpack_from(">I", b, i)[0]
                struct.pack_into(">I", b, i, (v + rnd.choice((-1, 1, 2, 1000))) & 0xFFFFFFFF)
    return bytes(b)


def run(seconds=10.0, iterations=None, seed=0):
    """Stats of one run: inputs, accepted, rejected, unexpected (tracebacks), slowest (CPU s)."""
    rnd = random.Random(seed)
    pool = seeds()
    stats = {"inputs": 0, "accepted": 0, "rejected": 0, "unexpected": [], "slowest": 0.0}
    end = time.monotonic() + seconds if seconds else None
    while (iterations is None or stats["inputs"] < iterations) and \
            (end is None or time.monotonic() < end):
        data = mutate(rnd.choice(pool), rnd)
        stats["inputs"] += 1
        t = time.process_time()   # CPU time: load must not count
        try:
            mesh = read_alod(data)
            if write_alod(mesh) != data:
                stats["unexpected"].append(f"round trip differs: {data[:16].hex()}...")
            stats["accepted"] += 1
        except AlodFormatError:
            stats["rejected"] += 1
        except Exception:                                   # noqa: BLE001 (that is the point)
            stats["unexpected"].append(traceback.format_exc())
        stats["slowest"] = max(stats["slowest"], time.process_time() - t)
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1 / 6, help="how long to run "
                    "(default 10 seconds)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    stats = run(args.minutes * 60, seed=args.seed)
    for text in stats["unexpected"][:5]:
        print(text)
    print(f"{stats['inputs']} inputs: {stats['accepted']} read, {stats['rejected']} refused "
          f"with AlodFormatError, {len(stats['unexpected'])} unexpected; slowest read "
          f"{stats['slowest'] * 1000:.1f} ms")
    return 1 if stats["unexpected"] else 0


if __name__ == "__main__":
    sys.exit(main())
