"""Small stand-ins for a preview render (io_alamo.blender.preview_images) of the images an
Arma import made from PAA files: the file's own mipmap of at most the limit's size, read
without touching (or decoding) the bigger levels; a PAA without one (a single level) is
decoded once and shrunk here by whole-pixel box averaging."""

import bpy
import numpy as np

from ...formats.arma.paa import decoded, dds_of, read_paa
from ...formats.errors import FormatError
from ...formats.files import read_file_bytes
from ..preview_images import PREVIEW_NAME, stand_in_image
from .textures import SOURCE_KEY

__all__ = ["paa_stand_in"]


def shrunk(rgba, limit):
    """(h, w, 4) uint8 pixels averaged over whole squares of k x k pixels, the smallest k
    that brings both sides to at most ``limit`` (the last rows and columns that make no
    whole square are left out). A square's rows are summed at once, then its columns; up to
    16 x 16 squares (no sum over 65,535) in 16 bits, each pixel's four channel sums riding
    in one 64-bit word for the column sums."""
    h, w = rgba.shape[:2]
    k = -(-max(h, w) // limit)
    kh, kw = min(k, h), min(k, w)
    h2, w2 = h // kh, w // kw
    narrow = kh * kw * 255 < 1 << 16
    rows = np.add.reduce(rgba[:h2 * kh, :w2 * kw].reshape(h2, kh, w2 * kw * 4), axis=1,
                         dtype=np.uint16 if narrow else np.uint32)
    cols = rows.view(np.uint64).reshape(h2, w2, kw) if narrow else rows.reshape(h2, w2, kw, 4)
    total = cols[:, :, 0].copy()
    for j in range(1, kw):
        total += cols[:, :, j]
    sums = total.view(np.uint16).reshape(h2, w2, 4) if narrow else total
    return (sums // (kh * kw)).astype(np.uint8)


def paa_stand_in(image, limit):
    """The stand-in for ``image`` when an Arma import made it from a PAA file that is still
    there (``image`` itself when it is small already), else None."""
    source = image.get(SOURCE_KEY)
    if not isinstance(source, str) or not source.lower().endswith((".paa", ".pac")):
        return None
    try:
        tex = read_paa(read_file_bytes(source), filename=source, decode=False, max_side=limit)
        if tex.level == 0 and max(tex.width, tex.height) <= limit:
            return image
        dds = dds_of(tex) if max(tex.width, tex.height) <= limit else None
        rgba = None if dds is not None else shrunk(decoded(tex).rgba, limit)
    except (OSError, FormatError):
        return None                   # the file changed or went: Blender scales the image
    if dds is None:                   # shrunk here, or a small level of another type
        h, w = rgba.shape[:2]
        return stand_in_image(image, w, h, (rgba[::-1].astype(np.float32) / 255.0).ravel())
    small = bpy.data.images.new(image.name + PREVIEW_NAME, 8, 8)
    small.pack(data=dds, data_len=len(dds))      # DXT: Blender decodes the level's blocks
    small.source = "FILE"
    small.colorspace_settings.name = image.colorspace_settings.name
    small.alpha_mode = image.alpha_mode
    return small
