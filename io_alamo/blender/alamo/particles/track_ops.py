"""Editing an emitter's tracks as curves (issue 41, part 3): add a key (in the middle of the
widest gap, on the curve as it is, so the look does not change until it is moved), delete a
key; moving a key is editing its time and value. The export writes the keys in time order,
with the interpolation the track has (the file's own)."""

import bpy
import numpy as np
from bpy.props import IntProperty

from ....formats.alamo.particles import sampling


def _emitter(context):
    obj = context.object
    return obj if obj is not None and obj.alamo_emitter.index >= 0 else None


def track_points(track):
    """(times, values) of a track's keys as numpy arrays (their order in the panel)."""
    n = len(track.keys)
    times, values = np.zeros(n, np.float32), np.zeros(n, np.float32)
    if n:
        track.keys.foreach_get("time", times)
        track.keys.foreach_get("value", values)
    return times, values


def add_key(track):
    """A new key in the middle of the track's widest gap, on its curve; returns it."""
    times, values = track_points(track)
    interpolation = track.bl_rna.properties["interpolation"].enum_items[
        track.interpolation].value
    curve = sampling.Curve(np.concatenate(([0.0], times, [1.0])),
                           np.concatenate(([track.first_key], values, [track.last_key])),
                           interpolation)
    edges = curve.times
    widest = int(np.argmax(np.diff(edges)))
    t = float((edges[widest] + edges[widest + 1]) / 2.0)
    key = track.keys.add()
    key.time = t
    key.value = float(curve(np.array([t]))[0])
    return key


class _TrackOperator:
    bl_options = {"REGISTER", "UNDO"}

    track: IntProperty(name="Track", min=0)

    @classmethod
    def poll(cls, context):
        return _emitter(context) is not None

    def execute(self, context):
        tracks = _emitter(context).alamo_emitter.tracks
        if self.track >= len(tracks):
            self.report({"ERROR"}, f"the emitter has no track {self.track}")
            return {"CANCELLED"}
        return self.edit(tracks[self.track])


class ALAMO_OT_particle_key_add(_TrackOperator, bpy.types.Operator):
    """Add a key to this track, in the middle of its widest gap and on its curve"""

    bl_idname = "alamo.particle_key_add"
    bl_label = "Add Key"

    def edit(self, track):
        key = add_key(track)
        self.report({"INFO"}, f"key added at {key.time:.3f}")
        return {"FINISHED"}


class ALAMO_OT_particle_key_remove(_TrackOperator, bpy.types.Operator):
    """Delete this key of the track"""

    bl_idname = "alamo.particle_key_remove"
    bl_label = "Delete Key"

    key: IntProperty(name="Key", min=0)

    def edit(self, track):
        if self.key >= len(track.keys):
            self.report({"ERROR"}, f"the track has no key {self.key}")
            return {"CANCELLED"}
        track.keys.remove(self.key)
        return {"FINISHED"}


CLASSES = (ALAMO_OT_particle_key_add, ALAMO_OT_particle_key_remove)


def cell_slots(track):
    """[(slot, label, value)] of the texture-index track: -1 start, keys 0.., -2 end."""
    slots = [(-1, "Start", track.first_key)]
    slots += [(i, f"{k.time:.2f}", k.value) for i, k in enumerate(track.keys)]
    return slots + [(-2, "End", track.last_key)]


def set_cell(track, slot, cell):
    """Set the texture-index track's key ``slot`` (see :func:`cell_slots`) to ``cell``."""
    if slot == -1:
        track.first_key = float(cell)
    elif slot == -2:
        track.last_key = float(cell)
    else:
        track.keys[slot].value = float(cell)


def _texture_index_track(obj):
    return next((t for t in obj.alamo_emitter.tracks if t.name == "texture_index"), None)


class ALAMO_OT_particle_pick_cell(bpy.types.Operator):
    """Show this sprite-sheet cell at the picked key of the texture-index track"""

    bl_idname = "alamo.particle_pick_cell"
    bl_label = "Pick Cell"
    bl_options = {"REGISTER", "UNDO"}

    cell: IntProperty(name="Cell", min=0)
    slot: IntProperty(name="Key", default=-1, min=-2,
                      description="-1 the start, -2 the end, 0, 1, ... the keys between")

    @classmethod
    def poll(cls, context):
        obj = _emitter(context)
        return obj is not None and _texture_index_track(obj) is not None

    def execute(self, context):
        obj = _emitter(context)
        track = _texture_index_track(obj)
        cells = obj.alamo_emitter.num_texture_elements
        if self.slot >= len(track.keys) or self.cell >= max(cells, 1):
            self.report({"ERROR"}, f"{obj.name}: no key {self.slot} or cell {self.cell} "
                                   f"(the sheet has {cells} cells)")
            return {"CANCELLED"}
        set_cell(track, self.slot, self.cell)
        obj.alamo_emitter.cell_key = self.slot
        return {"FINISHED"}


CLASSES = CLASSES + (ALAMO_OT_particle_pick_cell,)
