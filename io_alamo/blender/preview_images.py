"""Small stand-ins for big textures while the batch renders its preview (issue 44).

A 256-pixel preview needs no 4,096-pixel maps, but Cycles decodes every image it is given at
full size before its Simplify limit shrinks it: a vehicle's 30 such maps take seconds and
gigabytes. While :func:`small_images` is active, each image node of the rendered objects'
materials whose image is over the limit shows a small image instead: one an engine makes
from its own file (Arma: the PAA's mipmap of that size, no decoding of the big one; each
engine's ``batch`` module may declare ``PREVIEW_IMAGES = [maker(image, limit)]``), else a
copy Blender decodes once and scales. Afterwards every node shows its own image again and
the stand-ins are removed: the scene, and whatever is saved of it, keeps the full-size
images, never loaded by the preview.
"""

from contextlib import contextmanager

import bpy
import numpy as np

from .compat import uses_nodes
from .discovery import declared_preview_images

__all__ = ["PREVIEW_NAME", "scaled_copy", "small_images", "stand_in_image"]

PREVIEW_NAME = " (preview)"          # ends the names of the stand-ins


def _trees(objects):
    """The node trees the objects' materials draw with, their node groups' included."""
    trees, todo = {}, []
    for obj in objects:
        for slot in obj.material_slots:
            mat = slot.material
            if mat is not None and uses_nodes(mat):
                todo.append(mat.node_tree)
    while todo:
        tree = todo.pop()
        if tree.as_pointer() in trees:
            continue
        trees[tree.as_pointer()] = tree
        todo += [n.node_tree for n in tree.nodes if n.type == "GROUP" and n.node_tree]
    return list(trees.values())


def stand_in_image(like, width, height, pixels, is_float=False):
    """A new image named after ``like`` (with its colour space and alpha mode) of ``pixels``
    (RGBA floats, bottom row first). The settings go first, as a generated image is made
    anew when they change; nothing of ``like`` is read that would decode it."""
    small = bpy.data.images.new(like.name + PREVIEW_NAME, width, height, alpha=True,
                                float_buffer=is_float)
    small.colorspace_settings.name = like.colorspace_settings.name
    small.alpha_mode = like.alpha_mode
    small.pixels.foreach_set(pixels)
    return small


def scaled_copy(image, limit):
    """A small image of ``image``'s pixels scaled to at most ``limit`` pixels a side, by a
    copy that decodes it once (the image itself keeps no decoded pixels); ``image`` when it
    is that small already or cannot be read."""
    copy = image.copy()
    try:
        w, h = copy.size
        if not w or not h or max(w, h) <= limit or copy.channels != 4:
            return image
        k = limit / max(w, h)
        w, h = max(1, round(w * k)), max(1, round(h * k))
        copy.scale(w, h)
        pixels = np.empty(w * h * 4, np.float32)
        copy.pixels.foreach_get(pixels)
        is_float = copy.is_float
    except RuntimeError:               # Blender cannot read it: the render shows what it can
        return image
    finally:
        bpy.data.images.remove(copy)
    return stand_in_image(image, w, h, pixels, is_float)


def _stand_in(image, limit, makers):
    for maker in makers:
        small = maker(image, limit)
        if small is not None:
            return small
    return scaled_copy(image, limit)


@contextmanager
def small_images(objects, limit, makers=None):
    """While inside, the image nodes of ``objects``' materials show images of at most
    ``limit`` pixels a side (see the module's note). ``makers``: ``maker(image, limit)``
    gives a small image standing in for ``image``, ``image`` itself when it is small
    already, or None when the image is not one it knows (by default the engines')."""
    makers = declared_preview_images() if makers is None else makers
    swapped, made = [], {}
    try:
        for tree in _trees(objects):
            for node in tree.nodes:
                image = node.image if node.type == "TEX_IMAGE" else None
                if image is None or image.source not in ("FILE", "GENERATED"):
                    continue
                key = image.as_pointer()
                if key not in made:
                    made[key] = (image, _stand_in(image, limit, makers))
                small = made[key][1]
                if small != image:
                    swapped.append((node, image))
                    node.image = small
        yield
    finally:
        for node, image in reversed(swapped):
            node.image = image
        for image, small in made.values():
            if small != image:
                bpy.data.images.remove(small)
