"""What the game draws of a model: the highest LOD and ALT0 of its meshes, without the meshes
it never draws (hidden in the file, collision, shadow volumes). Import shows just that, the
LOD/ALT panel returns to it, and glTF output writes only that unless asked for everything."""

from .. import shaders
from ..naming import default_visibility


def is_shadow_mesh(obj):
    """A mesh drawn with a shadow-volume shader (MeshShadowVolume, RSkinShadowVolume): a
    stencil volume the game extrudes, never draws."""
    return obj.type == "MESH" and any(
        slot.material is not None and shaders.is_shadow(slot.material.alamo.shader)
        for slot in obj.material_slots)


def never_drawn(obj):
    """Meshes and proxies the game does not draw at any LOD or ALT."""
    p = obj.alamo
    return bool(p.hidden or p.collision or is_shadow_mesh(obj))


def game_shown(objs):
    """For each object (meshes, proxies), whether the game draws it by default: the most
    detailed LOD and ALT0 of each name, and nothing it never draws."""
    levels = default_visibility([o.alamo.name or o.name for o in objs])
    return [show and not never_drawn(o) for o, show in zip(objs, levels)]


def gltf_objects(scene, everything=False):
    """The objects a glTF file of the scene holds: by default the armatures and the meshes the
    game draws (see :func:`game_shown`); with ``everything``, every object of the scene."""
    objs = list(scene.objects)
    if everything:
        return objs
    meshes = [o for o in objs if o.type == "MESH"]
    drawn = {o for o, show in zip(meshes, game_shown(meshes)) if show}
    return [o for o in objs if o.type == "ARMATURE" or o in drawn]


def prepare_gltf_export(context, everything=False):
    """Select what a glTF file of the scene should hold (:func:`gltf_objects`) and return the
    glTF exporter's arguments that write just that, with every animation of the armatures:
    imported models show their bind pose with no action assigned, so the animations are
    given to each armature ("broadcast") instead of taken from its active action."""
    keep = set(gltf_objects(context.scene, everything))
    for obj in context.view_layer.objects:
        if obj.type == "ARMATURE" and obj.animation_data is None:
            obj.animation_data_create()
        if not everything:
            obj.select_set(obj in keep)
    return {"use_selection": not everything, "export_animation_mode": "BROADCAST"}
