"""What a LOD's resolution number means. Visual LODs count their detail below 1,000; special
LODs use fixed large values (Geometry 1e13, Memory 1e15, ...); shadow LODs add their detail
to a base (ShadowVolume 10,000 + n)."""

import numpy as np

VISUAL_LIMIT = 1000.0

_FIXED = {
    1.0e3: "View Gunner", 1.1e3: "View Pilot", 1.2e3: "View Cargo",
    1.0e13: "Geometry", 2.0e13: "Geometry Buoyancy", 4.0e13: "Geometry PhysX",
    1.0e15: "Memory", 2.0e15: "LandContact", 3.0e15: "Roadway", 4.0e15: "Paths",
    5.0e15: "HitPoints", 6.0e15: "View Geometry", 7.0e15: "Fire Geometry",
    8.0e15: "View Cargo Geometry", 9.0e15: "View Cargo Fire Geometry",
    1.0e16: "View Commander", 1.1e16: "View Commander Geometry",
    1.2e16: "View Commander Fire Geometry", 1.3e16: "View Pilot Geometry",
    1.4e16: "View Pilot Fire Geometry", 1.5e16: "View Gunner Geometry",
    1.6e16: "View Gunner Fire Geometry", 1.7e16: "Sub Parts",
    1.8e16: "ShadowVolume View Cargo", 1.9e16: "ShadowVolume View Pilot",
    2.0e16: "ShadowVolume View Gunner", 2.1e16: "Wreck",
}
_FIXED32 = {float(np.float32(k)): v for k, v in _FIXED.items()}
_RANGES = ((1.0e4, 1.1e4, "ShadowVolume"), (1.1e4, 1.2e4, "ShadowBuffer"),
           (2.0e4, 3.0e4, "Edit"))


def lod_name(resolution):
    """``1.000``, ``Geometry``, ``Memory``, ``ShadowVolume 0``, ..."""
    r = float(np.float32(resolution))
    if r < VISUAL_LIMIT:
        return f"{r:.3f}"
    fixed = _FIXED32.get(r)
    if fixed:
        return fixed
    for lo, hi, name in _RANGES:
        if lo <= r < hi:
            return f"{name} {r - lo:g}"
    return f"LOD {r:g}"


def is_visual(resolution):
    return float(resolution) < VISUAL_LIMIT


def is_shadow(resolution):
    return lod_name(resolution).startswith("Shadow")
