"""What the particle simulator draws and looks up per particle, as whole arrays: deterministic
random numbers keyed by particle (never a generator's state, so the same particle gets the same
numbers whatever frame is asked first), points in the spec's property groups, and the spec's
tracks with their interpolation (and the integral of one, for the rotation a speed track gives).

Blender-free: numpy only.
"""

import numpy as np

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

# Random channels: one independent number per purpose and particle.
CH_LIFETIME = 0
CH_POSITION = 1          # 1, 2, 3
CH_VELOCITY = 4          # 4, 5, 6
CH_SCALE = 7
CH_COLOUR = 8            # 8, 9, 10, 11
CH_ROTATION = 12
CH_DIRECTION = 13
CH_FIXED_ANGLE = 14
CH_DEPTH = 15             # the preview's depth offset of a quad (drawing only)

GROUP_EXACT, GROUP_BOX, GROUP_CUBE, GROUP_SPHERE, GROUP_CYLINDER = range(5)
INTERP_LINEAR, INTERP_COSINE, INTERP_STEP = range(3)


def mix(keys) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array: well-spread keys from consecutive ones
    (array arithmetic wraps around silently, as the hash wants)."""
    x = np.array(keys, dtype=np.uint64, ndmin=1)
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


def child_keys(keys, salt) -> np.ndarray:
    """Keys derived from ``keys`` and an integer ``salt`` (an index, a channel)."""
    offset = np.uint64(((int(salt) + 1) * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)
    return mix(np.asarray(keys, dtype=np.uint64) ^ offset)


def uniform(keys, channel) -> np.ndarray:
    """One number in [0, 1) per key for ``channel``: the same key and channel give the same
    number on every call and machine."""
    bits = child_keys(keys, 1000 + channel) >> np.uint64(11)
    return bits.astype(np.float64) * (1.0 / 9007199254740992.0)


def sample_group(group, keys, first_channel) -> np.ndarray:
    """(n, 3) points of the spec's property group (exact, box, cube, sphere, cylinder; the
    sphere and cylinder on their surface when the group says so), one per key; a group with
    its own ``sample`` (Universe at War's shapes, ``uaw_shapes``) samples itself."""
    if hasattr(group, "sample"):
        return group.sample(keys, first_channel)
    n = len(keys)
    u = [uniform(keys, first_channel + i) for i in range(3)]
    kind = int(getattr(group, "type", GROUP_EXACT))
    if kind == GROUP_BOX:
        lo = np.array([group.min_x, group.min_y, group.min_z], np.float64)
        hi = np.array([group.max_x, group.max_y, group.max_z], np.float64)
        return lo + (hi - lo) * np.stack(u, axis=1)
    if kind == GROUP_CUBE:
        return (np.stack(u, axis=1) - 0.5) * float(group.side_length)
    if kind == GROUP_SPHERE:
        z = 2.0 * u[0] - 1.0
        phi = 2.0 * np.pi * u[1]
        ring = np.sqrt(np.maximum(0.0, 1.0 - z * z))
        direction = np.stack([ring * np.cos(phi), ring * np.sin(phi), z], axis=1)
        radius = float(group.sphere_radius)
        scale = np.full(n, radius) if group.sphere_surface else radius * np.cbrt(u[2])
        return direction * scale[:, None]
    if kind == GROUP_CYLINDER:
        radius = float(group.cylinder_radius)
        r = np.full(n, radius) if group.cylinder_surface else radius * np.sqrt(u[0])
        theta = 2.0 * np.pi * u[1]
        return np.stack([r * np.cos(theta), r * np.sin(theta),
                         float(group.cylinder_height) * u[2]], axis=1)
    value = np.array([group.val_x, group.val_y, group.val_z], np.float64)
    return np.broadcast_to(value, (n, 3)).copy()


class Curve:
    """A track as the simulator uses it: sorted times from 0 to 1, their values, and the
    interpolation (0 linear, 1 cosine, 2 step)."""

    __slots__ = ("times", "values", "interpolation", "times_key", "constant")

    def __init__(self, times, values, interpolation=INTERP_LINEAR):
        times = np.clip(np.asarray(times, np.float64), 0.0, 1.0)
        order = np.argsort(times, kind="stable")
        self.times = times[order]
        self.values = np.asarray(values, np.float64)[order]
        self.interpolation = int(interpolation)
        self.times_key = self.times.tobytes()      # curves with equal times share segments
        v = self.values
        # every value the same finite number (bit for bit, and not -0.0): the curve is that
        # number wherever it is sampled, exactly as the formulas give it
        self.constant = bool(len(v) and np.isfinite(v[0]) and
                             (v.view(np.uint64) == v[:1].view(np.uint64)).all() and
                             not (v[0] == 0.0 and np.signbit(v[0])))

    @classmethod
    def of_track(cls, track):
        """From a track record (``first_key``, ``last_key``, ``keys`` with ``time`` and
        ``value``, ``interpolation``)."""
        keys = track.keys
        times = np.concatenate(([0.0], np.asarray(keys["time"], np.float64), [1.0]))
        values = np.concatenate(([float(track.first_key)],
                                 np.asarray(keys["value"], np.float64),
                                 [float(track.last_key)]))
        return cls(times, values, getattr(track, "interpolation", INTERP_LINEAR))

    def segments(self, x):
        """What sampling at ``x`` needs of the times (the same for curves with equal
        ``times_key``): pass it to :meth:`__call__` or :meth:`integral`."""
        return self._segments(x)

    def _segments(self, x):
        x = np.minimum(np.maximum(np.asarray(x, np.float64), 0.0), 1.0)
        t = self.times
        i = np.minimum(np.maximum(np.searchsorted(t, x, side="right") - 1, 0),
                       max(len(t) - 2, 0))
        j = np.minimum(i + 1, len(t) - 1)
        width = t[j] - t[i]
        f = np.divide(x - t[i], width, out=np.ones_like(x), where=width > 0)
        return x, i, j, np.minimum(np.maximum(f, 0.0), 1.0), width

    def __call__(self, x, segments=None) -> np.ndarray:
        """The spec's formulas: linear y1+(y2-y1)f, cosine y1+(y2-y1)(1-cos(pi f))/2,
        step y2 once x reaches x2 else y1 (``segments``: :meth:`segments` of ``x``, when
        already known)."""
        if self.constant:
            return np.full(np.shape(x), self.values[0])
        x, i, j, f, _ = self._segments(x) if segments is None else segments
        y1, y2 = self.values[i], self.values[j]
        if self.interpolation == INTERP_COSINE:
            return y1 + (y2 - y1) * (1.0 - np.cos(np.pi * f)) / 2.0
        if self.interpolation == INTERP_STEP:
            return np.where(x >= self.times[j], y2, y1)
        return y1 + (y2 - y1) * f

    def integral(self, x, segments=None) -> np.ndarray:
        """The integral of the curve from 0 to ``x`` (whole segments summed, the last one in
        part), for the rotation angle a rotation-speed track gives."""
        if self.constant and self.values[0] == 0.0:     # no rotation: every term is +0
            return np.zeros(np.shape(x))
        t, v = self.times, self.values
        widths = np.diff(t)
        if self.interpolation == INTERP_STEP:
            whole = v[:-1] * widths            # a step segment holds y1 (y2 only at its end)
        else:
            whole = (v[:-1] + v[1:]) / 2.0 * widths   # the cosine's mean is the linear's
        cumulative = np.concatenate(([0.0], np.cumsum(whole)))
        x, i, j, f, width = self._segments(x) if segments is None else segments
        y1, y2 = v[i], v[j]
        d = f * width
        if self.interpolation == INTERP_COSINE:
            part = y1 * d + (y2 - y1) / 2.0 * (d - width / np.pi * np.sin(np.pi * f))
        elif self.interpolation == INTERP_STEP:
            part = y1 * d
        else:
            part = y1 * d + (y2 - y1) * f * d / 2.0
        return cumulative[i] + part
