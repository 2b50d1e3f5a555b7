"""Alithia ALM1 models in Blender: import and export."""
