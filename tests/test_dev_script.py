"""Issue 40: the README's two commands have a route without bash (scripts/dev.py), making the
same environments and running the same steps as scripts/setup.sh and scripts/test.sh."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("dev", ROOT / "scripts" / "dev.py")
dev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dev)


def test_windows_steps_use_the_scripts_folder_and_run_every_suite():
    steps = dev.test_steps(["-x"], windows=True, check=False, versions="4.2 4.5 5.0")
    runs = [s for s in steps if s[1:3] == ["-m", "pytest"]]
    assert [s[0] for s in runs] == [".venv/Scripts/python.exe", ".venv-np2/Scripts/python.exe",
                                    ".venvs/bpy42/Scripts/python.exe",
                                    ".venv/Scripts/python.exe",
                                    ".venvs/bpy50/Scripts/python.exe"]
    assert all(s[-1] == "-x" for s in runs)
    assert ["--ignore=tests/blender"] == [a for a in runs[0] if a.startswith("--ignore")]
    made = [s[-1] for s in steps if s[1:3] == ["-m", "venv"]]
    assert made == [".venv", ".venv-np2", ".venvs/bpy42", ".venvs/bpy50"]


def test_setup_installs_the_requirements_and_runs_the_demo():
    steps = dev.setup_steps(windows=True, check=False)
    flat = [" ".join(s) for s in steps]
    assert any("requirements-dev.txt" in f and "requirements-blender.txt" in f for f in flat)
    assert any(f.endswith("-e .") for f in flat)
    assert steps[-1][1:] == ["scripts/demo.py"]
    shell = (ROOT / "scripts" / "venv.sh").read_text() + (ROOT / "scripts" / "test.sh").read_text()
    for pin in dev.CODECS:          # the same pins as the bash route
        assert pin in shell
