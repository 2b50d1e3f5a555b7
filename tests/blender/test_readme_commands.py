"""The README's command examples run verbatim (issue 36): every concrete `python -m io_alamo`,
`io-alamo` and `python -m io_alamo.batch` line of its shell blocks runs in bash, in a fresh
copy of a mod folder laid out as the README's names say (Data/Art/Models/EI_VADER.ALO and its
animations, Models.meg, ../GameData/Data/Art/Textures, arma_mod/ with a spec-built truck), exits with status 0 and leaves the
inputs byte for byte as they were. Lines with placeholders (FILE, ARCHIVE, ...), `pip` and
`blender` lines are the synopsis and set-up, not examples; scripts have their own tests."""

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import CORPUS
from megbuild import write_meg
from p3d_vehicle import build_vehicle

from io_alamo.formats.alamo.sample import write_sample

pytest.importorskip("bpy")
ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\b(FILES?|ARCHIVE|IN|OUT|OUT_DIR|FOLDER|PATTERN|DIR|S)\b|\[")
NAMES = ["EI_VADER.ALO", "EI_VADER_IDLE_00.ALA", "EI_VADER_SPINMOVE_00.ALA"]


def readme_blocks():
    """The README's shell blocks that hold io_alamo examples, each a list of commands."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        lines = [re.split(r"\s+#", line, maxsplit=1)[0].strip() for line in block.splitlines()]
        lines = [line for line in lines if re.match(r"(python -m io_alamo|io-alamo)\b", line)
                 and not PLACEHOLDER.search(line)]
        if lines:
            blocks.append(lines)
    return blocks


def mod_folder(root):
    models = root / "mod" / "Data" / "Art" / "Models"
    models.mkdir(parents=True)
    if all((CORPUS / n).is_file() for n in NAMES):
        for n in NAMES:
            shutil.copy(CORPUS / n, models / n)
    else:                                     # no corpus: the sample under the README's names
        write_sample(models)
        (models / "Sample_Tank.alo").rename(models / "EI_VADER.ALO")
        (models / "Sample_Tank_Turn_00.ala").rename(models / "EI_VADER_IDLE_00.ALA")
    write_meg(root / "mod" / "Models.meg",
              {"DATA\\ART\\MODELS\\EI_VADER.ALO": (models / "EI_VADER.ALO").read_bytes()})
    (root / "GameData" / "Data" / "Art" / "Textures").mkdir(parents=True)
    build_vehicle(root / "mod" / "arma_mod", textures=2, side=64)   # the README's Arma folder
    return root / "mod"


def digests(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def shims(folder):
    """`python` and `io-alamo` on PATH: this Python, with the checkout importable."""
    folder.mkdir()
    for name, body in (("python", f'exec "{sys.executable}" "$@"'),
                       ("io-alamo", f'exec "{sys.executable}" -m io_alamo "$@"')):
        (folder / name).write_text(f"#!/bin/sh\n{body}\n")
        (folder / name).chmod(0o755)
    return dict(os.environ, PATH=f"{folder}{os.pathsep}{os.environ['PATH']}",
                PYTHONPATH=str(ROOT))


def test_the_readme_has_examples_to_run():
    blocks = readme_blocks()
    assert len(blocks) >= 3 and sum(map(len, blocks)) >= 9, blocks


@pytest.mark.skipif(os.name == "nt" or shutil.which("bash") is None, reason="runs bash")
@pytest.mark.parametrize("block", range(len(readme_blocks())))
def test_readme_commands_run_verbatim_and_leave_the_inputs_alone(tmp_path, block):
    mod = mod_folder(tmp_path)
    before = digests(mod)
    env = shims(tmp_path / "bin")
    for command in readme_blocks()[block]:
        r = subprocess.run(["bash", "-c", command], cwd=mod, env=env, capture_output=True,
                           text=True, timeout=900)
        assert r.returncode == 0, f"{command}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        assert "Traceback" not in r.stderr, command
    after = digests(mod)
    assert {k: v for k, v in after.items() if k in before} == before
