"""ALOD's batch step: an ALOD .alm imported to a .blend, or exported straight to an Alamo
unit."""

from ..alamo.hub import unit_batch_step
from .importer import AlodImportOptions, import_alod

__all__ = ["STEPS"]

STEPS = {"alod": unit_batch_step(import_alod, AlodImportOptions)}
