"""Modder-facing UI: the Alamo sidebar tab, material panel, Add menu entries, LOD/ALT
switching, validation and animation helpers."""

CLASSES = ()


def register():
    import bpy
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    import bpy
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
