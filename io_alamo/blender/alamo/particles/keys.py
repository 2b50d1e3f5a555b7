"""The custom properties an imported effect's objects carry (read by import, export, sync)."""

SOURCE_KEY = "alamo_particle_source"       # the file's bytes, on the system's object
SOURCE_EMITTER_KEY = "alamo_source_emitter"  # an emitter object's index in those bytes
UAW_KEY = "alamo_uaw_effect"               # on a Universe at War effect's object
