"""Benchmark: decode and re-encode throughput of the format layer (MB/s).

Measures read (bytes -> records) and write (records -> bytes) over the shared corpus
(../shared/corpus, skipped with a message when absent) and over a generated model of about
1,000,000 triangles. Target: at least 100 MB/s each way.

    python scripts/bench_formats.py [--repeat N]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from io_alamo.formats.alamo import (VERTEX_DTYPE, Bone, Connections, Material, Mesh, Model,
                                    ObjectConnection, ParamType, ShaderParam, Skeleton, SubMesh,
                                    read_any, write_alo)  # noqa: E402
from io_alamo.formats.alamo.files import encode  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
TARGET_MB_S = 100.0


def grid_submesh(n, z):
    """An n x n vertex grid: (n-1)^2 * 2 triangles."""
    ys, xs = np.mgrid[0:n, 0:n]
    v = np.zeros(n * n, VERTEX_DTYPE)
    v["position"][:, 0] = xs.ravel()
    v["position"][:, 1] = ys.ravel()
    v["position"][:, 2] = z
    v["normal"][:, 2] = 1
    v["uv"][:, 0, 0] = xs.ravel() / (n - 1)
    v["uv"][:, 0, 1] = ys.ravel() / (n - 1)
    v["tangent"][:, 0] = 1
    v["binormal"][:, 1] = 1
    v["color"] = 1
    v["unused"] = 1
    v["bone_weights"][:, 0] = 1
    q = (ys[:-1, :-1] * n + xs[:-1, :-1]).ravel()
    tris = np.concatenate([np.stack([q, q + 1, q + n], 1), np.stack([q + 1, q + n + 1, q + n], 1)])
    mat = Material("MeshBumpColorize.fx", [
        ShaderParam("BaseTexture", ParamType.TEXTURE, "grid.dds"),
        ShaderParam("Specular", ParamType.FLOAT4, np.array([1, 1, 1, 1], "<f4")),
    ])
    return SubMesh(mat, "alD3dVertNU2U3U3", v, tris.astype("<u2"))


def generated_model(triangles=1_000_000):
    n = 255                                   # 65,025 vertices, 129,032 triangles
    per = 2 * (n - 1) ** 2
    count = -(-triangles // per)
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]
    mesh = Mesh("Grid", [grid_submesh(n, float(k)) for k in range(count)])
    conn = Connections(objects=[ObjectConnection(0, 0)])
    return Model(Skeleton(bones), [mesh], conn)


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(label, blobs, repeat):
    total = sum(len(b) for b in blobs)
    objs = [read_any(b) for b in blobs]
    t_read = timed(lambda: [read_any(b) for b in blobs], repeat)
    t_write = timed(lambda: [encode(o) for o in objs], repeat)
    same = all(encode(o) == b for o, b in zip(objs, blobs))
    mb = total / 1e6
    print(f"{label}: {len(blobs)} file(s), {mb:.1f} MB; read {mb / t_read:,.0f} MB/s "
          f"({t_read * 1e3:.1f} ms), write {mb / t_write:,.0f} MB/s ({t_write * 1e3:.1f} ms); "
          f"byte-identical: {same}")
    return mb / t_read, mb / t_write, same


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    results = []
    if CORPUS.is_dir():
        files = sorted(p for p in CORPUS.iterdir() if p.suffix.lower() in (".alo", ".ala"))
        results.append(measure("corpus", [p.read_bytes() for p in files], args.repeat))
    else:
        print(f"corpus: skipped, {CORPUS} not found")
    model = generated_model()
    tris = sum(len(s.indices) for s in model.meshes[0].submeshes)
    results.append(measure(f"generated model ({tris:,} triangles)", [write_alo(model)],
                           args.repeat))
    ok = all(r >= TARGET_MB_S and w >= TARGET_MB_S and same for r, w, same in results)
    print(f"target {TARGET_MB_S:.0f} MB/s each way: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
