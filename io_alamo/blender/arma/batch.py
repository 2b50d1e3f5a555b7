"""Arma's batch step: a .p3d imported (with its declared options: game scale, on the
ground, proxied parts) to a .blend, or exported straight to an Alamo unit; and the small
images its textures show in the batch's preview render (the PAA's own small mipmap)."""

from ..alamo.hub import unit_batch_step
from .importer import P3dImportOptions, import_p3d
from .preview_images import paa_stand_in

__all__ = ["PREVIEW_IMAGES", "STEPS"]

STEPS = {"p3d": unit_batch_step(import_p3d, P3dImportOptions)}
PREVIEW_IMAGES = [paa_stand_in]
