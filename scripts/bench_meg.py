"""Benchmark: listing a ~300 MB MEG v1 archive and reading one member of it.

Builds the archive in a temporary folder (random-looking members of 20-80 KB under
``DATA\\ART\\...``, laid out as the games' own: names sorted, records by CRC), then times
opening it (reading the index, which is all ``io-alamo meg list`` needs) and reading one
member. The memory the reader holds stays at the index: a member is read on its own.

    python scripts/bench_meg.py [--mb 300] [--repeat 5]
"""

import argparse
import os
import statistics
import struct
import sys
import tempfile
import time
import tracemalloc
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from io_alamo.formats.alamo.meg import MegArchive  # noqa: E402


def build(path, total_mb, seed=28):
    """Write an archive of about ``total_mb`` MB; returns (file count, one member's name)."""
    rng = np.random.default_rng(seed)
    sizes = []
    while sum(sizes) < total_mb * 1_000_000:
        sizes.append(int(rng.integers(20_000, 80_000)))
    folders = ("DATA\\ART\\MODELS\\", "DATA\\ART\\TEXTURES\\", "DATA\\AUDIO\\SFX\\")
    names = [f"{folders[k % 3]}FILE_{k:05d}.BIN" for k in range(len(sizes))]
    crcs = [zlib.crc32(n.encode()) for n in names]
    order = sorted(range(len(names)), key=lambda k: crcs[k])
    sorted_names = sorted(names)
    name_index = {n: i for i, n in enumerate(sorted_names)}
    head = struct.pack("<II", len(names), len(names))
    head += b"".join(struct.pack("<H", len(n)) + n.encode() for n in sorted_names)
    start = len(head) + 20 * len(names)
    records = bytearray()
    for pos, k in enumerate(order):
        records += struct.pack("<5I", crcs[k], pos, sizes[k], start, name_index[names[k]])
        start += sizes[k]
    block = rng.integers(0, 256, 1 << 20, dtype=np.uint8).tobytes()
    with open(path, "wb") as f:
        f.write(head)
        f.write(records)
        for k in order:
            f.write(block[:sizes[k]])
    return len(names), names[len(names) // 2]


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, default=300, help="archive size in MB (default 300)")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="io_alamo-bench-meg-") as tmp:
        path = os.path.join(tmp, "Big.meg")
        t = time.perf_counter()
        count, member = build(path, args.mb)
        size = os.path.getsize(path)
        print(f"built {path}: {size / 1e6:,.1f} MB, {count:,} files "
              f"in {time.perf_counter() - t:.1f} s")
        med, best, meg = timed(lambda: MegArchive(path), args.repeat)
        tracemalloc.start()
        MegArchive(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"list (open + index of {len(meg):,} files): median {med * 1000:.1f} ms, "
              f"best {best * 1000:.1f} ms; peak Python memory {peak / 1e6:.1f} MB")
        entry = meg.find(member)
        med, best, data = timed(lambda: meg.read(entry), args.repeat)
        print(f"read one member ({entry.size:,} bytes): median {med * 1000:.2f} ms, "
              f"best {best * 1000:.2f} ms")
        med, best, data = timed(lambda: MegArchive(path).read(member), args.repeat)
        print(f"open + read one member by name: median {med * 1000:.1f} ms")
        assert len(data) == entry.size


if __name__ == "__main__":
    main()
