"""Benchmark: collision-tree build and check time for 100,000 triangles.

Target: build in under one second. Three inputs: random triangles over 50,000 vertices, a
flat grid, and small scattered triangles.

    python scripts/bench_collision.py [--repeat N]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from io_alamo.formats.alamo import build_collision_tree, check_collision_tree  # noqa: E402

TRIANGLES = 100_000
TARGET_S = 1.0


def inputs(rng):
    pos = rng.random((50_000, 3)).astype(np.float32) * 100
    yield "random over 50k vertices", pos, rng.integers(0, len(pos), (TRIANGLES, 3))
    n = 224                                           # 2 * 223^2 = 99,458 triangles
    ys, xs = np.mgrid[0:n, 0:n]
    grid = np.stack([xs.ravel(), ys.ravel(), np.zeros(n * n)], 1).astype(np.float32)
    q = (ys[:-1, :-1] * n + xs[:-1, :-1]).ravel()
    tris = np.concatenate([np.stack([q, q + 1, q + n], 1), np.stack([q + 1, q + n + 1, q + n], 1)])
    yield f"flat grid ({len(tris):,})", grid, tris
    centres = rng.random((TRIANGLES, 1, 3)) * 100
    small = (centres + rng.normal(0, 0.05, (TRIANGLES, 3, 3))).reshape(-1, 3).astype(np.float32)
    yield "small scattered", small, np.arange(3 * TRIANGLES).reshape(-1, 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    ok = True
    for label, pos, tris in inputs(np.random.default_rng(0)):
        build, check = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            tree = build_collision_tree(pos, tris)
            build.append(time.perf_counter() - t)
            t = time.perf_counter()
            problems = check_collision_tree(tree, pos, tris)
            check.append(time.perf_counter() - t)
        b = statistics.median(build)
        ok &= b < TARGET_S and not problems
        print(f"{label}: {len(tris):,} triangles -> {len(tree.nodes):,} nodes; build "
              f"{b:.3f} s, check {statistics.median(check):.3f} s, problems {len(problems)}")
    print(f"target build < {TARGET_S:.0f} s: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
