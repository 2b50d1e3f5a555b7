"""io_alamo: Alamo engine (.alo models, .ala animations) import and export for Blender.

The format layer, :mod:`io_alamo.formats`, needs only Python and numpy; importing this
package never imports Blender. The Blender layer is loaded only by Blender itself.
"""

__version__ = "0.1.0"


def register():
    """Called by Blender when the add-on is enabled."""
    from . import blender
    blender.register()


def unregister():
    from . import blender
    blender.unregister()
