"""The README's scripting example runs verbatim (issue 36): in a folder holding EI_VADER.ALO
and its animations (copies of the corpus's, or the generated sample under those names) it
imports once, writes only new files, leaves its inputs byte for byte as they were, and the
script exits with status 0 (no crash at exit although it never calls unregister())."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import CORPUS

from io_alamo.formats.alamo.sample import write_sample

pytest.importorskip("bpy")
ROOT = Path(__file__).resolve().parents[2]


def readme_script():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("Scripts call the same functions the menu uses.", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def vader_folder(folder):
    names = ["EI_VADER.ALO", "EI_VADER_IDLE_00.ALA", "EI_VADER_SPINMOVE_00.ALA"]
    if all((CORPUS / n).is_file() for n in names):
        for n in names:
            shutil.copy(CORPUS / n, folder / n)
    else:                                   # no corpus: the sample under the same names
        write_sample(folder)
        (folder / "Sample_Tank.alo").rename(folder / "EI_VADER.ALO")
        (folder / "Sample_Tank_Turn_00.ala").rename(folder / "EI_VADER_IDLE_00.ALA")
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_the_readme_script_runs_and_leaves_its_inputs_alone(tmp_path):
    inputs = vader_folder(tmp_path)
    (tmp_path / "vader.py").write_text(readme_script())
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "vader.py"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"exit status {r.returncode}: {r.stderr[-2000:]}"
    for name, data in inputs.items():
        assert (tmp_path / name).read_bytes() == data, f"{name} was changed"
    made = sorted(p.name for p in (tmp_path / "exported").iterdir())
    assert "EI_VADER_NEW.ALO" in made and "EI_VADER_IDLE_00_EAW.ALA" in made
    n = len([k for k in inputs if k.endswith(".ALA")])
    assert f"{n} animations" in r.stdout.splitlines()[0]       # imported once, with the model
    # run again: its own output is not taken for one of the model's animations (issue 40)
    r = subprocess.run([sys.executable, "vader.py"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and f"{n} animations" in r.stdout.splitlines()[0], r.stderr[-2000:]
