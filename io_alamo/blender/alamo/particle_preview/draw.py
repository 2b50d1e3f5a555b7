"""Writing one emitter's live particles into its mesh: one vertex per particle at its place,
with the attributes the billboard nodes read (nodes.py). Whole arrays (``foreach_set``)."""

import numpy as np

from ....formats.alamo.particles import batch
from ....formats.alamo.particles import sampling as rnd
from ..preview.values import srgb_to_linear
from . import nodes

AGE = "alamo_age"        # FLOAT, seconds since the particle's birth (for scripts)
SIZE = "alamo_size"      # FLOAT, the particle's size (its quad's width) in the system's units


def _euler_xyz(r):
    """XYZ Euler angles of rotation matrices ``r`` (n, 3, 3), as Blender composes them."""
    sy = np.clip(-r[:, 2, 0], -1.0, 1.0)
    y = np.arcsin(sy)
    locked = np.abs(sy) > 0.999999
    x = np.where(locked, 0.0, np.arctan2(r[:, 2, 1], r[:, 2, 2]))
    z = np.where(locked, np.arctan2(-r[:, 0, 1], r[:, 1, 1]), np.arctan2(r[:, 1, 0], r[:, 0, 0]))
    return np.stack([x, y, z], axis=1)


def _spin(angle):
    c, s = np.cos(angle), np.sin(angle)
    r = np.zeros((len(angle), 3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 1, 0], r[:, 1, 1], r[:, 2, 2] = c, -s, s, c, 1.0
    return r


def _orthonormal(m):
    u, _, vt = np.linalg.svd(np.asarray(m, np.float64))
    r = u @ vt
    return r if np.linalg.det(r) > 0 else u @ np.diag([1.0, 1.0, -1.0]) @ vt


def quads(parts, basis, tail_size=0.0):
    """Rotation (Euler), scale and centre offset of each particle's quad. ``basis`` (3x3,
    columns = the quad's x, y, normal in the emitter's space) is the camera's orientation for
    billboards or the world's XY plane for flat particles; the particle's rotation turns the
    quad about its normal. With a tail the quad is stretched back along the velocity as seen
    by ``tail_size`` units (the alo-viewer's reading; the spec calls it a scaling factor
    without saying of what), and centred half a tail back."""
    n = len(parts)
    basis = _orthonormal(basis)
    size = np.asarray(parts.size, np.float64)
    scale = np.stack([size, size, depth_offsets(parts.key, size)], axis=1)
    offset = np.zeros((n, 3))
    if tail_size > 0.0 and n:
        normal = basis[:, 2]
        v = parts.velocity - np.outer(parts.velocity @ normal, normal)
        speed = np.linalg.norm(v, axis=1)
        moving = speed > 1e-9
        along = np.divide(v, speed[:, None], out=np.tile(basis[:, 1], (n, 1)),
                          where=moving[:, None])
        side = np.cross(along, normal)
        r = np.stack([side, along, np.tile(normal, (n, 1))], axis=2)
        tail = float(tail_size) * moving
        scale[:, 1] += tail
        offset = -along * (tail / 2.0)[:, None]
    else:
        r = basis[None] @ _spin(np.asarray(parts.rotation, np.float64))
    return _euler_xyz(r), scale, offset


def depth_offsets(keys, size):
    """A small distinct offset of each quad along its normal (the quad's z scale; the node
    group puts the quad one unit out): sprites sharing a spawn point (engine glows, muzzle
    flashes stack them) are then never coplanar, which Cycles draws as a dark, noisy square
    (its rays bounce between the two faces until they give up). 0.1-0.2 % of the size, at
    least 1e-4 units: nothing one sees, and the particle's place (the instance's) is kept."""
    u = rnd.uniform(np.asarray(keys, np.uint64), rnd.CH_DEPTH) if len(size) else np.zeros(0)
    return _depth(size, u)


def _depth(size, u):
    return np.maximum(np.abs(size), 0.05) * (1e-3 + 1e-3 * u) + 1e-4 * u


def cells(texture_index, elements):
    """(u, v, size) of each particle's sprite element: the texture is a square grid of
    ceil(sqrt(elements)) cells a side, element 0 at the top left, row by row (``elements``
    one count, or one per particle)."""
    i = np.asarray(texture_index, np.int64)
    if np.ndim(elements):       # one count per particle
        e = np.maximum(np.asarray(elements, np.int64), 1)
        side = np.maximum(np.ceil(np.sqrt(e) - 1e-9).astype(np.int64), 1)
    else:
        side = max(int(np.ceil(np.sqrt(max(int(elements), 1)) - 1e-9)), 1)
    col, row = i % side, i // side
    size = 1.0 / side
    return np.stack([col * size, 1.0 - (row + 1) * size, np.broadcast_to(size, i.shape)], axis=1)


def _positions(mesh, atts, flat):
    """The vertices' places (through the ``position`` attribute of ``atts``, the mesh's
    attributes, where it has one: a few times faster than ``vertices.foreach_set("co")``, the
    same numbers)."""
    att = atts.get("position")
    if att is not None and att.data_type == "FLOAT_VECTOR" and att.domain == "POINT":
        att.data.foreach_set("vector", flat)
    else:
        mesh.vertices.foreach_set("co", flat)


def _set(atts, name, kind, key, values):
    """Write ``values`` into the point attribute ``name`` of ``atts`` (a mesh's attributes,
    looked up once per mesh), made anew where missing or of another type."""
    att = atts.get(name)
    if att is None or att.data_type != kind or att.domain != "POINT":
        if att is not None:
            atts.remove(att)
        att = atts.new(name, kind, "POINT")
    att.data.foreach_set(key, np.ascontiguousarray(values, np.float32).ravel())


def write(mesh, parts, to_object, basis, tail_size=0.0, elements=1):
    """Put ``parts`` (a simulate.Particles, in system space) into ``mesh``: ``to_object``
    (4x4) maps system space to the emitter object's space, where ``basis`` is given."""
    write_many([(mesh, parts, to_object, basis, tail_size, elements)])


def write_many(jobs):
    """:func:`write` for several emitters at once (``jobs``: (mesh, parts, to_object, basis,
    tail_size, elements) each): the arithmetic per particle runs once over all of them (it is
    the same, row by row, as one emitter at a time), then each mesh gets its rows."""
    n = [len(job[1]) for job in jobs]
    rows = [job for job, count in zip(jobs, n) if count and not job[4] > 0.0]
    flat = _flat_quads(rows)
    start = 0
    for (mesh, parts, to_object, basis, tail_size, elements), count in zip(jobs, n):
        m = np.asarray(to_object, np.float64)
        if len(mesh.vertices) != count or len(mesh.edges) or len(mesh.polygons):
            mesh.clear_geometry()
            mesh.vertices.add(count)
        position = parts.position @ m[:3, :3].T + m[:3, 3] if count else np.zeros((0, 3))
        atts = mesh.attributes
        _positions(mesh, atts, position.astype(np.float32).ravel())
        if count and tail_size > 0.0:           # tails: stretched along the velocity as seen
            rotation, scale, offset = quads(_Shown(parts, m[:3, :3]), basis, tail_size)
            looks = _looks([parts], [elements])
        elif count:
            rotation, scale, offset, *looks = (a[start:start + count] for a in flat)
            start += count
        else:
            rotation = scale = offset = np.zeros((0, 3))
            looks = _looks([parts], [elements])
        _set(atts, nodes.ROTATION, "FLOAT_VECTOR", "vector", rotation)
        _set(atts, nodes.SCALE, "FLOAT_VECTOR", "vector", scale)
        _set(atts, nodes.OFFSET, "FLOAT_VECTOR", "vector", offset)
        colour, cell, age, size = looks
        _set(atts, nodes.COLOR, "FLOAT_COLOR", "color", colour)
        _set(atts, nodes.CELL, "FLOAT_VECTOR", "vector", cell)
        _set(atts, AGE, "FLOAT", "value", age)
        _set(atts, SIZE, "FLOAT", "value", size)
        mesh.update()


def _looks(parts_list, elements):
    """Linear colour, sprite cell, age and size of the particles of ``parts_list`` (one after
    the other; ``elements``: each one's sprite count), as float32."""
    run = batch.joined(parts_list)
    if run is not None:             # one run of a batch's rows: its arrays as they are
        whole, rows = run
        colour, index = np.array(whole.color[rows], np.float64), whole.texture_index[rows]
        age, size = whole.age[rows], whole.size[rows]
    else:
        colour = np.concatenate([np.asarray(p.color, np.float64).reshape(-1, 4)
                                 for p in parts_list])
        index = np.concatenate([np.asarray(p.texture_index) for p in parts_list])
        age = np.concatenate([p.age for p in parts_list])
        size = np.concatenate([p.size for p in parts_list])
    colour[:, :3] = srgb_to_linear(np.minimum(colour[:, :3], 1.0))
    counts = [len(p) for p in parts_list]
    cell = cells(index, np.repeat(np.asarray(elements, np.int64), counts))
    return [np.ascontiguousarray(a, np.float32) for a in (colour, cell, age, size)]


def _flat_quads(rows):
    """Rotation, scale, offset, colour, cell, age, size (float32) of the billboards of the
    untailed ``rows`` (jobs of :func:`write_many`), one after the other."""
    if not rows:
        return [np.zeros((0, 3), np.float32)] * 7
    parts_list = [job[1] for job in rows]
    counts = [len(p) for p in parts_list]
    bases = np.stack([_orthonormal_kept(job[3]) for job in rows])
    run = batch.joined(parts_list)
    if run is not None:             # one run of a batch's rows: its arrays as they are
        whole, at = run
        turn, size = whole.rotation[at], whole.size[at]
        u = whole.uniform(rnd.CH_DEPTH)[at]
    else:
        turn = np.concatenate([np.asarray(p.rotation, np.float64) for p in parts_list])
        size = np.concatenate([np.asarray(p.size, np.float64) for p in parts_list])
        u = np.concatenate([_depth_draws(p) for p in parts_list])
    r = bases[np.repeat(np.arange(len(rows)), counts)] @ _spin(turn)
    scale = np.stack([size, size, _depth(size, u)], axis=1)
    out = [_euler_xyz(r), scale, np.zeros((len(size), 3))]
    return [np.ascontiguousarray(a, np.float32) for a in out] + _looks(
        parts_list, [job[5] for job in rows])


def _depth_draws(parts):
    draws = getattr(parts, "draws", None)
    if draws is not None:
        return draws.uniform(rnd.CH_DEPTH)
    return rnd.uniform(np.asarray(parts.key, np.uint64), rnd.CH_DEPTH)


_bases = {}         # basis bytes -> its orthonormal basis (the camera and objects rarely move)


def _orthonormal_kept(m):
    m = np.asarray(m, np.float64)
    key = m.tobytes()
    found = _bases.get(key)
    if found is None:
        if len(_bases) > 256:
            _bases.clear()
        found = _bases[key] = _orthonormal(m)
    return found


class _Shown:
    """The particles' velocities in the object's space (for tails); the rest as they are."""

    def __init__(self, parts, rotation):
        self.size, self.rotation, self.key = parts.size, parts.rotation, parts.key
        self.velocity = parts.velocity @ rotation.T

    def __len__(self):
        return len(self.size)
