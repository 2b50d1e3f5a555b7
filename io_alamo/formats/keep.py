"""Keep the source record or rebuild: the one comparison every lossless writer makes.

An export rebuilds each record from what Blender holds; where the rebuilt record says the
same as the one read from the file in every field it rebuilds, the file's record is written
instead, with what the rebuild does not know (unknown minis, layouts, optional fields the
file left out) kept byte for byte::

    rec = keep_or_rebuild(src, Light(...), ("name", "type", "color", "intensity"), Light)
    objects = keep_all_or_rebuild(src.objects, conns, ("object", "bone"))
"""

import numpy as np

__all__ = ["keep_all_or_rebuild", "keep_or_rebuild", "same_fields", "same_value"]


def same_value(a, b) -> bool:
    """Whether two field values say the same: None only equals None, strings compare as
    strings, numbers and arrays by value (float32 and float64 alike)."""
    if a is None or b is None:
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return np.array_equal(np.asarray(a, np.float64), np.asarray(b, np.float64))


def same_fields(a, b, names) -> bool:
    return all(same_value(getattr(a, n), getattr(b, n)) for n in names)


def keep_or_rebuild(source, rebuilt, fields, kind=None):
    """``source`` when it is a record (of type ``kind``, if given) saying the same as
    ``rebuilt`` in every one of ``fields``; else ``rebuilt``."""
    if source is None or (kind is not None and not isinstance(source, kind)):
        return rebuilt
    return source if same_fields(source, rebuilt, fields) else rebuilt


def keep_all_or_rebuild(sources, rebuilt, fields):
    """The source list when it has as many records as ``rebuilt``, each saying the same in
    ``fields``; else ``rebuilt``."""
    if sources is None or len(sources) != len(rebuilt):
        return rebuilt
    same = all(same_fields(a, b, fields) for a, b in zip(sources, rebuilt))
    return sources if same else rebuilt
