"""Benchmark: reading and importing the largest binarized P3D sample (../shared/corpus-odol).

Times, best of a few runs: ``read_p3d`` (decompression and parsing, no Blender), the LZO or
LZSS decompression inside it, and ``import_p3d`` into an empty Blender scene (reading
included); and, as a yardstick, bare Blender mesh construction from the same, already
prepared arrays (points, faces, one UV layer, custom normals) with nothing else.

Run with a Python that has the bpy wheel:  .venv/bin/python scripts/bench_p3d.py [FILE]
(without bpy only the reader is timed).
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from io_alamo.scratch import blender_user_resources  # noqa: E402
blender_user_resources()

import numpy as np  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.formats.arma import binary, lzo, lzss, read_p3d  # noqa: E402

try:
    import bpy  # noqa: E402

    from io_alamo.blender.arma.importer import import_p3d  # noqa: E402
except ImportError:
    bpy = None

CORPUS = ROOT.parent / "shared" / "corpus-odol"
RUNS = 3


def best(fn, runs=RUNS, clock=time.perf_counter):
    times = []
    for _ in range(runs):
        t = clock()
        fn()
        times.append(clock() - t)
    return min(times)


def decompression_time(data):
    """Seconds spent in the decompressors during one read, and the bytes they produced."""
    spent = [0.0, 0]
    codecs = {lzo: lzo.decompress, lzss: lzss.decompress}

    def timed(real):
        def run(src, pos, size):
            t = time.process_time()
            out = real(src, pos, size)
            spent[0] += time.process_time() - t
            spent[1] += size
            return out
        return run
    for mod, real in codecs.items():
        setattr(getattr(binary, mod.__name__.rsplit(".", 1)[1]), "decompress", timed(real))
    try:
        read_p3d(data)
    finally:
        for mod, real in codecs.items():
            mod.decompress = real
    return spent


def bare_meshes(model):
    """Blender meshes from prepared arrays: the floor any importer stands on."""
    prepared = []
    for lod in model.lods:
        sizes = lod.faces.sizes.astype(np.int32)
        loops = lod.faces.indices.astype(np.int32)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
        co = np.ascontiguousarray(lod.vertices[:, [0, 2, 1]]).ravel()
        normals = np.ascontiguousarray(lod.normals[:, [0, 2, 1]][loops])
        uv = np.ascontiguousarray(lod.uv_sets[0][loops]).ravel() if len(loops) else None
        prepared.append((co, loops, starts, normals, uv))

    def build():
        made = []
        for co, loops, starts, normals, uv in prepared:
            me = bpy.data.meshes.new("bare")
            me.vertices.add(len(co) // 3)
            me.vertices.foreach_set("co", co)
            me.loops.add(len(loops))
            me.loops.foreach_set("vertex_index", loops)
            me.polygons.add(len(starts))
            me.polygons.foreach_set("loop_start", starts)
            me.update(calc_edges=True)
            if uv is not None:
                me.uv_layers.new(name="UV").data.foreach_set("uv", uv)
                att = me.attributes.new("custom_normal", "FLOAT_VECTOR", "CORNER")
                att.data.foreach_set("vector", normals.ravel())
            made.append(me)
        for me in made:
            bpy.data.meshes.remove(me)
    return build


def main(argv):
    path = Path(argv[0]) if argv else max(CORPUS.rglob("*.p3d"), key=lambda p: p.stat().st_size)
    data = path.read_bytes()
    model = read_p3d(data)
    faces = sum(len(lod.faces) for lod in model.lods)
    verts = sum(len(lod.vertices) for lod in model.lods)
    print(f"{path.name}: {len(data):,} bytes, ODOL v{model.version}, {len(model.lods)} LODs, "
          f"{verts:,} vertices, {faces:,} faces")
    t_read = best(lambda: read_p3d(data))
    cpu_read = best(lambda: read_p3d(data), clock=time.process_time)
    spent, produced = decompression_time(data)
    print(f"read_p3d: {t_read:.3f} s wall, {cpu_read:.3f} s CPU (decompression "
          f"{spent:.3f} s CPU for {produced / 1e6:.2f} MB, {produced / 1e6 / max(spent, 1e-9):.1f} MB/s)")
    if bpy is None:
        print("no bpy: import not timed")
        return 0
    io_alamo.register()
    try:
        def one_import():
            bpy.ops.wm.read_factory_settings(use_empty=True)
            import_p3d(bpy.context, str(path))
        t_import = best(one_import)
        cpu_import = best(one_import, clock=time.process_time)
        bpy.ops.wm.read_factory_settings(use_empty=True)
        t_bare = best(bare_meshes(model))
        cpu_bare = best(bare_meshes(model), clock=time.process_time)
    finally:
        io_alamo.unregister()
    print(f"import_p3d: {t_import:.3f} s wall, {cpu_import:.3f} s CPU (reading included); "
          f"bare mesh construction {t_bare:.3f} s wall, {cpu_bare:.3f} s CPU; import minus "
          f"read = {(cpu_import - cpu_read) / cpu_bare:.2f}x bare (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
