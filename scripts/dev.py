"""The README's two commands without bash (Windows, or any shell): ``setup`` and ``test``.

    py -3.11 scripts\\dev.py setup        # = ./scripts/setup.sh
    py -3.11 scripts\\dev.py test -x      # = ./scripts/test.sh -x (extra arguments to pytest)

They make the same environments as ``scripts/venv.sh`` and ``scripts/test.sh`` (``.venv`` with
the bpy wheel of Blender 4.5 and numpy 1.26, ``.venv-np2`` with numpy 2, ``.venvs/bpy42`` and
``.venvs/bpy50``) and run the same steps; ``ALAMO_BLENDER_VERSIONS`` works the same way.
``--dry-run`` prints the commands instead of running them.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODECS = ["imagecodecs==2025.3.30", "etcpak==0.9.15"]


def python_of(venv, windows=os.name == "nt"):
    """The interpreter of a virtual environment: Scripts\\python.exe on Windows."""
    return str(Path(venv) / ("Scripts/python.exe" if windows else "bin/python"))


def _has(venv, module, windows):
    py = python_of(ROOT / venv, windows)
    return Path(py).exists() and subprocess.run(
        [py, "-c", f"import {module}"], capture_output=True).returncode == 0


def venv_steps(venv, packages, probe, windows=os.name == "nt", check=True):
    """The commands that make ``venv`` with ``packages`` unless ``probe`` imports there."""
    if check and _has(venv, probe, windows):
        return []
    py = python_of(venv, windows)
    return [[sys.executable, "-m", "venv", venv],
            [py, "-m", "pip", "install", "-q", "--upgrade", "pip"],
            [py, "-m", "pip", "install", "-q", *packages]]


def setup_steps(windows=os.name == "nt", check=True, demo_args=()):
    py = python_of(".venv", windows)
    steps = venv_steps(".venv", ["-r", "requirements-dev.txt", "-r",
                                 "requirements-blender.txt"], "bpy, pytest", windows, check)
    if not check or not _has(".venv", "io_alamo.cli", windows):
        steps.append([py, "-m", "pip", "install", "-q", "--no-deps", "-e", "."])
    return steps + [[py, "scripts/demo.py", *demo_args]]


def test_steps(pytest_args=(), windows=os.name == "nt", check=True, versions=None):
    versions = os.environ.get("ALAMO_BLENDER_VERSIONS", "4.2 4.5 5.0") if versions is None \
        else versions
    steps = setup_steps(windows, check)[:-1]
    py, np2 = python_of(".venv", windows), python_of(".venv-np2", windows)
    steps.append([py, "-m", "pytest", "-q", "tests", "--ignore=tests/blender", *pytest_args])
    steps += venv_steps(".venv-np2", ["numpy>=2", "pytest", "hypothesis", *CODECS],
                        "numpy, imagecodecs", windows, check)
    steps.append([np2, "-m", "pytest", "-q", "tests", "--ignore=tests/blender", *pytest_args])
    for v in versions.split():
        venv = ".venv" if v == "4.5" else f".venvs/bpy{v.replace('.', '')}"
        if venv != ".venv":
            steps += venv_steps(venv, [f"bpy=={v}.*", "numpy<2", "pytest", "hypothesis",
                                       *CODECS], "bpy", windows, check)
        steps.append([python_of(venv, windows), "-m", "pytest", "-q", "tests/blender",
                      *pytest_args])
    return steps


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    dry = "--dry-run" in argv
    argv = [a for a in argv if a != "--dry-run"]
    if not argv or argv[0] not in ("setup", "test"):
        print(__doc__)
        return 2
    steps = setup_steps(demo_args=argv[1:]) if argv[0] == "setup" else test_steps(argv[1:])
    for step in steps:
        print("+ " + " ".join(step), flush=True)
        if not dry and subprocess.run(step, cwd=ROOT).returncode != 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
