"""The Blender layer. Everything here may import bpy; nothing in io_alamo.formats does."""

from . import operators, operators_alm, operators_p3d, prefs, props, ui

_modules = (props, prefs, operators, operators_alm, operators_p3d, ui)


def register():
    for m in _modules:
        m.register()


def unregister():
    for m in reversed(_modules):
        m.unregister()
