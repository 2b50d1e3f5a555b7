"""The Blender layer: one subpackage per engine (``alamo``, ``alithia``, ``alod``, ``arma``:
its importer, exporter and File-menu operators), neutral modules they share (the
transaction, results and problems, texture lookup, file operators, names) and the Alamo
sidebar (``alamo.ui``). Engines' ``operators`` and ``ui`` modules are registered by
discovery (:mod:`.discovery`), none by name. Everything here may import bpy; nothing in
io_alamo.formats does."""

from . import prefs, props
from .discovery import engine_modules

__all__ = ["register", "unregister"]

_registered = []


def modules():
    """What register() registers, in order: the neutral properties and preferences, every
    engine's ``operators`` modules (found by name), then every engine's ``ui``."""
    return [props, prefs] + engine_modules("operators") + engine_modules("ui")


def register():
    _registered[:] = modules()
    for m in _registered:
        m.register()


def unregister():
    for m in reversed(_registered or modules()):
        m.unregister()
    _registered.clear()
