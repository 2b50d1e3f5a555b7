"""The graph of an effect's birth and death links, as the game plays them (Blender-free, no
numpy): which emitter starts which (:func:`links`), how long an instance's descendants may
outlive the particle that started it (:func:`reach`), and at most how many particles one
instance lists (:func:`per_instance`). :mod:`simulate` runs the instances; :mod:`link_rules`
says in ``validate`` what the graph means in the game.
"""

#: How many levels of emitters started by other emitters' particles are followed.
MAX_DEPTH = 4


def links(emitters) -> list:
    """Every link the game plays, once each, as ``(parent, child, on_death)``: each parent's
    birth and death emitter (EaW) and each child's ``started_by`` (the parent its UaW trail
    or death creator names). A link to an emitter that does not exist starts nothing. A child
    may have several parents and a parent several children: each link runs its own instances."""
    models = list(emitters)
    count = len(models)
    found = []
    for parent, em in enumerate(models):
        for child, on_death in ((em.birth, False), (em.death, True)):
            if 0 <= int(child) < count:
                found.append((parent, int(child), on_death))
    for child, em in enumerate(models):
        for parent, on_death in getattr(em, "started_by", ()):
            if 0 <= int(parent) < count:
                found.append((int(parent), child, bool(on_death)))
    return list(dict.fromkeys(found))


def life(em):
    value = float(em.lifetime)
    return value if value > 0.0 else 0.0        # NaN and negatives: none


def reach(models, found):
    """How long after its parent particle stops (dies) an instance of each emitter may still
    have particles of its own or of its descendants alive (its lifetime, plus the longest
    reach of the emitters its particles start, ``MAX_DEPTH`` levels down)."""
    kids = {}
    for parent, child, _ in found:
        kids.setdefault(parent, set()).add(child)
    base = [life(em) for em in models]
    out = list(base)
    for _ in range(MAX_DEPTH):
        out = [b + max((out[c] for c in kids.get(i, ())), default=0.0)
               for i, b in enumerate(base)]
    return out


def per_instance(em, extra):
    """At most how many particles of one instance of ``em`` ``simulate.born`` lists (with those
    dead for up to ``extra``)."""
    span = life(em) + max(float(extra), 0.0) + 1.0
    if not em.in_bursts:
        return float(em.num_particles_per_second) * span + 2.0
    per, gap = max(int(em.num_particles_per_burst), 0), float(em.burst_delay)
    bursts = span / gap + 2.0 if gap > 0.0 else 1.0
    if int(em.num_bursts) > 0:
        bursts = min(bursts, int(em.num_bursts))
    return per * bursts + 1.0
