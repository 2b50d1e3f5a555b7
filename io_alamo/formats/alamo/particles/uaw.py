"""Universe at War particle systems (root 0x1500): listed, kept byte for byte."""

from ..chunks import Chunk
from .records import UawParticleSystem


def decode_uaw(roots: list[Chunk]) -> UawParticleSystem:
    return UawParticleSystem(chunks=roots)
