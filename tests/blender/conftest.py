"""Real headless Blender (the PyPI ``bpy`` wheel). Skipped where bpy is not installed;
scripts/test.sh runs this folder once per supported Blender version."""

import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "blender")):
    if p not in sys.path:
        sys.path.insert(0, p)

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="io_alamo-blender-"))
try:
    import bpy  # noqa: F401  (imported once per process)
except ImportError:
    bpy = None


if bpy is None:
    # Without bpy these modules cannot even be imported: do not collect them at all.
    collect_ignore_glob = ["test_*.py", "*/test_*.py", "scene.py"]



@pytest.fixture(scope="session")
def addon():
    import io_alamo
    io_alamo.register()
    yield io_alamo
    io_alamo.unregister()     # Blender 4.2/4.5 crash at exit if classes stay registered


@pytest.fixture
def blender(addon):
    """A fresh empty scene with the add-on registered."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy
