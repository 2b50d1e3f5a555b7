"""The format layer and the command line work in a Python that has no Blender modules."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BLOCKER = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('bpy', 'mathutils', 'bmesh', 'bpy_extras'):
            raise ImportError('Blender module ' + name + ' is not available here')
sys.meta_path.insert(0, Block())
"""


def run(code):
    return subprocess.run([sys.executable, "-c", BLOCKER + code], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_format_layer_imports_and_works_without_blender():
    r = run("""
import io_alamo, io_alamo.formats as f, io_alamo.cli
import numpy as np
from io_alamo.formats.alamo import *
m = Model(Skeleton([Bone('Root', -1, np.eye(3, 4, dtype='<f4'))]))
data = write_alo(m)
assert read_alo(data).bones[0].name == 'Root'
assert not any(k.split('.')[0] in ('bpy', 'mathutils', 'bmesh') for k in sys.modules)
print('ok')
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_blocker_really_blocks():
    r = run("import bpy")
    assert r.returncode != 0 and "not available here" in r.stderr


def test_command_line_runs_without_blender(tmp_path):
    r = run("import runpy, sys; sys.argv = ['io_alamo', '--help']; "
            "runpy.run_module('io_alamo', run_name='__main__')")
    assert "roundtrip" in r.stdout and "convert-ala" in r.stdout
