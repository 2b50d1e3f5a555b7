"""Writing one emitter's live particles into its mesh: one vertex per particle at its place,
with the attributes the billboard nodes read (nodes.py). Whole arrays (``foreach_set``)."""

import numpy as np

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
    return np.maximum(np.abs(size), 0.05) * (1e-3 + 1e-3 * u) + 1e-4 * u


def cells(texture_index, elements):
    """(u, v, size) of each particle's sprite element: the texture is a square grid of
    ceil(sqrt(elements)) cells a side, element 0 at the top left, row by row."""
    side = max(int(np.ceil(np.sqrt(max(int(elements), 1)) - 1e-9)), 1)
    i = np.asarray(texture_index, np.int64)
    col, row = i % side, i // side
    size = 1.0 / side
    return np.stack([col * size, 1.0 - (row + 1) * size, np.full(len(i), size)], axis=1)


def _set(mesh, name, kind, key, values):
    att = mesh.attributes.get(name)
    if att is None or att.data_type != kind or att.domain != "POINT":
        if att is not None:
            mesh.attributes.remove(att)
        att = mesh.attributes.new(name, kind, "POINT")
    att.data.foreach_set(key, np.ascontiguousarray(values, np.float32).ravel())


def write(mesh, parts, to_object, basis, tail_size=0.0, elements=1):
    """Put ``parts`` (a simulate.Particles, in system space) into ``mesh``: ``to_object``
    (4x4) maps system space to the emitter object's space, where ``basis`` is given."""
    n = len(parts)
    if len(mesh.vertices) != n or len(mesh.edges) or len(mesh.polygons):
        mesh.clear_geometry()
        mesh.vertices.add(n)
    m = np.asarray(to_object, np.float64)
    position = parts.position @ m[:3, :3].T + m[:3, 3] if n else np.zeros((0, 3))
    mesh.vertices.foreach_set("co", position.astype(np.float32).ravel())
    shown = parts
    if n:
        shown = _Shown(parts, m[:3, :3])
    rotation, scale, offset = quads(shown, basis, tail_size)
    _set(mesh, nodes.ROTATION, "FLOAT_VECTOR", "vector", rotation)
    _set(mesh, nodes.SCALE, "FLOAT_VECTOR", "vector", scale)
    _set(mesh, nodes.OFFSET, "FLOAT_VECTOR", "vector", offset)
    colour = np.asarray(parts.color, np.float64).reshape(-1, 4).copy()
    colour[:, :3] = srgb_to_linear(np.minimum(colour[:, :3], 1.0))
    _set(mesh, nodes.COLOR, "FLOAT_COLOR", "color", colour)
    _set(mesh, nodes.CELL, "FLOAT_VECTOR", "vector", cells(parts.texture_index, elements))
    _set(mesh, AGE, "FLOAT", "value", parts.age)
    _set(mesh, SIZE, "FLOAT", "value", parts.size)
    mesh.update()


class _Shown:
    """The particles' velocities in the object's space (for tails); the rest as they are."""

    def __init__(self, parts, rotation):
        self.size, self.rotation, self.key = parts.size, parts.rotation, parts.key
        self.velocity = parts.velocity @ rotation.T

    def __len__(self):
        return len(self.size)
