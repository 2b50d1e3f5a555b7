"""Add-on preferences: where to look for textures, the games' folders (their archives), the
default animation format."""

import bpy
from bpy.props import CollectionProperty, EnumProperty, StringProperty

from ..formats.alamo.choices import ALA_FORMAT_ITEMS

ADDON_ID = __package__.rpartition(".")[0]     # "io_alamo", or "bl_ext.<repo>.io_alamo"


class AlamoTextureFolder(bpy.types.PropertyGroup):
    path: StringProperty(name="Folder", subtype="DIR_PATH",
                         description="A folder searched for textures (.dds, .tga); a game's "
                                     "Data folder or a .meg file: its archives are searched")


class AlamoPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON_ID

    texture_folders: CollectionProperty(type=AlamoTextureFolder, name="Texture Folders")
    eaw_folder: StringProperty(
        name="Empire at War", subtype="DIR_PATH",
        description="Empire at War's game folder (GameData) or its Data folder: models and "
                    "textures are read from its archives (.meg)")
    foc_folder: StringProperty(
        name="Forces of Corruption", subtype="DIR_PATH",
        description="Forces of Corruption's game folder (corruption) or its Data folder: "
                    "models and textures are read from its archives (.meg), then Empire at "
                    "War's")
    ala_format: EnumProperty(
        name="Animation Format", default="2",
        description="Format of animations made in Blender (imported ones keep their own)",
        items=ALA_FORMAT_ITEMS)

    def draw(self, context):
        self.layout.prop(self, "ala_format")
        col = self.layout.column()
        col.label(text="Game folders (File > Import > Alamo Model from Game Archives; their "
                       "archives are searched for textures):")
        col.prop(self, "foc_folder")
        col.prop(self, "eaw_folder")
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


def game_folders(context):
    """{"FOC": folder, "EAW": folder} of the games set in the preferences."""
    addon = context.preferences.addons.get(ADDON_ID)
    if addon is None or addon.preferences is None:
        return {}
    p = addon.preferences
    return {key: bpy.path.abspath(folder) for key, folder in
            (("FOC", p.foc_folder), ("EAW", p.eaw_folder)) if folder}


def default_ala_format(context):
    """"1" or "2": the animation format from the preferences ("2" when not set)."""
    addon = context.preferences.addons.get(ADDON_ID)
    if addon is None or addon.preferences is None:
        return "2"
    return addon.preferences.ala_format


CLASSES = (AlamoTextureFolder, AlamoPreferences, ALAMO_OT_texture_folder_add,
           ALAMO_OT_texture_folder_remove)

register, unregister = bpy.utils.register_classes_factory(CLASSES)
