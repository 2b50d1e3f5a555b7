"""Universe at War property groups (a shape creator's start place and start velocity) as the
particle simulator samples them: every shape the viewer's ``PropertyGroup::Sample`` knows
(point, direction, sphere, range, spherical range, cylinder, torus), hollow or filled, drawn
with its distributions (read in the alo-viewer, never copied):
- direction: the unit direction times a magnitude in [min, max] (hollow: min or max);
- sphere: a radius in [min, max] (hollow: max) along a direction of a turn ``z`` in [0, 2pi)
  and a tilt in [-pi, pi) (``x = cos z cos tilt``, ``y = sin z cos tilt``, ``z = sin tilt``);
- range: a point of the box between the two corners;
- spherical range: a tilt between the two angle limits (the file's 0 is the pole above, 1 the
  equator, 2 the pole below), a radius between the two radii; hollow, one of the bounding
  faces (outer or inner radius, or a limit cone);
- cylinder: a radius in [0, r] (hollow: r) and a height in [min, max];
- torus: a point of the tube (radius in [0, tube], hollow: on it) around the ring of the torus
  radius in the XY plane.
Random numbers come from :mod:`sampling` keyed by particle, as the EaW groups'.

Blender-free: numpy only.
"""

import struct

import numpy as np

from . import sampling as rnd
from .uaw_params import GROUP_LAYOUT, GROUP_SIZE, SHAPES

_FORMAT = "<" + "".join("I" if kind == "shape" else "f" for _, _, kind in GROUP_LAYOUT)
_STRUCT = struct.Struct(_FORMAT)
_NAMES = tuple(name for name, _, _ in GROUP_LAYOUT)
_EXTRA = 0x55A           # salt of the extra random numbers a shape needs beyond three


class UawGroup:
    """A decoded property group that samples itself (:func:`sampling.sample_group` calls
    :meth:`sample`); ``values`` are its fields by :data:`uaw_params.GROUP_LAYOUT` name."""

    def __init__(self, values: dict, hollow=False):
        self.values = dict(values)
        self.hollow = bool(hollow)
        self.shape = SHAPES[int(values["shape"])] if int(values["shape"]) < len(SHAPES) \
            else "point"

    @classmethod
    def of_bytes(cls, raw: bytes, hollow=False):
        if raw is None or len(raw) < GROUP_SIZE:
            return None
        return cls(dict(zip(_NAMES, _STRUCT.unpack_from(raw))), hollow)

    def __getitem__(self, name):
        return float(self.values[name])

    def key(self) -> tuple:
        """Everything its samples depend on, as plain values."""
        return (self.hollow,) + tuple(float(self.values[n]) for n in _NAMES)

    def _pair(self, name):
        return self[f"{name}_min"], self[f"{name}_max"]

    def sample(self, keys, first_channel) -> np.ndarray:
        """(n, 3) points, one per particle key."""
        n = len(keys)
        u = [rnd.uniform(keys, first_channel + i) for i in range(3)]
        extra = rnd.uniform(rnd.child_keys(keys, _EXTRA), first_channel)
        return _SAMPLERS[self.shape](self, n, u, extra)


def group(shape, hollow=False, **fields) -> UawGroup:
    """A group of ``shape`` (a :data:`SHAPES` name) with ``fields`` set, the others 0."""
    values = dict.fromkeys(_NAMES, 0.0)
    values.update(fields, shape=SHAPES.index(shape))
    return UawGroup(values, hollow)


_XYZ = ("x", "y", "z")


def _between(lo, hi, u):
    return lo + (hi - lo) * u


def _angles(turn, tilt):
    return np.stack([np.cos(turn) * np.cos(tilt), np.sin(turn) * np.cos(tilt), np.sin(tilt)],
                    axis=1)


def _point(g, n, u, extra):
    return np.tile([g[f"point_{a}"] for a in _XYZ], (n, 1)).astype(np.float64)


def _direction(g, n, u, extra):
    d = np.array([g[f"direction_{a}"] for a in _XYZ], np.float64)
    length = float(np.linalg.norm(d))
    unit = d / length if length > 0 else d
    lo, hi = g._pair("magnitude")
    size = np.where(u[0] < 0.5, lo, hi) if g.hollow else _between(lo, hi, u[0])
    return unit[None, :] * size[:, None]


def _sphere(g, n, u, extra):
    lo, hi = g._pair("radius")
    radius = np.full(n, hi) if g.hollow else _between(lo, hi, u[0])
    return _angles(2 * np.pi * u[1], _between(-np.pi, np.pi, u[2])) * radius[:, None]


def _range(g, n, u, extra):
    lo = np.array([g[f"min_{a}"] for a in _XYZ], np.float64)
    hi = np.array([g[f"max_{a}"] for a in _XYZ], np.float64)
    return lo + (hi - lo) * np.stack(u, axis=1)


def _spherical_range(g, n, u, extra):
    a_lo, a_hi = (np.pi / 2 * (1.0 - v) for v in g._pair("angle"))
    r_lo, r_hi = g._pair("sphere_radius")
    tilt, radius = _between(a_lo, a_hi, u[0]), _between(r_lo, r_hi, u[1])
    if g.hollow:       # one bounding face: outer, inner radius, then the cones (no lower
        faces = 3 if a_lo == 0 else 4          # cone when it is the equator)
        face = np.minimum((extra * faces).astype(np.int64), faces - 1)
        radius = np.select([face == 0, face == 1], [r_hi, r_lo], radius)
        tilt = np.select([face == 2, face == 3], [a_hi, a_lo], tilt)
    return _angles(2 * np.pi * u[2], tilt) * radius[:, None]


def _cylinder(g, n, u, extra):
    r = g["cylinder_radius"]
    radius = np.full(n, r) if g.hollow else r * u[0]
    turn = 2 * np.pi * u[1]
    return np.stack([np.cos(turn) * radius, np.sin(turn) * radius,
                     _between(*g._pair("height"), u[2])], axis=1)


def torus(ring, tube, n, u, extra, hollow=False):
    """Points of a torus of radius ``ring`` and tube radius ``tube`` about Z (hollow: on the
    tube's surface), as the viewer's ``SampleTorus``."""
    r = np.full(n, tube) if hollow else tube * u[0]
    turn, around = 2 * np.pi * u[1], 2 * np.pi * extra
    x = np.cos(around) * r + ring
    return np.stack([np.cos(turn) * x, np.sin(turn) * x, np.sin(around) * r], axis=1)


def _torus(g, n, u, extra):
    return torus(g["torus_radius"], g["tube_radius"], n, u, extra, g.hollow)


_SAMPLERS = {"point": _point, "direction": _direction, "sphere": _sphere, "range": _range,
             "spherical_range": _spherical_range, "cylinder": _cylinder, "torus": _torus}

