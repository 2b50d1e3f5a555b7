"""Universe at War particle effects (root 0x1500) in Blender: each emitter an object (with
``alamo_emitter.index`` as EaW emitters) whose plugin parameters a modder edits
(``obj.alamo_uaw``: name, textures, lifetimes, spawn rates, speeds, sizes, colours), shown
live by the particle preview and written back into their own value chunks on export."""
