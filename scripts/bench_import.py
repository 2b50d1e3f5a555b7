"""Benchmark: .alo import time against bare Blender mesh construction from the same arrays.

A generated model of 1,032,256 triangles (8 sub-meshes of 65,025 vertices; 4 UV sets,
colours, B4I4 skinning to 24 bones with two weighted bones per vertex) is imported with
``import_alo``; the baseline builds one Blender mesh from the same, already prepared arrays
(positions, triangles, material indices, 4 UV layers, a colour attribute, custom normals)
with nothing else. Target: import <= 2x the baseline. Also times the largest corpus model.

Then issue 44's yardstick: a generated 294,912-triangle model (4 sub-meshes of 37,249
vertices, RSkinBump with stored tangents, 2 UV sets, one bone) imported with ``import_alo``
against the bare Blender mesh build from its decoded arrays: vertices, triangles and edges,
nothing else (target <= 2x). ``--profile`` prints the cProfile top entries of one import of it.

Run with a Python that has the bpy wheel:  .venv/bin/python scripts/bench_import.py [--profile]
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from io_alamo.scratch import blender_user_resources, scratch_folder  # noqa: E402
blender_user_resources()

import bpy  # noqa: E402
import numpy as np  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.formats.alamo import (VERTEX_DTYPE, Bone, Connections, Material, Mesh, Model,
                                    ObjectConnection, ParamType, ShaderParam, Skeleton, SubMesh,
                                    save)  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
N = 255                     # grid side: 65,025 vertices, 129,032 triangles per sub-mesh
SUBMESHES = 8
BONES = 24


def grid_triangles(n):
    """The two triangles of every cell of an n x n vertex grid, as uint16."""
    ys, xs = np.mgrid[0:n - 1, 0:n - 1]
    q = (ys * n + xs).ravel()
    return np.concatenate([np.stack([q, q + 1, q + n], 1),
                           np.stack([q + 1, q + n + 1, q + n], 1)]).astype("<u2")


def grid(z, rng):
    ys, xs = np.mgrid[0:N, 0:N]
    v = np.zeros(N * N, VERTEX_DTYPE)
    v["position"] = np.stack([xs.ravel(), ys.ravel(), np.full(N * N, z)], 1)
    v["normal"] = rng.normal(size=(N * N, 3)) * 0.1 + [0, 0, 1]
    v["normal"] /= np.linalg.norm(v["normal"], axis=1, keepdims=True)
    for k in range(4):
        v["uv"][:, k, 0] = xs.ravel() / (N - 1) + k
        v["uv"][:, k, 1] = ys.ravel() / (N - 1)
    v["color"] = rng.random((N * N, 4))
    v["unused"] = 1
    band = np.minimum(xs.ravel() * BONES // N, BONES - 1)
    v["bone_indices"][:, 0] = band
    v["bone_indices"][:, 1] = (band + 1) % BONES
    w = np.round(rng.random(N * N) * 20) / 20           # weights in steps of 0.05
    v["bone_weights"][:, 0] = w
    v["bone_weights"][:, 1] = 1 - w
    tris = grid_triangles(N)
    mat = Material("RSkinBumpColorize.fx", [ShaderParam("BaseTexture", ParamType.TEXTURE, "x.dds")])
    return SubMesh(mat, "alD3dVertB4I4NU2U3U3C", v, tris,
                   bone_map=np.arange(1, BONES + 1, dtype="<u4"))


def generated_model(rng):
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]
    for i in range(BONES):
        m = np.eye(3, 4, dtype="<f4")
        m[0, 3] = (i + 0.5) * N / BONES
        bones.append(Bone(f"B{i:02d}", 0, m))
    mesh = Mesh("Big", [grid(float(k), rng) for k in range(SUBMESHES)])
    return Model(Skeleton(bones), [mesh], Connections(objects=[ObjectConnection(0, 0)]))


def bare_arrays(model):
    subs = model.meshes[0].submeshes
    off = np.cumsum([0] + [len(s.vertices) for s in subs])
    pos = np.concatenate([s.vertices["position"] for s in subs]).ravel()
    tris = np.concatenate([s.indices.astype(np.int32) + off[k] for k, s in enumerate(subs)])
    corner = tris.ravel()
    allv = np.concatenate([s.vertices for s in subs])
    uvs = [np.ascontiguousarray(allv["uv"][corner, k]).ravel() for k in range(4)]
    return dict(pos=pos, loops=corner, n=len(tris),
                mat=np.repeat(np.arange(len(subs)), [len(s.indices) for s in subs]).astype(np.int32),
                uvs=uvs, col=np.ascontiguousarray(allv["color"][corner]).ravel(),
                nrm=np.ascontiguousarray(allv["normal"][corner]))


def bare_build(a):
    from io_alamo.blender.compat import set_custom_normals
    me = bpy.data.meshes.new("bare")
    me.vertices.add(len(a["pos"]) // 3)
    me.vertices.foreach_set("co", a["pos"])
    me.loops.add(3 * a["n"])
    me.loops.foreach_set("vertex_index", a["loops"])
    me.polygons.add(a["n"])
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * a["n"], 3, dtype=np.int32))
    me.polygons.foreach_set("material_index", a["mat"])
    me.update(calc_edges=True)
    for k, uv in enumerate(a["uvs"]):
        me.uv_layers.new(name=f"UV{k}", do_init=False).data.foreach_set("uv", uv)
    me.color_attributes.new("Color", "FLOAT_COLOR", "CORNER").data.foreach_set("color", a["col"])
    me.polygons.foreach_set("use_smooth", np.ones(a["n"], bool))
    set_custom_normals(me, a["nrm"])
    obj = bpy.data.objects.new("bare", me)
    bpy.context.scene.collection.objects.link(obj)
    return me


GRID = 193                  # 37,249 vertices, 73,728 triangles per sub-mesh: 294,912 in all


def model_300k():
    """Four bump-mapped, skinned grids: stored tangents, 2 UV sets."""
    count = GRID * GRID
    x, y = np.arange(count) % GRID, np.arange(count) // GRID
    subs = []
    for z in range(4):
        v = np.zeros(count, VERTEX_DTYPE)
        v["position"] = np.stack([x, y, np.full(count, z)], 1)
        v["normal"], v["tangent"], v["binormal"] = [0, 0, 1], [1, 0, 0], [0, 1, 0]
        v["uv"][:, :2] = np.stack([x, y], 1)[:, None, :] / (GRID - 1)
        v["color"] = 1
        v["bone_weights"][:, 0] = 1
        mat = Material("RSkinBumpColorize.fx",
                       [ShaderParam("BaseTexture", ParamType.TEXTURE, "x.dds")])
        subs.append(SubMesh(mat, "alD3dVertRSkinNU2U3U3", v, grid_triangles(GRID),
                            bone_map=np.arange(1, 2, dtype="<u4")))
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4")), Bone("B", 0, np.eye(3, 4, dtype="<f4"))]
    return Model(Skeleton(bones), [Mesh("Big", subs)], Connections(objects=[ObjectConnection(0, 0)]))


def minimal_build(pos, loops, fast_corners=False):
    """Vertices, triangles and edges: the least Blender does for any mesh (``fast_corners``:
    the corners' vertices written as import writes them, through ``.corner_vert``)."""
    n = len(loops) // 3
    me = bpy.data.meshes.new("bare")
    me.vertices.add(len(pos) // 3)
    me.vertices.foreach_set("co", pos)
    me.loops.add(3 * n)
    if fast_corners:
        from io_alamo.blender.compat import set_corner_vertices
        set_corner_vertices(me, loops)
    else:
        me.loops.foreach_set("vertex_index", loops)
    me.polygons.add(n)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * n, 3, dtype=np.int32))
    me.update(calc_edges=True)
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("bare", me))


