"""Build the Blender extension zip: blender_manifest.toml, LICENSE and the io_alamo package's
contents at the zip root (no tests, no caches), into dist/, then check it with the validator the bpy
wheel ships (bl_pkg/cli/blender_ext.py validate).

    python scripts/build_extension.py [--out DIR] [--validator PATH] [--no-validate]
                                      [--no-wheels | --all-platforms]

The compiled libraries io_alamo uses where they are installed (imagecodecs: LZO and BCn
decoding of Arma models and textures; etcpak: DXT compression of written textures) are
bundled as wheels for Blender's Python 3.11 on Windows, macOS and Linux: fetched with
``pip download --only-binary=:all: --platform ... --python-version 3.11`` into
``.cache/wheels`` (once) and listed in the zip's manifest (``wheels = [...]``), which Blender
installs with the extension. One zip per platform, as Blender's own ``extension build
--split-platforms`` makes them (``io_alamo-<version>-linux_x64.zip``, its manifest naming its
``platforms``, only its wheels: about a quarter of the size of one zip for all);
``--all-platforms`` writes one zip with every platform's wheels; ``--no-wheels`` leaves them
out (one small zip for every platform: the add-on then uses its pure Python/numpy decoders
and writes uncompressed textures).

Prints the paths of the zips. Exit status 1 if the manifest and the package disagree on the
version or the validator rejects the package. Without a bpy wheel (about 1 GB) there is no
validator: the zip is written, a note says it was not validated, and the exit status is 0
(``--no-validate`` skips validation and the note; ``--validator PATH`` names one).
"""

import argparse
import glob
import importlib.util
import os
import platform as platform_module
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
WHEEL_CACHE = ROOT / ".cache" / "wheels"
# Pinned: imagecodecs 2025.3.30 is the last release that allows numpy 1.x (Blender 4.2-5.0
# bundle numpy 1.26); archspec is etcpak's one (pure Python) dependency.
BUNDLED = ["imagecodecs==2025.3.30", "etcpak==0.9.15", "archspec==0.2.7"]
# Blender's platforms -> the wheel platform tags pip may take for them
WHEEL_PLATFORMS = {
    "windows-x64": ["win_amd64"],
    "macos-arm64": ["macosx_11_0_arm64"],
    "macos-x64": ["macosx_10_15_x86_64"],
    "linux-x64": ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"],
}
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


def fetch_wheels(cache=WHEEL_CACHE):
    """The bundled wheels for every platform, downloaded into ``cache`` unless there already;
    raises SystemExit naming the package and platform pip could not find."""
    cache.mkdir(parents=True, exist_ok=True)
    for platform, tags in WHEEL_PLATFORMS.items():
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
               "--dest", str(cache)]
        for tag in tags:
            cmd += ["--platform", tag]
        proc = subprocess.run(cmd + BUNDLED, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"error: pip could not download {' '.join(BUNDLED)} for "
                             f"{platform}:\n{proc.stderr.strip()[-2000:]}")
    wanted = {re.split("[=<>]", spec)[0].replace("-", "_").lower() for spec in BUNDLED}
    versions = {re.split("[=<>]", spec)[0].replace("-", "_").lower(): spec.split("==")[1]
                for spec in BUNDLED}
    wheels = []
    for path in sorted(cache.glob("*.whl")):
        name, version = path.name.split("-")[:2]
        if name.lower() in wanted and versions[name.lower()] == version:
            wheels.append(path)
    return wheels


def manifest_text(wheels, platform=None):
    """blender_manifest.toml, with ``wheels = [...]`` listing ``wheels`` (zip paths) and,
    for one platform's zip, ``platforms = [platform]``."""
    text = MANIFEST.read_text(encoding="utf-8")
    keys = ""
    if platform:
        keys += f'\nplatforms = ["{platform}"]\n'
    if wheels:
        listed = ",\n".join(f'  "./wheels/{Path(w).name}"' for w in wheels)
        keys += f"\nwheels = [\n{listed},\n]\n"
    if not keys:
        return text
    head, sep, tail = text.partition("\n[")         # top-level keys go before any table
    return f"{head.rstrip()}\n{keys}{sep}{tail}"


def serves(wheel, platform):
    """Whether the wheel file ``wheel`` installs on Blender's ``platform`` (a pure wheel
    serves every platform)."""
    name = Path(wheel).name
    if name.endswith("-none-any.whl"):
        return True
    tags = {"windows-x64": ("win_amd64",), "macos-arm64": ("macosx", "arm64"),
            "macos-x64": ("macosx", "x86_64"), "linux-x64": ("linux", "x86_64")}[platform]
    return all(tag in name for tag in tags)


def current_platform():
    """Blender's name for the platform this Python runs on (``linux-x64``), or None."""
    machine = {"amd64": "x64", "x86_64": "x64", "arm64": "arm64", "aarch64": "arm64"}.get(
        platform_module.machine().lower())
    system = {"win32": "windows", "darwin": "macos", "linux": "linux"}.get(sys.platform)
    name = f"{system}-{machine}"
    return name if name in WHEEL_PLATFORMS else None


def build(out_dir, wheels=(), platform=None):
    """The zip in ``out_dir``; ``wheels``: wheel files to bundle (see :func:`fetch_wheels`);
    ``platform`` (``linux-x64``): a zip for that platform only, with the wheels it takes."""
    manifest = check_versions()
    out_dir.mkdir(parents=True, exist_ok=True)
    if platform:
        wheels = [w for w in wheels if serves(w, platform)]
    suffix = f"-{platform.replace('-', '_')}" if platform else ""
    target = out_dir / f"{manifest['id']}-{manifest['version']}{suffix}.zip"
    tmp = target.with_suffix(".zip.tmp")
    files = [(path, name) for path, name in package_files() if name != "blender_manifest.toml"]
    files += [(Path(w), f"wheels/{Path(w).name}") for w in wheels]

    def add(z, name, data):
        info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))   # reproducible
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        z.writestr(info, data)
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        add(z, "blender_manifest.toml", manifest_text(wheels, platform).encode("utf-8"))
        for path, name in files:
            add(z, name, path.read_bytes())
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
                    help="write the zips without checking them with Blender's validator")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--no-wheels", action="store_true",
                       help="one zip without the compiled libraries' wheels (imagecodecs, "
                            "etcpak)")
    which.add_argument("--all-platforms", action="store_true",
                       help="one zip with every platform's wheels (default: one per platform)")
    args = ap.parse_args(argv)
    if args.no_wheels:
        targets = [build(args.out)]
    elif args.all_platforms:
        targets = [build(args.out, fetch_wheels())]
    else:
        wheels = fetch_wheels()
        targets = [build(args.out, wheels, platform) for platform in WHEEL_PLATFORMS]
    if not args.no_validate:
        validator = args.validator or find_validator()
        if validator is None:
            print("note: the zips were written but not validated: no bpy wheel with "
                  "Blender's extension validator here (pip install bpy, or pass --validator "
                  "PATH; --no-validate skips this check)", file=sys.stderr)
            print("\n".join(map(str, targets)))
            return 0
        print(f"validating with {Path(validator).relative_to(Path(validator).parents[5])}:")
        for target in targets:                  # each zip's verdict, not only the last one's
            ok, text = validate(target, validator)
            if not ok:
                print(f"error: {target.name} does not validate:\n{text}", file=sys.stderr)
                return 1
            print(f"  {target.name}: {' '.join(text.split()) or 'ok'}")
    print("\n".join(map(str, targets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
