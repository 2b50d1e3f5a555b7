"""The Blender layer. Everything here may import bpy; nothing in io_alamo.formats does."""

from . import prefs, props, ui
from .alamo import operators
from .alamo.legacy import panel as legacy_panel
from .alithia import operators as operators_alm
from .arma import operators as operators_p3d

_modules = (props, prefs, operators, operators_alm, operators_p3d, ui, legacy_panel)


def register():
    for m in _modules:
        m.register()


def unregister():
    for m in reversed(_modules):
        m.unregister()
