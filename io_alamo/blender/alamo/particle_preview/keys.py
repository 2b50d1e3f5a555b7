"""The custom properties the particle preview puts on objects."""

EMITTER_KEY = "alamo_particle_emitter"      # on an emitter object the preview made: its index
EFFECT_KEY = "alamo_particle_effect"        # on a system's root: the effect's file name
EFFECT_BYTES_KEY = "alamo_particle_bytes"   # on a system's root: its file's kept bytes
SHOW_KEY = "alamo_particle_show"            # on a system's root: 0 hides its particles
