"""Run in a fresh Python with the bpy wheel: install the built extension zip the way users do,
enable it, import and export a model through the installed copy, disable it.

    python install_extension.py ZIP MODEL.alo OUT.alo
Prints "module <name>" and "ok" on success; exits non-zero on any failure."""

import atexit
import os
import shutil
import sys
import tempfile

os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="alamo-ext-")
atexit.register(shutil.rmtree, os.environ["BLENDER_USER_RESOURCES"], True)
import bpy  # noqa: E402

zip_path, model, out = sys.argv[1:4]
bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                         enable_on_install=True)
name = "bl_ext.user_default.io_alamo"
enabled = name in bpy.context.preferences.addons
print("enabled", enabled)
module = sys.modules.get(name)
try:
    assert enabled and module is not None, "the extension is not enabled"
    print("module", bpy.types.EXPORT_SCENE_OT_alo.__module__)
    assert bpy.types.EXPORT_SCENE_OT_alo.__module__.startswith(name + ".")
    assert "io_alamo" not in sys.modules, "the checkout's package was imported instead"
    assert bpy.ops.import_scene.alo(filepath=model) == {"FINISHED"}
    arm = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"][0]
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.export_scene.alo(filepath=out, animations=True) == {"FINISHED"}
    print("ok")
finally:
    bpy.ops.preferences.addon_disable(module=name)    # 4.2/4.5 crash at exit otherwise
