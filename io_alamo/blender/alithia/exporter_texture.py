"""The texture an Alithia model needs beside it: the engine's loader (``mdl_load``) opens
``<name>.bmp`` next to ``<name>.alm`` and refuses the whole model when it cannot. The export
writes the image the mesh's material shows there as a 24-bit BMP (on by default), or warns."""

import os
import struct

import bpy
import numpy as np

from ..alamo.importer.materials import BASE_NODE
from .importer import TEXTURE_NODE

TEXTURE_NODES = (TEXTURE_NODE, BASE_NODE)


def material_image(obj):
    """The image the object's first material shows: the Alithia or Alamo texture node's, else
    the first image node linked to the shader's Base Color, else any image node's; or None."""
    for slot in obj.material_slots:
        mat = slot.material
        if mat is None or not mat.use_nodes or mat.node_tree is None:
            continue
        nodes = mat.node_tree.nodes
        for name in TEXTURE_NODES:
            node = nodes.get(name)
            if node is not None and getattr(node, "image", None) is not None:
                return node.image
        images = [n for n in nodes if n.type == "TEX_IMAGE" and n.image is not None]
        linked = [n for n in images if any(link.to_socket.name == "Base Color"
                                           for link in n.outputs["Color"].links)]
        if linked or images:
            return (linked or images)[0]
    return None


def encode_bmp(rgb_bottom_up):
    """A 24-bit uncompressed BMP of ``rgb_bottom_up`` ((h, w, 3) uint8, bottom row first, as
    BMP stores rows)."""
    h, w = rgb_bottom_up.shape[:2]
    stride = (3 * w + 3) & ~3
    rows = np.zeros((h, stride), np.uint8)
    rows[:, :3 * w] = rgb_bottom_up[:, :, ::-1].reshape(h, 3 * w)          # BGR
    size = 54 + rows.size
    header = struct.pack("<2sIHHI", b"BM", size, 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, rows.size, 2835, 2835, 0, 0)
    return header + info + rows.tobytes()


def image_bmp(image):
    """BMP bytes of a Blender image (alpha dropped), or None when it has no pixels."""
    w, h = image.size
    if not w or not h:
        return None
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    rgb = (np.clip(px.reshape(h, w, 4)[:, :, :3], 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    return encode_bmp(rgb)


def texture_item(obj, model_path, warnings):
    """``(bmp bytes, path)`` to write beside the model, or None (with a warning) when the
    mesh shows no image, or when the image already is that file."""
    target = os.path.splitext(os.fspath(model_path))[0] + ".bmp"
    image = material_image(obj)
    if image is None:
        warnings.append(f"mesh {obj.name!r} shows no image, so no {os.path.basename(target)} "
                        "was written: the engine refuses a model without its .bmp beside it")
        return None
    source = image.filepath_raw and os.path.abspath(bpy.path.abspath(image.filepath_raw))
    if (source and image.packed_file is None and not image.is_dirty
            and os.path.exists(target) and os.path.samefile(source, target)):
        return None                                  # the image is that file already
    data = image_bmp(image)
    if data is None:
        warnings.append(f"image {image.name!r} has no pixels: no "
                        f"{os.path.basename(target)} was written")
        return None
    return data, target
