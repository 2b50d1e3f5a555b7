"""The extension package: built by scripts/build_extension.py, accepted by Blender's own
validator, installed the way users install it, and working from the installed copy."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_extension  # noqa: E402


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    return build_extension.build(tmp_path_factory.mktemp("dist"))


def test_zip_layout_and_blender_validator(package):
    names = zipfile.ZipFile(package).namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names
    assert "data/shaders.json" in names and "formats/alamo/chunks.py" in names
    assert not [n for n in names if n.startswith("tests") or "__pycache__" in n
                or n.endswith(".pyc")]
    validator = build_extension.find_validator()
    assert validator is not None, "the bpy wheel ships bl_pkg/cli/blender_ext.py"
    ok, text = build_extension.validate(package, validator)
    assert ok, text


def test_installed_extension_imports_and_exports(package, tmp_path):
    write_sample(tmp_path / "in")
    model = tmp_path / "in" / "Sample_Tank.alo"
    out = tmp_path / "out" / "Sample_Tank.alo"
    out.parent.mkdir()
    proc = subprocess.run([sys.executable, str(Path(__file__).parent / "scripts" /
                                               "install_extension.py"),
                           str(package), str(model), str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("ok"), \
        proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "module bl_ext.user_default.io_alamo.blender.alamo.operators" in proc.stdout
    assert out.read_bytes() == model.read_bytes()
    assert (out.parent / "Sample_Tank_Turn_00.ala").read_bytes() == \
        (tmp_path / "in" / "Sample_Tank_Turn_00.ala").read_bytes()
