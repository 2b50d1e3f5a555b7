"""Registers Universe at War emitter editing (found by :mod:`...discovery` by its name): the
``obj.alamo_uaw`` properties and panel, the preview's model reader of UaW emitter objects,
and the message-bus subscription that redraws the preview when a parameter is edited."""

from ..particle_preview import handlers, systems
from . import edit, props

_WATCHED = (props.AlamoUawEmitter, props.AlamoUawParam)


def register():
    props.register()
    if edit.model_from_uaw not in systems.MODEL_READERS:
        systems.MODEL_READERS.insert(0, edit.model_from_uaw)
    handlers.watch(_WATCHED)


def unregister():
    handlers.unwatch(_WATCHED)
    while edit.model_from_uaw in systems.MODEL_READERS:
        systems.MODEL_READERS.remove(edit.model_from_uaw)
    props.unregister()
