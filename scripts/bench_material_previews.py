"""Material preview timings (with bpy): building the recipe of N materials (a quarter each
colorize, additive, gloss, alpha), rebuilding them (a shader or texture change), and one
parameter edit (what a colour picker drag costs: node values only).

    .venv/bin/python scripts/bench_material_previews.py [--materials 100]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from io_alamo.scratch import blender_user_resources  # noqa: E402
blender_user_resources("alamo-bench-")

import bpy  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.blender.alamo.shading import refresh_material_preview, switch_shader  # noqa: E402

SHADERS = ("MeshBumpColorize.fx", "MeshAdditive.fx", "MeshGloss.fx", "MeshAlpha.fx")


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--materials", type=int, default=100)
    n = ap.parse_args(argv).materials
    io_alamo.register()
    try:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.data.images.new("T.tga", 16, 16)
        mats = []
        for k in range(n):
            mat = bpy.data.materials.new(f"M{k}")
            switch_shader(mat, SHADERS[k % len(SHADERS)])
            for p in mat.alamo.params:
                if p.type == "TEXTURE":
                    p.texture = "T.tga"
            mats.append(mat)
        times = []
        for _ in range(2):
            start = time.perf_counter()
            for mat in mats:
                refresh_material_preview(bpy.context, mat)
            times.append(time.perf_counter() - start)
        edits = [p for mat in mats for p in mat.alamo.params if p.type == "FLOAT4"]
        start = time.perf_counter()
        for p in edits:
            p.float4_value = (0.5, 0.5, 0.5, 1.0)
        edit = (time.perf_counter() - start) / len(edits)
        print(f"{n} materials: build {times[0] * 1e3:.0f} ms ({times[0] / n * 1e3:.1f} ms each), "
              f"rebuild {times[1] * 1e3:.0f} ms; parameter edit {edit * 1e6:.0f} us "
              f"({len(edits)} edits)")
    finally:
        io_alamo.unregister()


if __name__ == "__main__":
    main(sys.argv[1:])
