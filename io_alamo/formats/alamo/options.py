"""The options of Alamo's imports and exports that are declared once
(:mod:`io_alamo.formats.options`): File > Import/Export > Alamo Model's properties, the
batch's flags and the add-on preferences are made from them."""

from dataclasses import dataclass, field

from ..options import option
from .choices import ALA_FORMAT_ITEMS, AS_IMPORTED_FORMAT_ITEMS

__all__ = ["AloImportOptions", "UnitExportOptions"]

_GAME_FOLDER = ("game folder or its Data folder (File > Import > Alamo Model from Game "
                "Archives; its archives are searched for textures): models and textures are "
                "read from its archives (.meg)")


@dataclass
class AloImportOptions:
    merge_vertices: bool = option(
        False, "Merge Vertices", "Merge vertices that share a position (and skinning) for "
        "easier editing. Off keeps the file's vertices one to one, which exports back "
        "unchanged")
    texture_folders: list = field(default_factory=list)   # searched after the model's own
    import_animations: bool = option(
        True, "Import Animations", "Also import the model's animations found beside it "
        "(<MODEL>_*.ala)")
    show_effects: bool = option(
        True, "Show Particle Effects", "Play the particle effects the model's proxies name "
        "(found beside the model, in the mod's Data/Art/Models or in the game's archives) "
        "at their bones. They are a preview only: the model is exported without them")
    # the games whose archives Import from Game Archives reads (preferences)
    foc_folder: str = option(
        "", "Forces of Corruption", "Forces of Corruption's " + _GAME_FOLDER + ", then "
        "Empire at War's", places=("preference",), subtype="DIR_PATH")
    eaw_folder: str = option(
        "", "Empire at War", "Empire at War's " + _GAME_FOLDER, places=("preference",),
        subtype="DIR_PATH")


@dataclass
class UnitExportOptions:
    """What an export of an Alamo unit is asked that every place offers: File > Export >
    Alamo Model, the batch's export (of a .blend, or of another engine's model converted),
    the preferences."""
    ala_format: str = option(
        "0", "Animation Format", "The format the model's animations are written in",
        items=AS_IMPORTED_FORMAT_ITEMS, flag="--ala-format",
        flag_help="animation format: 2 Forces of Corruption, 1 Empire at War (default: each "
        "action's own, #2 for new ones)")
    uncompressed_textures: bool = option(
        False, "Uncompressed Textures", "Write 32-bit uncompressed .dds textures",
        flag="--uncompressed-textures", places=("batch",),
        flag_help="export of a .p3d/.alm: write 32-bit uncompressed .dds textures (default: "
        "DXT1/DXT5 with mipmaps)")
    texture_size: int = option(
        1024, "Texture Size", "The largest side Write Textures writes, in pixels (larger "
        "images are halved until they fit; the images in Blender stay as they are). 1,024 is "
        "the largest the games' units use; 0 writes each at its own size",
        flag="--texture-size", limits=(0, 16384),
        flag_help="export of a .p3d/.alm: the largest side of a written texture, larger ones "
        "halved until they fit (default 1024, the largest the games' units use; 0: as they "
        "are)")
    max_triangles: int = option(
        0, "Triangles per LOD", "A triangle budget for each LOD's visible meshes: meshes over "
        "it are written decimated (Blender's Decimate, on the export's copy; the scene stays "
        "as it is). 0 keeps every triangle", flag="--max-triangles", limits=(0, 100_000_000),
        flag_help="export of a .p3d/.alm: at most N triangles per LOD of the drawn meshes, "
        "decimated (default 0: all of them)")
    new_ala_format: str = option(
        "2", "Animation Format", "Format of animations made in Blender (imported ones keep "
        "their own)", items=ALA_FORMAT_ITEMS, places=("preference",))
