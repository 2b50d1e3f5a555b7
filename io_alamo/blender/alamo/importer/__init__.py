"""Import: files in, Blender data out."""
