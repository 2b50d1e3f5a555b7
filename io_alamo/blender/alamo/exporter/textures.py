"""The export's *Write Textures* option: every texture the written model names, written beside
it in a format the game reads, from the Blender image that shows it.

A texture parameter ``name_co.dds`` becomes a DDS as the games ship theirs: DXT1 (no alpha)
or DXT5 (alpha) with a full mipmap chain (:mod:`io_alamo.formats.alamo.dds`; uncompressed
A8R8G8B8 on request, or where etcpak is missing); ``x.tga`` an uncompressed 32-bit TGA, under
that file name in the model's folder. The image is the one
the material preview shows (matched as the import matches them: by name, ``.dds`` and ``.tga``
standing in for each other); placeholders of missing textures are not written. Each file is
written to a temporary name and renamed, so a failure leaves no partial file.

The texture budget (issue 43): ``max_size`` caps the largest side of every written texture
(halved with the mipmaps' box filter until it fits; never enlarged), ``DEFAULT_MAX_SIZE``
by default: 1,024 pixels, the largest the games' own and their mods' unit textures use
(``../shared/corpus``: 256 x 256 for Empire at War's vehicles, 1,024 x 1,024 the largest), so
that an Arma truck's 2,048-4,096 pixel maps stop costing 4-16 times the memory of a game
unit's. A texture whose alpha is 255 everywhere is written DXT1 (half DXT5's size); one the
import marked as having no team colour (alpha 0, read by the bump shaders as the team colour
mask) keeps it in DXT5. The Blender image (the source) is never changed.
"""

import ntpath
import os
import struct

import numpy as np

from ....formats.alamo.dds import COMPRESSED, UNCOMPRESSED, dxt_available, encode_dds, mip_chain
from ....formats.alamo.model import ParamType
from ....formats.saving import write_all
from ...problems import add_warning
from ...texture_images import NO_TEAM_COLOUR_KEY
from ..importer.materials import loaded_image

TEXTURE_FORMAT_ITEMS = [
    (COMPRESSED, "DXT (with mipmaps)", "DXT1, or DXT5 where the texture has alpha, with every "
     "mipmap, as the games' own textures"),
    (UNCOMPRESSED, "Uncompressed", "32-bit A8R8G8B8, one level (large)"),
]


def encode_tga(rgba, compression=None):
    """An uncompressed 32-bit TGA of ``rgba`` ((h, w, 4) uint8, top row first)."""
    h, w = rgba.shape[:2]
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, w, h, 32, 0x28)
    return header + np.ascontiguousarray(rgba[:, :, [2, 1, 0, 3]], np.uint8).tobytes()


ENCODERS = {".dds": encode_dds, ".tga": encode_tga}
DEFAULT_MAX_SIZE = 1024


def within(rgba, max_size):
    """``rgba`` halved (the mipmaps' 2 x 2 box filter) until its largest side is at most
    ``max_size`` (0 or None: as it is)."""
    if not max_size or max(rgba.shape[:2]) <= max_size:
        return rgba
    for level in mip_chain(rgba):
        if max(level.shape[:2]) <= max_size:
            return level
    return rgba


def texture_names(model):
    """The texture file names the model's materials name, in order, without repeats."""
    seen = {}
    for mesh in model.meshes:
        for sub in mesh.submeshes:
            for p in sub.material.params:
                if p.type == ParamType.TEXTURE and isinstance(p.value, str) and p.value.strip():
                    seen.setdefault(p.value.strip().lower(), p.value.strip())
    return list(seen.values())


def image_rgba(img):
    """(h, w, 4) uint8 pixels of a Blender image, top row first (alpha 0 where the image is
    marked as having no team colour mask, see texture_images.NO_TEAM_COLOUR_KEY)."""
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    rgba = (np.clip(px.reshape(h, w, 4)[::-1], 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    if img.get(NO_TEAM_COLOUR_KEY):
        rgba[:, :, 3] = 0
    return rgba


def _is_placeholder(img):
    return img.source == "GENERATED" and img.packed_file is None


def write_textures(model, filepath, problems, compression=COMPRESSED, max_size=DEFAULT_MAX_SIZE):
    """Write the textures of ``model`` beside ``filepath``; returns the paths written.
    ``compression``: COMPRESSED (DXT, the default) or UNCOMPRESSED, for .dds files;
    ``max_size``: the largest side written (0: each at its own size)."""
    if compression == COMPRESSED and not dxt_available():
        add_warning(problems, "textures written uncompressed: etcpak (the DXT encoder) is not "
                    "installed")
    folder = os.path.dirname(os.path.abspath(filepath))
    planned = []                    # (bytes, path): written together, all or nothing
    for name in texture_names(model):
        base = ntpath.basename(name.replace("/", "\\"))
        encode = ENCODERS.get(os.path.splitext(base)[1].lower())
        img = loaded_image(name)
        if encode is None:
            add_warning(problems, f"texture {name!r} not written: only .dds and .tga are")
            continue
        if img is None or _is_placeholder(img) or not img.size[0] or not img.size[1]:
            add_warning(problems, f"texture {name!r} not written: no image shows it")
            continue
        target = os.path.join(folder, base)
        if any(os.path.normcase(t) == os.path.normcase(target) for _, t in planned):
            continue                # two folders' textures of one name: the first is written
        planned.append((encode(within(image_rgba(img), max_size), compression), target))
    write_all(planned)
    return [path for _, path in planned]


def written_bytes(paths):
    """Bytes of the files at ``paths`` (those that exist)."""
    return sum(os.path.getsize(p) for p in paths if os.path.exists(p))


def after_export(result, filepath, enabled, compression=COMPRESSED, max_size=DEFAULT_MAX_SIZE):
    """The export operator's hook: with ``enabled``, write the textures of the exported
    model beside it and count them (and their bytes) in the result."""
    if enabled and result.model is not None:
        paths = write_textures(result.model, filepath, result.problems, compression, max_size)
        result.counts["textures"] = len(paths)
        result.counts["texture_bytes"] = written_bytes(paths)
    return result

