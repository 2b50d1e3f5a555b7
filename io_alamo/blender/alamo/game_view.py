"""What the game draws of a model: the highest LOD and ALT0 of its meshes, without those it
does not draw (hidden in the file, collision, shadow volumes, on hidden bones). Import shows
just that, the LOD/ALT panel returns to it, and glTF output writes only that unless asked for
everything."""

from ...formats.alamo import shaders
from ...formats.alamo.naming import default_visibility


def is_shadow_mesh(obj):
    """A mesh drawn with a shadow-volume shader (MeshShadowVolume, RSkinShadowVolume): a
    stencil volume the game extrudes, never draws."""
    return obj.type == "MESH" and any(
        slot.material is not None and shaders.is_shadow(slot.material.alamo.shader)
        for slot in obj.material_slots)


def on_hidden_bone(obj, posed=False):
    """Attached to a bone the file hides, or below one (an animation may show it, as a build
    animation shows a building's scaffolding); ``posed``: hidden now, by the pose bones'
    animated visibility instead of the file's."""
    arm = obj.parent
    if obj.parent_type != "BONE" or arm is None or arm.type != "ARMATURE":
        return False
    bones = arm.pose.bones if posed else arm.data.bones
    bone = bones.get(obj.parent_bone)
    while bone is not None:
        if not bone.alamo.visible:
            return True
        bone = bone.parent
    return False


def hidden_in_game(obj):
    """Meshes and proxies the game does not draw at any LOD or ALT in the bind pose: hidden in
    the file, collision meshes, shadow volumes, and what hangs on a hidden bone."""
    p = obj.alamo
    return bool(p.hidden or p.collision or is_shadow_mesh(obj) or on_hidden_bone(obj))


def game_shown(objs):
    """For each object (meshes, proxies), whether the game draws it by default: the most
    detailed LOD and ALT0 of each name, and nothing it hides."""
    levels = default_visibility([o.alamo.name or o.name for o in objs])
    return [show and not hidden_in_game(o) for o, show in zip(objs, levels)]


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
