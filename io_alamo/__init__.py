"""io_alamo: Alamo engine (.alo models, .ala animations) import and export for Blender.

The format layer, :mod:`io_alamo.formats`, needs only Python and numpy; importing this
package never imports Blender. The Blender layer is loaded only by Blender itself.
"""

__version__ = "0.1.0"

# For installing from a checkout as a legacy add-on; the extension package uses its manifest.
bl_info = {
    "name": "Alamo Engine Formats (.alo, .ala)",
    "author": "io_alamo developers",
    "version": (0, 1, 0),
    "blender": (4, 2, 0),
    "location": "File > Import / Export > Alamo Model (.alo) / Alamo Animation (.ala)",
    "description": "Lossless import and export of Petroglyph Alamo models and animations "
                   "(Empire at War, Forces of Corruption, Universe at War)",
    "category": "Import-Export",
}


_cli_handle = None


def register():
    """Called by Blender when the add-on is enabled."""
    global _cli_handle
    # bpy-optional: importing io_alamo (the format layer, the command line) never loads
    # Blender; only Blender calls register() and unregister()
    import bpy

    from . import blender
    from .blender.batch import cli_command
    blender.register()
    if hasattr(bpy.utils, "register_cli_command"):        # blender -b -c alamo ...
        _cli_handle = bpy.utils.register_cli_command("alamo", cli_command)


def unregister():
    global _cli_handle
    import bpy  # bpy-optional, as in register()

    from . import blender
    if _cli_handle is not None:
        bpy.utils.unregister_cli_command(_cli_handle)
        _cli_handle = None
    blender.unregister()
