"""The options of an Arma .p3d import, declared once (:mod:`io_alamo.formats.options`): File >
Import > Arma Binarized Model's properties and the batch's flags are made from them."""

from dataclasses import dataclass, field

from ..options import option
from .placement import ALAMO_UNITS_PER_METRE

__all__ = ["P3dImportOptions"]


@dataclass
class P3dImportOptions:
    hide_other_lods: bool = option(
        True, "Show One LOD Only", "Hide every LOD but the most detailed visual one")
    texture_folders: list = field(default_factory=list)   # searched after the model's own
    game_scale: bool = option(
        True, "Game Scale", "Scale from metres to the Alamo games' units (5 per metre, as "
        "their infantry is tall); off keeps metres",
        flag="--metres", flag_help=".p3d: keep metres (default: the Alamo games' scale, 5 "
        "units a metre)")
    on_ground: bool = option(
        True, "Stand on the Ground", "Raise or lower the unit so its lowest visible point "
        "(parts included) is at the origin's height",
        flag="--not-on-ground", flag_help=".p3d: keep the file's height (default: lowest "
        "point at the origin)")
    import_parts: bool = option(
        True, "Import Proxied Parts", "Import the .p3d files the shown LOD's proxies name "
        "(wheels, frames, turrets) as parts at their places, when found beside the model or "
        "in the texture folders; the others stay empties",
        flag="--no-parts", flag_help=".p3d: leave proxies as empties (default: the .p3d "
        "files they name are imported as parts where found)")

    @property
    def scale(self):
        return ALAMO_UNITS_PER_METRE if self.game_scale else 1.0
