"""How a record remembers the exact shape it was read in, so that writing it back is lossless.

Records decode the fields they understand. What they do not understand, and everything about
*where* things were, goes into a :class:`Layout`: the order of children (known ones by key,
unknown ones as the raw :class:`~.chunks.Chunk` or :class:`~.chunks.Mini`), the bytes after a
string's terminator or after a fixed struct's known fields, and the width of integer fields
that come in more than one width. Records built from scratch have no layout and are written
in the canonical order.
"""

from dataclasses import dataclass, field


@dataclass(slots=True)
class Layout:
    # known children by key (str, int or tuple), unknown ones as the raw Chunk or Mini
    order: list = field(default_factory=list)
    tails: dict[object, bytes] = field(default_factory=dict)
    widths: dict[int, int] = field(default_factory=dict)
    sub: dict[str, "Layout"] = field(default_factory=dict)
    # Header counts that disagreed with the data: key -> (declared, found). Written back
    # only while the data still has the size it had when read; reported by validation.
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)

    def tail(self, key):
        return self.tails.get(key, b"")

    def child(self, key):
        return self.sub.get(key)


def tail_of(layout, key):
    return layout.tails.get(key, b"") if layout is not None else b""


def sub_of(layout, key):
    return layout.sub.get(key) if layout is not None else None


def note_count(layout, key, declared, found):
    """Remember a header count that disagrees with the data it counts."""
    if declared != found:
        layout.counts[key] = (declared, found)


def count_for(layout, key, found):
    """The count to write: the one read, if the data is as it was read; else the real one."""
    if layout is not None and key in layout.counts and layout.counts[key][1] == found:
        return layout.counts[key][0]
    return found


def arrange(slots, default_order, layout):
    """Order encoded children for writing.

    ``slots`` maps keys to encoded children. Children are written in the order recorded in
    ``layout`` (unknown children in their place); keys missing from the layout (new data)
    are inserted after the nearest key that precedes them in ``default_order``.
    """
    if layout is None or not layout.order:
        return [slots[k] for k in default_order if k in slots]
    rank = {k: i for i, k in enumerate(default_order)}
    out = []  # (rank or None, item)
    placed = set()
    for item in layout.order:
        if isinstance(item, (str, tuple, int)):
            if item in slots and item not in placed:
                out.append((rank.get(item), slots[item]))
                placed.add(item)
        else:
            out.append((None, item))
    for key in default_order:
        if key in placed or key not in slots:
            continue
        r = rank[key]
        pos = 0
        for i, (ri, _) in enumerate(out):
            if ri is not None and ri < r:
                pos = i + 1
        out.insert(pos, (r, slots[key]))
    return [item for _, item in out]
