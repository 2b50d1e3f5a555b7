"""Temporary folders that are removed when the process ends: Blender's user-resource folder
of a headless run (so a batch, demo or test never touches the user's Blender settings) and
the scratch folders of scripts. Nothing is left in the system's temporary folder."""

import atexit
import os
import shutil
import tempfile

__all__ = ["blender_user_resources", "remove_scratch_folders", "scratch_folder"]

_FOLDERS = []


def scratch_folder(prefix="io_alamo-"):
    """A new temporary folder, removed (with all in it) when the process ends."""
    folder = tempfile.mkdtemp(prefix=prefix)
    _FOLDERS.append(folder)
    return folder


def blender_user_resources(prefix="io_alamo-blender-"):
    """Point ``BLENDER_USER_RESOURCES`` at a scratch folder, unless it is set already;
    returns the folder in use. Call before ``import bpy``."""
    if not os.environ.get("BLENDER_USER_RESOURCES"):
        os.environ["BLENDER_USER_RESOURCES"] = scratch_folder(prefix)
    return os.environ["BLENDER_USER_RESOURCES"]


@atexit.register
def remove_scratch_folders():
    """Remove the scratch folders now (also called before a process ends with ``os._exit``,
    which skips ``atexit``)."""
    while _FOLDERS:
        shutil.rmtree(_FOLDERS.pop(), ignore_errors=True)
