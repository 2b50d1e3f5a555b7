"""Images for Blender's glTF exporter, each encoded once.

The exporter encodes an image again for every material socket that uses it (a unit whose
parts share a texture has it encoded once per part), unless the image is a PNG or JPEG file
Blender has not changed: then it copies the file's bytes (Blender 4.2, 4.5 and 5.0 alike:
a FILE image, not dirty, packed or its file present, whose bytes start as a PNG's). While
:func:`encoded_once` is active, every other image the exporter would read is replaced in
the node trees by a copy saved once as PNG: the .glb holds the same pixels, under the same
image names, for one encoding per image. An 8-bit image's copy is encoded here
(:func:`write_png`: numpy and libdeflate or zlib; with zlib a quarter of the time Blender's
PNG writer takes, which was most of what a 2048x2048 texture cost; issue 44); other images
are saved by Blender as the exporter saves them (copy, ``save``). With ``stand_ins`` the
exporter is shown one-pixel :class:`StandIns` of the PNG files it copies whole, and the
files' bytes are put in the .glb after: it decodes each image it copies, only to count its
channels.
"""

import hashlib
import os
import shutil
import struct
import tempfile
from contextlib import contextmanager

import bpy
import numpy as np

from ..formats.glb import read_glb, replace_views, write_glb
from ..formats.png import encode_png, plain_shape
from ..formats.saving import write_all
from ..scratch import scratch_folder
from .compat import uses_nodes
from .gltf_materials import nodes_upstream

# the Principled BSDF inputs glTF writes textures for (directly, or through a Normal Map)
_SOCKETS = {"Base Color", "Alpha", "Emission Color", "Normal", "Metallic", "Roughness",
            "Specular IOR Level", "Specular Tint", "Coat Weight", "Coat Normal",
            "Transmission Weight", "Sheen Color"}
_MAGIC = (b"\x89PNG", b"\xff\xd8\xff")


def _exported_image_uses(materials):
    """({name: image} of the images glTF reads, {names of those whose alpha reaches a
    Principled BSDF}: glTF reads nothing else, so an alpha that only feeds other nodes (the
    preview's specular mask from a normal map's alpha) is not read)."""
    images, alpha = {}, set()
    for mat in materials:
        tree = mat.node_tree if mat is not None and uses_nodes(mat) else None
        if tree is None:
            continue
        for link in tree.links:
            node, to = link.from_node, link.to_node
            if to.type == "NORMAL_MAP" or to.type == "BSDF_PRINCIPLED" and \
                    link.to_socket.name in _SOCKETS:
                if node.type == "TEX_IMAGE" and node.image is not None:
                    images[node.image.name] = node.image
        feeding = _feeding_bsdf(tree)
        for link in tree.links:
            node = link.from_node
            if node.type == "TEX_IMAGE" and node.image is not None and \
                    link.from_socket.name == "Alpha" and link.to_node.name in feeding:
                alpha.add(node.image.name)
    return images, alpha


def _feeding_bsdf(tree):
    """Names of the nodes from which links lead to a Principled BSDF (the BSDFs included)."""
    return nodes_upstream(tree, ("BSDF_PRINCIPLED",))


def texture_file(image):
    """What names an image's pixels across scenes: its file (path, size, modification time)
    or its packed bytes' digest, with how they are read; None for a generated or edited
    image."""
    if image.source != "FILE" or image.is_dirty:
        return None
    how = (image.colorspace_settings.name, image.alpha_mode)
    if image.packed_file is not None:
        return ("packed", hashlib.blake2b(image.packed_file.data, digest_size=20).digest(), how)
    path = os.path.abspath(bpy.path.abspath(image.filepath_raw))
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (path, st.st_size, st.st_mtime_ns, how)


class KeptPngs:
    """PNG files kept for the rest of the process under keys (a batch converts many units
    whose materials share textures: what is made of a texture file is made once per run),
    up to ``limit`` bytes of files."""

    def __init__(self, prefix, limit=256 << 20):
        self.prefix, self.limit, self.files, self.used, self.folder = prefix, limit, {}, 0, None

    def load(self, key):
        """A new image of the PNG kept under ``key`` (not decoded until read), or None."""
        path = self.files.get(key) if key is not None else None
        if path is None or not os.path.isfile(path):
            return None
        return bpy.data.images.load(path, check_existing=False)

    def keep(self, key, image):
        """Keep a copy of the saved PNG file of ``image`` (same file name) under ``key``."""
        path = bpy.path.abspath(image.filepath_raw)
        size = os.path.getsize(path)
        if key is None or self.used + size > self.limit:
            return
        if self.folder is None:
            self.folder = scratch_folder(self.prefix)
        kept = os.path.join(tempfile.mkdtemp(dir=self.folder), os.path.basename(path))
        shutil.copyfile(path, kept)
        self.files[key] = kept
        self.used += size


