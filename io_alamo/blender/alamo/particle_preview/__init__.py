"""Particle effects playing in Blender as in the game (issue 34): the live particles of every
emitter at the current frame, computed in closed form (``formats/alamo/particles/simulate``)
and drawn as billboards by Geometry Nodes; on their own and at the proxies of units.

Readable headless: the evaluated depsgraph holds one instance (a quad) per live particle,
parented to the emitter object, its ``matrix_world`` at the particle's place (scaled to its
size; half a tail back for tailed emitters); the emitter's points object (``nodes.points_object``)
holds the same particles as mesh points with their attributes (``alamo_age``, ``alamo_size``,
``alamo_color``, ``alamo_scale``, ``alamo_rotation``, ``alamo_cell``, ``alamo_offset``).
"""

from .handlers import refresh, register, unregister
from .systems import (EMITTER_KEY, baked_quads, is_preview, particle_bounds, scene_systems,
                      scene_time, show_system, update_scene, update_system)

__all__ = ["EMITTER_KEY", "baked_quads", "is_preview", "particle_bounds", "refresh", "register",
           "scene_systems", "scene_time", "show_system", "unregister", "update_scene",
           "update_system"]
