"""Benchmark: reading and importing binarized P3D models, against a 300,000-triangle .alo.

Two models: the largest sample in ../shared/corpus-odol (if there), and a spec-built truck
(tests/p3d_vehicle.py: cab, cargo box, a proxied frame and four proxied wheels, and 19
LZO-compressed DXT textures, 4 of 2048 x 2048 and 15 of 1024 x 1024 pixels, about the held-out
truck's), built once into .cache/bench_p3d. For each: ``read_p3d`` (decompression and
parsing, no Blender), ``import_p3d`` into an empty scene (reading, parts and textures
included), and the share of the import spent on textures (finding, decoding, making
images). The yardstick is ``import_alo`` of a generated 300,000-triangle model (4 sub-meshes
of 37,249 vertices; 2 UV sets, skinned) in the same run. Target (issue 35): the truck in
under 2x the .alo's time.

    .venv/bin/python scripts/bench_p3d.py [FILE.p3d] [--pure] [--preview]

Issue 43 adds a third model, the held-out truck's size: the spec-built truck with a dense
hull (143,000 triangles in all), 30 textures (4 of 2048 x 2048) and its frame binarised with
autocenter (target: its import under 1.5x the .alo's). ``--preview`` also runs ``python -m
io_alamo.batch import`` on it in a child process, once without and once with ``--preview``,
and prints each one's seconds and peak memory (issue 44 point 5: a preview near the cost of
the import).

``--pure`` (or IO_ALAMO_PURE=1) forces the pure Python/numpy decoders; BENCH_P3D_ROOT=DIR
imports io_alamo from DIR instead (to time an older checkout with the same models).
"""

import os
import sys
import time
from pathlib import Path

if "--pure" in sys.argv:
    os.environ["IO_ALAMO_PURE"] = "1"
ROOT = Path(__file__).resolve().parents[1]
PACKAGE_ROOT = Path(os.environ.get("BENCH_P3D_ROOT", ROOT))
sys.path.insert(0, str(PACKAGE_ROOT))
sys.path.insert(1, str(ROOT / "tests"))
try:
    from io_alamo.scratch import blender_user_resources  # noqa: E402
    blender_user_resources()
except ImportError:                  # an older checkout (BENCH_P3D_ROOT) has no scratch module
    import tempfile
    os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp())

import numpy as np  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.formats.alamo import (VERTEX_DTYPE, Bone, Connections, Material, Mesh, Model,  # noqa: E402
                                    ObjectConnection, ParamType, ShaderParam, Skeleton, SubMesh,
                                    save)
from io_alamo.formats.arma import read_p3d  # noqa: E402

try:
    import bpy  # noqa: E402

    from io_alamo.blender.alamo.importer.alo import import_alo  # noqa: E402
    from io_alamo.blender.arma import textures as arma_textures  # noqa: E402
    from io_alamo.blender.arma.importer import import_p3d  # noqa: E402
except ImportError:
    bpy = None

CORPUS = ROOT.parent / "shared" / "corpus-odol"
CACHE = ROOT / ".cache" / "bench_p3d"
RUNS = 3
GRID = 193                    # 37,249 vertices, 73,728 triangles per sub-mesh


def best(fn, runs=RUNS):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def paired(fn, yardstick, runs=RUNS + 2):
    """Best times of ``fn`` and ``yardstick`` run in turn, so that a machine whose load
    changes during the run weighs on both alike (the ratio is what the targets judge)."""
    a, b = [], []
    for _ in range(runs):
        for f, times in ((fn, a), (yardstick, b)):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
    return min(a), min(b)


def truck():
    """The spec-built truck (built once)."""
    path = CACHE / "truck" / "truck.p3d"
    if not path.exists():
        from p3d_vehicle import build_vehicle
        print("building the truck and its textures (once) ...", flush=True)
        build_vehicle(CACHE / "truck", textures=19, side=1024, big_side=2048, big=4)
    return path


def truck_143k():
    """The held-out truck's size (built once: its hull takes the builder ~20 s). Its folder
    is named ``truck`` as the other's: its proxies' paths (``\\test_mod\\truck\\frame``)
    would otherwise find the other truck's parts by the longer matching tail."""
    path = CACHE / "truck143k" / "truck" / "truck.p3d"
    if not path.exists():
        from p3d_vehicle import build_vehicle
        print("building the 143k-triangle truck and 30 textures (once) ...", flush=True)
        build_vehicle(path.parent, textures=30, side=1024, big_side=2048, big=4,
                      centred=True, hull=143_000)
    return path


def batch_import(path, preview):
    """(seconds, peak resident MB) of ``io_alamo.batch import`` of ``path`` in a child (run
    by a small parent of its own, so that each run's peak is its own)."""
    import subprocess
    import tempfile
    out = tempfile.mkdtemp(prefix="bench_p3d_")
    cmd = [sys.executable, "-m", "io_alamo.batch", "import", str(path), "--out", out]
    if preview:
        cmd.append("--preview")
    parent = ("import resource, subprocess, sys; "
              "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", parent] + cmd, check=True,
                          cwd=str(PACKAGE_ROOT), capture_output=True, text=True)
    seconds = time.perf_counter() - t
    return seconds, int(done.stdout.split()[-1]) / 1024.0


