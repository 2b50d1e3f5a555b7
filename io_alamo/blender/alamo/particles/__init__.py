"""Particle effects in Blender (issue 33): a particle .alo imported as one parent object for
the system and one object per emitter (``obj.alamo_emitter``), edited in the Alamo Particle
panel, exported back (byte-identical when unedited), and made from nothing with
Add > Alamo > Particle Emitter."""
