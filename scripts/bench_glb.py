"""Benchmark: what ``batch import --glb`` adds to a plain ``batch import`` of the same files,
in the same run (target: at most 50% more; issue 36 measured ten times before the glb's
animations were written with numpy instead of by the glTF exporter's per-frame sampling).

    .venv/bin/python scripts/bench_glb.py [--big-textures] [--rounds N] [FOLDER_OR_FILES...]

Default: the .alo files of $ALAMO_CORPUS or ../shared/corpus (their .ala animations come
along), else the generated sample. ``--big-textures``: the corpus' heavy_missile_platform
with 2048x2048 colour and normal maps (generated DXT5 textures under its own names) instead,
the issue's "model with 2048x2048 textures". Each variant runs in a fresh process
(``python -m io_alamo.batch``), plain and ``--glb`` alternated for ``--rounds`` rounds
(default 5); the fastest run of each counts, in CPU seconds. Exit status 1 if the target is
missed.
"""

import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from io_alamo.formats.alamo.sample import write_sample  # noqa: E402
from io_alamo.scratch import scratch_folder  # noqa: E402

TARGET = 1.5
ROUNDS = 5


BIG_MODEL = "heavy_missile_platform_ldl_l.alo"
BIG_TEXTURES = ("heavy_missile_platform_cm.DDS", "heavy_missile_platform_nm.DDS")


def big_textures(corpus, size=2048):
    """A folder with the corpus model and its two textures as ``size``² DXT5 files: smooth
    colour, fine detail and an alpha mask (team colour / gloss), as real maps have."""
    from io_alamo.formats.alamo.dds import encode_dds
    folder = Path(scratch_folder("alamo-bench-glb-2048-"))
    (folder / BIG_MODEL).write_bytes((corpus / BIG_MODEL).read_bytes())
    (folder / "Textures").mkdir()
    y, x = np.mgrid[0:size, 0:size] / size
    rng = np.random.default_rng(44)
    detail = np.kron(rng.random((size // 8, size // 8)), np.ones((8, 8)))
    for k, name in enumerate(BIG_TEXTURES):
        rgba = np.stack([0.5 + 0.4 * np.sin(9 * x + k), 0.5 + 0.4 * np.cos(7 * y),
                         0.3 + 0.6 * detail, (detail > 0.7) | (x > 0.5)], -1)
        (folder / "Textures" / name).write_bytes(
            encode_dds((np.clip(rgba, 0, 1) * 255).astype(np.uint8)))
    return [str(folder / BIG_MODEL)]


def inputs(argv):
    big = "--big-textures" in argv
    argv = [a for a in argv if a != "--big-textures"]
    if argv:
        return argv
    corpus = Path(os.environ.get("ALAMO_CORPUS") or ROOT.parent / "shared" / "corpus")
    if big:
        return big_textures(corpus)
    if corpus.is_dir():
        return [str(corpus)]
    folder = Path(scratch_folder("alamo-bench-glb-"))
    write_sample(folder)
    return [str(folder)]


def batch_seconds(files, extra):
    """CPU seconds (user + system) of one batch process: on a busy machine wall-clock time
    measures the neighbours too."""
    out = scratch_folder("alamo-bench-glb-out-")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([sys.executable, "-m", "io_alamo.batch", "import", *files, "--out",
                        out, *extra], capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode not in (0, 1):
        raise SystemExit(r.stdout[-2000:] + r.stderr[-2000:])
    return seconds, r.stdout.strip().splitlines()[-1]


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    rounds = ROUNDS
    if "--rounds" in argv:
        at = argv.index("--rounds")
        rounds = int(argv[at + 1])
        del argv[at:at + 2]
    files = inputs(argv)
    plain, glb = [], []
    for _ in range(rounds):         # alternated, so a change of load hits both alike
        seconds, summary = batch_seconds(files, [])
        plain.append(seconds)
        seconds, glb_summary = batch_seconds(files, ["--glb"])
        glb.append(seconds)
    ratio = min(glb) / min(plain)
    print(f"inputs: {' '.join(files)}\n  plain: {summary}\n  --glb: {glb_summary}")
    print("rounds (plain, --glb CPU s): "
          + ", ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(plain, glb)))
    paired = sorted(b / a for a, b in zip(plain, glb))
    print(f"each round's ratio: {', '.join(f'{r:.2f}' for r in paired)} (median "
          f"{paired[len(paired) // 2]:.2f}x; a drift of load between a round's two runs "
          "moves one round)")
    print(f"batch import:        {min(plain):7.2f} s CPU (fastest of {rounds})")
    print(f"batch import --glb:  {min(glb):7.2f} s CPU  ({ratio:.2f}x the plain import, target "
          f"<= {TARGET:.2f}x){'' if ratio <= TARGET else '  MISSED'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
