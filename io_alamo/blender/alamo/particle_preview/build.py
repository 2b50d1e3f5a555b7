"""Making the objects that show an effect's particles: per emitter, a mesh object under the
system's root whose Geometry Nodes modifier draws the live particles, which the handlers
write into its points object; and one material per texture and blend mode. Emitters
imported for editing (``obj.alamo_emitter``) are *adopted*: given the same modifier."""

import bpy

from ....formats.alamo.particles import UawParticleSystem, read_particles, uaw_play
from ....formats.alamo.particles import simulate as sim
from ...names import to_blender
from ...source import set_source
from ...texture_images import load_texture
from . import nodes
from .keys import EFFECT_BYTES_KEY, EFFECT_KEY, EMITTER_KEY


MATERIAL_KEY = "alamo_particle_look"        # on a particle material: what it was built for


def look(model, image):
    """What a particle material depends on, as a string."""
    heat = bool(getattr(model, "is_heat_particle", False))
    return f"{int(model.blend_mode)}|{int(heat)}|{image.name if image is not None else ''}"


def material(model, image_for, made=None):
    """The material drawing ``model``'s particles (shared by emitters with the same texture,
    blend mode and heat flag within ``made``, a dict)."""
    made = {} if made is None else made
    heat = bool(getattr(model, "is_heat_particle", False))
    key = (model.texture.lower(), int(model.blend_mode), heat)
    if key not in made:
        image = image_for(model.texture) if model.texture else None
        mat = bpy.data.materials.new(f"Particle {model.texture or 'spot'} "
                                     f"{nodes.family(model.blend_mode, heat)}")
        nodes.build_material(mat, model.blend_mode, image, heat)
        mat[MATERIAL_KEY] = look(model, image)
        made[key] = mat
    return made[key]


def points_object(name):
    """A new points object (linked to no scene: only the modifier that draws it uses it)."""
    return bpy.data.objects.new(f"{name} particles", bpy.data.meshes.new(f"{name} particles"))


def _show_on(obj, mat, points):
    nodes.ensure_modifier(obj, mat, points)
    obj.visible_shadow = False              # particles light, they cast no shadow
    obj.display_type = "TEXTURED"           # the modifier keeps only the edges of the mesh
    obj.hide_render = False


def emitter_object(name, index, mat):
    """A new mesh object drawing emitter ``index``'s particles with ``mat``; returns it and
    its points object."""
    obj = bpy.data.objects.new(name, bpy.data.meshes.new(name))
    obj[EMITTER_KEY] = int(index)
    points = points_object(name)
    _show_on(obj, mat, points)
    return obj, points


def adopt(obj, model):
    """Give an emitter imported for editing (``obj.alamo_emitter``) the particle display: a
    material of its own (its image, blend mode), its points object and the modifier; or
    update its material when its texture or blend mode changed."""
    image = getattr(obj.alamo_emitter, "image", None)
    points = nodes.points_object(obj)
    mat = nodes.modifier_input(obj, "Material") if points else None
    if points is None:
        points = points_object(obj.name)
        mat = bpy.data.materials.new(f"Particle {obj.name}")
        _show_on(obj, mat, points)
    if mat is not None and mat.get(MATERIAL_KEY) != look(model, image):
        nodes.build_material(mat, model.blend_mode, image,
                             bool(getattr(model, "is_heat_particle", False)))
        mat[MATERIAL_KEY] = look(model, image)
    return points


def image_finder(finder, warn, tx=None):
    """``image(texture name)`` for materials: the texture ``finder`` finds, loaded once; None
    (a soft round spot is drawn) when it is not found or cannot be read."""
    cache = {}

    def image(name):
        if name.lower() not in cache:
            found = finder.find(name) if finder is not None else None
            img = None
            if found is not None:
                try:
                    img = load_texture(found)
                    if tx is not None:
                        tx.add(img)
                except RuntimeError as e:
                    warn(f"particle texture {name!r} could not be read: {e}")
            cache[name.lower()] = img
        return cache[name.lower()]
    return image


def file_models(system):
    """The simulator's models of a read system's emitters, in file order: EaW/FoC records
    as they are, Universe at War emitters through their plugins (uaw_play); None for what
    is no emitter (an unknown chunk in the list)."""
    if isinstance(system, UawParticleSystem):
        return uaw_play.models(system)
    return [sim.model_of(e, i) if hasattr(e, "groups") else None
            for i, e in enumerate(system.emitters)]


def show_effect(tx, collection, root, data, label, image_for):
    """Show the particle effect ``data`` (a particle file's bytes, named ``label``) at
    ``root``: one emitter object per emitter, children of ``root`` at its place. Returns the
    new objects."""
    system = read_particles(data, filename=label)
    emitters = getattr(system, "emitters", ())
    if not emitters:
        return []
    tx.add(set_source(root, data, label, key=EFFECT_BYTES_KEY))
    root[EFFECT_KEY] = to_blender(label)
    made, out = {}, []
    for index, (record, model) in enumerate(zip(emitters, file_models(system))):
        if model is None:
            continue
        mat = material(model, image_for, made)
        tx.add(mat)
        name = to_blender(f"{root.name}: {record.name or index}")
        obj, points = emitter_object(name, index, mat)
        for made_id in (obj.data, obj, points.data, points):
            tx.add(made_id)
        collection.objects.link(obj)
        obj.parent = root
        out.append(obj)
    return out
