"""The add-on registers and unregisters cleanly: Blender 4.2/4.5 crash at exit otherwise
(for instance when a registered PropertyGroup has Python methods)."""

import subprocess
import sys
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import atexit, os, shutil, sys, tempfile
os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp()
atexit.register(shutil.rmtree, os.environ["BLENDER_USER_RESOURCES"], True)
sys.path.insert(0, {root!r})
import bpy, io_alamo
io_alamo.register()
bpy.ops.wm.read_factory_settings(use_empty=True)
assert hasattr(bpy.ops.import_scene, "alo")
# ours are alamo_ala: the older community plugin registers import_anim.ala/export_anim.ala
assert "alamo_ala" in dir(bpy.ops.import_anim) and "alamo_ala" in dir(bpy.ops.export_anim)
assert "ala" not in dir(bpy.ops.import_anim) and "ala" not in dir(bpy.ops.export_anim)
io_alamo.unregister()
assert not hasattr(bpy.types.Object, "alamo")
io_alamo.register()
io_alamo.unregister()
print("clean")
"""


def test_register_unregister_and_exit_cleanly():
    r = subprocess.run([sys.executable, "-c", SCRIPT.format(root=str(ROOT))],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"exit code {r.returncode}: {r.stderr[-2000:]}"
    assert "clean" in r.stdout


def test_menu_entries_present(addon):
    from io_alamo.blender.alamo.operators import menu_import
    assert menu_import in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()
