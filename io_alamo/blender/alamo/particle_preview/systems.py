"""Which objects show particles, and updating them: a *system* is a root object (the effect's
parent, or on a unit the proxy that names it) whose children are emitter objects (meshes with
the billboard modifier: those made for a unit's effects, and those imported for editing, with
``obj.alamo_emitter``). On every frame change, and when an emitter's fields change, each
system's particles are computed (simulate.py, in closed form) for the scene time and written
into its emitters' points objects.

Time 0 is the scene's start frame; seconds are frames at the scene's frame rate. The state of a
frame depends on nothing else, so scrubbing, jumping and rendering a single frame agree."""

import bpy
import numpy as np

from ....formats.alamo.particles import batch, read_particles
from ....formats.alamo.particles import simulate as sim
from .. import game_view
from ...source import content_key, get_source
from . import build, draw, nodes, paths
from .keys import EFFECT_BYTES_KEY, EFFECT_KEY, EMITTER_KEY, SHOW_KEY
from .from_props import model_from_props


#: Functions giving the simulator's model of an emitter object from its own editable fields
#: (the particle-effect import registers one for ``obj.alamo_emitter``); None when they cannot.
MODEL_READERS = [model_from_props]
_records = {}           # root name -> (content key, [simulate.Emitter]) of a kept file


def emitter_index(obj):
    """The emitter's index in its file, or None for objects that are no emitter."""
    if obj.type != "MESH":
        return None
    value = obj.get(EMITTER_KEY)
    if value is not None:
        return int(value)
    p = getattr(obj, "alamo_emitter", None)
    if p is not None and p.index >= 0:
        return int(p.index)
    return None


def is_preview(obj):
    """Whether ``obj`` shows particles (a unit's effect, or an emitter imported for editing):
    never part of a model."""
    return emitter_index(obj) is not None


def scene_time(scene):
    """Seconds since the scene's start frame at the scene's frame rate."""
    fps = scene.render.fps / (scene.render.fps_base or 1.0)
    frame = scene.frame_current + scene.frame_subframe
    return (frame - scene.frame_start) / max(fps, 1e-6)


def scene_systems(scene):
    """{root object: {index: emitter object}} of the scene's previewed emitters."""
    found = {}
    for obj in scene.objects:
        index = emitter_index(obj)
        if index is not None and obj.parent is not None:
            found.setdefault(obj.parent, {})[index] = obj
    return found


def _file_models(root):
    data = get_source(root, EFFECT_BYTES_KEY)
    if data is None:
        return None
    key = (root.name, content_key(data))
    held = _records.get(root.name)
    if held is None or held[0] != key:
        system = read_particles(bytes(data), filename=str(root.get(EFFECT_KEY, root.name)))
        models = [m for m in build.file_models(system) if m is not None]
        held = _records[root.name] = (key, models)
    return held[1]


def models(root, emitters):
    """The simulator's models of a system's emitters, by file index (the emitters' own
    fields where they have editable ones, else the kept file's)."""
    from_file = None
    count = max(emitters) + 1 if emitters else 0
    out = []
    for index in range(count):
        obj = emitters.get(index)
        model = None
        for reader in MODEL_READERS:
            model = reader(obj) if obj is not None else None
            if model is not None:
                break
        if model is None:
            if from_file is None:
                from_file = _file_models(root) or []
            model = from_file[index] if index < len(from_file) else None
        out.append(model if model is not None else
                   sim.Emitter(index=index, num_particles_per_second=0))
    return out


def bone_shown(root):
    """Whether the root's bone and those above it are shown now (their animated visibility,
    as the .ala keys it), and the proxy is not hidden in the file."""
    if root.get(SHOW_KEY, 1) == 0 or root.hide_render:   # the LOD/ALT panel hides this way
        return False
    p = getattr(root, "alamo", None)
    if p is not None and p.role == "PROXY" and p.hidden:      # the file hides the proxy
        return False
    arm = root.parent                 # an action playing keys the bones' visibility
    playing = arm is not None and arm.animation_data is not None and \
        arm.animation_data.action is not None
    # hidden now (the pose's visibility, animated or set in the Bones panel), or, while no
    # action plays, hidden in the file
    return not (game_view.on_hidden_bone(root, posed=True) or
                (not playing and game_view.on_hidden_bone(root)))


def _matrix(m):
    """A Blender matrix as a numpy array (from its rows' slices: several times faster than
    ``np.array(m)``, the same numbers)."""
    return np.array([row[:] for row in m], np.float64)


def _rotation(m):
    r = (m if isinstance(m, np.ndarray) else _matrix(m))[:3, :3]
    return r / np.maximum(np.linalg.norm(r, axis=0), 1e-12)


_EYE = np.eye(3)


def _is_rotation(m):
    r = _rotation(m)      # np.allclose(r.T @ r, I, atol=1e-6), without its overhead
    return bool(np.all(np.abs(r.T @ r - _EYE) <= 1e-6 + 1e-5 * _EYE))


def _camera_rotation(scene):
    cam = scene.camera
    if cam is None:             # no camera: face the default front view, a little above
        angle = np.radians(70.0)
        return np.array([[1.0, 0.0, 0.0], [0.0, np.cos(angle), -np.sin(angle)],
                         [0.0, np.sin(angle), np.cos(angle)]])
    return _rotation(cam.matrix_world)


