"""Arma texture paths (``\\prefix\\folder\\name_co.paa``) found on disk and shown in Blender.

A path is looked up under every folder above the model (the model's own, its parent, ...) and
under the preference texture folders; of the files that match a tail of the path
(``name_co.paa``, ``folder\\name_co.paa``, ``prefix\\folder\\name_co.paa``, case-insensitive)
the one matching the longest tail wins, the nearer folder on a tie. Only the path's own parts
are joined below those folders (``..`` and drive names are dropped), so nothing outside them
is read. ``.paa`` and ``.pac`` stand in for each other; a ``.png`` or ``.tga`` of the same name
is taken too. PAA/PAC files are decoded by :mod:`io_alamo.formats.arma.paa` into a packed
image; procedural textures (``#(argb,8,8,3)color(r,g,b,a)``) become a one-colour image.

Each image is named as the Alamo material names its texture (``name_co.dds``), so the
material preview finds it and the export's texture writer can write it under that name.
"""

import os
import re

import bpy
import numpy as np

from ...formats.arma.paa import dds_of, read_paa
from ...formats.arma.paa import has_alpha as paa_has_alpha
from ...formats.errors import FormatError
from ...formats.files import read_file_bytes
from ..texture_lookup import FolderNames, folders_above

ALTERNATIVES = {".paa": (".paa", ".pac", ".png", ".tga"), ".pac": (".pac", ".paa", ".png", ".tga")}
SOURCE_KEY = "p3d_texture_file"        # the file an image was decoded from
PATH_KEY = "p3d_texture"               # the Arma path it stands for
ALPHA_KEY = "p3d_has_alpha"            # whether any pixel is less than opaque
_COLOR = re.compile(r"#\(\s*(\w+)\s*,\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\)\s*color\(([^)]*)\)",
                    re.IGNORECASE)


def path_parts(arma_path):
    """The folder and file names of an Arma path, without empty, ``.``, ``..`` or drive parts."""
    parts = re.split(r"[\\/]+", arma_path.strip())
    return [p for p in parts if p and p not in (".", "..") and not p.endswith(":")]


def game_texture_name(arma_path):
    """The name the Alamo material gives the texture: ``name_co.dds`` for
    ``\\prefix\\folder\\name_co.paa`` (a procedural colour: ``p3d_color_rrggbbaa.dds``)."""
    colour = procedural_colour(arma_path)
    if colour is not None:
        return "p3d_color_" + "".join(f"{round(c * 255):02x}" for c in colour) + ".dds"
    parts = path_parts(arma_path)
    if not parts:
        return ""
    return os.path.splitext(parts[-1])[0] + ".dds"


def procedural_colour(arma_path):
    """(r, g, b, a) of ``#(argb,8,8,3)color(r,g,b,a)``, or None."""
    m = _COLOR.search(arma_path or "")
    if not m:
        return None
    values = []
    for field in m.group(2).split(",")[:4]:
        try:
            values.append(float(field))
        except ValueError:
            break
    if len(values) < 3:
        return None
    values = (values + [1.0])[:4]
    return tuple(float(np.clip(v, 0.0, 1.0)) for v in values)


def search_roots(model_path, extra_folders=()):
    """The model's folder and every folder above it, then ``extra_folders``."""
    return list(folders_above(model_path)) + [f for f in extra_folders
                                              if f and os.path.isdir(f)]


class ArmaTextureFinder:
    """Looks Arma texture paths up below a list of folders; each folder is listed once."""

    def __init__(self, roots):
        self.roots = list(roots)
        self._names = FolderNames()

    def _below(self, root, folders, names):
        """The file of ``names`` (first that exists) in ``root/folders...``, or None."""
        current = root
        for part in folders:
            real = self._names(current).get(part.lower())
            if real is None:
                return None
            current = os.path.join(current, real)
        listing = self._names(current)
        for name in names:
            real = listing.get(name.lower())
            if real is not None and os.path.isfile(os.path.join(current, real)):
                return os.path.join(current, real)
        return None

    def find(self, arma_path):
        """The file for ``arma_path``, or None."""
        parts = path_parts(arma_path)
        if not parts or procedural_colour(arma_path) is not None:
            return None
        stem, ext = os.path.splitext(parts[-1])
        names = [stem + e for e in ALTERNATIVES.get(ext.lower(), (ext,))]
        for k in range(len(parts), 0, -1):          # longest tail first
            folders = parts[len(parts) - k:-1]
            for root in self.roots:                 # nearest folder first
                found = self._below(root, folders, names)
                if found is not None:
                    return found
        return None


def image_for(arma_path, finder, warn):
    """The Blender image showing ``arma_path``, named as the game texture (loaded once per
    name); None when there is nothing to show (then the material gets a placeholder)."""
    name = game_texture_name(arma_path)
    if not name:
        return None
    img = bpy.data.images.get(name)
    if img is not None and img.get(PATH_KEY) is not None:
        return img
    colour = procedural_colour(arma_path)
    if colour is not None:
        return _pixels_image(name, np.tile(np.array(colour, np.float32), (4, 4, 1)), arma_path)
    path = finder.find(arma_path)
    if path is None:
        warn(f"texture '{arma_path}' not found below the model's folders or the texture "
             "folders (batch: --textures DIR; Blender: the add-on preferences)")
        return None
    if path.lower().endswith((".paa", ".pac")):
        try:
            # DXT: the blocks go to Blender as they are; the pixels are decoded only when
            # the blocks do not show the texture opaque (paa.has_alpha)
            tex = read_paa(read_file_bytes(path), filename=path, decode=False)
            alpha = paa_has_alpha(tex)
        except FormatError as e:
            warn(f"texture '{arma_path}': {e}")
            return None
        dds = dds_of(tex)
        if dds is not None:                 # DXT: the blocks as a packed DDS (no decoding)
            img = _packed_image(name, dds, arma_path)
        else:
            img = _pixels_image(name, tex.rgba[::-1].astype(np.float32) / 255.0, arma_path)
        img[ALPHA_KEY] = alpha
    else:
        try:
            img = bpy.data.images.load(path, check_existing=False)
        except RuntimeError as e:
            warn(f"texture {arma_path!r}: Blender cannot read {path}: {e}")
            return None
        img.name = name
        img[PATH_KEY] = arma_path
    img[SOURCE_KEY] = path
    if "_nohq" in name.lower() or "_smdi" in name.lower():
        img.colorspace_settings.name = "Non-Color"
    return img


def _pixels_image(name, rgba, arma_path):
    """A packed image of ``rgba`` ((h, w, 4) floats, bottom row first)."""
    h, w = rgba.shape[:2]
    img = bpy.data.images.new(name, w, h, alpha=True)
    img.pixels.foreach_set(np.ascontiguousarray(rgba, np.float32).ravel())
    img.pack()
    img[PATH_KEY] = arma_path
    return img


def _packed_image(name, data, arma_path):
    """An image of the DDS bytes ``data``, packed into the .blend (Blender decodes it)."""
    img = bpy.data.images.new(name, 8, 8)
    img.pack(data=data, data_len=len(data))
    img.source = "FILE"
    img.filepath_raw = "//" + name
    img[PATH_KEY] = arma_path
    return img


def has_alpha(img):
    """Whether an image made by :func:`image_for` has any pixel less than opaque."""
    if img is None:
        return False
    if img.get(ALPHA_KEY) is not None:
        return bool(img[ALPHA_KEY])
    if not img.size[0]:
        return False
    px = np.empty(img.size[0] * img.size[1] * 4, np.float32)
    img.pixels.foreach_get(px)
    return bool((px[3::4] < 0.99).any())

