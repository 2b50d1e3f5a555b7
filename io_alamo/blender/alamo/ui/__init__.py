"""Modder-facing UI: the Alamo sidebar tab, the material panel, the Add menu entries.

One module per area, as io_scene_psk_psa splits its UI; each has its ``CLASSES`` and a
register()/unregister() made with :func:`.shared.register_factory`. Operators and panels
are thin: the work is done by Blender-layer modules outside this package (shading, checks,
lod_alt, visibility, actions, add, targets), which scripts and tests can call too.
"""

from . import add, animations, bones, checks, legacy, lod_alt, material, objects, team, textures

# registration order: the sidebar panels in the order the original module registered them
# (their bl_order decides where they show); each module registers its own property groups
# before the properties that point to them
MODULES = (add, textures, objects, bones, lod_alt, animations, checks, material, team, legacy)
CLASSES = tuple(cls for module in MODULES for cls in module.CLASSES)
# The session's validation results and list positions (not saved with the file).
WINDOW_MANAGER_PROPERTIES = checks.WINDOW_MANAGER_PROPERTIES + \
    animations.WINDOW_MANAGER_PROPERTIES


def register():
    for module in MODULES:
        module.register()


def unregister():
    for module in reversed(MODULES):
        module.unregister()
