"""The toy engine's Blender layer."""
