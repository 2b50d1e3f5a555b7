"""A Universe at War effect's emitter list rebuilt: emitters deleted, duplicated, reordered
and renamed, with the links between them fixed up, and everything else kept byte for byte.

An emitter is its chunk (0x1540) as the file holds it, copied whole into each place it keeps
in the new list (so an untouched emitter writes the same bytes wherever it goes). The links
between emitters are the ones the viewer's creators read (read in the alo-viewer, never
copied):
- the death creator (40, parameter 109) and the enhanced trail creator (39, parameter 300)
  name the emitter whose particles start theirs; the first emitter of that exact name is the
  one followed. A link is written anew only when the emitter it followed in the file was
  renamed or moved so that its name no longer finds it: it then names that emitter's first
  place in the new list (its new name); a link whose emitter is gone is refused, naming the
  emitter that holds it.
- the trail creator (1, parameter 100) holds the index of its parent emitter: renumbered to
  the parent's first place in the new list (refused when the parent is gone).
A link that found no emitter in the file is kept as it is.

Blender-free: stdlib only.
"""

from ...errors import AlamoFormatError
from ..chunks import read_chunks, write_chunks
from . import uaw_params as up
from .records import UawParticleSystem
from .uaw import EMITTER, EMITTER_LIST, decode_uaw

NAME_LINKS = {40: 109, 39: 300}       # plugin id -> its text parameter naming the parent
INDEX_LINKS = {1: 100}                # plugin id -> its int parameter holding the parent


def _links(emitter):
    """[(kind 'name'/'index', value chunk, its value)] of one emitter's linking creators."""
    out = []
    for _, slot, pid, params in up.plugins(emitter.chunk):
        if slot != "creator":
            continue
        for table, kind in ((NAME_LINKS, up.TEXT), (INDEX_LINKS, up.INT)):
            chunk = params.get(table.get(pid))
            if chunk is not None and not chunk.is_container:
                value = up._decode(kind, chunk.data)
                if value is not None:
                    out.append((kind, chunk, value))
    return out


def _find(names, name):
    return next((i for i, n in enumerate(names) if n == name), None)


def _copy(chunks):
    return read_chunks(write_chunks(chunks))


def rebuild(system: UawParticleSystem, order: list, names: dict) -> UawParticleSystem:
    """A new system whose emitters are ``system``'s in ``order`` (the source emitter index of
    each new place), renamed by ``names`` {new place: name}, its links fixed up; ``system``
    is not changed. When ``order`` keeps every emitter in its place and nothing is renamed,
    the result writes the same bytes."""
    old = system.emitters
    bad = [k for k in order if not isinstance(k, int) or not 0 <= k < len(old)]
    if bad:
        raise AlamoFormatError(f"Universe at War effect '{system.name}': no emitter {bad[0]} "
                               f"in the file (it has {len(old)})")
    work = _copy(system.chunks)
    lists = [c for c in work[0].children if c.type == EMITTER_LIST and c.is_container]
    if not lists:
        raise AlamoFormatError(f"Universe at War effect '{system.name}' has no emitter list")
    kept = lists[0].children
    emitters = [c for c in kept if c.type == EMITTER and c.is_container]
    at = next((i for i, c in enumerate(kept) if c in emitters), len(kept))
    others = [c for c in kept if c not in emitters]
    lists[0].children = others[:at] + [_copy([emitters[k]])[0] for k in order] + others[at:]
    new = decode_uaw(work)
    for place, name in names.items():
        up.set_emitter_name(new.emitters[place], name)
    first = {}
    for place, k in enumerate(order):
        first.setdefault(k, place)
    _fix_links(new, [e.name for e in old], first)
    return new


def _fix_links(new, old_names, first):
    names = [e.name for e in new.emitters]
    for place, e in enumerate(new.emitters):
        for kind, chunk, value in _links(e):
            if kind == up.INT:
                target = value if 0 <= value < len(old_names) else None
            else:
                target = _find(old_names, value)
            if target is None:
                continue                          # found nothing in the file: kept
            where = first.get(target)
            if where is None:
                raise AlamoFormatError(
                    f"Universe at War emitter '{e.name}' (place {place}) starts its particles "
                    f"from emitter '{old_names[target]}', which is no longer in the effect: "
                    f"delete it too, or keep that emitter")
            if kind == up.INT:
                _set(chunk, up.INT, where)
            elif _find(names, value) != where:
                _set(chunk, up.TEXT, names[where])


def _set(chunk, kind, value):
    p = up.UawParam(-1, -1, "creator", -1, -1, "link", kind, None, chunk)
    up.set_parameter(p, value)
