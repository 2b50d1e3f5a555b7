"""Particle effects: .alo files whose root chunk is 0x900 (Empire at War, Forces of
Corruption; decoded field by field) or 0x1500 (Universe at War; listed and kept byte for
byte). Records in :mod:`.records`; ``read_particles`` / ``write_particles`` bytes in, bytes
out."""

from .read import read_particles
from .records import (GROUP_NAMES, PROPERTY_FIELDS, PROPERTY_NAMES, TRACK_NAMES, Emitter, Group,
                      ParticleSystem, Track, UawEmitter, UawParticleSystem)

__all__ = ["Emitter", "GROUP_NAMES", "Group", "PROPERTY_FIELDS", "PROPERTY_NAMES",
           "ParticleSystem", "TRACK_NAMES", "Track", "UawEmitter", "UawParticleSystem",
           "read_particles"]
