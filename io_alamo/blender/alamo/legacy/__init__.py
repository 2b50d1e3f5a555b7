"""Scenes made with the older community ALAMO Blender plugin (2020 original, 2025 fork).

``plugin`` reads what that plugin stored (ID properties, Child Of attachment) into plain
records without changing anything; ``convert`` writes them into io_alamo's own properties
in place; ``panel`` is the sidebar operator. The export reads the same records on the fly
(``exporter/plugin.py``), so a scene exports right even when it was never converted.
"""
