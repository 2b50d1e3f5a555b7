"""A spec-built Arma vehicle in a folder as a mod ships one (issue 35): ``truck.p3d`` (cab and
cargo box, each part a box with its own texture), whose proxies name a frame and four wheels
kept in other files (``frame.p3d`` beside it, ``wheels/wheel.p3d`` below it; the wheel has a
proxy of its own, to the hub; one proxy names a file that is not there), and its textures as
LZO-compressed DXT1/DXT5 PAA files under ``data/``.

    folder = build_vehicle(tmp_path, textures=3, side=64)    # the truck's path: folder/truck.p3d

Real files store boxes with right-handed cross products outward and normals inward; so do
these. The truck sits with its wheels' bottom 0.5 m below its origin, as real ones do.
"""

import numpy as np
from p3d_build import CUBE_FACES, PROXY_FLAG, SpecLod, build_odol
from paa_build import DXT1, DXT5, build_paa

GEOMETRY = 1e13
VERSION = 73
PREFIX = "\\test_mod\\truck"


def boxes_lod(resolution, boxes, proxies=(), texture_of=None):
    """One LOD of ``boxes`` ((centre, half size) each) with one section per box (its texture
    ``texture_of(k)``, None: untextured) and a marker triangle per proxy ((path, position))."""
    pts, normals, faces, uvs, sections, textures, materials = [], [], [], [], [], [], []
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    for k, (centre, half) in enumerate(boxes):
        base = len(pts)
        first = len(faces)
        pts += list(np.asarray(centre) + signs * half)
        normals += list(-signs / np.sqrt(3.0))
        uvs += list(np.stack([(signs[:, 0] + 1) / 2, (signs[:, 1] + 1) / 2], axis=1))
        for q in CUBE_FACES:
            q = [base + i for i in q]
            faces += [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
        tex = mat = -1
        if texture_of is not None and texture_of(k) is not None:
            textures.append(texture_of(k))
            materials.append(texture_of(k).replace("_co.paa", ".rvmat"))
            tex = mat = len(textures) - 1
        sections.append((first, len(faces), tex, mat))
    spec_proxies = []
    for seq, (path, at) in enumerate(proxies, start=1):
        base = len(pts)
        at = np.asarray(at, float)
        pts += list(at + [[0, 0, 0], [0.02, 0, 0], [0, 0, 0.02]])
        normals += [[0.0, -1.0, 0.0]] * 3
        uvs += [[0.0, 0.0]] * 3
        faces.append([base, base + 1, base + 2])
        sections.append((len(faces) - 1, len(faces), -1, -1, PROXY_FLAG | 0x2000))
        m = np.eye(4)
        m[:3, 3] = at
        spec_proxies.append((path, m, seq))
    return SpecLod(resolution, np.asarray(pts, np.float32), faces, np.asarray(normals),
                   [np.asarray(uvs)], textures, sections, materials, [], spec_proxies)


def texture_pixels(k, side):
    """An RGBA image for texture ``k``: stripes and a gradient, so DXT has something to keep."""
    y, x = np.mgrid[0:side, 0:side]
    rgba = np.empty((side, side, 4), np.uint8)
    rgba[..., 0] = (x * 255 // side + 40 * k) % 256
    rgba[..., 1] = ((x // 8 + y // 8) % 2) * 120 + 60
    rgba[..., 2] = (y * 255 // side) ^ (k * 23 % 256)
    rgba[..., 3] = 255
    if k % 4 == 3:
        rgba[..., 3] = np.where((x // 16) % 2 == 0, 255, 40)        # some with alpha
    return rgba


def paa_bytes(k, side):
    """A PAA (DXT5 if the image has alpha, else DXT1; LZO-compressed) of texture ``k``."""
    import etcpak                     # the encoder the add-on writes DDS with
    rgba = texture_pixels(k, side)
    alpha = (rgba[..., 3] < 255).any()
    encode = etcpak.compress_bc3 if alpha else etcpak.compress_bc1
    data = encode(np.ascontiguousarray(rgba).tobytes(), side, side)
    return build_paa(DXT5 if alpha else DXT1, side, side, data, compress=True)


def truck_lods(textures, frame_at=(0.0, 0.7, 0.0)):
    cab = ((0.0, 1.6, 2.2), (1.1, 0.9, 0.8))
    cargo = [((x, 1.8, z), (0.5, 0.7, 0.5)) for x in (-0.6, 0.6) for z in (-2.6, -1.6, -0.6, 0.4)]
    boxes = [cab] + cargo
    names = [f"{PREFIX}\\data\\part{k:02d}_co.paa" for k in range(textures)]
    proxies = [(f"{PREFIX}\\frame", frame_at)]
    proxies += [(f"{PREFIX}\\wheels\\wheel", (x, 0.0, z)) for x in (-1.0, 1.0) for z in (-2.0, 1.8)]
    proxies += [(f"{PREFIX}\\crew\\driver_missing", (0.5, 1.5, 2.2))]
    visual = boxes_lod(1.0, boxes, proxies,
                       lambda k: names[k % textures] if textures else None)
    extra = [((0.0, 3.2, -3.5 + 0.1 * k), (0.05, 0.05, 0.05)) for k in range(max(0, textures - len(boxes)))]
    if extra:                              # more textures than parts: small tagged boxes
        more = boxes_lod(1.0, boxes + extra, proxies,
                         lambda k: names[k % textures] if k < textures else names[0])
        visual = more
    geometry = boxes_lod(GEOMETRY, [((0.0, 1.5, 0.0), (1.2, 1.2, 3.2))])
    return [visual, geometry], names


def add_hull(lod, triangles, texture, centre=(0.0, 1.8, -1.1), radius=(1.1, 0.8, 1.6)):
    """``lod`` with a dense closed ellipsoid of about ``triangles`` triangles appended in a
    section of its own (``texture``): the many-triangle hull of a real vehicle."""
    rings = max(4, int(np.sqrt(triangles / 2.0 / 2.0)))
    segments = max(6, int(triangles / 2.0 / rings))
    theta = np.linspace(0.02, np.pi - 0.02, rings + 1)
    phi = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    t, f = np.meshgrid(theta, phi, indexing="ij")
    unit = np.stack([np.sin(t) * np.cos(f), np.cos(t), np.sin(t) * np.sin(f)], -1).reshape(-1, 3)
    pts = np.asarray(centre) + unit * radius
    a = (np.arange(rings)[:, None] * (segments + 1) + np.arange(segments)).ravel()
    c = a + segments + 1
    tris = np.concatenate([np.stack([a, a + 1, c], 1), np.stack([a + 1, c + 1, c], 1)])
    probe = pts[tris[0]]
    if np.dot(np.cross(probe[1] - probe[0], probe[2] - probe[0]), probe[0] - centre) < 0:
        tris = tris[:, ::-1]                 # right-handed cross products outward, as real files
    base, first = len(lod.points), len(lod.faces)
    uv = np.stack([f.ravel() / (2 * np.pi), t.ravel() / np.pi], 1)
    return SpecLod(lod.resolution, np.concatenate([lod.points, pts]).astype(np.float32),
                   lod.faces + (tris + base).tolist(), np.concatenate([lod.normals, -unit]),
                   [np.concatenate([lod.uvs[0], uv])], lod.textures + [texture],
                   lod.sections + [(first, first + len(tris), len(lod.textures),
                                    len(lod.materials))],
                   lod.materials + [texture.replace("_co.paa", ".rvmat")], [], lod.proxies)


FRAME_CENTRE = (0.0, 2.2, -0.4)         # a frame binarised with autocenter (build_vehicle)


def build_vehicle(folder, textures=19, side=256, big_side=None, big=0, centred=False, hull=0):
    """Write the truck, its proxied parts and textures below ``folder``; returns the truck's
    path. ``big`` of the textures are ``big_side`` pixels square (a truck's hull maps).
    ``centred``: the frame is stored as the binariser stores a part with autocenter on (as a
    real truck's frame, cab and seats are): modelled 2.2 m above its own origin (its proxy
    1.5 m below the truck's), its points moved by minus its bounding centre ``FRAME_CENTRE``;
    placed as the game places it, it stands where the plain frame does. ``hull``: that many
    triangles more in a dense hull (:func:`add_hull`) with the first texture."""
    folder.mkdir(parents=True, exist_ok=True)
    lods, names = truck_lods(textures, (0.0, 0.7 - FRAME_CENTRE[1], 0.0) if centred
                             else (0.0, 0.7, 0.0))
    if hull and textures:
        lods[0] = add_hull(lods[0], hull, names[0])
    (folder / "truck.p3d").write_bytes(build_odol(VERSION, lods))
    texture = (lambda k: f"{PREFIX}\\data\\part00_co.paa") if textures else None
    if centred:
        frame = boxes_lod(1.0, [((0.0, 0.0, 0.0), (0.9, 0.15, 3.0))], [], texture)
        frame_bytes = build_odol(VERSION, [frame], centre=FRAME_CENTRE)
    else:
        frame = boxes_lod(1.0, [((0.0, 0.0, -0.4), (0.9, 0.15, 3.0))], [], texture)
        frame_bytes = build_odol(VERSION, [frame])
    (folder / "frame.p3d").write_bytes(frame_bytes)
    (folder / "wheels").mkdir(exist_ok=True)
    wheel = boxes_lod(1.0, [((0.0, 0.0, 0.0), (0.2, 0.5, 0.5))],
                      [(f"{PREFIX}\\wheels\\hub", (0.25, 0.0, 0.0))])
    (folder / "wheels" / "wheel.p3d").write_bytes(build_odol(VERSION, [wheel]))
    hub = boxes_lod(1.0, [((0.0, 0.0, 0.0), (0.05, 0.15, 0.15))])
    (folder / "wheels" / "hub.p3d").write_bytes(build_odol(VERSION, [hub]))
    data = folder / "data"
    data.mkdir(exist_ok=True)
    for k in range(textures):
        s = big_side if (big_side and k < big) else side
        (data / f"part{k:02d}_co.paa").write_bytes(paa_bytes(k, s))
    return folder / "truck.p3d"
