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
    "location": "File > Import > Alamo Model (.alo) / Alamo Animation (.ala)",
    "description": "Lossless import of Petroglyph Alamo models and animations "
                   "(Empire at War, Forces of Corruption, Universe at War)",
    "category": "Import-Export",
}


def register():
    """Called by Blender when the add-on is enabled."""
    from . import blender
    blender.register()


def unregister():
    from . import blender
    blender.unregister()
