"""The random draws of an emitter's particles (keys, lifetimes, uniform channels, property-group
samples), kept between frames: every draw is a function of the particle's key alone, so an
emitter instance that runs from the system (one instance, fixed key) keeps a table of its
particles' draws by index, with room on both sides, and each frame takes the rows of the
particles alive then instead of hashing them again. The numbers are the same as drawing them
afresh, bit for bit (``sampling``'s functions work element by element).

The table lives on the emitter's model (``simulate.Emitter``), which the preview keeps while
the emitter's fields stay the same: an edit gives a new model and so new draws.

Blender-free: numpy only.
"""

import numpy as np

from . import sampling as rnd

_TABLES = "_draw_tables"        # on a model: {carrier key: Table}
_SPARE = 64                     # at least this many more particles on each side


class Table:
    """Draws of particles ``first`` .. ``first + len(keys) - 1`` of one instance, the
    columns made on first use."""

    __slots__ = ("first", "keys", "columns")

    def __init__(self, carrier_key, first, stop):
        self.first = int(first)
        index = np.arange(first, stop, dtype=np.int64)
        self.keys = keys_of(np.array([carrier_key], np.uint64), index)
        self.columns = {}

    def covers(self, lo, hi):
        return self.first <= lo and hi <= self.first + len(self.keys)

    def column(self, name, make):
        found = self.columns.get(name)
        if found is None:
            found = self.columns[name] = make(self.keys)
        return found


def keys_of(carrier_keys, index):
    """The keys of particles ``index`` of instances with keys ``carrier_keys`` (one each, or
    one for all)."""
    return rnd.child_keys(carrier_keys, 0) ^ rnd.mix(index.astype(np.uint64))


def table(model, carrier_key, lo, hi):
    """The kept table of ``model``'s instance ``carrier_key`` holding particles lo .. hi - 1
    (made, with room on both sides, when the kept one does not)."""
    tables = model.__dict__.setdefault(_TABLES, {})
    held = tables.get(carrier_key)
    if held is None or not held.covers(lo, hi):
        spare = (hi - lo) // 2 + _SPARE
        if len(tables) > 64:
            tables.clear()
        held = tables[carrier_key] = Table(carrier_key, max(lo - spare, 0), hi + spare)
    return held


class Draws:
    """The draws of a set of particles: from a :class:`Table` (``rows`` of it) or computed
    from their ``keys``."""

    __slots__ = ("keys", "table", "rows")

    def __init__(self, keys, table=None, rows=None):
        self.keys, self.table, self.rows = keys, table, rows

    def subset(self, which):
        rows = None if self.table is None else self.rows[which]
        return Draws(self.keys[which], self.table, rows)

    def _kept(self, name, make):
        if self.table is None:
            return make(self.keys)
        return self.table.column(name, make)[self.rows]

    def uniform(self, channel):
        """``sampling.uniform`` of the keys for ``channel``."""
        return self._kept(("u", channel), lambda k: rnd.uniform(k, channel))

    def group(self, group, first_channel):
        """``sampling.sample_group`` of ``group`` (kept while the model is)."""
        return self._kept(("g", id(group), first_channel),
                          lambda k: rnd.sample_group(group, k, first_channel))

    def life(self, longest, randomized):
        """Each particle's lifetime: ``longest * (1 - randomized * u)``, only shortened."""
        return self._kept(("life", longest, randomized),
                          lambda k: longest * (1.0 - randomized * rnd.uniform(k, rnd.CH_LIFETIME)))
