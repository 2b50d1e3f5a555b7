"""Benchmark: .ala import onto an armature and export back, 100 bones x 1,000 frames, every
channel but scale animated (format #2 files keep scale constant: the game refuses scale frames).

Targets: import in under 1 second; export (pose evaluated at every frame, re-encoded) in
under 3 seconds, in either format. The export line says where the pose came from: "keys"
(sampled from the F-curves with numpy, exporter/ala_keys.py) or "frames" (``frame_set``). Then the sizes of the two slowest held-out format #2
animations (1,501 frames x 77 bones, 911 frames x 183 bones, generated the same way), each
against the floor in the same process: the bare Blender build of the same F-curves from
already converted arrays (``fcurves.new``, ``keyframe_points.add``, ``foreach_set`` of keys
and interpolation, ``update``), best of ``RUNS``; without ``--older``
the figure to compare between machines and runs is that ratio. Run with a Python that has the
bpy wheel:
    .venv/bin/python scripts/bench_animation.py

With ``--older PATH`` (a checkout of the community ALAMO Blender plugin, the folder holding its
``io_alamo_tools`` package; it is loaded from there, never copied into this project), the same
held-out .ala files are also imported by that plugin's ``import_anim.ala`` operator in this
process, onto the armature its own ``import_mesh.alo`` made of the same .alo, and the bench
prints our time, its time and the ratio. The plugin drops the model's ``Root`` bone on .alo
import but then refuses any animation naming a bone its armature lacks, so the bench adds a
``Root`` bone back to its armature (outside the timing) for it to accept the file. Its import
keys one bone at a time at every frame, so it runs ``--older-runs`` times (default 1):
    .venv/bin/python scripts/bench_animation.py --older /work/older-alamo [--older-runs N]
"""

import argparse
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
from io_alamo.formats.alamo import (AnimationData, Bone, Connections, Model, Skeleton,
                                    encode_animation, save)  # noqa: E402

BONES = 100
FRAMES = 1000
TARGET_S = 1.0
EXPORT_TARGET_S = 3.0
HELD_OUT = ((77, 1501), (183, 911))     # bones x frames of the two slowest held-out files
RUNS = 5


def make_files(folder, bones_count=None, frames=None):
    global BONES, FRAMES
    saved = BONES, FRAMES
    BONES, FRAMES = bones_count or BONES, frames or FRAMES
    try:
        return _make_files(folder)
    finally:
        BONES, FRAMES = saved


