"""The preview follows the timeline and edits: a frame-change handler recomputes every system
for the new frame, and a dependency-graph handler recomputes a system when one of its
emitters' fields changes (its own mesh writes are recognised and ignored)."""

import bpy
from bpy.app.handlers import persistent

from ..particles import props as particle_props
from . import nodes, systems

_state = {"busy": False, "seen": {}}


def _signature(scene, root, emitters, ms):
    cam = scene.camera
    return (systems.scene_time(scene), tuple(m.key() for m in ms), tuple(map(tuple, root.matrix_world)),
            tuple(tuple(map(tuple, o.matrix_world)) for o in emitters.values()),
            tuple(map(tuple, cam.matrix_world)) if cam is not None else None,
            systems._bone_shown(root))


def refresh(scene, force=False):
    """Recompute the scene's systems whose inputs changed (all of them with ``force``)."""
    if _state["busy"]:
        return
    _state["busy"] = True
    try:
        seen = _state["seen"]
        for root, emitters in systems.scene_systems(scene).items():
            try:
                ms = systems.models(root, emitters)
                sig = _signature(scene, root, emitters, ms)
            except (ReferenceError, ValueError):
                continue
            key = (scene.name, root.name)
            if force or seen.get(key) != sig:
                systems.update_system(scene, root, emitters, ms=ms)
                seen[key] = sig
    finally:
        _state["busy"] = False


def emitter_edited(obj):
    """An emitter's field changed (the particle properties' update calls this): its system
    shows the change at once."""
    root = obj.parent
    scene = bpy.context.scene
    # an emitter not shown yet is being made (an import setting its fields one by one): it
    # shows once made (the import, or the next frame change, adopts it)
    if root is None or scene is None or _state["busy"] or nodes.points_object(obj) is None:
        return
    _state["busy"] = True
    try:
        systems.show_system(scene, root)
    finally:
        _state["busy"] = False


def _edit_hooks():
    return getattr(particle_props, "EDIT_HOOKS", None)


@persistent
def _on_frame(scene, depsgraph=None):
    refresh(scene, force=True)


@persistent
def _on_update(scene, depsgraph=None):
    if depsgraph is not None and not depsgraph.id_type_updated("OBJECT"):
        return
    refresh(scene)


@persistent
def _on_load(*_):
    _state["seen"].clear()
    for scene in bpy.data.scenes:
        refresh(scene, force=True)


_HANDLERS = ((bpy.app.handlers.frame_change_post, _on_frame),
             (bpy.app.handlers.depsgraph_update_post, _on_update),
             (bpy.app.handlers.load_post, _on_load))


def register():
    for handlers, fn in _HANDLERS:
        if fn not in handlers:
            handlers.append(fn)
    hooks = _edit_hooks()
    if hooks is not None and emitter_edited not in hooks:
        hooks.append(emitter_edited)


def unregister():
    for handlers, fn in _HANDLERS:
        while fn in handlers:
            handlers.remove(fn)
    hooks = _edit_hooks()
    while hooks is not None and emitter_edited in hooks:
        hooks.remove(emitter_edited)
    _state["seen"].clear()
