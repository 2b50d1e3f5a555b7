"""Import a particle .alo: one parent object for the system, one object per emitter.

The file's bytes are kept for the parent (``SOURCE_KEY``, in a hidden Text, as
source.set_source keeps every import's) so that export writes every chunk it did not change
as it was read. All-or-nothing, as every import: a failure removes what
was made."""

import os
from dataclasses import dataclass, field

import bpy

from ....formats.alamo.particles import ParticleSystem, read_particles
from ...results import Result
from ...source import set_source
from ...texture_images import load_texture
from ...texture_lookup import TextureFinder
from ...transaction import Transaction
from . import track_widgets
from .convert import emitter_to_props
from ..particles_uaw import edit as uaw_edit
from .keys import SOURCE_EMITTER_KEY, SOURCE_KEY, UAW_KEY
from .shapes import shape_mesh
from .sync import mark_in_step, set_links_from_numbers



@dataclass
class ParticleImportResult(Result):
    system: object = None
    emitters: list = field(default_factory=list)
    game: str = ""

    def summary(self):
        return (f"particle effect {self.system.name!r} ({self.game}): "
                f"{len(self.emitters)} emitters")

    def left_notes(self):
        return []


def import_particles(context, filepath, data, options=None) -> ParticleImportResult:
    """Make the system's objects in a new collection of the active scene."""
    system = read_particles(data, filepath)
    folders = list(getattr(options, "texture_folders", []) or [])
    result = ParticleImportResult()
    with Transaction(context) as tx:
        name = os.path.splitext(os.path.basename(filepath.replace("\\", "/")))[0]
        coll = tx.add(bpy.data.collections.new(name))
        context.scene.collection.children.link(coll)
        parent = tx.add(bpy.data.objects.new(name, None))
        parent.empty_display_type = "SPHERE"
        parent.empty_display_size = 0.5
        coll.objects.link(parent)
        ps = parent.alamo_particle_system
        ps.is_system = True
        ps.system_name = system.name
        tx.add(set_source(parent, data, name, key=SOURCE_KEY))   # not copied on updates
        result.system = parent
        if isinstance(system, ParticleSystem):
            result.game = "Empire at War / Forces of Corruption"
            ps.id = system.id & 0x7FFFFFFF
            ps.persist = bool(system.persist)
            finder = TextureFinder.for_model(filepath, folders)
            for i, e in enumerate(system.emitters):
                if not hasattr(e, "groups"):
                    continue                  # an unknown chunk in the list: kept, not shown
                obj = _emitter_object(tx, coll, parent, e, i, finder, result)
                result.emitters.append(obj)
            set_links_from_numbers(result.emitters)
            for obj in result.emitters:
                mark_in_step(obj)
                group = track_widgets.made(obj)    # the tracks' ramps and curves
                if group is not None:
                    tx.add(group)
        else:
            result.game = "Universe at War"
            parent[UAW_KEY] = True
            finder = TextureFinder.for_model(filepath, folders)
            for i, e in enumerate(system.emitters):     # plugin parameters: particles_uaw
                result.emitters.append(uaw_edit.emitter_object(
                    tx, coll, parent, e, i, lambda t: _image(t, finder, result, tx)))
        for o in context.view_layer.objects:
            o.select_set(False)
        parent.select_set(True)
        context.view_layer.objects.active = parent
    result.counts.pop("_textures", None)
    result.counts["emitters"] = len(result.emitters)
    return result


def _emitter_object(tx, coll, parent, e, index, finder, result):
    mesh = tx.add(shape_mesh(e.name or f"emitter {index}", e.position_group))
    obj = tx.add(bpy.data.objects.new(e.name or f"emitter {index}", mesh))
    obj.parent = parent
    obj.display_type = "WIRE"
    obj.hide_render = True
    obj[SOURCE_EMITTER_KEY] = index
    coll.objects.link(obj)
    emitter_to_props(e, obj.alamo_emitter, index)
    obj.alamo_emitter.image = _image(e.texture, finder, result, tx)
    return obj


def _image(texture, finder, result, tx):
    if not texture:
        return None
    seen = result.counts.setdefault("_textures", {})
    if texture.lower() in seen:
        return seen[texture.lower()]
    seen[texture.lower()] = None
    found = finder.find(texture)
    if found is None:
        result.warnings.append(f"texture {texture!r} not found ({finder.searched})")
        return None
    try:
        before = set(bpy.data.images)
        img = load_texture(found)
        if img not in before:
            tx.add(img)                        # removed again if the import fails
        seen[texture.lower()] = img
        return img
    except RuntimeError as err:
        result.warnings.append(f"texture {texture!r} could not be read: {err}")
        return None