_KEPT = KeptPngs("io_alamo-gltf-images-")


def _copies_bytes(image):
    """Whether the exporter takes this image's bytes as they are (a clean PNG/JPEG file)."""
    if image.source != "FILE" or image.is_dirty:
        return False
    if image.packed_file is not None:
        return bytes(image.packed_file.data[:4]).startswith(_MAGIC)
    path = bpy.path.abspath(image.filepath_raw)
    try:
        with open(path, "rb") as f:
            return f.read(4).startswith(_MAGIC)
    except OSError:
        return False


def unit_bytes(px, clamp=False):
    """uint8 of numbers in [0, 1] (a float32 array, overwritten), rounded as Blender rounds
    pixels it stores as bytes (``unit_float_to_uchar_clamp``: 255 x + 0.5, cut); ``clamp``
    for numbers that may leave [0, 1]. The k/255 an 8-bit image's ``pixels`` give come
    back as k."""
    if clamp:
        np.minimum(px, 1, out=px)
        np.maximum(px, 0, out=px)
    np.multiply(px, np.float32(255), out=px)
    out = np.empty(px.shape, np.uint8)
    np.add(px, np.float32(0.5), out=out, casting="unsafe")        # the cast cuts
    return out


def byte_pixels(image):
    """An 8-bit image's RGBA bytes as Blender holds them, (h, w, 4) uint8 with the bottom
    row first (its ``pixels`` read once); None for an image of more bits (float)."""
    if image.is_float:
        return None
    w, h = image.size
    px = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(px)
    return unit_bytes(px).reshape(h, w, 4)


