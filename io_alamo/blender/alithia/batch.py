"""Alithia's batch step: an ALM1 .alm imported to a .blend, or exported straight to an Alamo
unit."""

from ..alamo.hub import unit_batch_step
from .importer import Alm1ImportOptions, import_alm1

__all__ = ["STEPS"]

STEPS = {"alm1": unit_batch_step(import_alm1, Alm1ImportOptions)}
