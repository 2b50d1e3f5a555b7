"""Whole-number counts of the simulator's schedules, within its time tolerance: how many
spawns or bursts fall at or below, or strictly below, a clock value (a spawn due exactly at a
frame's time counts, whatever the float rounding of ``rate x time``), and the flat
(instance, index) pairs of many integer ranges at once.

Blender-free: numpy only.
"""

import numpy as np

TOL = 1e-6          # the simulator's tolerance on times and counts


def ceil(x):
    return np.ceil(x - TOL * np.maximum(1.0, np.abs(x))).astype(np.int64)


def finite(x, lowest):
    """``x`` with NaN as 0, and kept within [lowest, 2**52] (a count needs no more)."""
    return np.clip(np.where(x != x, 0.0, x), lowest, 2.0 ** 52)


def upto(x):
    """How many integers k >= 0 are at most ``x`` (within the tolerance)."""
    x = finite(x, -1.0)
    return np.maximum(np.floor(x + TOL * np.maximum(1.0, np.abs(x))).astype(np.int64) + 1, 0)


def below(x):
    """How many integers k >= 0 are below ``x`` (within the tolerance)."""
    return np.maximum(ceil(finite(x, 0.0)), 0)


def ranges(lo, hi):
    """Instance and index of every integer in [lo_j, hi_j), as two flat arrays."""
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    inst = np.repeat(np.arange(len(counts)), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    return inst, np.arange(total, dtype=np.int64) - first + np.repeat(lo, counts)
