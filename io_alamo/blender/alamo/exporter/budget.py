"""The triangle budget of an export (issue 43): a converted Arma truck keeps 27k-143k
triangles where an Empire at War land unit draws a few thousand (``../shared/corpus``: the
Canderous tank's meshes 826-1,781 triangles, a whole unit 1k-28k). With a budget of ``N``
triangles per LOD, the visible meshes of each LOD (collision and shadow meshes aside: the
game does not draw them, and a decimated shadow volume would open) that hold more than ``N``
between them are written decimated (Blender's Decimate modifier, *Collapse*, added for
the export and removed after it: the scene stays as it was): each keeps at most one share
of the budget, so small meshes (a wheel's dozen triangles) keep all theirs and the big ones
give up the rest. A mesh without a ``_LOD<n>`` suffix is in every LOD and takes the
smallest ratio. The export's modifiers
must be applied (its default) for the budget to reach the file.
"""

import numpy as np

from ....formats.alamo.naming import lod_alt

MODIFIER = "Alamo Triangle Budget"


def triangle_count(me):
    """Triangles of a mesh once triangulated."""
    sizes = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_total", sizes)
    return int(np.clip(sizes - 2, 0, None).sum())


def _drawn(obj):
    """A mesh the game draws: not a collision mesh, not a shadow volume."""
    if obj.type != "MESH" or obj.alamo.collision:
        return False
    return not any(m is not None and "shadowvolume" in m.alamo.shader.lower()
                   for m in obj.data.materials)


def ratios(objects, budget):
    """{object: decimation ratio (< 1)} for the drawn ``objects`` over ``budget`` triangles
    per LOD."""
    meshes = [o for o in objects if _drawn(o)]
    lods = {o: lod_alt(o.name)[1] for o in meshes}
    counts = {o: triangle_count(o.data) for o in meshes}
    out = {}
    for level in set(lods.values()) - {None} or {None}:
        members = [o for o in meshes if lods[o] in (level, None)]
        cap = _cap([counts[o] for o in members], budget)
        for o in members:
            if cap is not None and counts[o] > cap:
                out[o] = min(out.get(o, 1.0), cap / counts[o])
    return out


def _cap(counts, budget):
    """The most triangles each mesh may keep so that they hold ``budget`` between them,
    small meshes (a wheel's dozen) keeping all theirs; None when they fit already."""
    if not budget or sum(counts) <= budget:
        return None
    left = float(budget)
    ordered = sorted(counts)
    for k, n in enumerate(ordered):
        share = left / (len(ordered) - k)
        if n > share:
            return share
        left -= n
    return None


def export_within(context, budget, export):
    """Run ``export()`` (which returns an export result) with the drawn meshes of
    ``context``'s scene decimated to ``budget`` triangles per LOD (0: as they are); the
    result's counts get ``triangles_before`` and ``triangles_after`` of the meshes decimated."""
    if not budget:
        return export()
    added = []
    try:
        for obj, ratio in ratios(list(context.scene.objects), budget).items():
            mod = obj.modifiers.new(MODIFIER, "DECIMATE")
            mod.decimate_type = "COLLAPSE"
            mod.ratio = ratio
            mod.use_collapse_triangulate = True
            added.append((obj, mod))
        result = export()
        depsgraph = context.evaluated_depsgraph_get()
        before = sum(triangle_count(o.data) for o, _ in added)
        after = 0
        for obj, _ in added:
            evaluated = obj.evaluated_get(depsgraph)
            after += triangle_count(evaluated.data)
        result.counts["triangles_before"] = before
        result.counts["triangles_after"] = after
        if added:
            result.warn(f"{len(added)} mesh(es) written decimated to {budget:,} triangles per "
                        f"LOD ({before:,} -> {after:,} triangles; the scene keeps them all)",
                        [o for o, _ in added])
        return result
    finally:
        for obj, mod in added:
            obj.modifiers.remove(mod)
