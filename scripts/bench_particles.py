"""Particle preview speed (issue 34, with bpy): frames per second of the viewport update while
an effect plays, i.e. per frame the frame change (the closed-form simulation and the points
written with foreach_set) and the depsgraph evaluation that puts a quad on every particle.
Three scenes: the corpus explosion (../shared/corpus-particles/P_EXPLOSION_EXAMPLE.ALO, skipped
when absent), a spec-built stream with 10,000 live particles (5,000 a second living 2 s) and
issue 41's big effect: 20 emitters with 3,000 live particles in all (target 60 frames/s on a
quiet machine).

    .venv/bin/python scripts/bench_particles.py [--frames 96] [--live 10000] [--emitters 20]
        [--repeat 3] [--profile [N]]

Also prints the simulation alone (numpy, no Blender data) for the same particles. ``--repeat``
plays each scene that many times and prints every figure and the best (a loaded machine's
figures vary); ``--profile`` then plays the many-emitter scene once more under cProfile and
prints its N costliest functions (by own time) and its frames/s under the profiler; the
figures above it are always without the profiler.
"""

import argparse
import cProfile
import io
import os
import pstats
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
import particle_build as pb  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.blender.alamo.importer.alo import import_alamo  # noqa: E402
from io_alamo.blender.alamo.particle_preview import nodes, scene_systems  # noqa: E402
from io_alamo.blender.alamo.particle_preview.systems import models  # noqa: E402
from io_alamo.formats.alamo.particles import batch  # noqa: E402

EXPLOSION = ROOT.parent / "shared" / "corpus-particles" / "P_EXPLOSION_EXAMPLE.ALO"
FPS = 30


def live_count(scene):
    return sum(len(p.data.vertices) for emitters in scene_systems(scene).values()
               for p in map(nodes.points_object, emitters.values()) if p is not None)


def play(path, first, frames, profile=None):
    """(viewport frames per second, mean live particles, simulation-only ms per frame);
    ``profile``: a cProfile.Profile enabled around the frames only."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start = FPS, 1
    import_alamo(bpy.context, str(path))
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    scene.collection.objects.link(cam)
    cam.location = (0.0, -200.0, 60.0)
    scene.camera = cam
    span = range(first, first + frames)
    counts = []
    scene.frame_set(first - 1)                      # the first frame is not the first drawn
    elapsed = 0.0
    for frame in span:
        start = time.perf_counter()
        if profile is not None:
            profile.enable()
        scene.frame_set(frame)
        bpy.context.evaluated_depsgraph_get()       # what the viewport evaluates to draw
        if profile is not None:
            profile.disable()
        elapsed += time.perf_counter() - start
        counts.append(live_count(scene))
    (root, emitters), = scene_systems(scene).items()
    ms = models(root, emitters)
    start = time.perf_counter()
    for frame in span:
        batch.simulate(ms, (frame - 1) / FPS)      # what the preview runs
    sim_ms = (time.perf_counter() - start) / frames * 1e3
    return frames / elapsed, sum(counts) / len(counts), sim_ms


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=96)
    ap.add_argument("--live", type=int, default=10_000)
    ap.add_argument("--emitters", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--profile", type=int, nargs="?", const=25, default=0)
    args = ap.parse_args(argv)
    io_alamo.register()
    try:
        with tempfile.TemporaryDirectory(prefix="alamo-bench-") as tmp:
            rate = args.live // 2
            data, _ = pb.particle_system("p_bench_stream", [pb.emitter(
                "stream", num_particles_per_second=rate, lifetime=2.0, randomized_scale=0.3,
                groups=[{"type": 3, "sphere_radius": 20.0}, {},
                        {"type": 1, "min_x": -5.0, "max_x": 5.0, "max_z": 2.0}],
                tracks={"alpha": (255, 0, 0, []), "size": (2.0, 6.0, 0, [])})])
            stream = Path(tmp) / "p_bench_stream.alo"
            stream.write_bytes(data)
            runs = [(f"stream of {args.live:,} live particles", stream, 2 * FPS + 2)]
            n = max(args.emitters, 1)
            data, _ = pb.particle_system("p_bench_many", [pb.emitter(
                f"e{i}", index=i, num_particles_per_second=3000 // (2 * n), lifetime=2.0,
                groups=[{"type": 3, "sphere_radius": 5.0 + i}, {},
                        {"type": 0, "val_x": float(i)}],
                tracks={"size": (1.0, 3.0, 0, [])}) for i in range(n)])
            many = Path(tmp) / "p_bench_many.alo"
            many.write_bytes(data)
            runs.append((f"{n} emitters, about 3,000 live particles", many, 2 * FPS + 2))
            if EXPLOSION.is_file():
                runs.insert(0, ("corpus explosion P_EXPLOSION_EXAMPLE.ALO", EXPLOSION, 1))
            else:
                print(f"no corpus at {EXPLOSION.parent}: explosion skipped")
            for label, path, first in runs:
                got = [play(path, first, args.frames) for _ in range(max(args.repeat, 1))]
                fps, live, sim_ms = max(got)
                each = " / ".join(f"{g[0]:.1f}" for g in got)
                print(f"{label}: {fps:.1f} frames/s viewport update over {args.frames} "
                      f"frames ({live:,.0f} live particles on average; best of "
                      f"{len(got)}: {each}); simulation alone "
                      f"{min(g[2] for g in got):.2f} ms a frame (cProfile off)")
            if args.profile:
                profile(many, args.frames, args.profile)
    finally:
        io_alamo.unregister()


def profile(path, frames, top):
    prof = cProfile.Profile()
    fps, _, _ = play(path, 2 * FPS + 2, frames, prof)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    print(f"\nprofile of the many-emitter scene ({fps:.1f} frames/s under cProfile, "
          f"{1e3 / fps:.1f} ms a frame):")
    print("\n".join(line for line in out.getvalue().splitlines()[3:] if line.strip()))


if __name__ == "__main__":
    main(sys.argv[1:])
