"""What ``validate`` says of an effect's birth and death links (Blender-free, no numpy): which
emitters never run and which loops spawn without end.

The game starts an emitter that no link names from the effect, and every other one from the
particles of the emitters that name it, each link its own instances (see :func:`link_graph.links`).
So an emitter named only by itself, or only by a loop of emitters no running emitter reaches,
never shows (the viewer's and DrKnickers' editors' simulations agree); a loop that a running
emitter reaches starts new instances from every generation of particles, without end (the
preview follows ``MAX_DEPTH`` levels). (The viewer's EaW loader keeps one parent per emitter,
the last link in file order, and runs a child read before its parent from the effect: its
``particle_check`` then counts otherwise; that is the viewer's, not the game's, so no note.)
"""

from ...problems import warning
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


def link_problems(emitters) -> list:
    """Warnings on the links of ``emitters`` (records, simulator models, or
    :func:`uaw_play.link_records`)."""
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
    return out
