"""Build the Blender extension zip: blender_manifest.toml, LICENSE and the io_alamo package's
contents at the zip root (no tests, no caches), into dist/, then check it with the validator the bpy
wheel ships (bl_pkg/cli/blender_ext.py validate).

    python scripts/build_extension.py [--out DIR] [--validator PATH] [--no-validate]

Prints the path of the zip. Exit status 1 if the manifest and the package disagree on the
version or the validator rejects the package. Without a bpy wheel (about 1 GB) there is no
validator: the zip is written, a note says it was not validated, and the exit status is 0
(``--no-validate`` skips validation and the note; ``--validator PATH`` names one).
"""

import argparse
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "io_alamo"
MANIFEST = ROOT / "blender_manifest.toml"
LICENSE = ROOT / "LICENSE"                 # GPL-3.0-or-later, as the manifest says
VALIDATOR = "scripts/addons_core/bl_pkg/cli/blender_ext.py"
SKIP_DIRS = {"__pycache__"}
SKIP_SUFFIXES = {".pyc", ".pyo"}


def package_files():
    """(path on disk, name in the zip) for every file the extension ships."""
    out = [(MANIFEST, "blender_manifest.toml"), (LICENSE, "LICENSE")]
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix in SKIP_SUFFIXES or name.startswith("."):
                continue
            out.append((path, path.relative_to(PACKAGE).as_posix()))
    return out


def check_versions():
    manifest = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    init = (PACKAGE / "__init__.py").read_text(encoding="utf-8")
    code = re.search(r'^__version__ = "([^"]+)"', init, re.M).group(1)
    if manifest["version"] != code:
        raise SystemExit(f"error: blender_manifest.toml says version {manifest['version']}, "
                         f"io_alamo/__init__.py says {code}")
    return manifest


def build(out_dir):
    manifest = check_versions()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{manifest['id']}-{manifest['version']}.zip"
    tmp = target.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for path, name in package_files():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))   # reproducible
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, path.read_bytes())
    os.replace(tmp, target)
    return target


def find_validator():
    """blender_ext.py from a bpy wheel: this interpreter's, or one in the project's venvs."""
    spec = importlib.util.find_spec("bpy")
    candidates = []
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            candidates += glob.glob(os.path.join(loc, "*", VALIDATOR))
    for venv in [".venv"] + sorted(glob.glob(".venvs/*")):
        candidates += glob.glob(str(ROOT / venv / "lib" / "python3*" / "site-packages" / "bpy" /
                                    "*" / VALIDATOR))
    return candidates[0] if candidates else None


def validate(zip_path, validator):
    proc = subprocess.run([sys.executable, validator, "validate", str(zip_path)],
                          capture_output=True, text=True)
    text = (proc.stdout + proc.stderr).strip()
    return proc.returncode == 0 and "error" not in text.lower(), text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "dist")
    ap.add_argument("--validator", help="path to bl_pkg/cli/blender_ext.py")
    ap.add_argument("--no-validate", action="store_true",
                    help="write the zip without checking it with Blender's validator")
    args = ap.parse_args(argv)
    target = build(args.out)
    if not args.no_validate:
        validator = args.validator or find_validator()
        if validator is None:
            print(f"note: {target.name} was written but not validated: no bpy wheel with "
                  "Blender's extension validator here (pip install bpy, or pass --validator "
                  "PATH; --no-validate skips this check)", file=sys.stderr)
            print(target)
            return 0
        ok, text = validate(target, validator)
        if not ok:
            print(f"error: {target.name} does not validate:\n{text}", file=sys.stderr)
            return 1
        print(f"validated with {Path(validator).relative_to(Path(validator).parents[5])}: "
              f"{text or 'ok'}")
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
