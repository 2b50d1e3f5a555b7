"""Arma's batch step: a .p3d imported (with its declared options: game scale, on the
ground, proxied parts) to a .blend, or exported straight to an Alamo unit."""

from ..alamo.hub import unit_batch_step
from .importer import P3dImportOptions, import_p3d

__all__ = ["STEPS"]

STEPS = {"p3d": unit_batch_step(import_p3d, P3dImportOptions)}
