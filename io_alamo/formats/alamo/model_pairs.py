"""Which models an animation plays on, found as the alo-viewer pairs them (``<M>_*.ala``
beside ``<M>.alo``), each folder listed once per run
(:func:`~io_alamo.formats.run_cache.run_cache`)."""

import os

from ..run_cache import remember
from .naming import animation_owner, indexed_owners, owner_index

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
    """The folder's :func:`~.naming.owner_index`, once per run (a mod's folder holds
    thousands of models)."""
    try:
        return remember(("model index",) + stamp(folder),
                        lambda: owner_index(_models_in(folder)))
    except OSError:
        return {}


def models_beside(path):
    """Every model an animation may play on, as the viewer tries them: ``<dir>/<B>.alo``
    where ``B_`` starts the animation's name (case-insensitive), the longest ``B`` first
    (:func:`~.naming.animation_owners`'s choice and order, looked up by prefix)."""
    folder, name = os.path.split(os.fspath(path))
    return [os.path.join(folder, m)
            for m in indexed_owners(name, _owner_index(folder or "."))]


def model_beside(path):
    """The model an animation plays on, found as the viewer pairs them: ``<dir>/<M>.alo``
    where ``M_`` starts the animation's name (case-insensitive), the longest ``M`` first."""
    folder, name = os.path.split(os.fspath(path))
    owner = animation_owner(name, _models_in(folder or "."))
    return os.path.join(folder, owner) if owner else None
