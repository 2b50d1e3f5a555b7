"""Which models an animation plays on, found as the alo-viewer pairs them (``<M>_*.ala``
beside ``<M>.alo``), each folder listed once per run
(:func:`~io_alamo.formats.run_cache.run_cache`)."""

import os

from ..run_cache import remember
from .naming import _stem, animation_owner

__all__ = ["model_beside", "models_beside", "stamp"]


def stamp(path):
    """What a file is known by within one run: its path, size and modification time."""
    st = os.stat(path)
    return (os.path.abspath(path), st.st_size, st.st_mtime_ns)


def _models_in(folder):
    """The .alo files of ``folder``."""
    def listing():
        return [f for f in os.listdir(folder) if f.lower().endswith(".alo")]
    try:
        return remember(("models in",) + stamp(folder), listing)
    except OSError:
        return []


def _owner_index(folder):
    """The folder's models by lower-case stem, {stem: [(place in the listing, name)]}, once
    per run: an animation's owners are then looked up by its own ``_`` prefixes, not found
    by comparing it with every model of the folder (a mod's folder holds thousands)."""
    def index():
        out = {}
        for k, m in enumerate(_models_in(folder)):
            out.setdefault(_stem(m).lower(), []).append((k, m))
        return out
    try:
        return remember(("model index",) + stamp(folder), index)
    except OSError:
        return {}


def models_beside(path):
    """Every model an animation may play on, as the viewer tries them: ``<dir>/<B>.alo``
    where ``B_`` starts the animation's name (case-insensitive), the longest ``B`` first
    (:func:`~.naming.animation_owners`'s choice and order, looked up by prefix)."""
    folder, name = os.path.split(os.fspath(path))
    index = _owner_index(folder or ".")
    stem = _stem(name).lower()
    found = sorted(hit for i, c in enumerate(stem) if c == "_" for hit in index.get(stem[:i], ()))
    owners = sorted((m for _, m in found), key=lambda m: -len(_stem(m)))   # listing order,
    # then the longest first (lower-casing may change a stem's length: İ -> i̇)
    return [os.path.join(folder, m) for m in owners]


def model_beside(path):
    """The model an animation plays on, found as the viewer pairs them: ``<dir>/<M>.alo``
    where ``M_`` starts the animation's name (case-insensitive), the longest ``M`` first."""
    folder, name = os.path.split(os.fspath(path))
    owner = animation_owner(name, _models_in(folder or "."))
    return os.path.join(folder, owner) if owner else None