def cpu_timed(fn):
    """CPU seconds of this process (all its threads): on a busy machine wall-clock time
    measures the neighbours too."""
    t = time.process_time()
    fn()
    return time.process_time() - t


def bench_300k(tmp, import_alo, runs=5, profile=False):
    model = model_300k()
    path = tmp / "Grid300k.alo"
    save(model, path)
    subs = model.meshes[0].submeshes
    off = np.cumsum([0] + [len(s.vertices) for s in subs])
    pos = np.concatenate([s.vertices["position"] for s in subs]).astype(np.float32).ravel()
    loops = np.concatenate([s.indices.astype(np.int32) + off[k]
                            for k, s in enumerate(subs)]).ravel()
    bare, fast, imp = [], [], []
    for _ in range(runs):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bare.append(cpu_timed(lambda: minimal_build(pos, loops)))
        bpy.ops.wm.read_factory_settings(use_empty=True)
        fast.append(cpu_timed(lambda: minimal_build(pos, loops, True)))
        bpy.ops.wm.read_factory_settings(use_empty=True)
        imp.append(cpu_timed(lambda: import_alo(bpy.context, str(path))))
    b, i = min(bare), min(imp)
    print(f"  300k model ({len(loops) // 3:,} triangles, tangents, 2 UV sets, skinned): "
          f"minimal mesh build {b:.3f} s CPU, import_alo {i:.3f} s CPU, ratio {i / b:.2f} "
          f"(target <= 2.0: {'met' if i <= 2 * b else 'NOT met'}; best of {runs}); the "
          f"minimal build with corners written as import writes them {min(fast):.3f} s CPU, "
          f"ratio {i / min(fast):.2f}")
    if profile:
        import cProfile
        import pstats
        bpy.ops.wm.read_factory_settings(use_empty=True)
        prof = cProfile.Profile()
        prof.runcall(import_alo, bpy.context, str(path))
        st = pstats.Stats(prof).sort_stats("tottime"); st.print_stats(15)
        if "--callers" in sys.argv:
            st.print_callers("reduce|astype|copy|HASH")
    return i <= 2 * b


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main():
    from io_alamo.blender.alamo.importer.alo import import_alo
    io_alamo.register()
    try:
        rng = np.random.default_rng(0)
        model = generated_model(rng)
        tmp = Path(scratch_folder())
        path = tmp / "Big.alo"
        save(model, path)
        arrays = bare_arrays(model)
        tris = arrays["n"]
        bare, imp = [], []
        for _ in range(3):
            bpy.ops.wm.read_factory_settings(use_empty=True)
            bare.append(timed(lambda: bare_build(arrays)))
            bpy.ops.wm.read_factory_settings(use_empty=True)
            imp.append(timed(lambda: import_alo(bpy.context, str(path))))
        b, i = min(bare), min(imp)
        print(f"Blender {bpy.app.version_string}: {tris:,} triangles, 4 UV sets, colours, "
              f"B4I4 skinning to {BONES} bones")
        print(f"  bare mesh construction: {b:.2f} s")
        print(f"  import_alo (read file + build everything): {i:.2f} s")
        print(f"  ratio {i / b:.2f} (target <= 2.0): {'met' if i <= 2 * b else 'NOT met'}")
        if CORPUS.is_dir():
            largest = max((p for p in CORPUS.iterdir() if p.suffix.lower() == ".alo"),
                          key=lambda p: p.stat().st_size)
            bpy.ops.wm.read_factory_settings(use_empty=True)
            t = timed(lambda: import_alo(bpy.context, str(largest)))
            print(f"  largest corpus model {largest.name} ({largest.stat().st_size:,} bytes): "
                  f"{t:.2f} s")
        ok = bench_300k(tmp, import_alo, profile="--profile" in sys.argv)
        return 0 if i <= 2 * b and ok else 1
    finally:
        io_alamo.unregister()


if __name__ == "__main__":
    sys.exit(main())
