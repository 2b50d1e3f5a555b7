"""io_alamo: Blender import and export of Petroglyph Alamo models (.alo) and animations
(.ala), and import of three other engines' models: Alithia ALM1 (.alm, also exported), ALOD
progressive meshes (.alm) and binarized Arma models (.p3d, ODOL), so that they can become
Alamo models.

The format layer, :mod:`io_alamo.formats` (one subpackage per engine and one registry of
formats), needs only Python and numpy; importing this package never imports Blender. The
Blender layer, :mod:`io_alamo.blender`, is loaded only by Blender itself.
"""

__version__ = "0.1.0"

# For installing from a checkout as a legacy add-on; the extension package uses its manifest.
bl_info = {
    "name": "Alamo Engine Formats (.alo, .ala, .alm, .p3d)",
    "author": "io_alamo developers",
    "version": (0, 1, 0),
    "blender": (4, 2, 0),
    "location": "File > Import / Export > Alamo Model (.alo) / Alamo Animation (.ala); "
                "File > Import > Alithia Model (.alm) / ALOD Model (.alm) / Arma Binarized "
                "Model (.p3d)",
    "description": "Lossless import and export of Petroglyph Alamo models and animations "
                   "(Empire at War, Forces of Corruption, Universe at War); import of "
                   "Alithia and ALOD .alm and binarized Arma .p3d models",
    "category": "Import-Export",
}


import atexit

_cli_handle = None
_registered = False
_exit_hook = False


def register():
    """Called by Blender when the add-on is enabled, and by scripts that use the add-on
    from the ``bpy`` module (``import bpy, io_alamo; io_alamo.register()``). In such a
    script the add-on is unregistered again when the interpreter exits: Blender 4.2/4.5's
    bpy module crashes at exit (segmentation fault) while its classes are registered."""
    global _cli_handle, _registered, _exit_hook
    # bpy-optional: importing io_alamo (the format layer, the command line) never loads
    # Blender; only Blender (or a script using bpy) calls register() and unregister()
    import bpy

    from . import blender
    from .blender.batch import cli_command
    blender.register()
    _registered = True
    if hasattr(bpy.utils, "register_cli_command"):        # blender -b -c alamo ...
        _cli_handle = bpy.utils.register_cli_command("alamo", cli_command)
    if not bpy.app.binary_path and not _exit_hook:       # the bpy module, not Blender itself
        atexit.register(_unregister_at_exit)
        _exit_hook = True


def _unregister_at_exit():
    if _registered:
        unregister()


def unregister():
    global _cli_handle, _registered
    import bpy  # bpy-optional, as in register()

    from . import blender
    if _cli_handle is not None:
        bpy.utils.unregister_cli_command(_cli_handle)
        _cli_handle = None
    blender.unregister()
    _registered = False
