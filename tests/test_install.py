"""io_alamo as an installed tool: the wheel built from the checkout installs into a fresh venv
with numpy as its only dependency, and the ``io-alamo`` command works from any folder.

The wheel is built from a copy of the package (so no stale build/ folder of the checkout can
leak into it) with pip's build isolation, which fetches setuptools from the index or pip's
cache; numpy comes the same way. Real files from ../shared/corpus are used when it is there,
else the generated sample (a fresh clone has no corpus). Runs once per suite: in the checkout's
.venv run of scripts/test.sh, not again in the numpy 2 run.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from corpus import CORPUS

from io_alamo.formats.alamo.sample import write_sample

ROOT = Path(__file__).resolve().parents[1]
NETWORK_TROUBLE = ("Could not find a version", "No matching distribution", "Connection",
                   "Temporary failure in name resolution", "Network is unreachable")

pytestmark = pytest.mark.skipif(
    Path(sys.prefix).resolve() == (ROOT / ".venv-np2").resolve(),
    reason="the install test runs once per suite, in the numpy 1.26 run")


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300,
                          **kw)


def clean_env():
    """No PYTHONPATH: the installed copy must be the one that runs, not the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def pip_or_skip(result, what):
    if result.returncode != 0:
        text = result.stdout + result.stderr
        if any(s in text for s in NETWORK_TROUBLE):
            pytest.skip(f"{what}: pip could not reach a package index or its cache:\n"
                        f"{text[-800:]}")
        raise AssertionError(f"{what} failed:\n{text[-3000:]}")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    src = tmp_path_factory.mktemp("src")
    shutil.copytree(ROOT / "io_alamo", src / "io_alamo",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("wheel")
    r = run([sys.executable, "-m", "pip", "wheel", src, "--no-deps", "-w", out, "-q"],
            env=clean_env())
    pip_or_skip(r, "pip wheel")
    (found,) = out.glob("io_alamo-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    home = tmp_path_factory.mktemp("venv") / "venv"
    r = run([sys.executable, "-m", "venv", home], env=clean_env())
    assert r.returncode == 0, r.stderr
    bindir = home / ("Scripts" if os.name == "nt" else "bin")
    r = run([bindir / "python", "-m", "pip", "install", "-q", wheel], env=clean_env())
    pip_or_skip(r, "pip install of the wheel")
    return bindir


@pytest.fixture
def files(tmp_path):
    """(model, animation) to run the installed command on: real ones when the corpus is
    there, else the generated sample."""
    model, anim = CORPUS / "W_Grenade.alo", CORPUS / "W_Grenade_Idle_00.ala"
    if model.is_file() and anim.is_file():
        return model, anim
    write_sample(tmp_path / "sample")
    return tmp_path / "sample" / "Sample_Tank.alo", tmp_path / "sample" / "Sample_Tank_Turn_00.ala"


def test_wheel_holds_the_package_data_and_licence(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "io_alamo/formats/alamo/chunks.py" in names and "io_alamo/cli.py" in names
    assert "io_alamo/data/shaders.json" in names
    assert "io_alamo/blender/alamo/importer/alo.py" in names       # harmless without Blender: see README
    lic = [n for n in names if n.endswith("dist-info/licenses/LICENSE")]
    assert lic and b"GNU GENERAL PUBLIC LICENSE" in zipfile.ZipFile(wheel).read(lic[0])
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA")))
    requires = [line for line in meta.decode().splitlines() if line.startswith("Requires-Dist")]
    assert requires == ["Requires-Dist: numpy>=1.26"], requires
    assert b"License-Expression: GPL-3.0-or-later" in meta
    assert not [n for n in names if n.startswith("tests/") or "__pycache__" in n]


def test_installed_command_works_from_any_folder(venv, files, tmp_path):
    model, anim = files
    work = tmp_path / "elsewhere"
    work.mkdir()
    exe = venv / ("io-alamo.exe" if os.name == "nt" else "io-alamo")
    env = clean_env()

    where = run([venv / "python", "-c", "import io_alamo; print(io_alamo.__file__)"],
                cwd=work, env=env)
    assert where.returncode == 0 and str(ROOT) not in where.stdout, where.stdout + where.stderr

    r = run([exe, "info", model, anim], cwd=work, env=env)
    assert r.returncode == 0, r.stderr
    assert "model:" in r.stdout and "animation: format #" in r.stdout

    r = run([exe, "validate", model, anim], cwd=work, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(": ok") == 2

    r = run([exe, "roundtrip", model, anim], cwd=work, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(": identical") == 2

    r = run([exe, "convert-ala", anim, "one.ala", "--format", "1"], cwd=work, env=env)
    assert r.returncode == 0, r.stderr
    r = run([venv / "python", "-m", "io_alamo", "info", "one.ala"], cwd=work, env=env)
    assert r.returncode == 0 and "format #1 (EaW)" in r.stdout, r.stdout + r.stderr

    # the batch verbs need Blender's bpy, which this venv does not have: say so, no traceback
    r = run([exe, "batch", "import", model, "--out", "converted"], cwd=work, env=env)
    assert r.returncode == 2
    assert "needs Blender's Python module bpy" in r.stderr and "pip install bpy" in r.stderr
    assert "blender -b -c alamo import" in r.stderr and "Traceback" not in r.stderr
    assert not (work / "converted").exists()
    r = run([exe, "batch", "import", "--help"], cwd=work, env=env)
    assert r.returncode == 0 and "--textures" in r.stdout and "io-alamo batch" in r.stdout


@pytest.mark.skipif(os.name == "nt" or shutil.which("bash") is None, reason="setup is a bash script")
def test_setup_installs_the_io_alamo_command(tmp_path):
    """scripts/venv.sh (what setup.sh and test.sh run first) installs this checkout's
    ``io-alamo`` into .venv. The .venv here is a fresh one that sees the checkout's packages
    through a .pth file, so that the 1 GB of bpy is not installed again."""
    clone = tmp_path / "clone"
    shutil.copytree(ROOT / "io_alamo", clone / "io_alamo",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(ROOT / "scripts", clone / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, clone / name)
    r = run([sys.executable, "-m", "venv", clone / ".venv"], env=clean_env())
    assert r.returncode == 0, r.stderr
    site = run([clone / ".venv" / "bin" / "python", "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    shared = [p for p in sys.path if p.endswith("site-packages")]
    Path(site, "shared.pth").write_text("\n".join(shared) + "\n")
    r = run(["bash", "-c", ". scripts/venv.sh"], cwd=clone, env=clean_env())
    pip_or_skip(r, "the editable install of scripts/venv.sh")
    exe = clone / ".venv" / "bin" / "io-alamo"
    assert exe.is_file(), r.stdout + r.stderr
    write_sample(tmp_path / "work")
    r = run([exe, "validate", "-q", "."], cwd=tmp_path / "work", env=clean_env())
    assert r.returncode == 0 and r.stdout.strip() == "validated 2 files: 2 ok", r.stdout + r.stderr
