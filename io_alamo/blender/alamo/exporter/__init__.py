"""Export: Blender data in, files out."""
