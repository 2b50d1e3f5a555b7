"""A tangent-space normal map from an ALOD material's tangent map (numpy only; issue 35).

ALOD stores no normal map: a tangent map gives the surface's tangent plane (U and V
tangents) per texel, and each vertex its own tangent plane. An Alamo bump shader wants the
texel's normal in the frame of the surface around it: for every texel a triangle covers (in
UV space), the vertices' tangents are interpolated there (T along U, N = U x V, B = N x T)
and the texel's normal (U_t x V_t) is written in that frame, as 0.5 + 0.5 * (x, y, z).
Texels no triangle covers face straight out (0.5, 0.5, 1). Rows run as the texture's: row r
is t = (r + 0.5) / height.
"""

import numpy as np

MAX_CANDIDATES = 1 << 22          # texel tests per batch of triangles (bounded memory)
FLAT = np.array([0.5, 0.5, 1.0], np.float32)


def _unit(v):
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, n, out=np.zeros_like(v), where=n > 1e-12)


def normal_map(mesh, material, worlds):
    """(height, width, 3) float32 in [0, 1] for material ``material`` of the ALOD mesh, or
    None when it has no tangent map or the vertices carry no tangents."""
    m = mesh.materials[material]
    tid = getattr(m, "tangent_id", None)
    if tid is None or not 0 <= tid < len(mesh.tangent_maps) or not mesh.vertices.tangents:
        return None
    tm = mesh.tangent_maps[tid]
    w, h = int(tm.width), int(tm.height)
    if not w or not h:
        return None
    texel_n = _unit(np.cross(tm.tangents[0].transformed(worlds)[:, :3],
                             tm.tangents[1].transformed(worlds)[:, :3])).reshape(h, w, 3)
    tri = mesh.triangles
    corners = np.asarray(tri["vertices"], np.int64)[np.asarray(tri["material"]) == material]
    vu = mesh.vertices.tangents[0].transformed(worlds)[:, :3]
    vv = mesh.vertices.tangents[1].transformed(worlds)[:, :3]
    st = np.asarray(mesh.vertices.tex_coords, np.float64)
    out = np.tile(FLAT, (h, w, 1))
    if not len(corners):
        return out
    px = st[corners] * [w, h] - 0.5                        # (n, 3, 2) texel-centre units
    lo = np.clip(np.floor(px.min(axis=1)), 0, [w - 1, h - 1]).astype(np.int64)
    hi = np.clip(np.ceil(px.max(axis=1)), 0, [w - 1, h - 1]).astype(np.int64)
    size = np.maximum(hi - lo + 1, 0)
    counts = size[:, 0] * size[:, 1]
    counts[~np.isfinite(px).all(axis=(1, 2))] = 0
    ends = np.cumsum(counts)
    start = 0
    while start < len(corners):
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + MAX_CANDIDATES, "right")), start + 1)
        _fill(out, texel_n, px[start:stop], lo[start:stop], size[start:stop],
              counts[start:stop], vu[corners[start:stop]], vv[corners[start:stop]])
        start = stop
    return out


def _fill(out, texel_n, px, lo, size, counts, vu, vv):
    """Write the covered texels of a batch of triangles."""
    total = int(counts.sum())
    if not total:
        return
    t = np.repeat(np.arange(len(counts)), counts)
    k = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    x = lo[t, 0] + k % size[t, 0]
    y = lo[t, 1] + k // size[t, 0]
    a, b, c = px[t, 0], px[t, 1], px[t, 2]
    area = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    ok = np.abs(area) > 1e-12
    safe = np.where(ok, area, 1.0)
    w1 = ((x - a[:, 0]) * (c[:, 1] - a[:, 1]) - (y - a[:, 1]) * (c[:, 0] - a[:, 0])) / safe
    w2 = ((b[:, 0] - a[:, 0]) * (y - a[:, 1]) - (b[:, 1] - a[:, 1]) * (x - a[:, 0])) / safe
    w0 = 1.0 - w1 - w2
    inside = ok & (w0 >= -1e-6) & (w1 >= -1e-6) & (w2 >= -1e-6)
    t, x, y = t[inside], x[inside], y[inside]
    bary = np.stack([w0[inside], w1[inside], w2[inside]], axis=1)[:, :, None]
    u = (vu[t] * bary).sum(axis=1)
    v = (vv[t] * bary).sum(axis=1)
    tangent = _unit(u)
    normal = _unit(np.cross(u, v))
    binormal = np.cross(normal, tangent)
    n = texel_n[y, x]
    local = np.stack([(n * tangent).sum(axis=1), (n * binormal).sum(axis=1),
                      (n * normal).sum(axis=1)], axis=1)
    good = np.linalg.norm(local, axis=1) > 0.5
    out[y[good], x[good]] = (0.5 + 0.5 * local[good]).astype(np.float32)
