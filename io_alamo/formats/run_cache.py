"""What one run may keep between files (neutral; stdlib only): ``io-alamo validate`` over a
whole mod reads each model once, however many animations beside it are checked against it.

Inside ``with run_cache():`` :func:`remember` keeps what it computed by key; outside it
computes every time (files change between calls of a library)::

    with run_cache():
        for path in files:
            check(path)          # check() calls remember(("bones", stamp), read_bones)
"""

from contextlib import contextmanager

__all__ = ["active", "hold", "own", "read_only", "remember", "run_cache", "viewing"]

_depth = [0]
_views = [0]
_store = {}
LIMIT = 8192         # entries kept at most (a run over a huge tree starts over)


@contextmanager
def run_cache():
    """Keep what :func:`remember` computes until the outermost block ends."""
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if not _depth[0]:
            _store.clear()


def hold():
    """Keep what :func:`remember` computes for the rest of this process: for a worker process
    of a run (``validate --jobs``), which checks its share of the files and ends with it."""
    _depth[0] += 1


def active() -> bool:
    return _depth[0] > 0


def remember(key, compute):
    """``compute()``, kept under ``key`` while a :func:`run_cache` block runs."""
    if not _depth[0]:
        return compute()
    if key in _store:
        return _store[key]
    if len(_store) >= LIMIT:
        _store.clear()
    value = _store[key] = compute()
    return value


@contextmanager
def read_only():
    """Inside the block the decoders hand out read-only views of the file's bytes where
    they would copy arrays (vertices, triangles, animation tracks): for callers that only
    look (``validate``), never edit or keep the records past the file's bytes."""
    _views[0] += 1
    try:
        yield
    finally:
        _views[0] -= 1


def viewing() -> bool:
    """Whether a :func:`read_only` block runs: the decoders then also leave out what only
    writing the records back needs (the layouts of mini-chunk headers, the bit and track
    arrays no check looks at), keeping every check and error of the full decode."""
    return _views[0] > 0


def own(array):
    """``array`` as the decoders hand it out: a copy of its own (editable, independent of the
    file's bytes), or ``array`` itself inside :func:`read_only`."""
    return array if _views[0] else array.copy()
