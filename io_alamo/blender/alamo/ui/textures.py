"""Texture fields: a typed name, an image of the Blender file, or a file on disk, for shader
parameters and dazzles."""

import bpy
from bpy.props import EnumProperty, IntProperty, StringProperty

from ..importer import materials
from ..shading import refresh_material_preview
from .shared import register_factory


class _TextureTarget:
    """A texture string: the parameter ``index`` of ``material``, or with no material the
    dazzle texture of ``object`` (default: the active object)."""

    material: StringProperty(name="Material", options={"HIDDEN", "SKIP_SAVE"})
    index: IntProperty(name="Parameter Index", default=-1, options={"HIDDEN", "SKIP_SAVE"})
    object: StringProperty(name="Object", options={"HIDDEN", "SKIP_SAVE"})

    def target(self, context):
        if self.material:
            mat = bpy.data.materials.get(self.material)
            if mat is None or not 0 <= self.index < len(mat.alamo.params):
                return None, None
            return mat.alamo.params[self.index], mat
        obj = bpy.data.objects.get(self.object) if self.object else context.object
        return (obj.alamo, None) if obj is not None else (None, None)

    def assign(self, context, image):
        holder, mat = self.target(context)
        if holder is None:
            self.report({"ERROR"}, "nothing to put the texture on")
            return {"CANCELLED"}
        holder.texture = materials.image_file_name(image)
        if mat is not None:
            refresh_material_preview(context, mat)
        return {"FINISHED"}


_image_items = []      # Blender needs the strings of dynamic enum items kept alive


def _images(self, context):
    _image_items[:] = [(img.name, img.name, materials.image_file_name(img))
                       for img in bpy.data.images if materials.is_texture_image(img)] \
        or [("", "No Images", "Open or import an image first")]
    return _image_items


class ALAMO_OT_texture_pick_image(bpy.types.Operator, _TextureTarget):
    """Use an image of this Blender file: its file name becomes the texture name"""
    bl_idname = "alamo.texture_pick_image"
    bl_label = "Pick Image"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}
    bl_property = "image"

    image: EnumProperty(name="Image", items=_images, options={"SKIP_SAVE"})

    def execute(self, context):
        image = bpy.data.images.get(self.image) if self.image else None
        if image is None:
            self.report({"ERROR"}, "no image chosen")
            return {"CANCELLED"}
        return self.assign(context, image)


class ALAMO_OT_texture_browse(bpy.types.Operator, _TextureTarget):
    """Choose a texture file (.dds, .tga): its file name becomes the texture name and the
    image is loaded for the preview"""
    bl_idname = "alamo.texture_browse"
    bl_label = "Choose Texture File"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    filepath: StringProperty(name="File", subtype="FILE_PATH", options={"SKIP_SAVE"})
    filter_glob: StringProperty(default="*.dds;*.tga;*.png;*.jpg", options={"HIDDEN"})

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        try:
            image = bpy.data.images.load(self.filepath, check_existing=True)
        except RuntimeError as e:
            self.report({"ERROR"}, f"cannot read {self.filepath}: {e}")
            return {"CANCELLED"}
        return self.assign(context, image)


def draw_texture_row(layout, holder, prop, op_props):
    """The texture field ``prop`` of ``holder`` with buttons to pick an image or a file; the
    operators get ``op_props`` (their target)."""
    row = layout.row(align=True)
    row.prop(holder, prop, text="")
    pick = row.operator_menu_enum(ALAMO_OT_texture_pick_image.bl_idname, "image", text="",
                                  icon="IMAGE_DATA")
    browse = row.operator(ALAMO_OT_texture_browse.bl_idname, text="", icon="FILEBROWSER")
    for op in (pick, browse):
        for k, v in op_props.items():
            setattr(op, k, v)


CLASSES = (ALAMO_OT_texture_pick_image, ALAMO_OT_texture_browse)
register, unregister = register_factory(CLASSES)
