"""Add-on preferences: where to look for textures (every engine), and the options the
engines declare as preferences (:mod:`io_alamo.formats.options`: Alamo's games' folders, its
default animation format), read with :func:`preference`."""

import bpy
from bpy.props import CollectionProperty, StringProperty

from ..formats import registry
from ..formats.options import declared
from .file_operators import declared_properties

ADDON_ID = __package__.rpartition(".")[0]     # "io_alamo", or "bl_ext.<repo>.io_alamo"


class AlamoTextureFolder(bpy.types.PropertyGroup):
    path: StringProperty(name="Folder", subtype="DIR_PATH",
                         description="A folder searched for textures (.dds, .tga); a game's "
                                     "Data folder or a .meg file: its archives are searched")


def _declared_classes():
    return [cls for fmt in registry.FORMATS for cls in (fmt.import_options, fmt.export_options)
            if cls is not None]


def _declared_preferences():
    """{name: Blender property} of every option an engine declares as a preference."""
    props = {}
    for cls in dict.fromkeys(_declared_classes()):
        props.update(declared_properties(cls, "preference"))
    return props


class AlamoPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON_ID
    __annotations__ = {"texture_folders": CollectionProperty(type=AlamoTextureFolder,
                                                             name="Texture Folders"),
                       **_declared_preferences()}

    def draw(self, context):
        col = self.layout.column()
        for name in _declared_preferences():
            col.prop(self, name)
        col = self.layout.column()
        col.label(text="Texture folders (searched after the model's folder and the mod's "
                       "Data/Art/Textures; a game's Data folder or a .meg also works):")
        for i, f in enumerate(self.texture_folders):
            row = col.row(align=True)
            row.prop(f, "path", text="")
            op = row.operator("alamo.texture_folder_remove", text="", icon="X")
            op.index = i
        col.operator("alamo.texture_folder_add", icon="ADD")


class ALAMO_OT_texture_folder_add(bpy.types.Operator):
    bl_idname = "alamo.texture_folder_add"
    bl_label = "Add Texture Folder"
    bl_description = "Add a folder to search for textures"
    bl_options = {"INTERNAL"}

    def execute(self, context):
        addon = context.preferences.addons.get(ADDON_ID)
        if addon is None:
            return {"CANCELLED"}
        addon.preferences.texture_folders.add()
        return {"FINISHED"}


class ALAMO_OT_texture_folder_remove(bpy.types.Operator):
    bl_idname = "alamo.texture_folder_remove"
    bl_label = "Remove Texture Folder"
    bl_description = "Stop searching this folder for textures"
    bl_options = {"INTERNAL"}

    index: bpy.props.IntProperty()

    def execute(self, context):
        addon = context.preferences.addons.get(ADDON_ID)
        if addon is None:
            return {"CANCELLED"}
        addon.preferences.texture_folders.remove(self.index)
        return {"FINISHED"}


def user_texture_folders(context):
    """The folders listed in the preferences ([] when the add-on is not enabled as such)."""
    addon = context.preferences.addons.get(ADDON_ID)
    if addon is None or addon.preferences is None:
        return []
    return [bpy.path.abspath(f.path) for f in addon.preferences.texture_folders if f.path]


def preference(context, name):
    """The preference ``name`` an engine declares (its declared default when the add-on is
    not enabled as such)."""
    addon = context.preferences.addons.get(ADDON_ID)
    if addon is not None and addon.preferences is not None:
        return getattr(addon.preferences, name)
    for cls in _declared_classes():
        for option_name, default, _ in declared(cls, "preference"):
            if option_name == name:
                return default
    raise KeyError(name)


CLASSES = (AlamoTextureFolder, AlamoPreferences, ALAMO_OT_texture_folder_add,
           ALAMO_OT_texture_folder_remove)

register, unregister = bpy.utils.register_classes_factory(CLASSES)
