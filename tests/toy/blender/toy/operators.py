"""File > Import > Toy Model (.toy): a mesh with one vertex per value (x = the value, or minus
it with the declared option ``mirror``)."""

import bpy
import numpy as np

from io_alamo.blender.file_operators import (import_base, import_each, menu_entries,
                                             menu_registration)
from io_alamo.blender.results import Result
from io_alamo.formats.files import read_file_bytes
from io_alamo.formats.registry import by_key, require

FORMAT = by_key("toy")


class ToyResult(Result):
    mirrored = False

    def summary(self):
        return "a mirrored toy" if self.mirrored else "a toy"


def import_toy(context, path, options=None):
    options = options or FORMAT.import_options()
    data = read_file_bytes(path)
    values = require(data, path, "toy").read(data, path)
    me = bpy.data.meshes.new("toy")
    me.vertices.add(len(values))
    co = np.zeros((len(values), 3), np.float32)
    co[:, 0] = values
    if options.mirror:
        co[:, 0] *= -1
    me.vertices.foreach_set("co", co.ravel())
    context.collection.objects.link(bpy.data.objects.new("toy", me))
    result = ToyResult()
    result.mirrored = options.mirror
    return result


class IMPORT_SCENE_OT_toy(bpy.types.Operator, import_base(FORMAT)):
    """Import a toy model"""

    bl_label = "Import Toy Model"

    def execute(self, context):
        options = self.declared_options()
        return import_each(self, self.paths(), lambda path, _: import_toy(context, path,
                                                                          options))


menu_import = menu_entries((IMPORT_SCENE_OT_toy, FORMAT.import_label))
register, unregister = menu_registration((IMPORT_SCENE_OT_toy,), menu_import)
