"""Benchmark (issue 44 point 5): what the batch's ``--preview`` render adds to the import of
a big Arma vehicle, in time and peak memory, in one process.

Three trucks, each in a child process of its own (so that each one's memory is its own):
the 143k-triangle bench truck of ``scripts/bench_p3d.py`` (30 textures of 1,024-2,048
pixels, one mipmap each, as the spec builder writes them), and the same truck with its 30
textures at 4,096 x 4,096 pixels (built once into ``.cache/bench_preview`` by this script:
the builder's stripes and gradients drawn at that size, DXT1/DXT5), once with a full mipmap
chain in each PAA (as Arma's tools write every texture) and once with the top level only.
In each child: ``import_p3d`` into an empty scene, then the batch's ``render_preview``;
the seconds of each, and each one's peak resident memory (Linux: the peak is reset between
the two through ``/proc/self/clear_refs``), with the preview's ratios to the import.

    .venv/bin/python scripts/bench_batch_preview.py [--only NAME] [--save DIR] [--batch]

``--save DIR`` keeps each preview PNG there; ``--batch`` also runs ``python -m
io_alamo.batch import`` with and without ``--preview`` on each truck (a child each; wall
seconds and peak memory of the whole process). BENCH_P3D_ROOT=DIR imports io_alamo from DIR
(an older checkout, same trucks).
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_ROOT = Path(os.environ.get("BENCH_P3D_ROOT", ROOT))
CACHE = ROOT / ".cache" / "bench_preview"
BIG = 4096
TEXTURES = 30


def _scripts_and_tests():
    for p in (ROOT / "scripts", ROOT / "tests"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))


def bench_truck():
    """The 143k-triangle truck of bench_p3d (built once there)."""
    _scripts_and_tests()
    from bench_p3d import truck_143k
    return truck_143k()


def big_paa(k, side, mips):
    """Texture ``k`` of the spec truck drawn at ``side`` pixels as a PAA: DXT5 where it has
    alpha, else DXT1; with every mipmap down to 4 x 4 (2 x 2 box filter) when ``mips``. A
    level over the 24-bit length field is LZO-compressed, as Arma's own tools do."""
    import etcpak
    from p3d_compress import lzo_compress
    from p3d_vehicle import texture_pixels
    rgba = texture_pixels(k, side)
    alpha = bool((rgba[..., 3] < 255).any())
    encode = etcpak.compress_bc3 if alpha else etcpak.compress_bc1
    out = bytearray(struct.pack("<HH", 0xFF05 if alpha else 0xFF01, 0))   # type, no palette
    level = rgba
    while True:
        h, w = level.shape[:2]
        blocks = encode(np.ascontiguousarray(level).tobytes(), w, h)
        width = w
        if len(blocks) >= 1 << 24:
            blocks, width = lzo_compress(blocks), w | 0x8000
        out += struct.pack("<HH", width, h) + len(blocks).to_bytes(3, "little") + blocks
        if not mips or min(h, w) <= 4:
            break
        quads = level.reshape(h // 2, 2, w // 2, 2, 4).astype(np.uint16).sum(axis=(1, 3))
        level = ((quads + 2) // 4).astype(np.uint8)
    out += struct.pack("<HH", 0, 0)
    return bytes(out)


def big_truck(mips):
    """The bench truck with its 30 textures at 4,096 pixels (built once; the LZO of the
    seven DXT5 top levels takes the builder a few minutes)."""
    import shutil
    folder = CACHE / ("mips" if mips else "top_only") / "truck"
    done = folder / "built"
    if done.exists():
        return folder / "truck.p3d"
    source = bench_truck().parent
    print(f"building the 4,096-pixel truck ({'mipmaps' if mips else 'top level only'}, "
          "once) ...", flush=True)
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("*.paa"))
    chains = None if mips else big_truck(True).parent / "data"
    for k in range(TEXTURES):
        name = f"part{k:02d}_co.paa"
        if chains is None:
            data = big_paa(k, BIG, mips)
        else:                       # the chain's top level alone (this script's layout)
            chain = (chains / name).read_bytes()
            data = chain[:11 + int.from_bytes(chain[8:11], "little")] + bytes(4)
        (folder / "data" / name).write_bytes(data)
    done.write_text("")
    return folder / "truck.p3d"


# --- the child: one truck, imported then previewed -----------------------------------------

def _peak_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1])
    return 0


def _reset_peak():
    """Start a new peak (Linux); False where the peak cannot be reset."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child(path, png):
    sys.path.insert(0, str(PACKAGE_ROOT))
    from io_alamo.scratch import blender_user_resources
    blender_user_resources()
    import bpy

    import io_alamo
    from io_alamo.blender.arma.importer import import_p3d
    from io_alamo.blender.outputs import render_preview
    io_alamo.register()
    try:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        start_kb = _peak_kb()
        resets = _reset_peak()
        t = time.perf_counter()
        import_p3d(bpy.context, str(path))
        t_import = time.perf_counter() - t
        import_kb = _peak_kb()
        _reset_peak()
        t = time.perf_counter()
        render_preview(bpy.context, Path(png))
        t_preview = time.perf_counter() - t
        preview_kb = _peak_kb()
    finally:
        io_alamo.unregister()
    print("RESULT " + json.dumps({"import": t_import, "preview": t_preview,
                                  "start_kb": start_kb, "import_kb": import_kb,
                                  "preview_kb": preview_kb, "resets": resets}))


def measure(name, path, save):
    png = (Path(save) / f"{name}.png") if save else Path(tempfile.mkdtemp()) / "preview.png"
    done = subprocess.run([sys.executable, __file__, "--child", str(path), str(png)],
                          capture_output=True, text=True, cwd=str(PACKAGE_ROOT))
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    if done.returncode or not lines:
        print(done.stdout[-2000:], done.stderr[-2000:])
        raise SystemExit(f"{name}: the child failed")
    r = json.loads(lines[-1][len("RESULT "):])
    mb = 1 / 1024
    note = "" if r["resets"] else " (peak not resettable here: the preview's is the process's)"
    print(f"{name}: import {r['import']:.2f} s, peak {r['import_kb'] * mb:,.0f} MB; "
          f"preview {r['preview']:.2f} s, peak {r['preview_kb'] * mb:,.0f} MB{note}")
    print(f"    preview / import: time {r['preview'] / r['import']:.2f}x, peak memory "
          f"{r['preview_kb'] / r['import_kb']:.2f}x (the process held "
          f"{r['start_kb'] * mb:,.0f} MB before the import)")
    return r


def batch_runs(name, path):
    _scripts_and_tests()
    from bench_p3d import batch_import
    for flag in (False, True):
        sec, mb = batch_import(path, flag)
        print(f"    batch import{' --preview' if flag else ''} of {name}: {sec:.1f} s, "
              f"peak {mb:,.0f} MB (child process)")


def main(argv):
    if argv[:1] == ["--child"]:
        child(Path(argv[1]), argv[2])
        return 0
    save = argv[argv.index("--save") + 1] if "--save" in argv else None
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    if save:
        Path(save).mkdir(parents=True, exist_ok=True)
    _scripts_and_tests()
    trucks = {"truck143k": bench_truck, "truck4096_mips": lambda: big_truck(True),
              "truck4096_top_only": lambda: big_truck(False)}
    for name, make in trucks.items():
        if only and name != only:
            continue
        path = make()
        measure(name, path, save)
        if "--batch" in argv:
            batch_runs(name, path)
    with open("/proc/loadavg") as f:
        print("load average:", " ".join(f.read().split()[:3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
