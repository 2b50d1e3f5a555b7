"""What the UI modules share: the sidebar tab, text wrapping, and registration of a module's
classes with the properties it attaches to Blender types."""

import textwrap

import bpy

CATEGORY = "Alamo"


class SidebarPanel:
    """A panel of the 3D viewport's Alamo sidebar tab."""
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY


def wrapped(layout, context, text, icon="NONE"):
    """``text`` as labels wrapped to the region's width, ``icon`` on the first line."""
    width = context.region.width if getattr(context, "region", None) else 300
    col = layout.column(align=True)
    for k, line in enumerate(textwrap.wrap(text, max(20, int(width / 7)))):
        col.label(text=line, icon=icon if k == 0 else "BLANK1")


def register_factory(classes, properties=(), window_manager=()):
    """register() and unregister() of a UI module: its classes (in order, so property groups
    come before what points to them), then its (owner type, name, property) attachments and
    its (name, property) pairs on the window manager; unregister() undoes everything in
    reverse, as Blender 4.2/4.5 crash at exit otherwise."""
    register_classes, unregister_classes = bpy.utils.register_classes_factory(classes)
    properties = tuple(properties) + tuple(
        (bpy.types.WindowManager, name, prop) for name, prop in window_manager)

    def register():
        register_classes()
        for owner, name, prop in properties:
            setattr(owner, name, prop)

    def unregister():
        for owner, name, _ in reversed(properties):
            delattr(owner, name)
        unregister_classes()

    return register, unregister
