"""Benchmark: ALOD mesh read, write and levels of detail (collapses applied) on grids of
growing size, to show the collapse walk stays linear. Times are CPU seconds of this process. With bpy importable, also the Blender
import of the largest grid.

    python scripts/bench_alod.py [--sizes 100 200 400]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from io_alamo.formats.alod import (AlodMesh, Collapses, Material, VectorSet, Vertices, bone_dtype,
                                   collapse_vertex_maps, component_dtype, edge_collapse_dtype,
                                   lod_stops, lod_triangles, read_alod, triangle_dtype, write_alod)  # noqa: E402

VERSION = 10


def grid_mesh(g):
    """A g x g grid on one bone; collapses fold each row onto its first column."""
    n = g * g
    bones = np.zeros(1, bone_dtype(VERSION))
    bones["parent"] = -1
    bones["transform"] = np.eye(4).ravel()
    comp = np.zeros(n, component_dtype(VERSION))
    ij = np.indices((g, g)).reshape(2, -1).T.astype(np.float64)
    comp["coords"] = np.column_stack([ij[:, 1], ij[:, 0], np.zeros(n), np.ones(n)])
    positions = VectorSet(np.ones(n, ">u4"), comp)
    empty = VectorSet(np.zeros(n, ">u4"), np.zeros(0, component_dtype(VERSION)))
    vertices = Vertices(np.arange(n, dtype=">u4"), (ij[:, ::-1] / g).astype(">f4"),
                        (empty, empty))
    i, j = np.meshgrid(np.arange(g - 1), np.arange(g - 1), indexing="ij")
    a = (i * g + j).ravel()
    tris = np.zeros(2 * len(a), triangle_dtype())
    tris["vertices"][0::2] = np.column_stack([a, a + 1, a + g + 1])
    tris["vertices"][1::2] = np.column_stack([a, a + g + 1, a + g])
    rows, cols = np.meshgrid(np.arange(g), np.arange(1, g), indexing="ij")
    order = np.argsort(cols.ravel(), kind="stable")          # column by column, all rows
    edges = np.zeros(g * (g - 1), edge_collapse_dtype(VERSION))
    edges["p1"] = (rows * g).ravel()[order]
    edges["p2"] = (rows * g + cols).ravel()[order]
    edges["vl"] = edges["vr"] = edges["p1"]
    edges["error"] = np.arange(len(edges), dtype=np.float64) + 1.0
    collapses = Collapses(np.zeros(len(edges), bool), edges, np.zeros(0, ">u4"),
                          np.zeros((0, 2), ">u4"), np.zeros(0, ">f4"))
    return AlodMesh(VERSION, [], bones, positions, vertices, [], [], [Material(-1, -1)], tris,
                    collapses, np.zeros((0, 1, 16), ">f4"), np.float32(30.0), 0)


def timed(fn):
    """(result, CPU seconds of this process): the machine may be shared, wall time is not
    ours alone."""
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400])
    args = ap.parse_args()
    data = None
    for g in args.sizes:
        data = write_alod(grid_mesh(g))
        mesh, t_read = timed(lambda: read_alod(data))
        _, t_write = timed(lambda: write_alod(mesh))
        stops = lod_stops(mesh.collapses.errors())
        maps, t_lod = timed(lambda: collapse_vertex_maps(mesh, [k for k, _ in stops]))
        tris = [len(lod_triangles(mesh, m)[0]) for m in maps]
        print(f"grid {g} x {g}: {len(mesh.triangles):,} triangles, {len(mesh.collapses):,} "
              f"collapses, {len(data) / 1e6:.1f} MB; read {t_read:.3f} s, write {t_write:.3f} s, "
              f"3 levels {t_lod:.3f} s ({1e6 * t_lod / max(stops[-1][0], 1):.2f} us per "
              f"collapse; triangles {tris})")
    try:
        import bpy
    except ImportError:
        return
    import io_alamo
    from io_alamo.blender.alod.importer import import_alod
    io_alamo.register()
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "grid.alm"
            path.write_bytes(data)
            bpy.ops.wm.read_factory_settings(use_empty=True)
            res, t = timed(lambda: import_alod(bpy.context, str(path)))
            print(f"Blender {bpy.app.version_string} import of the last grid: {t:.2f} s "
                  f"({res.summary()})")
    finally:
        io_alamo.unregister()


if __name__ == "__main__":
    main()
