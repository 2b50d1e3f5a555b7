"""Tangent frames of exported vertices, as the game's exporter makes them.

The 3ds Max exporter splits vertices by position, normal, UVs and colour only, and gives each
the average of its corners' tangent frames; splitting by tangent too gave 2-11% more vertices
than the game's files. Corners whose position, normal and first UV are as imported keep the
file's own tangent frame, so an edit changes tangents only where it changed the surface.
"""

from dataclasses import dataclass

import numpy as np

from ..corners import unchanged_corners


@dataclass(slots=True)
class CornerFrames:
    """Per-corner tangent frames in mesh space: fresh ones (Blender's MikkTSpace, None
    without a UV map) and the imported ones where the corner is unchanged."""
    fresh_t: np.ndarray = None       # (L, 3)
    fresh_b: np.ndarray = None       # (L, 3)
    kept: np.ndarray = None          # (L,) bool
    kept_t: np.ndarray = None        # (L, 3), meaningful where kept
    kept_b: np.ndarray = None
    per_corner: bool = False         # kept frames stored per corner (vertices merged at import)

    def split_words(self):
        """uint32 words that keep the file's distinct tangent frames apart (vertices the
        file had separate stay separate); nothing for fresh corners. Frames stored per
        vertex need none: the vertex index already tells them apart."""
        if self.kept is None or not self.kept.any() or not self.per_corner:
            return []
        both = np.concatenate([self.kept_t, self.kept_b], axis=1).astype(np.float32)
        both[~self.kept] = 0.0
        bits = np.ascontiguousarray(both + np.float32(0)).view(np.uint32)
        return [bits[:, k] for k in range(6)] + [self.kept.astype(np.uint32)]

    def per_vertex(self, loop_id, count):
        """(tangent, binormal, known) per exported vertex: the kept frame where its corners
        have one, else the average of its corners' fresh frames."""
        t = np.zeros((count, 3))
        b = np.zeros((count, 3))
        known = np.zeros(count, bool)
        fresh = np.ones(len(loop_id), bool) if self.kept is None else ~self.kept
        if self.fresh_t is not None and fresh.any():
            ids = loop_id[fresh]
            for k in range(3):
                t[:, k] = np.bincount(ids, self.fresh_t[fresh, k], minlength=count)
                b[:, k] = np.bincount(ids, self.fresh_b[fresh, k], minlength=count)
            known[ids] = True
        if self.kept is not None and self.kept.any():
            ids = loop_id[self.kept]
            t[ids] = self.kept_t[self.kept]
            b[ids] = self.kept_b[self.kept]
            known[ids] = True
        return t, b, known


def corner_frames(me, loops):
    """The CornerFrames of ``me``; ``loops`` as mesh._loop_arrays reads them."""
    frames = CornerFrames()
    if "tangent" in loops:
        t = loops["tangent"].astype(np.float64)
        frames.fresh_t = t
        frames.fresh_b = np.cross(loops["normal"].astype(np.float64), t) * \
            loops["sign"][:, None]
    stored = [me.attributes.get(n) for n in ("alamo_tangent", "alamo_binormal")]
    if any(a is None or a.data_type != "FLOAT_VECTOR" for a in stored) or \
            stored[0].domain != stored[1].domain or stored[0].domain not in ("POINT", "CORNER"):
        return frames
    kept = unchanged_corners(me)
    if kept is None or not kept.any():
        return frames
    arrays = []
    for att in stored:
        a = np.empty(len(att.data) * 3, np.float32)
        att.data.foreach_get("vector", a)
        a = a.reshape(-1, 3)
        arrays.append(a[loops["vertex"]] if att.domain == "POINT" else a)
    frames.kept, frames.kept_t, frames.kept_b = kept, arrays[0], arrays[1]
    frames.per_corner = stored[0].domain == "CORNER"
    return frames
