"""Check that a built extension zip installs in this Python's Blender (the bpy wheel) with the
wheels it bundles, and that those wheels load there (imagecodecs' LZO and BCn, etcpak):

    python scripts/build_extension.py
    .venvs/bpy42/bin/python scripts/check_extension_install.py dist/io_alamo-0.1.0-linux_x64.zip
    .venv/bin/python        scripts/check_extension_install.py dist/io_alamo-0.1.0-linux_x64.zip
    .venvs/bpy50/bin/python scripts/check_extension_install.py dist/io_alamo-0.1.0-linux_x64.zip

The wheels are loaded in a child process with the extension's own site-packages first, so a
copy installed in the Python itself does not stand in for them. Exit status 1 on failure.
"""

import os
import shutil
import subprocess
import sys
import tempfile

PROBE = ("import sys; sys.path.insert(0, {site!r}); import numpy, imagecodecs, etcpak; "
         "ok = imagecodecs.__file__.startswith({site!r}) and etcpak.__file__.startswith({site!r})"
         " and imagecodecs.LZO.available and imagecodecs.BCN.available; "
         "print('numpy', numpy.__version__, 'imagecodecs', imagecodecs.__version__, "
         "'etcpak', etcpak.__version__); sys.exit(0 if ok else 1)")


def main(zip_path):
    resources = tempfile.mkdtemp(prefix="io_alamo-ext-")
    os.environ["BLENDER_USER_RESOURCES"] = resources
    import bpy
    import addon_utils                     # Blender's own: importable once bpy is
    try:
        print("Blender", bpy.app.version_string)
        if bpy.ops.extensions.package_install_files(
                filepath=zip_path, repo="user_default", enable_on_install=True) != {"FINISHED"}:
            print("error: the zip did not install")
            return 1
        modules = [m.__name__ for m in addon_utils.modules() if m.__name__.endswith("io_alamo")]
        enabled = [m for m in modules if addon_utils.check(m)[1]]
        print("enabled:", enabled)
        sites = [os.path.join(d, x) for d, dirs, _ in os.walk(resources) for x in dirs
                 if x == "site-packages"]
        status = 0 if enabled and sites else 1
        for site in sites:
            print("bundled:", sorted(n for n in os.listdir(site) if not n.endswith("-info")))
            r = subprocess.run([sys.executable, "-c", PROBE.format(site=site)],
                               capture_output=True, text=True)
            print("loads:" if r.returncode == 0 else "error: does not load:",
                  (r.stdout + r.stderr).strip()[-500:])
            status |= r.returncode
        for m in enabled:
            bpy.ops.preferences.addon_disable(module=m)
        return status
    finally:
        shutil.rmtree(resources, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1])))
