"""scripts/build_extension.py without Blender's validator (no 1 GB bpy wheel): the zip is
written, a note says it was not validated and how to skip the check, and the exit status is 0;
and ``python -m io_alamo.formats.alamo.sample --help`` prints its usage instead of making a folder."""

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_without_a_validator_the_zip_is_written_with_a_note(tmp_path, capsys, monkeypatch):
    spec = importlib.util.spec_from_file_location("build_extension",
                                                  ROOT / "scripts" / "build_extension.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "find_validator", lambda: None)
    assert module.main(["--out", str(tmp_path), "--no-wheels"]) == 0
    captured = capsys.readouterr()
    assert "not validated" in captured.err and "--no-validate" in captured.err
    zip_path = Path(captured.out.strip().splitlines()[-1])
    assert zip_path.exists() and "blender_manifest.toml" in zipfile.ZipFile(zip_path).namelist()


def test_sample_help_prints_usage_and_makes_nothing(tmp_path):
    r = subprocess.run([sys.executable, "-m", "io_alamo.formats.alamo.sample", "--help"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60,
                       env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m io_alamo.formats.alamo.sample OUT_DIR")
    assert list(tmp_path.iterdir()) == []


def test_bundled_wheels_are_listed_in_the_zips_manifest(tmp_path):
    """The wheels given to build() go into wheels/ and the manifest's ``wheels`` list (what
    Blender installs with the extension); the repository's manifest stays without them."""
    import tomllib
    spec = importlib.util.spec_from_file_location("build_extension",
                                                  ROOT / "scripts" / "build_extension.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    wheels = []
    for name in ("imagecodecs-2025.3.30-cp311-cp311-win_amd64.whl",
                 "etcpak-0.9.15-cp37-abi3-macosx_11_0_arm64.whl"):
        (tmp_path / name).write_bytes(b"PK")
        wheels.append(tmp_path / name)
    zip_path = module.build(tmp_path / "dist", wheels)
    z = zipfile.ZipFile(zip_path)
    manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
    assert manifest["wheels"] == [f"./wheels/{w.name}" for w in wheels]
    assert manifest["permissions"]["files"]                      # the tables still follow
    assert {f"wheels/{w.name}" for w in wheels} <= set(z.namelist())
    assert "wheels" not in tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    assert {p.split("==")[0] for p in module.BUNDLED} == {"imagecodecs", "etcpak", "archspec"}


def test_one_zip_per_platform_holds_only_its_wheels(tmp_path):
    """A platform's zip (as Blender's --split-platforms makes) names its platform in the
    manifest and holds only the wheels that install there, pure ones included."""
    import tomllib
    spec = importlib.util.spec_from_file_location("build_extension",
                                                  ROOT / "scripts" / "build_extension.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = ["imagecodecs-2025.3.30-cp311-cp311-win_amd64.whl",
             "imagecodecs-2025.3.30-cp311-cp311-macosx_11_0_arm64.whl",
             "imagecodecs-2025.3.30-cp311-cp311-macosx_10_14_x86_64.whl",
             "etcpak-0.9.15-cp37-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
             "archspec-0.2.7-py3-none-any.whl"]
    wheels = []
    for name in names:
        (tmp_path / name).write_bytes(b"PK")
        wheels.append(tmp_path / name)
    expected = {"windows-x64": {names[0], names[4]}, "macos-arm64": {names[1], names[4]},
                "macos-x64": {names[2], names[4]}, "linux-x64": {names[3], names[4]}}
    for platform, held in expected.items():
        zip_path = module.build(tmp_path / "dist", wheels, platform)
        assert zip_path.name == f"io_alamo-{module.check_versions()['version']}-" \
                                f"{platform.replace('-', '_')}.zip"
        z = zipfile.ZipFile(zip_path)
        manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
        assert manifest["platforms"] == [platform]
        assert {w.rpartition("/")[2] for w in manifest["wheels"]} == held
        assert {n.rpartition("/")[2] for n in z.namelist() if n.startswith("wheels/")} == held


def test_each_zip_prints_its_own_validation(tmp_path, capsys, monkeypatch):
    """Issue 40: every zip's verdict is printed, not only the last one's."""
    spec = importlib.util.spec_from_file_location("build_extension",
                                                  ROOT / "scripts" / "build_extension.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    validator = tmp_path / "a" / "b" / "c" / "d" / "e" / "f" / "blender_ext.py"
    monkeypatch.setattr(module, "find_validator", lambda: str(validator))
    seen = []
    monkeypatch.setattr(module, "validate",
                        lambda z, v: seen.append(z) or (True, f"checked {Path(z).name}"))
    assert module.main(["--out", str(tmp_path), "--no-wheels"]) == 0
    out = capsys.readouterr().out
    assert seen and all(f"  {Path(z).name}: checked {Path(z).name}" in out for z in seen)
