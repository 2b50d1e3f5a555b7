"""How Alamo's quantities show in Blender: shared by the importer and the Add menu, so that
neither imports the other for a number."""

__all__ = ["LIGHT_WATTS_PER_INTENSITY"]

LIGHT_WATTS_PER_INTENSITY = 100.0    # point/spot energy shown in Blender per unit of intensity
