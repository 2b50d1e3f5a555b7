"""Where a binarized P3D model stands, in its own (y-up, metre) axes: the LOD a player sees,
the points its faces use, its lowest point with its proxied parts, and scaling and lifting a
model in place (issue 35: Alamo units are about 5 units to the metre and stand on y = 0).

Every function takes the model's shown LOD to be its most detailed visual LOD with faces.
"""

import numpy as np

from .markers import face_corners, proxy_marker_faces
from .resolution import VISUAL_LIMIT

# Game units per metre in the Alamo games, measured on their own models (the helper's note
# for issue 35): Darth Vader (EI_VADER.ALO) stands 11.1 units tall, about 2 m in the films
# (5.5 per metre); a stormtrooper 8.9 units, 1.8 m (4.9 per metre).
ALAMO_UNITS_PER_METRE = 5.0


def shown_lod(model):
    """Index of the most detailed visual LOD with faces, or -1."""
    best = -1
    for i, lod in enumerate(model.lods):
        if float(lod.resolution) < VISUAL_LIMIT and lod.faces is not None and len(lod.faces):
            if best < 0 or lod.resolution < model.lods[best].resolution:
                best = i
    return best


def used_vertices(lod, keep=None):
    """Boolean mask over the LOD's points: True where a face (of ``keep``, a face mask;
    proxy markers are never counted) uses it."""
    n = len(lod.vertices) if lod.vertices is not None else 0
    used = np.zeros(n, bool)
    if not n or lod.faces is None or not len(lod.faces):
        return used
    faces = ~proxy_marker_faces(lod)
    if keep is not None:
        faces &= keep
    corners = face_corners(lod.faces)[faces].ravel()
    corners = corners[(corners >= 0) & (corners < n)]
    used[corners] = True
    return used


def visible_points(lod):
    """The finite points the LOD's faces use (file axes)."""
    if lod is None or lod.vertices is None:
        return np.zeros((0, 3), np.float32)
    pts = lod.vertices[used_vertices(lod)]
    return pts[np.isfinite(pts).all(axis=1)]


def lowest_point(model, part_of=lambda proxy: None, depth=8):
    """The lowest height (file y) of the model's shown LOD and, through ``part_of(proxy)``
    (the proxied model, or None), of its parts at their places, recursively to ``depth``;
    None when nothing has a point."""
    heights = []

    def walk(m, matrix, level):
        i = shown_lod(m)
        if i < 0:
            return
        lod = m.lods[i]
        pts = visible_points(lod).astype(np.float64)
        if len(pts):
            heights.append(float((pts @ matrix[:3, :3].T + matrix[:3, 3])[:, 1].min()))
        if level >= depth:
            return
        for proxy in lod.proxies:
            part = part_of(proxy)
            if part is not None:
                walk(part, matrix @ proxy_matrix(proxy), level + 1)

    walk(model, np.eye(4), 0)
    return min(heights) if heights else None


def proxy_matrix(proxy):
    """The proxy's 4x4 transform with non-finite entries zeroed."""
    m = np.array(proxy.matrix, np.float64)
    m[~np.isfinite(m)] = 0.0
    return m


def uncentre(model):
    """Move every point, frame and proxy of ``model`` back by its bounding centre, in place:
    the binariser, with autocenter on (the default; the named property ``autocenter=0``
    turns it off), stores each point minus the model's bounding centre, and the game puts a
    proxied model's original origin, not its centre, at the proxy (see the README's *Where
    the game puts a proxied part*). A model binarised with autocenter off stores a zero
    centre and is left as it is."""
    centre = model.info.bounding_center if model.info is not None else None
    if centre is None:
        return model
    centre = np.asarray(centre, np.float32)
    if centre.shape != (3,) or not np.isfinite(centre).all() or not centre.any():
        return model
    return _move(model, 1.0, centre)


def place(model, scale=1.0, lift=0.0):
    """Scale every point, frame and proxy position of ``model`` by ``scale``, then raise
    them by ``lift`` (file y), in place."""
    return _move(model, scale, np.array([0.0, lift, 0.0], np.float32))


def _move(model, scale, offset):
    """Every point, frame and proxy position of ``model`` times ``scale`` plus ``offset``."""
    scale = np.float32(scale)
    for lod in model.lods:
        if lod.vertices is not None and len(lod.vertices):
            lod.vertices = (lod.vertices * scale + offset).astype(np.float32)
        for frame in lod.frames:
            frame.points = (np.asarray(frame.points, np.float32) * scale
                            + offset).astype(np.float32)
        for proxy in lod.proxies:        # in float32 as the points: markers still match
            m = np.array(proxy.matrix, np.float32)
            m[:3, 3] = m[:3, 3] * scale + offset
            proxy.matrix = m
    return model
