"""Switching a model between its levels of detail (_LOD<n>) and damage levels (_ALT<n>) the
way the game does, in the viewport and in renders. What the game never draws comes from
:mod:`.game_view`."""

from ...formats.alamo import naming
from ..armature import find_armature
from .exporter.common import object_export_name as export_name
from .game_view import hidden_in_game


def lod_alt_objects(context):
    """[(object, LOD or None, ALT or None)] of the model's meshes and proxies whose names
    carry _LOD<n> or _ALT<n>, and of those the game does not draw (hidden, collision, shadow
    volumes, on hidden bones). The model: the active object's armature and what hangs on it
    (or the scene's only armature); without one, every object of the view layer."""
    arm = find_armature(context)
    objs = arm.children_recursive if arm is not None else context.view_layer.objects
    out = []
    for obj in objs:
        if obj.type == "MESH" or obj.alamo.role == "PROXY":
            _, lod, alt = naming.lod_alt(export_name(obj))
            if lod is not None or alt is not None or hidden_in_game(obj):
                out.append((obj, lod, alt))
    return out


def shown_lod_alt(entries):
    """(LOD, ALT) shown now: each when exactly one is visible, else None."""
    lods, alts = set(), set()
    for obj, lod, alt in entries:
        if not obj.hide_get():
            if lod is not None:
                lods.add(lod)
            if alt is not None:
                alts.add(alt)
    return (lods.pop() if len(lods) == 1 else None), (alts.pop() if len(alts) == 1 else None)


def _show(obj, shown):
    obj.hide_render = not shown
    try:
        obj.hide_set(not shown)
    except RuntimeError:              # not in the view layer (an excluded collection)
        pass


def show_lod_alt(entries, lod=-1, alt=-1, show_all=False):
    """Show what the game shows at one LOD and ALT, in the viewport and in renders: objects
    whose LOD and ALT are those (or that have none), unless hidden in the file; the others
    are hidden. -1 keeps the level shown now (the most detailed LOD and ALT0 when unclear);
    levels beyond the model's are clamped as the game does. ``show_all`` shows every level
    at once, with the meshes the game never draws, for editing. Returns the (LOD, ALT)
    shown."""
    lods = sorted({l for _, l, _ in entries if l is not None})
    alts = sorted({a for _, _, a in entries if a is not None})
    now_lod, now_alt = shown_lod_alt(entries)
    if lod < 0:
        lod = now_lod if now_lod is not None else (lods[-1] if lods else 0)
    if alt < 0:
        alt = now_alt if now_alt is not None else 0
    lod = min(lod, lods[-1]) if lods else 0
    alt = min(alt, alts[-1]) if alts else 0
    for obj, l, a in entries:
        _show(obj, show_all or ((l is None or l == lod) and (a is None or a == alt)
                                and not hidden_in_game(obj)))
    return lod, alt
