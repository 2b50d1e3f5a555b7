"""Alamo models and animations in Blender: import, export, and the tools that edit them."""
