"""File > Import > ALOD Model (.alm) and drag and drop of ``.alm`` files, with ALOD's own
options (levels of detail, the file's frame rate). Alithia's ``.alm`` files have their own
entry (io_alamo.blender.alithia.operators); each refuses the other's file with a pointer."""

import bpy

from ...formats.registry import by_key
from ..file_operators import (drop_handler, import_base, import_each, leave_edit_modes,
                              menu_entries, menu_registration)
from ..progress import reports_progress
from .importer import import_alod

FORMAT = by_key("alod")


class IMPORT_SCENE_OT_alod(bpy.types.Operator, import_base(FORMAT)):
    """Import ALOD progressive meshes (.alm, ALM\\0): skinned mesh, lower levels of detail
    from its collapses, embedded textures, its animation"""

    bl_label = "Import ALOD Model"

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "levels_of_detail")
        row = layout.row()
        row.enabled = self.levels_of_detail
        row.prop(self, "lod_count")
        layout.prop(self, "set_frame_rate")

    @reports_progress
    def execute(self, context):
        leave_edit_modes(context)
        options = self.declared_options()
        return import_each(self, self.paths(),
                           lambda path, _: import_alod(context, path, options))


ALAMO_FH_alod = drop_handler("ALAMO_FH_alod", "ALOD Model", FORMAT)
menu_import = menu_entries((IMPORT_SCENE_OT_alod, FORMAT.import_label))


CLASSES = (IMPORT_SCENE_OT_alod, ALAMO_FH_alod)

register, unregister = menu_registration(CLASSES, menu_import)
