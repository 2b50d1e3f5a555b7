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
from ....formats.alamo.particles.records import NO_EMITTER
from ....formats.alamo.particles.game_rules import particle_refusal
from ....formats.alamo.particles.write import write_particles
from ....formats.saving import write_all
from ...results import ExportError, Result
from ...source import get_source
from .convert import props_to_emitter
from .importer import SOURCE_EMITTER_KEY, SOURCE_KEY


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
    """The system's emitter objects, in file order (by ``alamo_emitter.index``)."""
    kids = [o for o in system_obj.children if o.alamo_emitter.index >= 0]
    return sorted(kids, key=lambda o: o.alamo_emitter.index)


def build_system(system_obj):
    """The record the objects describe (see the module docstring). Emitters are written in
    the order of their ``index``; a deleted emitter's place is closed up, the indices and the
    birth/death links of the others follow (a link to a deleted emitter becomes none)."""
    source = get_source(system_obj, SOURCE_KEY)
    system = read_particles(bytes(source)) if source is not None else ParticleSystem()
    if not isinstance(system, ParticleSystem):
        return system                  # Universe at War: kept byte for byte
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
    objects = emitter_objects(system_obj)
    # an emitter's index is its place; links follow their emitters when some were deleted
    place = {o.alamo_emitter.index: i for i, o in enumerate(objects)}
    for i, obj in enumerate(objects):
        k = obj.get(SOURCE_EMITTER_KEY)
        e = None
        if source is not None and isinstance(k, int) and 0 <= k < len(old) and k not in taken \
                and isinstance(old[k], Emitter):
            e = copy.copy(old[k])
            taken.add(k)
        e = e if e is not None else Emitter()
        before = (e.lifetime, e.randomized_lifetime)
        props_to_emitter(obj.alamo_emitter, e)
        if e.index != i:
            e.index = i
        for link in ("birth", "death"):
            value = getattr(e, link)
            if value != NO_EMITTER and place.get(value, -1) != value:
                setattr(e, link, place.get(value, NO_EMITTER))
        if e.layout is None or not (codec.same(before[0], e.lifetime)
                                    and codec.same(before[1], e.randomized_lifetime)):
            e.sync_lifetime_group()
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
    system = build_system(system_obj)
    stem = os.path.splitext(os.path.basename(filepath))[0]
    result = ParticleExportResult(path=filepath, emitters=len(system.emitters))
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
    return result
