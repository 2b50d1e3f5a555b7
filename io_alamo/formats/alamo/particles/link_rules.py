"""What ``validate`` says of an effect's birth and death links (Blender-free, no numpy): which
emitters never run, which loops spawn without end, and where the alo-viewer's loader plays
links differently from the game.

The game starts an emitter that no link names from the effect, and every other one from the
particles of the emitters that name it, each link its own instances (see :func:`link_graph.links`).
So an emitter named only by itself, or only by a loop of emitters no running emitter reaches,
never shows (the viewer's and DrKnickers' editors' simulations agree); a loop that a running
emitter reaches starts new instances from every generation of particles, without end (the
preview follows ``MAX_DEPTH`` levels). The viewer's EaW loader keeps one parent per
emitter (the last link in file order, a death link over a birth one) and only a parent that
comes earlier in the file (a child read first runs from the effect instead): worth a note,
since ``particle_check`` then shows other counts than the preview.
"""

from ...problems import note, warning
from .link_graph import MAX_DEPTH, links


def _name(em, i):
    name = getattr(em, "name", "")
    return f"emitter {i} ({name!r})" if name else f"emitter {i}"


def _reached(count, found, started):
    kids = {}
    for p, c, _ in found:
        kids.setdefault(p, []).append(c)
    seen = [i for i in range(count) if i not in started]
    todo = list(seen)
    seen = set(seen)
    while todo:
        for c in kids.get(todo.pop(), ()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen, kids


def _loop(start, kids, allowed):
    """A loop through ``start`` among ``allowed`` emitters, as a list of indices, or None."""
    stack, path, on_path = [(start, iter(kids.get(start, ())))], [start], {start}
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            on_path.discard(path.pop())
            continue
        if nxt == start:
            return path + [start]
        if nxt in allowed and nxt not in on_path:
            stack.append((nxt, iter(kids.get(nxt, ()))))
            path.append(nxt)
            on_path.add(nxt)
    return None


def link_problems(emitters, viewer=True) -> list:
    """Warnings and notes on the links of ``emitters`` (records or simulator models;
    ``viewer``: the notes on the viewer's EaW loader too)."""
    models = list(emitters)
    found = links(models)
    started = {c for _, c, _ in found}
    reached, kids = _reached(len(models), found, started)
    out = [warning(f"never runs: {em.silent}", _name(em, i)) for i, em in enumerate(models)
           if getattr(em, "silent", None)]
    for i in sorted(started - reached):
        parents = sorted({p for p, c, _ in found if c == i})
        by = "itself" if parents == [i] else "emitter " + ", ".join(map(str, parents))
        out.append(warning(f"started only by {by}, which nothing running reaches (a link to "
                           "itself or a loop): the game never shows it", _name(models[i], i)))
    looped = set()
    for i in sorted(reached & started):
        if i in looped:
            continue
        loop = _loop(i, kids, reached)
        if loop:
            looped.update(loop)
            chain = " -> ".join(map(str, loop))
            out.append(warning(f"links {chain} form a loop a running emitter starts: every "
                               "generation of particles starts another, without end in the "
                               f"game (the preview follows {MAX_DEPTH} levels)",
                               _name(models[i], i)))
    return out + (_viewer_notes(models, found) if viewer else [])


def _viewer_notes(models, found):
    out = []
    parents = {}
    for p, c, d in found:
        parents.setdefault(c, []).append((p, d))
    for c, ps in sorted(parents.items()):
        who = _name(models[c], c)
        if len(ps) > 1:
            names = ", ".join(f"{'death' if d else 'birth'} of {p}" for p, d in ps)
            out.append(note(f"started by several links ({names}): the game plays each; the "
                            "alo-viewer's loader keeps only the last", who))
        if any(p > c for p, _ in ps):
            out.append(note("its parent comes later in the file: the alo-viewer's loader runs "
                            "it from the effect instead (the game follows the link)", who))
    return out
