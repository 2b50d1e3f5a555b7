"""Registration of the particle preview (its handlers; it adds no operator or panel)."""

from . import handlers


def register():
    handlers.register()


def unregister():
    handlers.unregister()
