"""The demo setup.sh runs: everything io_alamo does, on a sample it generates itself.

1. builds the Blender extension (dist/io_alamo-<version>-<platform>.zip) and validates it;
2. writes a sample model and animation with the project's own code (a small skinned,
   animated, textured tank with a light, a proxy, a dazzle and a collision mesh);
3. imports them in headless Blender and saves a .blend, a .glb and a preview PNG;
4. exports the .blend back to .alo and .ala and checks they are byte-identical to the sample;
5. prints where everything is.

    .venv/bin/python scripts/demo.py [--out DIR]
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
from io_alamo.scratch import blender_user_resources  # noqa: E402
blender_user_resources("alamo-demo-")


def step(text):
    print(f"\n== {text}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "demo")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    start = time.perf_counter()

    step("building the Blender extension")
    import build_extension
    if build_extension.main(["--out", str(ROOT / "dist")]) != 0:
        return 1
    here = (build_extension.current_platform() or "").replace("-", "_")
    mine = sorted((ROOT / "dist").glob(f"io_alamo-*-{here}.zip")) if here else []
    package = (mine or sorted((ROOT / "dist").glob("io_alamo-*.zip")))[-1]

    step("generating the sample model and animation (io_alamo.formats.alamo.sample)")
    from io_alamo.cli import main as cli
    from io_alamo.formats.alamo.sample import write_sample
    source = out / "source"
    paths = write_sample(source)
    for p in paths:
        print(f"  {p.relative_to(out)}")
    cli(["info", str(source / "Sample_Tank.alo"), str(source / "Sample_Tank_Turn_00.ala")])

    import bpy

    import io_alamo
    from io_alamo.blender import batch
    io_alamo.register()
    try:
        step(f"importing into Blender {bpy.app.version_string} (headless): .blend, .glb, "
             "preview PNG")
        if batch.run(["import", str(source), "--out", str(out / "blender"), "--glb",
                      "--preview", "--overwrite"], "io_alamo.batch") != 0:
            return 1
        step("exporting the .blend back to .alo and .ala")
        if batch.run(["export", str(out / "blender"), "--out", str(out / "export"),
                      "--overwrite"], "io_alamo.batch") != 0:
            return 1
    finally:
        io_alamo.unregister()

    step("comparing with the sample")
    same = True
    for name in ("Sample_Tank.alo", "Sample_Tank_Turn_00.ala"):
        equal = (out / "export" / name).read_bytes() == (source / name).read_bytes()
        same &= equal
        print(f"  {name}: {'byte-identical' if equal else 'DIFFERENT'}")

    step(f"done in {time.perf_counter() - start:.1f} s; results")
    for label, path in (("extension (drag into Blender)", package),
                        ("sample model and animation", source),
                        ("Blender file", out / "blender" / "Sample_Tank.blend"),
                        ("glTF", out / "blender" / "Sample_Tank.glb"),
                        ("preview render", out / "blender" / "Sample_Tank.png"),
                        ("exported again", out / "export")):
        print(f"  {label + ':':32} {path}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
