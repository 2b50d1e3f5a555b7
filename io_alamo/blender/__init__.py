"""The Blender layer: one subpackage per engine (``alamo``, ``alithia``, ``alod``, ``arma``:
its importer, exporter and File-menu operators), neutral modules they share (the
transaction, results and problems, texture lookup, file operators, names) and the Alamo
sidebar (``ui``). Everything here may import bpy; nothing in io_alamo.formats does."""

from . import prefs, props
from .alamo import ui
from .alamo import operators
from .alamo.particle_preview import operators as operators_particle_preview
from .alithia import operators as operators_alm
from .alod import operators as operators_alod
from .arma import operators as operators_p3d
from .alamo.particles import operators as operators_particles   # issue 33; contract: discovery

_modules = (props, prefs, operators, operators_alm, operators_alod, operators_p3d,
            operators_particles, operators_particle_preview, ui)


def register():
    for m in _modules:
        m.register()


def unregister():
    for m in reversed(_modules):
        m.unregister()
