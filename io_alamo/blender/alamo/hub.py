"""Alamo as the hub: what the other engines' importers and exporters use to make and read
Alamo units (a model whose materials are Alamo materials, whose meshes show as the game
shows them, whose edits export as an Alamo model would). The one module of the Alamo package
another engine's package may import; everything else in it is Alamo's own.

    builder = MaterialBuilder(tx, folders, warn)     # an Alamo material per texture set
    switch_shader(mat, "MeshAlpha.fx")               # a material's shader, parameters kept
    refresh_preview(mat, folders)                    # its node preview redrawn
    shown = default_visibility(names)                # the names the game draws (LOD0, ALT0)
    digest(arrays)                                   # the fingerprint an edit is told by
    find_param(mat.alamo, "BaseTexture").texture = name   # a shader parameter of a material
    image[NO_TEAM_COLOUR_KEY] = True                 # a texture without a team colour mask
    STEPS = {"p3d": unit_batch_step(import_p3d, P3dImportOptions)}   # batch: to a unit
"""

from ...formats.alamo.naming import default_visibility
from .preview import PLACEHOLDER_KEY, show_images
from .props import PARAM_EDIT_HOOKS, find_param, param_value
from ..texture_images import NO_TEAM_COLOUR_KEY
from .fingerprint import digest
from .importer.materials import (BASE_NODE, PLACEHOLDER_COLOR, MaterialBuilder, find_image,
                                 principled_node, refresh_preview)
from .shading import switch_shader
from .unit_batch import unit_batch_step
from .units import LIGHT_WATTS_PER_INTENSITY

__all__ = ["BASE_NODE", "LIGHT_WATTS_PER_INTENSITY", "NO_TEAM_COLOUR_KEY", "PARAM_EDIT_HOOKS",
           "PLACEHOLDER_COLOR", "PLACEHOLDER_KEY",
           "MaterialBuilder", "default_visibility", "digest", "find_image", "find_param",
           "param_value", "principled_node", "refresh_preview", "show_images", "switch_shader",
           "unit_batch_step"]
