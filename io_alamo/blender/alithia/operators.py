"""File > Import / Export > Alithia Model (.alm) and drag and drop of ``.alm`` files. Thin:
options in, import or export function, report out. ALOD's ``.alm`` files have their own
entry (io_alamo.blender.alod.operators); each refuses the other's file with a pointer."""

import bpy

from ...formats.registry import by_key
from ..file_operators import (drop_handler, export_base, export_reported, import_base, import_each,
                              leave_edit_modes, menu_entries, menu_registration)
from ..progress import reports_progress
from .exporter import export_alm1
from .importer import import_alm1

FORMAT = by_key("alm1")


class IMPORT_SCENE_OT_alm1(bpy.types.Operator, import_base(FORMAT)):
    """Import Alithia engine models (.alm, ALM1): morph animation as shape keys"""

    bl_label = "Import Alithia Model"

    @reports_progress
    def execute(self, context):
        leave_edit_modes(context)
        options = self.declared_options()
        return import_each(self, self.paths(),
                           lambda path, _: import_alm1(context, path, options))


class EXPORT_SCENE_OT_alm1(bpy.types.Operator, export_base(FORMAT)):
    """Export the active mesh as an Alithia engine model (.alm), one frame per shape key"""

    bl_label = "Export Alithia Model"

    def execute(self, context):
        leave_edit_modes(context)
        options = self.declared_options()
        return export_reported(self, context,
                               lambda: export_alm1(context, self.filepath, options))


ALAMO_FH_alm1 = drop_handler("ALAMO_FH_alm1", "Alithia Model", FORMAT)
menu_import = menu_entries((IMPORT_SCENE_OT_alm1, FORMAT.import_label))
menu_export = menu_entries((EXPORT_SCENE_OT_alm1, FORMAT.export_label))


CLASSES = (IMPORT_SCENE_OT_alm1, EXPORT_SCENE_OT_alm1, ALAMO_FH_alm1)

register, unregister = menu_registration(CLASSES, menu_import, menu_export)
