"""Particle effects playing in Blender as in the game (issue 34): the live particles of every
emitter at the current frame, computed in closed form (``formats/alamo/particles/simulate``)
and drawn as billboards by Geometry Nodes; on their own and at the proxies of units.

Readable headless: the points of an emitter object's mesh (``obj.data.vertices``) are its live
particles, one per particle at its place (in the object's space), with their attributes
(``alamo_color``, ``alamo_scale``, ``alamo_rotation``, ``alamo_cell``, ``alamo_offset``); the
evaluated depsgraph holds one instance (a quad) per particle, parented to the emitter object.
"""

from .handlers import refresh, register, unregister
from .systems import (EMITTER_KEY, is_preview, particle_bounds, scene_systems, scene_time,
                      update_scene, update_system)

__all__ = ["EMITTER_KEY", "is_preview", "particle_bounds", "refresh", "register",
           "scene_systems", "scene_time", "unregister", "update_scene", "update_system"]
