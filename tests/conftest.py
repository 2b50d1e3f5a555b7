import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)


def pytest_report_header(config):
    import importlib.util
    if importlib.util.find_spec("bpy") is None:
        return ("tests/blender not collected: bpy is not installed in this Python "
                "(scripts/test.sh runs them in .venvs/bpy*)")
    return "bpy wheel installed: tests/blender run in real headless Blender"
