"""Alithia ALM1 timings: read/write in the format layer, and (with bpy) Blender import, an
unedited export (the kept bytes), an edited export (rebuilt from shape keys).

    .venv/bin/python scripts/bench_alm.py [--vertices 65535] [--frames 40]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import alm1build  # noqa: E402
import numpy as np  # noqa: E402

from io_alamo.formats.alithia.alm1 import read_alm1, write_alm1  # noqa: E402

try:
    import bpy
except ImportError:
    bpy = None
if bpy is not None:
    import io_alamo
    from io_alamo.blender.alithia.exporter import export_alm1
    from io_alamo.blender.alithia.importer import import_alm1


def timed(fn, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def big_file(vertices, frames):
    """A grid of about ``vertices`` vertices animated over ``frames`` frames."""
    size = int(np.sqrt(vertices)) - 1
    return alm1build.wave_grid(frames, size=size).data


def blender_timings(data, folder):
    io_alamo.register()
    try:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        path = os.path.join(folder, "bench.alm")
        Path(path).write_bytes(data)
        t, result = timed(lambda: import_alm1(bpy.context, path))
        print(f"Blender import: {t:.3f} s ({result.summary()})")
        out = os.path.join(folder, "out.alm")
        t, _ = timed(lambda: export_alm1(bpy.context, out))
        print(f"Blender export, unedited (kept bytes, fingerprint checked): {t:.3f} s")
        kb = result.object.data.shape_keys.key_blocks[1]
        kb.data[0].co.x += 1.0
        t, res = timed(lambda: export_alm1(bpy.context, out))
        print(f"Blender export, edited (rebuilt from {len(kb.id_data.key_blocks)} shape keys):"
              f" {t:.3f} s ({res.summary()})")
    finally:
        io_alamo.unregister()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vertices", type=int, default=65_535)
    ap.add_argument("--frames", type=int, default=40)
    args = ap.parse_args()
    data = big_file(args.vertices, args.frames)
    mb = len(data) / 1e6
    t, model = timed(lambda: read_alm1(data), 5)
    print(f"{model.vertex_count:,} vertices, {model.face_count:,} triangles, "
          f"{model.frame_count} frames: {mb:.1f} MB")
    print(f"read_alm1: {t * 1000:.1f} ms ({mb / t:.0f} MB/s)")
    t, _ = timed(lambda: write_alm1(model), 5)
    print(f"write_alm1: {t * 1000:.1f} ms ({mb / t:.0f} MB/s)")
    if bpy is not None:
        with tempfile.TemporaryDirectory() as folder:
            blender_timings(data, folder)


if __name__ == "__main__":
    main()
