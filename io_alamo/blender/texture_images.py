"""Images for the textures :class:`~io_alamo.blender.texture_lookup.TextureFinder` finds: a file on
disk is loaded as Blender loads any image; a texture inside a game archive is not a file, so its
bytes are packed into the .blend (it shows, and it travels with the .blend)."""

import bpy

from .texture_lookup import ArchiveTexture

ARCHIVE_MEMBER_KEY = "alamo_archive_member"     # "<archive>:<member>" the image was read from


def load_texture(found):
    """The image for what ``TextureFinder.find`` returned (a path or an ArchiveTexture);
    raises RuntimeError (as ``bpy.data.images.load``) when it cannot be read."""
    if not isinstance(found, ArchiveTexture):
        return bpy.data.images.load(found, check_existing=True)
    label = str(found)
    for img in bpy.data.images:
        if img.get(ARCHIVE_MEMBER_KEY) == label and img.packed_file is not None:
            return img
    try:
        data = found.read()
    except (OSError, ValueError) as e:
        raise RuntimeError(str(e)) from e
    img = bpy.data.images.new(found.file_name, 8, 8)
    try:
        img.pack(data=data, data_len=len(data))
        img.source = "FILE"
        img.filepath_raw = found.loose_path      # where the game would find it loose
        img[ARCHIVE_MEMBER_KEY] = label
        if img.size[0] == 0 or not img.has_data:       # size loads the packed bytes
            raise RuntimeError(f"{label}: not an image Blender can read")
    except RuntimeError:
        bpy.data.images.remove(img)
        raise
    return img