def _inverse(m):
    """Inverse of a Blender matrix (mathutils: a 4x4 in microseconds) as a numpy array."""
    return np.array(m.inverted_safe(), np.float64)


_held = {}      # (kind, matrices' bytes) -> what was worked out from them (read-only)


def _kept(kind, make, *matrices):
    """``make()``, worked out once per ``kind`` and exact ``matrices`` (numpy): objects that
    did not move give the same arrays every frame without their per-emitter arithmetic."""
    key = (kind, *(m.tobytes() for m in matrices))
    held = _held.get(key)
    if held is None:
        if len(_held) > 4096:
            _held.clear()
        held = _held[key] = make()
        held.flags.writeable = False
    return held


def _world_to(m):
    """Inverse of the 4x4 ``m``'s rotation part (its columns made unit length)."""
    return _kept("rotation", lambda: _rotation(m).T if _is_rotation(m) else
                 np.linalg.inv(_rotation(m)), m)


#: Cycles stops a ray after this many transparent surfaces (8 by default): a smoke cloud of
#: overlapping sprites needs more, or it renders as a black patch where they pile up.
TRANSPARENT_BOUNCES = 128


def _enough_bounces(scene):
    cycles = getattr(scene, "cycles", None)
    if cycles is not None and cycles.transparent_max_bounces < TRANSPARENT_BOUNCES:
        cycles.transparent_max_bounces = TRANSPARENT_BOUNCES


def update_system(scene, root, emitters, t=None, ms=None, shown=None):
    """Compute and write the particles of one system at scene time ``t`` (now if None);
    ``ms``: its emitters' models, ``shown``: :func:`bone_shown`, when already known."""
    _enough_bounces(scene)
    t = scene_time(scene) if t is None else t
    root_world = _matrix(root.matrix_world)
    world_to_root = _world_to(root_world)
    ms = models(root, emitters) if ms is None else ms
    if (bone_shown(root) if shown is None else shown):
        states = batch.simulate(ms, t, world_to_local=world_to_root,      # one pass
                                path=paths.root_path(scene, root))
    else:
        states = [sim.empty(i) for i in range(len(ms))]
    camera = _camera_rotation(scene)
    jobs = []
    for index, obj in emitters.items():
        matrix = obj.matrix_world
        world = _matrix(matrix)
        to_object = _kept("to object", lambda: _inverse(matrix) @ root_world, world, root_world)
        inverse = _world_to(world)
        model = ms[index]
        if obj.get(EMITTER_KEY) is None:            # imported for editing: its own look
            points = build.adopt(obj, model)
        else:
            points = nodes.points_object(obj)
        if points is None:
            continue
        flat = bool(getattr(model, "is_not_billboarded", False))
        basis = inverse if flat else inverse @ camera
        tail = float(getattr(model, "tail_size", 0.0)) if getattr(model, "has_tail", 0) else 0.0
        jobs.append((points.data, states[index], to_object, basis, tail,
                     getattr(model, "num_texture_elements", 1)))
    draw.write_many(jobs)           # all emitters' particles in one pass
    return states


def update_scene(scene, t=None):
    """Every system of the scene at scene time ``t`` (now if None)."""
    for root, emitters in scene_systems(scene).items():
        update_system(scene, root, emitters, t)


def particle_bounds(obj):
    """World-space (2, 3) lowest and highest corner of ``obj``'s live particles, their quads'
    size around them included; None without particles."""
    points = nodes.points_object(obj)
    if points is None:
        return None
    me = points.data
    n = len(me.vertices)
    att = me.attributes.get(draw.nodes.SCALE)
    if not n or att is None or len(att.data) != n:
        return None
    co = np.empty(n * 3, np.float32)
    me.vertices.foreach_get("co", co)
    scale = np.empty(n * 3, np.float32)
    att.data.foreach_get("vector", scale)
    reach = np.abs(scale.reshape(-1, 3)[:, :2]).max(axis=1, keepdims=True) / 2.0
    co = co.reshape(-1, 3).astype(np.float64)
    m = np.array(obj.matrix_world, np.float64)
    world = co @ m[:3, :3].T + m[:3, 3]
    grow = reach * np.abs(m[:3, :3]).max()
    return np.stack([(world - grow).min(axis=0), (world + grow).max(axis=0)])


def baked_quads(scene):
    """For glTF (which has no instances of this kind): a mesh object per emitter with
    particles, holding its quads as real faces (the modifier realised once) at the emitter's
    place. Returns [(new object, its emitter)]; the caller removes them."""
    out = []
    for root, emitters in scene_systems(scene).items():
        for obj in emitters.values():
            points = nodes.points_object(obj)
            if points is None or not len(points.data.vertices) or not obj.visible_get():
                continue
            nodes.set_realize(obj, True)
            try:
                depsgraph = bpy.context.evaluated_depsgraph_get()
                mesh = bpy.data.meshes.new_from_object(obj.evaluated_get(depsgraph))
            finally:
                nodes.set_realize(obj, False)
            mesh.name = f"{obj.name} (particles)"
            baked = bpy.data.objects.new(mesh.name, mesh)
            baked.matrix_world = obj.matrix_world
            scene.collection.objects.link(baked)
            out.append((baked, obj))
    return out


def show_system(scene, root):
    """Compute and write the particles of the system under ``root`` now (after an import)."""
    emitters = {emitter_index(o): o for o in root.children}
    emitters.pop(None, None)
    if emitters:
        update_system(scene, root, emitters)
