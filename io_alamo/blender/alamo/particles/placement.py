"""Where an emitter's object is and how big its effect's object is, as the file holds them
(issue 39, point 9): an emitter moved off its effect's origin is written as its position group
moved by as much (exact and box groups have an offset; a cube, sphere or cylinder is centred
on the emitter, so such a move is refused); a rotated or scaled emitter is refused; the
effect object's uniform scale scales the effect as Scale Effect does. And what a Universe at
War effect cannot have edited (it is written back as it was read): refused, naming the object.
"""

import numpy as np

from ...results import ExportError

TOLERANCE = 1e-5
GROUP_TYPES_WITH_OFFSET = {0: ("val_x", "val_y", "val_z"),
                           1: ("min_x", "min_y", "min_z", "max_x", "max_y", "max_z")}


def local_matrix(obj):
    """``obj``'s matrix in its effect's (parent's) space, as a 4x4 numpy array (from its own
    transform, so it is current even before the scene is evaluated)."""
    return np.array(obj.matrix_parent_inverse @ obj.matrix_basis, np.float64)


def world_matrix(obj):
    """``obj``'s world matrix from its own transform and its parents' (current before the
    scene is evaluated), as a 4x4 numpy array."""
    m = local_matrix(obj)
    return m if obj.parent is None else world_matrix(obj.parent) @ m


def offset(obj):
    """The emitter's move off its effect's origin (x, y, z), or None when it has none.
    Raises ExportError when it is rotated or scaled (the file has no place for that)."""
    m = local_matrix(obj)
    if not np.allclose(m[:3, :3], np.eye(3), atol=TOLERANCE):
        raise ExportError([f"emitter {obj.name!r} is rotated or scaled in its effect; the "
                           "file holds only where its particles start: clear its rotation "
                           "and scale (Alt+R, Alt+S), or scale the effect with Scale Effect"],
                          [obj])
    t = m[:3, 3]
    return None if np.allclose(t, 0.0, atol=TOLERANCE) else tuple(float(v) for v in t)


def moved_group_values(obj, group_type, values):
    """``values`` ({field: value} of the position group) moved by the emitter's offset; the
    same dict when it has none. Raises ExportError when the group type has no offset."""
    t = offset(obj)
    if t is None:
        return values
    names = GROUP_TYPES_WITH_OFFSET.get(group_type)
    if names is None:
        raise ExportError([f"emitter {obj.name!r} is moved off its effect's origin, but its "
                           "position group is centred on the emitter (cube, sphere or "
                           "cylinder): the file cannot hold the move. Make the group a box "
                           "or exact, or clear the move (Alt+G)"], [obj])
    out = dict(values)
    for i, name in enumerate(names):
        out[name] = float(np.float32(values[name] + t[i % 3]))
    return out


def placement_problem(obj):
    """Why the export will refuse the emitter object's transform, in a few words, or ""
    (for the panel)."""
    g = obj.alamo_emitter.groups
    if len(g) < 3:
        return ""
    kind = g[2].bl_rna.properties["type"].enum_items[g[2].type].value
    try:
        t = offset(obj)
    except ExportError:
        return "Rotated or scaled: the export refuses it (Alt+R, Alt+S)"
    if t is not None and kind not in GROUP_TYPES_WITH_OFFSET:
        return "Moved, but a centred position group cannot hold it (Alt+G)"
    return ""


def place_emitter(obj, e):
    """Write the emitter object's move into the record ``e``'s position group."""
    g = e.position_group
    names = GROUP_TYPES_WITH_OFFSET.get(g.type, ())
    moved = moved_group_values(obj, g.type, {n: getattr(g, n) for n in names})
    for n in names:
        setattr(g, n, moved[n])


def system_scale(system_obj) -> float:
    """The effect object's uniform scale (1.0: none); ExportError when it is not uniform."""
    m = world_matrix(system_obj)[:3, :3]
    scales = np.linalg.norm(m, axis=0)
    if np.allclose(scales, 1.0, atol=TOLERANCE):
        return 1.0
    if not np.allclose(scales, scales[0], rtol=1e-4):
        raise ExportError([f"particle effect {system_obj.name!r} is scaled unevenly "
                           f"({', '.join(f'{v:g}' for v in scales)}); an effect scales "
                           "evenly: give it one scale on all three axes"], [system_obj])
    return float(scales[0])


def check_uaw_unedited(system_obj, system):
    """Refuse the edits of a Universe at War effect's own fields io_alamo cannot write yet
    (its name, Persist, Editor ID), naming the object; its emitters' parameters are written
    by ``particles_uaw.edit.build``, which refuses what it cannot write."""
    ps = system_obj.alamo_particle_system
    kept = "is a Universe at War effect, whose own fields io_alamo writes back as read"
    problems, objects = [], []

    def refuse(obj, what):
        problems.append(f"{obj.name!r}: {what} cannot be written ({system_obj.name!r} "
                        f"{kept}); undo the edit")
        objects.append(obj)
    if ps.system_name != system.name:
        refuse(system_obj, f"the name {ps.system_name!r} (the file's: {system.name!r})")
    if not ps.persist or ps.id != 0:
        refuse(system_obj, "Persist or Editor ID")
    if problems:
        raise ExportError(problems, objects)
