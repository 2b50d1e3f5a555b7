"""The preview follows the timeline and edits: a frame-change handler recomputes every system
for the new frame; a message-bus subscription (edits of the particle properties) and a
dependency-graph handler (moves, camera) recompute a system whose inputs changed. Its own
mesh writes are recognised and ignored: each system's inputs are compared with those it was
last drawn from. Scripts call :func:`refresh` after an edit (headless Blender runs no message
bus)."""

import bpy
from bpy.app.handlers import persistent

from ..particles import props as particle_props
from . import systems

_state = {"busy": False, "seen": {}}
#: Functions ``f(scene)`` run before the systems are drawn (the particle-effect import registers
#: the one that keeps an effect's copies, links, names and textures in step).
BEFORE_REFRESH = []


_keys = {}      # id(model) -> (model, its index, model.key()): kept models are not edited


def _key(model):
    """``model.key()``, worked out once per kept model (an edit gives a new model; the
    Universe at War reader sets a kept model's index, which is checked)."""
    held = _keys.get(id(model))
    if held is None or held[0] is not model or held[1] != model.index:
        if len(_keys) > 4096:
            _keys.clear()
        held = _keys[id(model)] = (model, model.index, model.key())
    return held[2]


def _signature(scene, root, emitters, ms):
    cam = scene.camera
    return (systems.scene_time(scene), tuple(map(_key, ms)), tuple(map(tuple, root.matrix_world)),
            tuple(tuple(map(tuple, o.matrix_world)) for o in emitters.values()),
            tuple(map(tuple, cam.matrix_world)) if cam is not None else None,
            systems.bone_shown(root))


def refresh(scene, force=False):
    """Recompute the scene's systems whose inputs changed (all of them with ``force``)."""
    if _state["busy"]:
        return
    _state["busy"] = True
    try:
        seen = _state["seen"]
        for before in BEFORE_REFRESH:
            before(scene)
        for root, emitters in systems.scene_systems(scene).items():
            try:
                ms = systems.models(root, emitters)
                sig = _signature(scene, root, emitters, ms)
            except (ReferenceError, ValueError):
                continue
            key = (scene.name, root.name)
            if force or seen.get(key) != sig:
                systems.update_system(scene, root, emitters, ms=ms, shown=sig[-1])
                seen[key] = sig
    finally:
        _state["busy"] = False


_OWNER = object()      # the message-bus subscriptions' owner
_WATCHED = []          # more property structs whose edits redraw (see watch)


def _fields_edited(*_):
    """A field of an emitter imported for editing changed (the message bus says so in an
    interactive session): the systems whose fields changed show it at once."""
    scene = bpy.context.scene
    if scene is not None:
        refresh(scene)


def _subscribe():
    """Follow every edit of the particle properties (the panel, scripts run in the UI):
    Blender publishes them on its message bus. (A custom property tags no depsgraph update,
    and update callbacks on the particle properties crash the 4.2 wheel at exit.)"""
    bpy.msgbus.clear_by_owner(_OWNER)
    for struct in (particle_props.AlamoEmitterProps, particle_props.AlamoParticleTrack,
                   particle_props.AlamoParticleKey, particle_props.AlamoParticleGroup,
                   *_WATCHED):
        bpy.msgbus.subscribe_rna(key=struct, owner=_OWNER, args=(), notify=_fields_edited,
                                 options={"PERSISTENT"})


def watch(structs):
    """Redraw the preview on edits of ``structs`` too (property groups other packages
    register, as the Universe at War emitters' parameters)."""
    _WATCHED.extend(s for s in structs if s not in _WATCHED)
    _subscribe()


def unwatch(structs):
    _WATCHED[:] = [s for s in _WATCHED if s not in structs]
    _subscribe()


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
    _keys.clear()
    _subscribe()                    # a file load clears the message bus
    for scene in bpy.data.scenes:
        refresh(scene, force=True)


_HANDLERS = ((bpy.app.handlers.frame_change_post, _on_frame),
             (bpy.app.handlers.depsgraph_update_post, _on_update),
             (bpy.app.handlers.load_post, _on_load))


def register():
    for handlers, fn in _HANDLERS:
        if fn not in handlers:
            handlers.append(fn)
    _subscribe()


def unregister():
    for handlers, fn in _HANDLERS:
        while fn in handlers:
            handlers.remove(fn)
    bpy.msgbus.clear_by_owner(_OWNER)
    _state["seen"].clear()
    _keys.clear()
