"""Scaling a particle effect (Scale Effect, and an effect object's scale on export): what is a
length or a speed in an emitter, so that a scaled effect looks the same at another size.

Scaled: particle sizes (the size track), speeds and accelerations (inward speed, acceleration,
outward acceleration, gravity), tails (tail size) and the velocity and position groups (every
length of their shapes). Not scaled: times (the lifetime group is a lifetime), counts, colours,
the weather cube (a region of the world)."""

import numpy as np

#: Float properties of an emitter that are lengths, speeds or accelerations.
SCALED_SCALARS = ("inward_speed", "outward_acceleration", "gravity", "tail_size")
SCALED_VECTORS = ("acceleration",)
#: The groups that hold lengths (velocity, position; not lifetime), by their index.
SCALED_GROUPS = (0, 2)
SCALED_GROUP_FIELDS = ("min_x", "min_y", "min_z", "max_x", "max_y", "max_z", "side_length",
                       "sphere_radius", "cylinder_radius", "cylinder_height",
                       "val_x", "val_y", "val_z")
SCALED_TRACK = "size"


def _f32(value):
    return float(np.float32(value))


def scale_emitter(e, factor: float) -> None:
    """Scale an emitter record's lengths, speeds and sizes by ``factor`` in place."""
    factor = float(factor)
    for name in SCALED_SCALARS:
        setattr(e, name, _f32(getattr(e, name) * factor))
    for name in SCALED_VECTORS:
        setattr(e, name, tuple(_f32(v * factor) for v in getattr(e, name)))
    for i in SCALED_GROUPS:
        g = e.groups[i]
        for name in SCALED_GROUP_FIELDS:
            setattr(g, name, _f32(getattr(g, name) * factor))
    t = e.track(SCALED_TRACK)
    t.first_key, t.last_key = _f32(t.first_key * factor), _f32(t.last_key * factor)
    if len(t.keys):
        keys = t.keys.copy()
        keys["value"] = (keys["value"].astype(np.float64) * factor).astype(np.float32)
        t.keys = keys
