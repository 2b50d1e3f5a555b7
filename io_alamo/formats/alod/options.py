"""The options of an ALOD .alm import, declared once (:mod:`io_alamo.formats.options`): File >
Import > ALOD Model's properties are made from them."""

from dataclasses import dataclass

from ..options import option

__all__ = ["AlodImportOptions"]


@dataclass
class AlodImportOptions:
    levels_of_detail: bool = option(
        True, "Levels of Detail", "Also make lower-detail meshes by applying the file's edge "
        "collapses (hidden; named _LOD<n> as in Alamo)")
    lod_count: int = option(
        3, "Lower Levels", "How many lower levels of detail, evenly spread over the "
        "collapses", limits=(1, 8))
    set_frame_rate: bool = option(
        True, "Set Scene Frame Rate", "Set the scene's frame rate to the file's own (ALOD "
        "files store it; before version 6: 30 fps)")

    @property
    def lod_fractions(self):
        """The share of the collapses each lower level applies: 3 levels give
        (0.25, 0.5, 0.75)."""
        return tuple((k + 1) / (self.lod_count + 1) for k in range(self.lod_count))
