"""Telling an Alamo chunk file from anything else by its first chunk, so that an image, a
text file or a .blend given by mistake is named as such instead of failing with a chunk-size
error deep inside it."""

import struct

from ..errors import AlamoFormatError
from ..saving import KIND_READERS
from .chunk_types import ChunkType

# The chunk types an Alamo file starts with: skeleton, mesh, connections, light (models),
# particle effects (Empire at War, Universe at War) and animation.
ROOT_TYPES = frozenset({ChunkType.SKELETON, ChunkType.MESH, ChunkType.CONNECTIONS, ChunkType.LIGHT,
                        ChunkType.PARTICLE_EFFECT, ChunkType.PARTICLE_EFFECT_UAW,
                        ChunkType.ANIMATION})


# a particle effect's root (Empire at War / Forces of Corruption, Universe at War)
PARTICLE_ROOTS = frozenset({ChunkType.PARTICLE_EFFECT, ChunkType.PARTICLE_EFFECT_UAW})


def is_particle_file(data) -> bool:
    """Whether ``data`` (a file's bytes, or its first four) starts with a particle root."""
    head = bytes(data[:4])
    return len(head) == 4 and struct.unpack("<I", head)[0] in PARTICLE_ROOTS


def alamo_kind(head):
    """What an Alamo file holds, by its first chunk: ``a particle effect``, ``an animation``,
    ``a model``; None for anything else."""
    head = bytes(head[:4])
    if len(head) < 4:
        return None
    root = struct.unpack("<I", head)[0]
    if root in PARTICLE_ROOTS:
        return "a particle effect"
    if root == ChunkType.ANIMATION:
        return "an animation"
    return "a model" if root in ROOT_TYPES else None


if alamo_kind not in KIND_READERS:
    KIND_READERS.append(alamo_kind)


class NotAlamoError(AlamoFormatError):
    """The bytes are not an Alamo file at all (checked before any chunk is read)."""


def check_alamo(data, filename=None):
    """Raise :class:`NotAlamoError` unless ``data`` starts with an Alamo root chunk type.
    A damaged Alamo file passes and gets the chunk reader's precise error instead."""
    if len(data) == 0:
        raise NotAlamoError("not an Alamo file (it is empty)", filename=filename)
    head = bytes(data[:4])
    if len(head) < 4 or struct.unpack("<I", head)[0] not in ROOT_TYPES:
        shown = " ".join(f"{b:02x}" for b in head)
        raise NotAlamoError(f"not an Alamo file (starts with {shown})", filename=filename)
