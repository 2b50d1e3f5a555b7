"""Alamo naming conventions, Blender-free: LOD and ALT suffixes, vertex format features."""

import re

_LOD = re.compile(r"_LOD(\d+)", re.IGNORECASE)
_ALT = re.compile(r"_ALT(\d+)", re.IGNORECASE)


def lod_alt(name):
    """(base name, LOD number or None, ALT number or None) of a mesh or proxy name."""
    lod = _LOD.search(name)
    alt = _ALT.search(name)
    base = _ALT.sub("", _LOD.sub("", name))
    return base, int(lod.group(1)) if lod else None, int(alt.group(1)) if alt else None


def default_visibility(names):
    """Which names are shown by default: the highest LOD and the lowest ALT (ALT0) of each
    base name; names without suffixes are always shown."""
    parsed = [lod_alt(n) for n in names]
    best_lod, best_alt = {}, {}
    for base, lod, alt in parsed:
        if lod is not None:
            best_lod[base] = max(best_lod.get(base, lod), lod)
        if alt is not None:
            best_alt[base] = min(best_alt.get(base, alt), alt)
    return [(lod is None or lod == best_lod[base]) and (alt is None or alt == best_alt[base])
            for base, lod, alt in parsed]


def format_has_colors(vertex_format):
    """Vertex formats ending in C carry a colour (alD3dVertNU2C, alD3dVertB4I4NU2U3U3C...)."""
    return vertex_format.rstrip().endswith("C")


def format_has_tangents(vertex_format):
    return "U3U3" in vertex_format


def format_is_b4i4(vertex_format):
    """B4I4 formats use four bone indices and weights per vertex."""
    return "B4I4" in vertex_format.upper()
