"""The imported file's bytes, kept for a byte-identical re-export (every engine's imports:
Alamo under ``KEY``, the others under keys of their own).

They live in a hidden Text datablock (``.alamo <file name>``) that the armature or action
points to, not on the armature or action itself: Blender copies an object's or action's
custom properties every time the dependency graph re-evaluates it (moving a bone, changing a
frame), which for an 80 MB model is 40 ms per update. A Text is never evaluated. The Text's
only user is that pointer, so deleting the armature lets the bytes go when the .blend is
saved. .blend files that hold the bytes directly on the armature or action still work.
"""

import hashlib
import os

import bpy

__all__ = ["BYTES_KEY", "KEY", "MODEL_KEY", "SOURCE_NAME_KEY", "content_key", "from_model_of",
           "get_source", "has_source", "set_source", "source_file_name", "source_text"]

KEY = "alamo_source"
BYTES_KEY = "alamo_bytes"
SOURCE_NAME_KEY = "alamo_source_file"   # the file an Alamo armature or action came from
MODEL_KEY = "alamo_model_id"            # one token per model import, on its armature and objects


def source_file_name(idblock, name):
    """The file ``idblock`` was imported from when that is ``name`` but for case
    (``EI_VADER.ALO`` for ``ei_vader.alo``), else None: written back under its exact name, a
    case-sensitive folder does not get a second copy."""
    source = idblock.get(SOURCE_NAME_KEY) if idblock is not None else None
    if isinstance(source, str) and os.path.basename(source) == source \
            and source.lower() == name.lower():
        return source
    return None


def set_source(idblock, data, name, key=KEY):
    """Keep ``data`` for ``idblock``; returns the Text that holds it (for rollback). Files of
    other formats use their own ``key``, so Alamo export never takes them for .alo bytes."""
    text = bpy.data.texts.new(f".alamo {name}")
    text[BYTES_KEY] = bytes(data)
    text.user_clear()                 # the pointer below becomes its only user
    idblock[key] = text
    return text


def get_source(idblock, key=KEY):
    """The kept bytes (a bytes-like value), or None."""
    if idblock is None:
        return None
    held = idblock.get(key)
    if isinstance(held, bpy.types.Text):
        held = held.get(BYTES_KEY)
    return held


def content_key(data):
    """A key of kept bytes for caches of what was read from them: a digest of the whole
    content (a file edited anywhere, even keeping its name and length, gets a new key; about
    1 ms per MB)."""
    return len(data), hashlib.blake2b(data, digest_size=20).digest()


def has_source(idblock):
    """Whether bytes are kept, without copying them (panels ask on every redraw)."""
    held = idblock.get(KEY) if idblock is not None else None
    if isinstance(held, bpy.types.Text):
        return BYTES_KEY in held
    return held is not None


def source_text(idblock):
    """The Text datablock holding ``idblock``'s bytes, or None."""
    held = idblock.get(KEY) if idblock is not None else None
    return held if isinstance(held, bpy.types.Text) else None


def from_model_of(obj, arm):
    """Whether ``obj`` came from the file ``arm`` was imported from: an object moved over
    from another imported unit (kitbashing) is new to this one, whatever its index in its
    own file. Objects of older .blend files, which carry no token, count as the file's."""
    mine = arm.get(MODEL_KEY) if arm is not None else None
    theirs = obj.get(MODEL_KEY)
    return mine is None or theirs is None or mine == theirs
