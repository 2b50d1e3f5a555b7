"""Export a particle system's objects as a particle .alo.

The record is read again from the bytes the import kept on the system's object; each emitter
object's properties are laid onto its emitter (``convert.props_to_emitter`` changes only what
differs), so an unedited system writes back byte for byte and an edit changes only what was
edited. A lifetime edit also refills the redundant lifetime group, as the spec requires.
Emitters added since (no source emitter) are new records; a system made from nothing has no
source at all. Written atomically: a failed export leaves no partial file."""

import copy
import os
from dataclasses import dataclass

from ....formats.alamo.particles import Emitter, ParticleSystem, codec, read_particles
from ....formats.alamo.particles.game_rules import particle_refusal
from ....formats.alamo.particles.scale import scale_emitter
from ....formats.alamo.particles.write import write_particles
from ....formats.saving import write_all
from ...results import ExportError, Result
from ...source import get_source
from ..particles_uaw import edit as uaw_edit
from .convert import props_to_emitter
from .importer import SOURCE_EMITTER_KEY, SOURCE_KEY
from . import track_widgets
from .placement import check_uaw_unedited, place_emitter, system_scale
from .sync import dropped_links, forget_dropped, live_emitters, sync_system


@dataclass
class ParticleExportResult(Result):
    path: str = ""
    emitters: int = 0

    def summary(self):
        return f"particle effect with {self.emitters} emitters written"


def system_object(context):
    """The particle system the selection belongs to (the active object, or its parent), or
    None when the selection is no particle effect."""
    for obj in (context.active_object, *context.selected_objects):
        while obj is not None:
            if obj.alamo_particle_system.is_system:
                return obj
            obj = obj.parent
    return None


def emitter_objects(system_obj):
    """The system's emitter objects in the scene, in file order (by ``alamo_emitter.index``)."""
    return live_emitters(system_obj)


def effect_alone(context, arm, objs):
    """The particle system File > Export > Alamo Model writes when the scope holds nothing
    else to export (no armature, no object outside an effect): the scene's only effect, or
    None when there is no effect. Several effects: refused, naming them."""
    if arm is not None:
        return None
    if any(_system_of(o) is None and o.type not in NOT_MODEL_TYPES for o in objs):
        return None
    systems = [o for o in context.scene.objects if o.alamo_particle_system.is_system]
    if len(systems) > 1:
        raise ExportError([f"nothing but {len(systems)} particle effects to export ("
                           f"{', '.join(repr(o.name) for o in systems)}): select the one to "
                           "write"], systems)
    return systems[0] if systems else None


# what does not make a model on its own (a startup scene's camera and light beside an effect)
NOT_MODEL_TYPES = frozenset({"CAMERA", "SPEAKER", "LIGHT_PROBE", "LIGHTPROBE", "LIGHT"})


def _system_of(obj):
    while obj is not None:
        if obj.alamo_particle_system.is_system:
            return obj
        obj = obj.parent
    return None


def build_system(system_obj, notes=None):
    """The record the objects describe (see the module docstring). Emitters are written in
    their file order (sync.sync_system: indices renumbered, links following their emitters);
    ``notes`` (a list) gets a warning for each link dropped with its emitter. Edits the file
    cannot hold raise ExportError naming the object."""
    notes = [] if notes is None else notes
    source = get_source(system_obj, SOURCE_KEY)
    system = read_particles(bytes(source)) if source is not None else ParticleSystem()
    if not isinstance(system, ParticleSystem):
        check_uaw_unedited(system_obj, system)      # the system's own fields
        return uaw_edit.build(system_obj, system)   # Universe at War: its parameters
    ps = system_obj.alamo_particle_system
    if system.name != ps.system_name:
        system.name = ps.system_name
    if bool(system.persist) != ps.persist:
        system.persist = int(ps.persist)
    if system.id & 0x7FFFFFFF != ps.id:
        system.id = ps.id
    old = system.emitters
    emitters = []
    taken = set()
    objects = sync_system(system_obj)
    scale = system_scale(system_obj)
    for i, obj in enumerate(objects):
        k = obj.get(SOURCE_EMITTER_KEY)
        e = None
        if source is not None and isinstance(k, int) and 0 <= k < len(old) and k not in taken \
                and isinstance(old[k], Emitter):
            e = copy.copy(old[k])
            taken.add(k)
        e = e if e is not None else Emitter()
        before = (e.lifetime, e.randomized_lifetime)
        refused = track_widgets.refusal(obj)
        if refused:
            raise ExportError([refused], [obj])
        props_to_emitter(obj.alamo_emitter, e)
        if e.index != i:
            e.index = i
        place_emitter(obj, e)
        if scale != 1.0:
            scale_emitter(e, scale)
        if e.layout is None or not (codec.same(before[0], e.lifetime)
                                    and codec.same(before[1], e.randomized_lifetime)):
            e.sync_lifetime_group()
        notes += [f"emitter {obj.name!r}: its {what} was dropped (that emitter was deleted)"
                  for what in dropped_links(obj)]
        emitters.append(e)
    for i, item in enumerate(old):          # unknown chunks of the emitter list: in place
        if not isinstance(item, Emitter):
            emitters.insert(min(i, len(emitters)), item)
    system.emitters = emitters
    return system


def export_particles(context, filepath, system_obj=None) -> ParticleExportResult:
    system_obj = system_obj or system_object(context)
    if system_obj is None:
        raise ExportError(["select a particle system (or one of its emitters) to export"])
    notes = []
    system = build_system(system_obj, notes)
    stem = os.path.splitext(os.path.basename(filepath))[0]
    result = ParticleExportResult(path=filepath, emitters=len(system.emitters))
    result.warnings += notes
    if system.name.lower() != stem.lower():
        result.warnings.append(f"the system's name {system.name!r} does not match the file "
                               f"name {stem!r}; the game needs them equal")
    data = write_particles(system)
    refusal = particle_refusal(data)[0]
    if refusal is not None:
        raise ExportError([f"the game would refuse {filepath}: {refusal.message} (at "
                           f"{refusal.path or 'the start'}, rule '{refusal.rule}'); nothing "
                           "was written"], [system_obj])
    write_all([(data, filepath)])
    for obj in emitter_objects(system_obj):
        forget_dropped(obj)                 # named once, in this export's warnings
    return result
