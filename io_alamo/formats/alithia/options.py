"""The options of Alithia's .alm import and export, declared once
(:mod:`io_alamo.formats.options`): File > Import/Export > Alithia Model's properties are made
from them."""

from dataclasses import dataclass

from ..options import option

__all__ = ["Alm1ExportOptions", "Alm1ImportOptions"]


@dataclass
class Alm1ImportOptions:
    set_frame_rate: bool = option(
        True, "Set Scene Frame Rate", "Play the model's frames at the engine's 20 frames per "
        "second, one per scene frame (off: spread over the scene's own rate)")


@dataclass
class Alm1ExportOptions:
    frames: str = option(
        "SHAPE_KEYS", "Frames", "Which frames the model gets",
        items=[("SHAPE_KEYS", "Shape Keys", "One frame per shape key, the basis first"),
               ("SCENE", "Scene Range", "The mesh as it looks (modifiers, armature, shape "
                "keys) at 20 frames per second over the scene's frame range")])
    write_texture: bool = option(
        True, "Write <name>.bmp", "Write the image the mesh's material shows as <name>.bmp "
        "beside the model (the engine refuses a model without it)")
