"""The export's *Write Textures* option: every texture the written model names, written beside
it in a format the game reads, from the Blender image that shows it.

A texture parameter ``name_co.dds`` becomes an uncompressed 32-bit DDS (A8R8G8B8), ``x.tga``
an uncompressed 32-bit TGA, under that file name in the model's folder. The image is the one
the material preview shows (matched as the import matches them: by name, ``.dds`` and ``.tga``
standing in for each other); placeholders of missing textures are not written. Each file is
written to a temporary name and renamed, so a failure leaves no partial file.
"""

import ntpath
import os
import struct

import numpy as np

from ....formats.alamo.model import ParamType
from ....formats.saving import write_all
from ...problems import add_warning
from ..importer.materials import loaded_image

DDS_HEADER_SIZE = 124
DDSD = 0x1 | 0x2 | 0x4 | 0x8 | 0x1000               # caps, height, width, pitch, pixel format
DDPF_RGB_ALPHA = 0x40 | 0x1
DDSCAPS_TEXTURE = 0x1000


def encode_dds(rgba):
    """An uncompressed A8R8G8B8 DDS of ``rgba`` ((h, w, 4) uint8, top row first)."""
    h, w = rgba.shape[:2]
    header = struct.pack("<4sIIIIIII44x", b"DDS ", DDS_HEADER_SIZE, DDSD, h, w, 4 * w, 0, 1)
    pixel_format = struct.pack("<II4sIIIII", 32, DDPF_RGB_ALPHA, b"\0\0\0\0", 32,
                               0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000)
    caps = struct.pack("<IIII4x", DDSCAPS_TEXTURE, 0, 0, 0)
    body = np.ascontiguousarray(rgba[:, :, [2, 1, 0, 3]], np.uint8).tobytes()     # BGRA
    return header + pixel_format + caps + body


def encode_tga(rgba):
    """An uncompressed 32-bit TGA of ``rgba`` ((h, w, 4) uint8, top row first)."""
    h, w = rgba.shape[:2]
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, w, h, 32, 0x28)
    return header + np.ascontiguousarray(rgba[:, :, [2, 1, 0, 3]], np.uint8).tobytes()


ENCODERS = {".dds": encode_dds, ".tga": encode_tga}


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
    """(h, w, 4) uint8 pixels of a Blender image, top row first."""
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    return (np.clip(px.reshape(h, w, 4)[::-1], 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


def _is_placeholder(img):
    return img.source == "GENERATED" and img.packed_file is None


def write_textures(model, filepath, problems):
    """Write the textures of ``model`` beside ``filepath``; returns the paths written."""
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
        planned.append((encode(image_rgba(img)), target))
    write_all(planned)
    return [path for _, path in planned]


def after_export(result, filepath, enabled):
    """The export operator's hook: with ``enabled``, write the textures of the exported
    model beside it and count them in the result."""
    if enabled and result.model is not None:
        result.counts["textures"] = len(write_textures(result.model, filepath, result.problems))
    return result

