"""The Blender layer. Everything here may import bpy; nothing in io_alamo.formats does."""

from . import operators, prefs, props, ui
from . import operators_alm

_modules = (props, prefs, operators, ui)
_modules += (operators_alm,)


def register():
    for m in _modules:
        m.register()


def unregister():
    for m in reversed(_modules):
        m.unregister()
