"""The Blender layer: one subpackage per engine (``alamo``, ``alithia``, ``alod``, ``arma``:
its importer, exporter and File-menu operators), neutral modules they share (the
transaction, results and problems, texture lookup, file operators, names) and the Alamo
sidebar (``alamo.ui``). Engines' ``operators`` and ``ui`` modules are registered by
discovery (:mod:`.discovery`), none by name. Everything here may import bpy; nothing in
io_alamo.formats does."""

from . import prefs
from .discovery import engine_modules

__all__ = ["modules", "register", "unregister"]


def modules():
    """What register() registers, in order: the preferences, every engine's ``operators``
    modules (found by name; Alamo's registers its data model, the ``.alamo`` properties,
    first), then every engine's ``ui``."""
    return [prefs] + engine_modules("operators") + engine_modules("ui")


# found when the package is imported, as they were imported by name before: all their
# classes exist before anything registers (importing them while registering made Blender
# 4.2 crash at exit after the installed extension was disabled)
_modules = modules()


def register():
    for m in _modules:
        m.register()


def unregister():
    for m in reversed(_modules):
        m.unregister()
