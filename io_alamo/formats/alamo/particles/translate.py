"""Where the game leaves particles when their effect moves: the emitter's *translater*.

An EaW emitter with ``link_to_system`` 0 (34 of the 38 emitters of the corpora) gets the World
Translater (UaW plugin 27): a particle is born where the emitter is at its birth time and then
moves in world space, so a moving unit leaves a trail of smoke behind it. With
``link_to_system`` 1 (UaW's Emitter Translater, 26) the particles move with the emitter
(the alo-viewer's ``ParticleSystem.cpp`` / ``TranslaterPlugins.cpp``, read, not copied; the
viewer's Emitter Translater carries only the emitter's translation, the preview carries the
particles rigidly with the effect, rotation included, as it always did).

The simulator works in the effect's space at time t ("root-now" coordinates). With a *path*,
``path(times) -> (n, 4, 4)`` world matrices of the effect's root at system times, a
world-translated particle born at ``b`` is placed at ``M(t)^-1 M(b) p``: its start place,
start velocity and its emitter-space accelerations (object-space acceleration, outward
acceleration) turned by ``D = M(t)^-1 M(b)``; world-space acceleration and gravity (always world
-Z) are the same vectors whatever the emitter did, and stay as ``world_to_local`` (the
effect's world rotation now, inverted) turns them. A world-space velocity (UaW "local velocity"
off) likewise. The whole trajectory stays a quadratic in the particle's age, so it is still
closed form.

Emitter instances started by a world-translated emitter's particles (birth/death links) are
"world-fixed": their points are kept in root-now coordinates of the same world trajectory
(``carriers.world`` marks them); a child particle born at ``b`` from one starts at that point
brought back into the effect's space at ``b``, and then follows its own translater.

Without a path, or when the root stands still over every birth time asked, nothing changes
(the very same arrays as before).
"""

import numpy as np



def relative(path, births, t):
    """``(D, moved)``: ``D[i] = M(t)^-1 M(births[i])`` (n, 4, 4), and whether any differs
    from the identity (False: the root did not move between those times and t)."""
    then = np.asarray(path(np.asarray(births, np.float64)), np.float64)
    now = _now(path, t)
    if not len(then) or np.array_equal(then, np.broadcast_to(now[0], then.shape)):
        return None, False
    return now[1] @ then, True


_last = []      # [(path, t, (M(t), M(t)^-1))]: one simulate() asks it once per emitter


def _now(path, t):
    if _last and _last[0][0] is path and _last[0][1] == t:
        return _last[0][2]
    now = np.asarray(path(np.array([float(t)])), np.float64)
    held = (now[0], _inverse(now)[0])
    _last[:] = [(path, t, held)]
    return held


def _cross(u, v):
    return np.stack([u[:, 1] * v[:, 2] - u[:, 2] * v[:, 1], u[:, 2] * v[:, 0] - u[:, 0] * v[:, 2],
                     u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]], axis=1)


def _inverse(m):
    """Inverses of affine 4x4 matrices (n, 4, 4), in closed form (adjugate over determinant)."""
    a = m[:, :3, :3]
    rows = np.stack([_cross(a[:, 1], a[:, 2]), _cross(a[:, 2], a[:, 0]),
                     _cross(a[:, 0], a[:, 1])], axis=2)
    det = np.einsum("ni,ni->n", a[:, 0], rows[:, :, 0])
    out = np.zeros_like(m)
    out[:, :3, :3] = rows / det[:, None, None]
    out[:, :3, 3] = -np.einsum("nij,nj->ni", out[:, :3, :3], m[:, :3, 3])
    out[:, 3, 3] = 1.0
    return out


def _affine(d, p):
    return np.einsum("nij,nj->ni", d[:, :3, :3], p) + d[:, :3, 3]


def _linear(d, v):
    return np.einsum("nij,nj->ni", d[:, :3, :3], v)


def _world_parts(em, world_to_local):
    """The part of the simulator's acceleration that is world-fixed (world acceleration and
    gravity, turned into root-now coordinates), as one (3,) vector."""
    to_local = np.eye(3) if world_to_local is None else np.asarray(world_to_local, np.float64)
    fixed = to_local @ np.array([0.0, 0.0, -float(em.gravity)])
    if not em.object_space_acceleration:
        fixed = fixed + to_local @ np.asarray(em.acceleration, np.float64)
    return fixed


def carried(carriers, parts, p0, path, t):
    """``p0`` with the origins of world-fixed instances (``carriers.world``) brought from
    root-now coordinates back into the effect's space at each particle's birth."""
    world = getattr(carriers, "world", None)
    if path is None or world is None or not len(parts.inst):
        return p0
    rows = world[parts.inst]
    if not rows.any():
        return p0
    d, moved = relative(path, parts.birth[rows], t)
    if not moved:
        return p0
    origin, _ = carriers.place(parts.inst[rows], parts.birth[rows])
    p0 = p0.copy()
    p0[rows] += _affine(_inverse(d), origin) - origin
    return p0


def to_now(em, parts, carriers, start, world_to_local, path, t):
    """``(p0, v0, acc, world)``: the particles' start place, velocity and acceleration
    (``start``, as ``simulate._start`` gives them in the effect's space at their birth) as a
    trajectory in root-now coordinates, and whether it is world-fixed (None: it moves with the
    effect, or nothing moved and ``start`` is returned as it is)."""
    p0, v0, acc = start
    if path is None:
        return p0, v0, acc, None
    p0 = carried(carriers, parts, p0, path, t)
    if em.link_to_system or not len(p0):
        return p0, v0, acc, None
    d, moved = relative(path, parts.birth, t)
    if not moved:
        return p0, v0, acc, None
    fixed_acc = _world_parts(em, world_to_local)
    fixed_v = v0 if em.world_velocity else np.zeros_like(v0)
    p0 = _affine(d, p0)
    v0 = _linear(d, v0 - fixed_v) + fixed_v
    acc = _linear(d, acc - fixed_acc) + fixed_acc
    return p0, v0, acc, np.ones(len(p0), bool)


def merged(a, b, na, nb):
    """The ``world`` marks of two joined sets of instances (``na``/``nb`` rows)."""
    wa, wb = getattr(a, "world", None), getattr(b, "world", None)
    if wa is None and wb is None:
        return None
    return np.concatenate([np.zeros(na, bool) if wa is None else wa,
                           np.zeros(nb, bool) if wb is None else wb])
