"""Names between a file's bytes and Blender's text.

The format layer decodes names as cp1252 and keeps the five bytes cp1252 leaves undefined
(0x81, 0x8D, 0x8F, 0x90, 0x9D) as surrogates, so they write back byte for byte. Blender
stores UTF-8 and refuses surrogates: on the way in such a byte becomes the control
character of the same number (U+0081, ...), on the way out the byte again.
"""

UNDEFINED_CP1252 = (0x81, 0x8D, 0x8F, 0x90, 0x9D)
BONE_NAME_BYTES = 63        # Blender's bone names: 63 bytes of UTF-8
_TO_BLENDER = {0xDC00 + b: b for b in range(0x80, 0x100)}
_FROM_BLENDER = {b: 0xDC00 + b for b in UNDEFINED_CP1252}


def to_blender(text):
    """A name from a file (or a file system path) as text Blender accepts."""
    return text.translate(_TO_BLENDER)


def from_blender(text):
    """Inverse of :func:`to_blender` for names going back into a file."""
    return text.translate(_FROM_BLENDER)


def bone_name(text):
    """A file's bone name as an edit bone name: Blender 4.2 and 4.5 cut long bone names in
    the middle of a UTF-8 character (reading the name back then fails), so cut it first,
    between characters. The whole name is kept on the bone's Alamo properties."""
    data = to_blender(text).encode("utf-8")[:BONE_NAME_BYTES]
    return data.decode("utf-8", "ignore")


# The object's Blender name when it was imported (a custom property): while the object keeps
# that name, it is written under the file's own name (its Alamo properties); renaming it in
# Blender renames it in the file.
IMPORT_NAME_KEY = "alamo_import_name"


def export_name(blender_name, file_name, import_name):
    """The name a bone or object gets in the file, as Blender text: the file's own name
    unless renamed in Blender since import (writers pass it through :func:`from_blender`)."""
    if file_name and blender_name == import_name:
        return file_name
    return blender_name
