"""Read and write speed of particle effects (issue 33): a spec-built system of many emitters
with keyed tracks, and the real particle files when ../shared/corpus-particles exists.

    python scripts/bench_particles_io.py [--emitters N] [--keys K] [--repeat R]

Prints, per input, the file size, the best-of-R time to read (bytes to records), to write
back unedited (records to bytes, byte-identical) and to write after editing every emitter's
lifetime, and the emitters per second those give.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import particle_build as pb  # noqa: E402

from io_alamo.formats.alamo.particles import read_particles  # noqa: E402
from io_alamo.formats.alamo.particles.write import write_particles  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus-particles"


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def big_system(emitters, keys):
    track = [(i % 256, (i + 1) / (keys + 2)) for i in range(keys)]
    ftrack = [(float(i), (i + 1) / (keys + 2)) for i in range(keys)]
    specs = [pb.emitter(f"e{i}", index=i, lifetime=1.0 + i % 7, tracks={
        "red": (255, 0, 0, track), "alpha": (255, 0, 1, track), "size": (1.0, 9.0, 0, ftrack)},
        extra_minis=[(73, b"\0\0\0\0")]) for i in range(emitters)]
    return pb.particle_system("p_bench", specs)[0]


def bench(name, data, repeat):
    t_read, system = best(lambda: read_particles(data), repeat)
    t_write, out = best(lambda: write_particles(system), repeat)
    assert out == data, f"{name}: not byte-identical"
    for e in system.emitters:
        e.lifetime = float(e.lifetime) + 0.25
        e.sync_lifetime_group()
    t_edit, _ = best(lambda: write_particles(system), repeat)
    n = len(system.emitters)
    print(f"{name:36s} {len(data):>9,} B {n:>5} emitters  read {t_read * 1e3:8.2f} ms "
          f"({n / t_read:9,.0f} em/s)  write {t_write * 1e3:8.2f} ms "
          f"({n / t_write:9,.0f} em/s)  edited write {t_edit * 1e3:8.2f} ms")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--emitters", type=int, default=500)
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    bench(f"spec-built, {args.emitters} x {args.keys} keys", big_system(args.emitters,
                                                                           args.keys),
          args.repeat)
    if CORPUS.is_dir():
        for p in sorted(CORPUS.iterdir()):
            if p.suffix.lower() == ".alo":
                bench(p.name, p.read_bytes(), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
