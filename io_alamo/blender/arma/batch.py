"""Arma's batch step: a .p3d imported (with the File menu's options: game scale, on the
ground, proxied parts) to a .blend, or exported straight to an Alamo unit."""

from ..alamo.hub import unit_batch_step
from .importer import P3dImportOptions, import_p3d

__all__ = ["STEPS"]


def _import(context, path, options):
    return import_p3d(context, path, P3dImportOptions(
        texture_folders=list(options.get("texture_folders", ())),
        game_scale=not options.get("metres", False),
        on_ground=not options.get("not_on_ground", False),
        import_parts=not options.get("no_parts", False)))


STEPS = {"p3d": unit_batch_step(_import)}
