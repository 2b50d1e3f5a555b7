"""ALOD progressive meshes in Blender: import."""
