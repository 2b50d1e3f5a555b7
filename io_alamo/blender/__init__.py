"""The Blender layer. Everything here may import bpy; nothing in io_alamo.formats does."""

from . import operators, operators_alm, operators_p3d, prefs, props, ui
from .legacy import panel as legacy_panel

_modules = (props, prefs, operators, operators_alm, operators_p3d, ui, legacy_panel)


def register():
    for m in _modules:
        m.register()


def unregister():
    for m in reversed(_modules):
        m.unregister()
