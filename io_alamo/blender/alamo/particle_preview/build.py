"""Making the objects that show an effect's particles: one mesh object per emitter (its mesh
holds the live particles, its Geometry Nodes modifier draws them) under the system's root,
and one material per texture and blend mode."""

import bpy

from ....formats.alamo.particles import read_particles
from ....formats.alamo.particles import simulate as sim
from ...names import to_blender
from ...source import set_source
from ...texture_images import load_texture
from . import nodes, systems


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
        made[key] = mat
    return made[key]


def emitter_object(name, index, mat):
    """A new mesh object drawing emitter ``index``'s particles with ``mat``."""
    me = bpy.data.meshes.new(name)
    obj = bpy.data.objects.new(name, me)
    obj[systems.EMITTER_KEY] = int(index)
    nodes.ensure_modifier(obj, mat)
    obj.visible_shadow = False              # particles light, they cast no shadow
    obj.hide_select = False
    return obj


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


def show_effect(tx, collection, root, data, label, image_for):
    """Show the particle effect ``data`` (a particle file's bytes, named ``label``) at
    ``root``: one emitter object per emitter, children of ``root`` at its place. Returns the
    new objects."""
    system = read_particles(data, filename=label)
    emitters = getattr(system, "emitters", ())
    if not emitters or not hasattr(emitters[0], "groups"):
        return []                       # Universe at War effects are kept, not simulated
    tx.add(set_source(root, data, label, key=systems.EFFECT_BYTES_KEY))
    root[systems.EFFECT_KEY] = to_blender(label)
    made, out = {}, []
    for index, record in enumerate(emitters):
        model = sim.model_of(record, index)
        mat = material(model, image_for, made)
        tx.add(mat)
        name = to_blender(f"{root.name}: {record.name or index}")
        obj = emitter_object(name, index, mat)
        tx.add(obj.data)
        tx.add(obj)
        collection.objects.link(obj)
        obj.parent = root
        out.append(obj)
    return out
