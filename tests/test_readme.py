"""The README's two commands work in a fresh copy of the repository, so the README never goes
stale.

What this test cannot do: download the bpy wheel and numpy again (about 1 GB) on every run.
The fresh copy therefore links the checkout's .venv, which scripts/venv.sh made from the
same requirement files; the installs themselves are exercised by CI, which runs the README's
test command on a clean clone. The second command runs with the Blender tests switched off
and a small selection (-k cli), since the full suite is what is running this test.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def readme_commands():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_readme_has_two_commands():
    assert readme_commands() == ["./scripts/setup.sh", "./scripts/test.sh"]


def fresh_copy(dest):
    """The files git would check out (tracked, plus new files not ignored), as they are in the
    working tree."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    for venv in (".venv", ".venv-np2"):
        if (ROOT / venv).is_dir():
            (dest / venv).symlink_to(ROOT / venv)


@pytest.mark.skipif(Path(sys.prefix).resolve() != (ROOT / ".venv").resolve()
                    or os.environ.get("ALAMO_IN_README_TEST") == "1",
                    reason="runs once, from the checkout's .venv (the first run of "
                           "scripts/test.sh), not in nested runs")
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to list the files")
def test_readme_commands_run_in_a_fresh_copy(tmp_path):
    clone = tmp_path / "io_alamo"
    clone.mkdir()
    fresh_copy(clone)
    env = dict(os.environ, ALAMO_IN_README_TEST="1", ALAMO_BLENDER_VERSIONS="")
    setup, tests = readme_commands()
    r = subprocess.run([setup], cwd=clone, env=env, capture_output=True, text=True,
                       timeout=900, shell=False)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "Sample_Tank.alo: byte-identical" in r.stdout
    demo = clone / "out" / "demo"
    for rel in ("source/Sample_Tank.alo", "source/Sample_Tank_Turn_00.ala",
                "blender/Sample_Tank.blend", "blender/Sample_Tank.glb",
                "blender/Sample_Tank.png", "export/Sample_Tank.alo",
                "export/Sample_Tank_Turn_00.ala"):
        assert (demo / rel).is_file(), rel
    assert list((clone / "dist").glob("io_alamo-*.zip"))
    r = subprocess.run([tests, "-k", "cli"], cwd=clone, env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert r.stdout.count("passed") >= 2          # numpy 1.26 and numpy 2.x runs
