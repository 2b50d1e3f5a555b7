"""What leaving particles in the world costs (issue 41, world-translated emitters, with bpy):
per frame, the preview's update of issue 41's big effect (20 emitters, about 3,000 live
particles, all ``link_to_system`` 0) whose root is keyed to move, with the root's past
matrices worked out (``particle_preview/paths.py``) and without (the particles carried with
the effect, as before); and the path alone (``root_path`` and its matrices at the birth
times of one emitter).

    .venv/bin/python scripts/bench_particle_paths.py [--frames 60] [--emitters 20] [--repeat 3]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="alamo-bench-"))
ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import bpy  # noqa: E402
import numpy as np  # noqa: E402
import particle_build as pb  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.blender.alamo.importer.alo import import_alamo  # noqa: E402
from io_alamo.blender.alamo.particle_preview import paths, scene_systems, systems  # noqa: E402

FPS = 30


def setup(path):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = FPS, 1, 1000
    import_alamo(bpy.context, str(path))
    (root, emitters), = scene_systems(scene).items()
    for frame, y in ((1, 0.0), (1 + 10 * FPS, 30.0)):
        root.location.y = y
        root.keyframe_insert("location", index=1, frame=frame)
    return scene, root, emitters


def per_frame(scene, root, emitters, frames, with_path):
    keep = paths.root_path
    if not with_path:
        paths.root_path = lambda scene, root: None
    try:
        scene.frame_set(2 * FPS)
        ms = systems.models(root, emitters)
        spent = 0.0
        for f in range(2 * FPS, 2 * FPS + frames):
            scene.frame_set(f)                  # (its handler updates too: not timed)
            start = time.perf_counter()
            systems.update_system(scene, root, emitters, ms=ms)
            spent += time.perf_counter() - start
        return spent / frames * 1e3
    finally:
        paths.root_path = keep


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--emitters", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    io_alamo.register()
    n = max(args.emitters, 1)
    with tempfile.TemporaryDirectory() as tmp:
        data, _ = pb.particle_system("p_bench_many", [pb.emitter(
            f"e{i}", index=i, num_particles_per_second=3000 // (2 * n), lifetime=2.0,
            groups=[{"type": 3, "sphere_radius": 5.0 + i}, {}, {"type": 0, "val_x": float(i)}],
            tracks={"size": (1.0, 3.0, 0, [])}) for i in range(n)])
        path = Path(tmp) / "p_bench_many.alo"
        path.write_bytes(data)
        scene, root, emitters = setup(path)
        rows = {True: [], False: []}
        for _ in range(max(args.repeat, 1)):
            for with_path in (False, True):
                rows[with_path].append(per_frame(scene, root, emitters, args.frames, with_path))
        births = np.linspace(0.0, 2.0, 3000 // (2 * n) * 2)
        alone = 0.0
        for f in range(2 * FPS, 2 * FPS + args.frames):
            scene.frame_set(f)
            start = time.perf_counter()
            paths.root_path(scene, root)(births)
            alone += time.perf_counter() - start
        alone = alone / args.frames * 1e3
    for with_path, label in ((False, "carried with the effect (no path)"),
                             (True, "left in the world (path)")):
        each = " / ".join(f"{v:.2f}" for v in rows[with_path])
        print(f"{n} emitters, root keyed to move, {label}: {min(rows[with_path]):.2f} ms per "
              f"frame update (runs: {each})")
    print(f"the path alone (root_path + matrices at {len(births)} birth times): "
          f"{alone:.3f} ms per frame")


if __name__ == "__main__":
    main(sys.argv[1:])