def alo_300k():
    """A generated .alo of 294,912 triangles (built once)."""
    path = CACHE / "grid_300k.alo"
    if path.exists():
        return path
    rng = np.random.default_rng(0)
    subs = []
    for z in range(4):
        ys, xs = np.mgrid[0:GRID, 0:GRID]
        v = np.zeros(GRID * GRID, VERTEX_DTYPE)
        v["position"] = np.stack([xs.ravel(), ys.ravel(), np.full(GRID * GRID, z)], 1)
        v["normal"] = [0, 0, 1]
        for k in range(2):
            v["uv"][:, k, 0] = xs.ravel() / (GRID - 1)
            v["uv"][:, k, 1] = ys.ravel() / (GRID - 1)
        v["bone_indices"][:, 0] = 0
        v["bone_weights"][:, 0] = 1
        q = (ys[:-1, :-1] * GRID + xs[:-1, :-1]).ravel()
        tris = np.concatenate([np.stack([q, q + 1, q + GRID], 1),
                               np.stack([q + 1, q + GRID + 1, q + GRID], 1)])
        mat = Material("RSkinGloss.fx", [ShaderParam("BaseTexture", ParamType.TEXTURE, "x.dds")])
        subs.append(SubMesh(mat, "alD3dVertRSkinNU2", v, tris.astype("<u2"),
                            bone_map=np.arange(1, 2, dtype="<u4")))
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4")), Bone("B", 0, np.eye(3, 4, dtype="<f4"))]
    model = Model(Skeleton(bones), [Mesh("Big", subs)], Connections(objects=[ObjectConnection(0, 0)]))
    CACHE.mkdir(parents=True, exist_ok=True)
    save(model, str(path))
    return path


def texture_seconds(path):
    """Seconds of one import spent in the texture finder and image making."""
    spent = [0.0]
    real = arma_textures.image_for

    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            spent[0] += time.perf_counter() - t
    from io_alamo.blender.arma import materials
    materials.image_for = timed
    try:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        import_p3d(bpy.context, str(path))
    finally:
        materials.image_for = real
    return spent[0]


def one_model(path):
    data = path.read_bytes()
    model = read_p3d(data)
    faces = sum(len(lod.faces) for lod in model.lods)
    print(f"{path.name}: {len(data):,} bytes, ODOL v{model.version}, {len(model.lods)} LODs, "
          f"{faces:,} faces")
    t_read = best(lambda: read_p3d(data))
    print(f"  read_p3d {t_read:.3f} s")
    if bpy is None:
        return None

    def one_import():
        bpy.ops.wm.read_factory_settings(use_empty=True)
        import_p3d(bpy.context, str(path))
    t_import = best(one_import)
    t_tex = texture_seconds(path)
    print(f"  import_p3d {t_import:.3f} s (textures {t_tex:.3f} s of one import)")
    return t_import


def main(argv):
    preview = "--preview" in argv
    argv = [a for a in argv if a not in ("--pure", "--preview")]
    try:
        from io_alamo.formats.arma import compiled
        print("decoders:", compiled.describe())
    except ImportError:
        print("decoders: pure (this io_alamo has no compiled ones)")
    paths = [Path(a) for a in argv]
    if not paths:
        samples = sorted(CORPUS.rglob("*.p3d")) if CORPUS.is_dir() else []
        if samples:
            paths.append(max(samples, key=lambda p: p.stat().st_size))
        paths.append(truck())
        paths.append(truck_143k())
    if bpy is not None:
        io_alamo.register()
    try:
        times = [one_model(p) for p in paths]
        if bpy is None:
            print("no bpy: imports not timed")
            return 0
        alo = alo_300k()

        def alo_import():
            bpy.ops.wm.read_factory_settings(use_empty=True)
            import_alo(bpy.context, str(alo))
        t_alo = best(alo_import)
        print(f"{alo.name}: import_alo {t_alo:.3f} s (294,912 triangles)")
        for p, t in zip(paths, times):
            print(f"  {p.parent.name}/{p.name}: {t / t_alo:.2f}x the 300k .alo")
        last = paths[-1]

        def last_import():
            bpy.ops.wm.read_factory_settings(use_empty=True)
            import_p3d(bpy.context, str(last))
        t_last, t_yard = paired(last_import, alo_import)
        print(f"  {last.parent.name}/{last.name}, imports in turn with the .alo's "
              f"(best of {RUNS + 2} each): {t_last:.3f} s / {t_yard:.3f} s = "
              f"{t_last / t_yard:.2f}x the 300k .alo")
        if preview:
            for flag in (False, True):
                sec, mb = batch_import(paths[-1], flag)
                print(f"batch import{' --preview' if flag else ''} of {paths[-1].parent.name}: "
                      f"{sec:.1f} s, peak {mb:,.0f} MB (child process)")
    finally:
        if bpy is not None:
            io_alamo.unregister()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