def _make_files(folder):
    rng = np.random.default_rng(0)
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]
    for i in range(1, BONES):
        m = np.eye(3, 4, dtype="<f4")
        m[:, 3] = rng.normal(size=3)
        bones.append(Bone(f"B{i:03d}", int(rng.integers(0, i)), m))
    model = Model(Skeleton(bones), [], Connections())
    t = np.linspace(0, 2 * np.pi, FRAMES)
    phase = rng.random((BONES, 1))
    trans = np.stack([np.sin(t + p) for p in phase[:, 0]])[:, :, None] * [1, 0.5, 0.25]
    trans = trans + np.array([b.matrix[:, 3] for b in bones])[:, None, :]
    angle = (t[None, :] + phase) / 2
    rot = np.zeros((BONES, FRAMES, 4))
    rot[..., 0] = np.sin(angle) * 0.6
    rot[..., 2] = np.sin(angle) * 0.8
    rot[..., 3] = np.cos(angle)
    scale = np.ones((BONES, FRAMES, 3))     # format #2 files keep scale constant (the game refuses scale frames)
    data = AnimationData(
        fps=30.0, names=[b.name for b in bones], indices=np.arange(BONES),
        translation=trans.astype(np.float32), rotation=rot.astype(np.float32),
        scale=scale.astype(np.float32), visible=(np.arange(FRAMES) // 50 % 2 == 0)[None].repeat(BONES, 0),
        step=np.zeros((BONES, FRAMES), bool), has_visibility=np.ones(BONES, bool),
        has_step=np.zeros(BONES, bool))
    alo, ala = folder / "Bench.alo", folder / "Bench_Move_00.ala"
    save(model, alo)
    save(encode_animation(data, 2), ala)
    return alo, ala


def bare_keys(armature, action_name, arrays):
    """The floor: the same F-curves built from ready arrays, nothing else."""
    from io_alamo.blender import compat
    action = bpy.data.actions.new(action_name)
    writer = compat.ActionWriter(action, armature)
    for path, index, group, co, interp in arrays:
        fc = writer.fcurve(path, index, group)
        kp = fc.keyframe_points
        kp.add(len(interp))
        kp.foreach_set("co", co)
        kp.foreach_set("interpolation", interp)
        fc.update()
    return action


def load_older(path):
    """Register the older plugin from its checkout at ``path`` (the folder holding
    ``io_alamo_tools``); it stays where it is."""
    sys.path.insert(0, str(Path(path).resolve()))
    import io_alamo_tools
    io_alamo_tools.register()
    return io_alamo_tools


def older_import(alo, ala):
    """Seconds the older plugin takes to import ``ala`` onto its own armature of ``alo``
    (fresh scene; its .alo import and the Root bone put back are not timed)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_mesh.alo(filepath=str(alo), importAnimations=False)
    arm = bpy.data.objects[bpy.context.scene.ActiveSkeleton.skeletonEnum]
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    if "Root" not in arm.data.edit_bones:       # it dropped Root, then refuses files naming it
        root = arm.data.edit_bones.new("Root")
        root.tail = (0.0, 1.0, 0.0)
    bpy.ops.object.mode_set(mode="OBJECT")
    t = time.perf_counter()
    bpy.ops.import_anim.ala(filepath=str(ala))
    seconds = time.perf_counter() - t
    action = arm.animation_data.action
    from io_alamo.blender import compat
    keys = sum(len(fc.keyframe_points) for fc in compat.action_fcurves(action))
    return seconds, keys


def held_out(import_alo, import_ala, AloImportOptions, AlaImportOptions):
    """Import of the held-out sizes against the bare F-curve build, best of RUNS each. Returns
    (bones, frames, .alo, .ala, our best seconds) per size."""
    from io_alamo.blender import compat
    ours = []
    for bones, frames in HELD_OUT:
        alo, ala = make_files(Path(scratch_folder()), bones, frames)
        imp, bare = [], []
        for _ in range(RUNS):
            bpy.ops.wm.read_factory_settings(use_empty=True)
            arm = import_alo(bpy.context, str(alo),
                             AloImportOptions(import_animations=False)).armature
            t = time.perf_counter()
            action = import_ala(bpy.context, arm, str(ala), AlaImportOptions()).action
            imp.append(time.perf_counter() - t)
            arrays = []
            for fc in compat.action_fcurves(action):
                n = len(fc.keyframe_points)
                co, interp = np.empty(2 * n, np.float32), np.empty(n, np.int32)
                fc.keyframe_points.foreach_get("co", co)
                fc.keyframe_points.foreach_get("interpolation", interp)
                arrays.append((fc.data_path, fc.array_index, fc.group.name, co, interp))
            t = time.perf_counter()
            bare_keys(arm, "bare", arrays)
            bare.append(time.perf_counter() - t)
        i, b = min(imp), min(bare)
        keys = sum(len(a[4]) for a in arrays)
        print(f"  held-out size {bones} bones x {frames} frames ({len(arrays)} F-curves, "
              f"{keys:,} keys): import {i:.3f} s, bare F-curve build {b:.3f} s, "
              f"ratio {i / b:.2f} (best of {RUNS})")
        ours.append((bones, frames, alo, ala, i))
    return ours


def against_older(path, ours, runs):
    """The older plugin on the same files, registered only now so that it cannot slow our own
    figures above; best of ``runs``. True when ours is at least 100x faster on every size."""
    older = load_older(path)
    met = True
    try:
        for bones, frames, alo, ala, i in ours:
            o, keys = min(older_import(alo, ala) for _ in range(runs))
            print(f"  older add-on, {bones} bones x {frames} frames: {o:.3f} s ({keys:,} keys; "
                  f"best of {runs}); ours {i:.3f} s: ours is {o / i:.1f}x faster (target 100x: "
                  f"{'met' if o / i >= 100 else 'NOT met'})", flush=True)
            met = met and o / i >= 100
    finally:
        older.unregister()
    return met


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--older", metavar="PATH",
                        help="checkout of the older ALAMO plugin (folder holding io_alamo_tools)")
    parser.add_argument("--older-runs", type=int, default=1, metavar="N")
    parser.add_argument("--frame-set", action="store_true",
                        help="export with scene.frame_set at every frame (what a rig with "
                             "constraints, drivers or Bezier keys takes), not from the keys")
    args = parser.parse_args(argv)
    if args.frame_set:
        from io_alamo.blender.alamo.exporter import ala
        ala.pose_from_keys = lambda *a, **k: None
    from io_alamo.blender.alamo.importer.ala import AlaImportOptions, import_ala
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    io_alamo.register()
    try:
        alo, ala = make_files(Path(scratch_folder()))
        times = []
        for _ in range(3):
            bpy.ops.wm.read_factory_settings(use_empty=True)
            arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
            t = time.perf_counter()
            import_ala(bpy.context, arm, str(ala), AlaImportOptions())
            times.append(time.perf_counter() - t)
        best = min(times)
        print(f"Blender {bpy.app.version_string}: import {BONES} bones x {FRAMES} frames "
              f"(translation, rotation, scale, visibility): {best:.3f} s "
              f"(target < {TARGET_S:.0f} s: {'met' if best < TARGET_S else 'NOT met'})")
        ok = best < TARGET_S
        from io_alamo.blender.alamo import fingerprint
        from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
        action = arm.animation_data.action
        out = Path(scratch_folder())
        for fmt in (2, 1):
            runs = []
            for _ in range(2):
                action.pop(fingerprint.KEY, None)      # as if edited: evaluate every frame
                t = time.perf_counter()
                result = export_ala(bpy.context, arm, action, str(out / f"x{fmt}.ala"),
                                    AlaExportOptions(format=fmt))
                runs.append((time.perf_counter() - t, result.timings, result.pose_from))
            total, stages, pose_from = min(runs, key=lambda r: r[0])
            print(f"  export format #{fmt}: {total:.3f} s (target < {EXPORT_TARGET_S:.0f} s: "
                  f"{'met' if total < EXPORT_TARGET_S else 'NOT met'}); "
                  + ", ".join(f"{k} {v:.3f} s" for k, v in stages.items())
                  + f" (pose from {pose_from})")
            ok = ok and total < EXPORT_TARGET_S
        ours = held_out(import_alo, import_ala, AloImportOptions, AlaImportOptions)
        if args.older:
            ok = against_older(args.older, ours, args.older_runs) and ok
        return 0 if ok else 1
    finally:
        io_alamo.unregister()


if __name__ == "__main__":
    sys.exit(main())