def write_png(px, folder, stem):
    """A new image of ``folder/<stem>.png``, written from ``px`` (uint8 (h, w, channels),
    bottom row first, as Blender holds pixels): a clean PNG file, whose bytes the glTF
    exporter copies, named as the exporter names the image (its file name's stem)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{stem}.png")
    with open(path, "wb") as f:
        f.write(encode_png(px[::-1]))
    return bpy.data.images.load(path, check_existing=False)


def _png_copy(image, folder, alpha=True):
    """A copy of ``image`` saved as ``folder/<name>.png``: a clean PNG file for the exporter,
    named as the exporter names the image (its name without extension); without ``alpha``
    (no node reads it: glTF's normal, occlusion and opaque colour maps use RGB), an RGB PNG
    of the same colours, a quarter less to encode and to store."""
    stem = os.path.splitext(image.name)[0] or "Image"
    # an 8-bit image's bytes as they are: what Blender saves of it, where it keeps them
    # straight (and an RGB copy, whose bytes are the image's RGB, in any case)
    as_held = image.alpha_mode in ("STRAIGHT", "CHANNEL_PACKED") and image.depth in (24, 32)
    px = byte_pixels(image) if as_held or not alpha else None
    if px is not None:
        return write_png(px if alpha and image.depth == 32 else px[..., :3], folder, stem)
    os.makedirs(folder)
    copy = image.copy()
    try:
        copy.update()
        copy.scale(*image.size)
    except RuntimeError:          # a file that is gone: the exporter copes the same way
        pass
    if image.is_dirty:            # unsaved pixels are not copied by copy()
        px = np.empty(image.size[0] * image.size[1] * image.channels, np.float32)
        image.pixels.foreach_get(px)
        copy.pixels.foreach_set(px)
    return _saved(copy, folder, stem)


def _saved(copy, folder, stem):
    copy.filepath_raw = os.path.join(folder, f"{stem}.png")
    copy.file_format = "PNG"
    try:
        copy.save()
    except RuntimeError:
        bpy.data.images.remove(copy)
        raise
    return copy


@contextmanager
def encoded_once(materials, put_back=True, stand_ins=False):
    """While inside, the exporter finds each image ``materials`` show it as a clean PNG
    file (see the module's note); the node trees and images are put back afterwards
    (unless not ``put_back``: the scene is thrown away after; the files are removed).
    With ``stand_ins``, the exporter is shown the :class:`StandIns` of those it copies as
    they are: after each export, call ``fill(path)`` of what this yields (and where that
    fails, ``without_stand_ins()`` and export again)."""
    folder = tempfile.mkdtemp(prefix="io_alamo-gltf-")
    swapped, copies = [], []
    shown = StandIns(folder) if stand_ins else StandIns(None)
    try:
        real = {}
        images, alpha = _exported_image_uses(materials)
        whole = _taken_whole(materials) if stand_ins else set()
        for k, image in enumerate(images.values()):
            key = texture_file(image)
            key = key and (key, image.name in alpha)
            copy = _KEPT.load(key)                      # made for an earlier unit of a run
            if copy is None:
                if _copies_bytes(image):                # the exporter copies it as it is
                    if image.name in whole and shown.of(image) is not None:
                        real[image.name] = image
                    continue
                if not image.size[0] or not image.size[1]:
                    continue
                try:
                    copy = _png_copy(image, os.path.join(folder, str(k)), image.name in alpha)
                except (RuntimeError, OSError):  # not saved: the exporter tries its own way
                    continue
                _KEPT.keep(key, copy)
            real[image.name] = copy
            copies.append(copy)
            if image.name in whole:
                shown.of(copy)
        for mat in materials:
            tree = mat.node_tree if mat is not None and uses_nodes(mat) else None
            for node in tree.nodes if tree is not None else ():
                if node.type == "TEX_IMAGE" and node.image is not None and \
                        node.image.name in real:
                    copy = real[node.image.name]
                    swapped.append((node, node.image, copy))
                    node.image = shown.made.get(copy.name, copy)
        shown.swapped = swapped
        yield shown
    finally:
        if put_back:
            for node, image, _ in swapped:
                node.image = image
            for copy in copies + list(shown.made.values()):
                bpy.data.images.remove(copy)
        shutil.rmtree(folder, ignore_errors=True)


# --- stand-ins ---------------------------------------------------------------------------

_HAPPY_BSDF = {"Base Color", "Emission Color"}


def _taken_whole(materials):
    """Names of the images every use of which in ``materials`` the exporter copies as they
    are (its "happy path": one image's channels as they are): an Image Texture's Color into
    a Principled BSDF's Base Color or Emission Color, into a Normal Map that feeds only a
    BSDF's Normal, or through a Mix that multiplies it by a colour (a glow's black) into
    Base Color; its Alpha into the Alpha of a BSDF whose Base Color is the same node's.
    Anything else (a channel split off, an alpha of another image, a colour composed of
    white and an alpha) has the exporter compose pixels: those images are shown as
    they are."""
    seen, unsafe = set(), set()
    for mat in materials:
        tree = mat.node_tree if mat is not None and uses_nodes(mat) else None
        if tree is None:
            continue
        out = {}
        for link in tree.links:
            out.setdefault(link.from_node.name, []).append(link)
        for node in tree.nodes:
            if node.type != "TEX_IMAGE" or node.image is None:
                continue
            seen.add(node.image.name)
            if not all(_happy(link, out) for link in out.get(node.name, ())):
                unsafe.add(node.image.name)
        for node in tree.nodes:              # a BSDF whose alpha is not its colour's
            if node.type == "BSDF_PRINCIPLED":
                base = _image_node(node.inputs["Base Color"], out)
                alpha = node.inputs["Alpha"].links
                if alpha and (base is None or alpha[0].from_node != base):
                    for n in (base, alpha[0].from_node):
                        if n is not None and n.type == "TEX_IMAGE" and n.image is not None:
                            unsafe.add(n.image.name)
    return seen - unsafe


def _happy(link, out):
    to, socket = link.to_node, link.to_socket
    if link.from_socket.name == "Alpha":     # whose colour it is: _taken_whole's BSDF check
        return to.type == "BSDF_PRINCIPLED" and socket.name == "Alpha"
    if link.from_socket.name != "Color":
        return False
    if to.type == "BSDF_PRINCIPLED":
        return socket.name in _HAPPY_BSDF
    if to.type == "NORMAL_MAP":
        return socket.name == "Color" and all(
            ln.to_node.type == "BSDF_PRINCIPLED" and ln.to_socket.name == "Normal"
            for ln in out.get(to.name, ()))
    return _multiplied(to, socket, out)


def _multiplied(mix, socket, out):
    """Whether ``socket`` is the A colour of a Mix multiplying it by an unlinked colour
    (factor 1) whose result feeds only Base Colors."""
    if mix.type != "MIX" or mix.data_type != "RGBA" or mix.blend_type != "MULTIPLY" or \
            socket.identifier != "A_Color":
        return False
    sockets = {s.identifier: s for s in mix.inputs}
    if sockets["Factor_Float"].is_linked or sockets["B_Color"].is_linked or \
            sockets["Factor_Float"].default_value != 1.0 or mix.clamp_result:
        return False
    return all(ln.to_node.type == "BSDF_PRINCIPLED" and ln.to_socket.name == "Base Color"
               and ln.from_socket.identifier == "Result_Color" for ln in out.get(mix.name, ()))


def _image_node(socket, out):
    """The Image Texture node feeding ``socket`` directly or through a multiplying Mix."""
    if not socket.links:
        return None
    node = socket.links[0].from_node
    if node.type == "MIX":
        a = next(s for s in node.inputs if s.identifier == "A_Color")
        if not a.links or not _multiplied(node, a, out):
            return None
        node = a.links[0].from_node
    return node if node.type == "TEX_IMAGE" else None


# an ancillary, private, safe-to-copy PNG chunk: what tells stand-ins apart (decoders skip it)
_TAG = b"ioAs"


class StandIns:
    """One-pixel PNG files shown to the glTF exporter in place of big ones it copies as they
    are: before copying a file's bytes it reads the image's channel count, which has Blender
    decode the whole picture (0.19 s of CPU for the corpus' 60 images; issue 44). Each
    stand-in has its file's name (which names the glTF image), PNG colour type and colour
    settings, and a chunk of its own that tells it apart; :meth:`fill` puts the files' bytes
    in the .glb where the exporter copied the stand-ins'. ``folder`` None: none made."""

    def __init__(self, folder):
        self.folder, self.real, self.made, self.swapped = folder, {}, {}, []

    def of(self, image):
        """The stand-in of ``image`` (a clean 8-bit PNG file, not packed, as the exporter
        copies it), made once; None for any other image."""
        if self.folder is None or image.source != "FILE" or image.is_dirty or \
                image.packed_file is not None:
            return None
        if image.name in self.made:
            return self.made[image.name]
        path = bpy.path.abspath(image.filepath_raw)
        name = os.path.basename(path)
        if os.path.splitext(name)[1].lower() != ".png":
            return None
        try:
            with open(path, "rb") as f:
                shape = plain_shape(f.read(33))
        except OSError:
            return None
        if shape is None:
            return None
        k = len(self.real)
        data = encode_png(np.zeros((1, 1, shape[2]), np.uint8),
                          extra=[(_TAG, struct.pack(">I", k))])
        folder = os.path.join(self.folder, f"stand-in {k}")
        os.makedirs(folder)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        stand = bpy.data.images.load(os.path.join(folder, name), check_existing=False)
        stand.colorspace_settings.name = image.colorspace_settings.name
        stand.alpha_mode = image.alpha_mode
        self.real[data] = path
        self.made[image.name] = stand
        return stand

    def fill(self, glb_path):
        """Put the files' bytes where the exporter copied stand-ins into the .glb at
        ``glb_path`` (replaced atomically); False when its buffer is not laid out as the
        exporter lays it out (nothing written then)."""
        if not self.real:
            return True
        with open(glb_path, "rb") as f:
            doc, binary = read_glb(f.read())
        new, views = {}, doc.get("bufferViews", [])
        for image in doc.get("images", []):
            k = image.get("bufferView")
            if k is None or k >= len(views):
                continue
            start = views[k].get("byteOffset", 0)
            path = self.real.get(bytes(binary[start:start + views[k]["byteLength"]]))
            if path is not None:
                with open(path, "rb") as f:
                    new[k] = f.read()
        if not new:
            return True
        try:
            binary = replace_views(doc, binary, new)
        except ValueError:
            return False
        write_all([(write_glb(doc, binary), glb_path)])
        return True

    def without_stand_ins(self):
        """Show the exporter the images themselves again (nothing left to fill)."""
        for node, _, real in self.swapped:
            node.image = real
        self.real = {}
