"""Figures of binarized Arma models (.p3d) as io_alamo imports and exports them (needs bpy):
per model the shown LOD's signed volume (positive: faces outward) and how many of its corner
normals agree with their faces, the proxy marker triangles left out, the LOD mapping, the
textures found, and what the default Alamo export writes.

    .venv/bin/python scripts/p3d_figures.py MODEL.p3d... [--out DIR] [--textures DIR]

``--out`` keeps each exported .alo (for the alo-viewer's loader check).
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _array(collection, attr, width, dtype=np.float32):
    out = np.empty(len(collection) * width, dtype)
    collection.foreach_get(attr, out)
    return out.reshape(-1, width) if width > 1 else out


def signed_volume(me):
    me.calc_loop_triangles()
    tris = _array(me.loop_triangles, "vertices", 3, np.int32)
    co = _array(me.vertices, "co", 3).astype(np.float64)[tris]
    return float(np.einsum("ij,ij->i", co[:, 0], np.cross(co[:, 1], co[:, 2])).sum() / 6.0)


def normals_agree(me):
    if not len(me.polygons):
        return 1.0
    face_n = _array(me.polygons, "normal", 3)
    corner = _array(me.corner_normals, "vector", 3)
    face_of = np.repeat(np.arange(len(me.polygons)),
                        _array(me.polygons, "loop_total", 1, np.int32))
    return float(((face_n[face_of] * corner).sum(axis=1) > 0).mean())


def figures(path, out_dir, textures):
    import bpy

    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.arma.importer import P3dImportOptions, import_p3d
    from io_alamo.formats.alamo import read_alo

    bpy.ops.wm.read_homefile(use_empty=True)
    t = time.perf_counter()
    res = import_p3d(bpy.context, str(path), P3dImportOptions(texture_folders=textures))
    took = time.perf_counter() - t
    c = res.counts
    meshes = [o for o in res.objects if o.type == "MESH"]
    shown = [o for o in meshes if o.visible_get()]
    mapped = {o.name: o.get("lod_type") for o in meshes if o.parent is res.armature}
    print(f"{path.name}: ODOL v{c['version']}, {c['lods']} LODs, import {took:.2f} s")
    for o in shown:
        print(f"  shown {o.name}: signed volume {signed_volume(o.data):.6g}, corner normals "
              f"agreeing with their faces {100 * normals_agree(o.data):.1f} %")
    print(f"  proxy marker triangles left out: {c['proxy_markers']} (proxies: {c['proxies']})")
    print("  exported LODs: " + ", ".join(f"{k} <- {v}" for k, v in mapped.items()))
    print(f"  not exported: {', '.join(o.name for o in meshes if o.name not in mapped)}")
    print(f"  bones {c['bones']}, skinned meshes "
          f"{sum(any(m.type == 'ARMATURE' for m in o.modifiers) for o in meshes)}")
    print(f"  textures found {c['textures_found']} of {c['textures']} (procedural colours "
          f"included); .rvmat stage textures found {c['stage_textures_found']} of "
          f"{c['stage_textures']}")
    target = (out_dir or Path(tempfile.mkdtemp())) / (path.stem + ".alo")
    try:
        exp = export_alo(bpy.context, str(target), AloExportOptions())
    except Exception as e:                         # noqa: BLE001 - a figure, not a crash
        print(f"  default export FAILED: {e}")
        return
    model = read_alo(target.read_bytes())
    tris = {m.name: sum(len(s.indices) for s in m.submeshes) for m in model.meshes}
    print(f"  default export: {exp.summary()}; triangles per mesh {tris}")
    if out_dir is None:
        os.remove(target)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--textures", action="append", default=[])
    args = ap.parse_args(argv)
    import io_alamo
    io_alamo.register()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for path in args.models:
        figures(path, args.out, args.textures)


if __name__ == "__main__":
    main()
