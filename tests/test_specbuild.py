"""Self-check of tests/specbuild.py against the format specs and the real corpus.

Everything here is independent of the add-on: a tiny walker and decoders written in this
file parse the builder's output (and the real corpus files) so that the fixtures are known
to be right before readers are tested against them.  No bpy, no io_alamo.
"""

from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

import pytest
from corpus import CORPUS

sys.path.insert(0, str(Path(__file__).resolve().parent))
import specbuild as sb  # noqa: E402


# mini-chunk holding data chunks (by file kind)
ALO_MINI_TYPES = {0x601, 0x602, 0x603, 0x10102, 0x10103, 0x10104, 0x10105, 0x10106, 0x1201}
ALA_MINI_TYPES = {0x1001, 0x1003}


# ---------------------------------------------------------------------------------------
# A tiny independent walker / decoder
# ---------------------------------------------------------------------------------------


class Node:
    __slots__ = ("type", "is_container", "off", "size", "children", "body")

    def __init__(self, type, is_container, off, size, body, children):
        self.type, self.is_container, self.off = type, is_container, off
        self.size, self.body, self.children = size, body, children

    def kids(self, t=None):
        return [c for c in self.children if t is None or c.type == t]

    def one(self, t):
        found = self.kids(t)
        assert len(found) == 1, f"expected one {t:#x} in {self.type:#x}, got {len(found)}"
        return found[0]


def walk(data: bytes, off: int = 0, end: int | None = None, depth: int = 0):
    """Parse chunks; assert that children fill their parent exactly (no gap, no overrun)."""
    end = len(data) if end is None else end
    out = []
    assert depth < 64
    while off < end:
        assert off + 8 <= end, f"partial chunk header at {off}"
        t, s = struct.unpack_from("<II", data, off)
        cont, size = bool(s & 0x80000000), s & 0x7FFFFFFF
        assert off + 8 + size <= end, f"chunk {t:#x} at {off} overruns its parent"
        body = data[off + 8:off + 8 + size]
        kids = walk(data, off + 8, off + 8 + size, depth + 1) if cont else []
        out.append(Node(t, cont, off, size, body, kids))
        off += 8 + size
    assert off == end
    return out


def minis(body: bytes):
    """Mini-chunks (type, bytes) that must fill the body exactly."""
    out, i = [], 0
    while i < len(body):
        assert i + 2 <= len(body), "partial mini header"
        t, s = body[i], body[i + 1]
        assert i + 2 + s <= len(body), "mini-chunk runs past its chunk"
        out.append((t, body[i + 2:i + 2 + s]))
        i += 2 + s
    assert i == len(body)
    return out


def iter_nodes(nodes):
    for n in nodes:
        yield n
        yield from iter_nodes(n.children)


def zstr(b: bytes):
    """(text, bytes after the NUL); a NUL is required."""
    i = b.index(b"\0")
    return b[:i].decode("cp1252"), b[i + 1:]


def f3(b):
    return struct.unpack("<3f", b)


def decode_bone(node):
    name, pad = zstr(node.one(0x203).body)
    data = node.kids()[1]
    assert data.type in (0x205, 0x206)
    if data.type == 0x206:
        assert data.size == 60
        parent, visible, billboard, *m = struct.unpack("<iII12f", data.body)
    else:
        assert data.size == 56
        parent, visible, *m = struct.unpack("<iI12f", data.body)
        billboard = 0
    bone = {"name": name, "parent": parent, "visible": visible, "billboard": billboard,
            "matrix": tuple(m)}
    if pad:
        bone["name_pad"] = pad
    return bone, data.type


def decode_skeleton(node):
    hdr = node.kids()[0]
    assert hdr.type == 0x201 and hdr.size == 128
    count = struct.unpack_from("<I", hdr.body)[0]
    bones, types = [], set()
    for b in node.kids()[1:]:
        assert b.type == 0x202
        bone, t = decode_bone(b)
        bones.append(bone)
        types.add(t)
    assert count == len(bones)
    assert len(types) <= 1
    return {"bones": bones, "bone_chunk_type": types.pop() if types else 0x206,
            "header_pad": hdr.body[4:]}


VERT = struct.Struct("<3f3f8f3f3f4f4f4I4f")
VERT5 = struct.Struct("<3f3f8f3f3f4f4I4f")


def decode_vertices(body, vc):
    st = VERT if vc == 0x10007 else VERT5
    assert len(body) % st.size == 0
    out = []
    for v in st.iter_unpack(body):
        d = {"position": v[0:3], "normal": v[3:6],
             "uv": [tuple(v[6 + 2 * i:8 + 2 * i]) for i in range(4)],
             "tangent": v[14:17], "binormal": v[17:20], "color": v[20:24]}
        rest = v[24:]
        if vc == 0x10007:
            d["unused"], rest = rest[0:4], rest[4:]
        d["bone_indices"], d["bone_weights"] = rest[0:4], rest[4:8]
        out.append(d)
    return out


PARAM_KIND = {0x10102: "int", 0x10103: "float", 0x10104: "float3", 0x10105: "texture",
              0x10106: "float4"}


def decode_param(node):
    m = minis(node.body)
    assert [t for t, _ in m] == [1, 2]
    name = zstr(m[0][1])[0]
    kind, raw = PARAM_KIND[node.type], m[1][1]
    if kind == "int":
        value = struct.unpack("<i", raw)[0]
    elif kind == "float":
        value = struct.unpack("<f", raw)[0]
    elif kind == "float3":
        value = struct.unpack("<3f", raw)
    elif kind == "float4":
        value = struct.unpack("<4f", raw)
    else:
        value = zstr(raw)[0]
    return (kind, name, value)


def decode_collision(node):
    hdr = dict(minis(node.one(0x1201).body))
    assert sorted(hdr) == [0, 1, 2, 3]
    nn, nt = struct.unpack("<I", hdr[2])[0], struct.unpack("<I", hdr[3])[0]
    nb, tb = node.one(0x1202).body, node.one(0x1203).body
    assert len(nb) == 10 * nn and len(tb) == 2 * nt
    nodes = []
    for i in range(nn):
        v = struct.unpack_from("<6BHH", nb, 10 * i)
        nodes.append((tuple(v[0:3]), tuple(v[3:6]), v[6], v[7]))
    return {"box_min": f3(hdr[0]), "box_max": f3(hdr[1]), "nodes": nodes,
            "triangles": list(struct.unpack(f"<{nt}H", tb))}


def decode_mesh(node):
    kids = node.kids()
    assert [k.type for k in kids[:2]] == [0x401, 0x402]
    name, name_pad = zstr(kids[0].body)
    info = kids[1]
    assert info.size == 128
    nmat = struct.unpack_from("<I", info.body)[0]
    bb = struct.unpack_from("<6f", info.body, 4)
    unused, hidden, collision = struct.unpack_from("<3I", info.body, 28)
    pairs = [k for k in kids[2:] if k.type in (0x10100, 0x10000)]  # skip unknown chunks
    assert [k.type for k in pairs] == [0x10100, 0x10000] * nmat
    subs = []
    for mat, dat in zip(pairs[0::2], pairs[1::2]):
        shader = zstr(mat.kids()[0].body)[0]
        assert mat.kids()[0].type == 0x10101
        params = [decode_param(p) for p in mat.kids()[1:]]
        dk = dat.kids()
        assert [k.type for k in dk[:2]] == [0x10001, 0x10002]
        h = dk[0]
        assert h.size == 128
        nv, npr = struct.unpack_from("<II", h.body)
        vb = dk[2]
        assert vb.type in (0x10005, 0x10007)
        assert vb.size == nv * {0x10007: 144, 0x10005: 128}[vb.type]
        ib = dk[3]
        assert ib.type == 0x10004 and ib.size == 6 * npr
        idx = struct.unpack(f"<{3 * npr}H", ib.body)
        sm = {"shader": shader, "params": params, "vertex_format": zstr(dk[1].body)[0],
              "vertices": decode_vertices(vb.body, vb.type),
              "indices": [tuple(idx[i:i + 3]) for i in range(0, len(idx), 3)],
              "bone_map": None, "collision": None, "vertex_chunk": vb.type}
        rest = dk[4:]
        if rest and rest[0].type == 0x10006:
            assert 1 <= rest[0].size // 4 <= 24 and rest[0].size % 4 == 0
            sm["bone_map"] = list(struct.unpack(f"<{rest[0].size // 4}I", rest[0].body))
            rest = rest[1:]
        if rest and rest[0].type == 0x1200:
            sm["collision"] = decode_collision(rest[0])
            rest = rest[1:]
        assert not rest, [hex(r.type) for r in rest]
        if h.body[8:] != bytes(120):
            sm["header_pad"] = h.body[8:]
        subs.append(sm)
    return {"kind": "mesh", "name": name, "submeshes": subs, "bbox": (bb[:3], bb[3:]),
            "hidden": hidden, "collision": collision, "unused": unused,
            "info_pad": info.body[40:], "name_pad": name_pad}


def decode_light(node):
    name = zstr(node.one(0x1301).body)[0]
    info = node.one(0x1302)
    assert info.size == 36
    t, r, g, b, inten, fe, fs, hs, fo = struct.unpack("<I8f", info.body)
    return {"kind": "light", "name": name, "type": t, "color": (r, g, b), "intensity": inten,
            "far_end": fe, "far_start": fs, "hotspot": hs, "falloff": fo}


DAZZLE_ORDER = [0, 1, 2, 3, 4, 6, 5, 7, 8, 9, 10, 11, 12]


def decode_dazzle(m):
    types = [t for t, _ in m]
    assert types in (DAZZLE_ORDER, DAZZLE_ORDER + [13]), types
    d = dict(m)
    u = lambda k: struct.unpack("<I", d[k])[0]  # noqa: E731
    fl = lambda k: struct.unpack("<f", d[k])[0]  # noqa: E731
    return {"name": zstr(d[11])[0], "color": f3(d[0]), "position": f3(d[1]), "radius": fl(2),
            "tex_x": u(3), "tex_y": u(4), "tex_size": u(6), "texture": zstr(d[5])[0],
            "frequency": fl(7), "phase": fl(8), "night_only": u(9), "bone": u(10),
            "hidden": u(12), "bias": fl(13) if 13 in d else None}


def decode_connections(node):
    kids = node.kids()
    hdr = minis(kids[0].body)
    assert kids[0].type == 0x601 and [t for t, _ in hdr] in ([1, 4], [1, 4, 9])
    h = {t: struct.unpack("<I", v)[0] for t, v in hdr}
    objects, proxies, dazzles, layouts = [], [], [], set()
    for k in kids[1:]:
        if k.type == 0x602:
            m = minis(k.body)
            assert [t for t, _ in m] == [2, 3]
            objects.append(tuple(struct.unpack("<I", v)[0] for _, v in m))
        elif k.type == 0x603:
            m = dict(minis(k.body))
            proxies.append({"name": zstr(m[5])[0], "bone": struct.unpack("<I", m[6])[0],
                            "hidden": struct.unpack("<I", m[7])[0] if 7 in m else None,
                            "alt": struct.unpack("<I", m[8])[0] if 8 in m else None})
        elif k.type == 0x604:
            if k.is_container:
                dazzles.append(decode_dazzle(minis(k.one(0x0).body)))
                layouts.add("nested")
            else:
                dazzles.append(decode_dazzle(minis(k.body)))
                layouts.add("direct")
    assert h[1] == len(objects) and h[4] == len(proxies)
    assert len(layouts) <= 1
    return {"connections": objects, "proxies": proxies, "dazzles": dazzles,
            "dazzle_count": h.get(9), "dazzle_layout": layouts.pop() if layouts else "direct"}


def decode_alo(data: bytes):
    roots = walk(data)
    assert roots[0].type == 0x200
    spec = decode_skeleton(roots[0])
    spec["objects"] = []
    for r in roots[1:]:
        if r.type == 0x400:
            spec["objects"].append(decode_mesh(r))
        elif r.type == 0x1300:
            spec["objects"].append(decode_light(r))
    assert roots[-1].type == 0x600
    spec.update(decode_connections(roots[-1]))
    return spec


def bits(body, n):
    return [bool((body[i // 8] >> (i % 8)) & 1) for i in range(n)]


def decode_ala(data: bytes):
    roots = walk(data)
    assert len(roots) == 1 and roots[0].type == 0x1000
    top = roots[0]
    hdr = top.kids()[0]
    assert hdr.type == 0x1001
    hm = minis(hdr.body)
    types = [t for t, _ in hm]
    assert types in ([1, 2, 3], [1, 2, 3, 11, 12, 13])
    fmt = 1 if len(types) == 3 else 2
    assert hdr.size == (18 if fmt == 1 else 36)
    h = {t: v for t, v in hm}
    nf, fps, nb = (struct.unpack("<I", h[1])[0], struct.unpack("<f", h[2])[0],
                   struct.unpack("<I", h[3])[0])
    bones, idx = [], []
    bone_nodes = top.kids(0x1002)
    assert len(bone_nodes) == nb
    for bn in bone_nodes:
        m = minis(bn.kids()[0].body)
        assert bn.kids()[0].type == 0x1003
        bt = [t for t, _ in m]
        assert bt == ([4, 5, 10, 6, 7, 8, 9] if fmt == 1
                      else [4, 5, 10, 6, 7, 8, 9, 14, 15, 16, 17]), bt
        d = dict(m)
        b = {"name": zstr(d[4])[0], "index": struct.unpack("<I", d[5])[0],
             "unknown": struct.unpack("<I", d[10])[0],
             "translation_offset": f3(d[6]), "translation_scale": f3(d[7]),
             "scale_offset": f3(d[8]), "scale_scale": f3(d[9]),
             "translation": None, "scale": None, "rotation": None, "default_rotation": None,
             "visibility": None, "step": None}
        kids = {k.type: k for k in bn.kids()[1:]}
        assert len(kids) == len(bn.kids()) - 1
        if fmt == 1:
            order = [k.type for k in bn.kids()[1:]]
            assert order == sorted(order) and set(order) <= {0x1004, 0x1005, 0x1006, 0x1007,
                                                            0x1008}
            for t, key in ((0x1004, "translation"), (0x1005, "scale")):
                if t in kids:
                    assert kids[t].size == 6 * nf
                    v = struct.unpack(f"<{3 * nf}H", kids[t].body)
                    b[key] = [tuple(v[i:i + 3]) for i in range(0, 3 * nf, 3)]
            rot = kids[0x1006]
            if rot.size == 8:
                b["default_rotation"] = struct.unpack("<4h", rot.body)
            else:
                assert rot.size == 8 * nf
                v = struct.unpack(f"<{4 * nf}h", rot.body)
                b["rotation"] = [tuple(v[i:i + 4]) for i in range(0, 4 * nf, 4)]
                b["default_rotation"] = b["rotation"][0]
        else:
            assert set(kids) <= {0x1007, 0x1008}
            idx.append(tuple(struct.unpack("<h", d[k])[0] for k in (14, 15, 16)))
            b["default_rotation"] = struct.unpack("<4h", d[17])
        for t, key in ((0x1007, "visibility"), (0x1008, "step")):
            if t in kids:
                assert kids[t].size == (nf + 7) // 8
                b[key] = bits(kids[t].body, nf)
        bones.append(b)
    spec = {"format": fmt, "num_frames": nf, "fps": fps, "bones": bones}
    if fmt == 2:
        rs, ts, ss = (struct.unpack("<I", h[k])[0] for k in (11, 12, 13))
        blocks = top.kids()[1 + nb:]
        expect = [t for t, n in ((0x100A, ts), (0x1009, rs), (0x100B, ss)) if n]
        assert [k.type for k in blocks] == expect
        blk = {k.type: k for k in blocks}
        for t, size, width, key, slot, fmtc in ((0x100A, ts, 3, "translation", 0, "H"),
                                                (0x100B, ss, 3, "scale", 1, "H"),
                                                (0x1009, rs, 4, "rotation", 2, "h")):
            if not size:
                assert all(i[slot] == -1 for i in idx)
                continue
            assert blk[t].size == nf * size * 2
            vals = struct.unpack(f"<{nf * size}{fmtc}", blk[t].body)
            for b, i in zip(bones, idx):
                o = i[slot]
                if o == -1:
                    continue
                assert 0 <= o and o + width <= size and o % width == 0
                b[key] = [tuple(vals[f * size + o:f * size + o + width]) for f in range(nf)]
        spec["indices"] = idx
        spec["frame_sizes"] = (rs, ts, ss)
    return spec


# ---------------------------------------------------------------------------------------
# Comparison helpers
# ---------------------------------------------------------------------------------------


def norm(x):
    """Turn tuples/lists (recursively) into lists and ints/floats into floats for ==."""
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [norm(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, (str, bytes)):
        return x
    if isinstance(x, (int, float)):
        return float(x)
    return x


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


ALO_FIXTURES = {k: v for k, v in sb.ALL_FIXTURES.items() if k.startswith("fixture_alo")}
ALA_FIXTURES = {k: v for k, v in sb.ALL_FIXTURES.items() if k.startswith("fixture_ala")}


# ---------------------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------------------


def test_chunk_container_mini_cstr():
    assert sb.chunk(0x203, b"ab\0") == struct.pack("<II", 0x203, 3) + b"ab\0"
    c = sb.container(0x202, sb.chunk(1, b"x"), sb.chunk(2, b""))
    assert struct.unpack_from("<II", c) == (0x202, 0x80000000 | 17)
    assert sb.mini(5, b"\1\0\0\0") == b"\x05\x04\1\0\0\0"
    assert sb.cstr("Root") == b"Root\0"
    assert sb.cstr("caf\xe9", b"xy") == b"caf\xe9\0xy"
    with pytest.raises(ValueError):
        sb.mini(1, bytes(256))


def test_skeleton_sizes():
    bones = [{"name": "Root", "parent": -1, "visible": 1, "billboard": 3,
              "matrix": sb.IDENTITY_MATRIX},
             {"name": "B", "parent": 0, "visible": 0, "billboard": 0,
              "matrix": [float(i) for i in range(12)]}]
    for ct, size in ((0x206, 60), (0x205, 56)):
        sk = walk(sb.skeleton(bones, chunk_type=ct))[0]
        assert sk.kids()[0].size == 128
        assert all(b.kids()[1].size == size for b in sk.kids(0x202))
        dec = decode_skeleton(sk)
        assert dec["bones"][1]["matrix"] == tuple(float(i) for i in range(12))
        assert dec["bones"][0]["billboard"] == (3 if ct == 0x206 else 0)
    with pytest.raises(ValueError):
        sb.skeleton([bones[1]])


def test_vertex_sizes_and_defaults():
    assert len(sb.vertex_bytes({}, 0x10007)) == 144
    assert len(sb.vertex_bytes({}, 0x10005)) == 128
    v = decode_vertices(sb.vertex_bytes({"position": (1, 2, 3)}), 0x10007)[0]
    assert v["unused"] == (1, 1, 1, 1) and v["bone_weights"] == (1, 0, 0, 0)
    assert v["uv"] == [(0, 0)] * 4 and v["color"] == (0, 0, 0, 0)
    assert v["position"] == (1, 2, 3)
    v = decode_vertices(sb.vertex_bytes({"uv": (0.5, 0.25)}, 0x10005), 0x10005)[0]
    assert "unused" not in v and v["uv"][0] == (0.5, 0.25)


def test_numpy_vertices_match_dicts():
    np = pytest.importorskip("numpy")
    _, spec = sb.fixture_alo_b4i4()
    verts = spec["objects"][0]["submeshes"][0]["vertices"]
    arr = np.zeros(len(verts), dtype=sb.vertex_dtype(0x10007))
    for i, v in enumerate(verts):
        for k, val in v.items():
            arr[i][k] = val
    assert arr.dtype.itemsize == 144
    expect = b"".join(sb.vertex_bytes(v) for v in verts)
    assert sb._vertices_bytes(arr, 0x10007) == expect
    # a 144-byte array written as 0x10005 drops the unused field
    assert sb._vertices_bytes(arr, 0x10005) == b"".join(sb.vertex_bytes(v, 0x10005)
                                                        for v in verts)


# ---------------------------------------------------------------------------------------
# Fixtures: structure and content
# ---------------------------------------------------------------------------------------


def _check_sizes(data, mini_types):
    roots = walk(data)
    for n in iter_nodes(roots):
        if n.type in (0x201, 0x402, 0x10001):
            assert n.size == 128
        if n.type in mini_types or (n.type == 0x604 and not n.is_container):
            minis(n.body)
        if n.type == 0x0 and n.size:
            minis(n.body)
        if n.type == 0x1302:
            assert n.size == 36
    return roots


@pytest.mark.parametrize("name", sorted(ALO_FIXTURES))
def test_alo_fixture_decodes_to_spec(name):
    data, spec = ALO_FIXTURES[name]()
    assert isinstance(data, bytes) and isinstance(spec, dict)
    roots = _check_sizes(data, ALO_MINI_TYPES)
    dec = decode_alo(data)
    nb = len(spec["bones"])
    # consistency rules the notes give for every model
    assert [r.type for r in roots][0] == 0x200 and roots[-1].type == 0x600
    assert dec["bones"][0]["parent"] == -1
    assert all(0 <= b["parent"] < i for i, b in enumerate(dec["bones"]) if i)
    nobj = sum(1 for r in roots if r.type in (0x400, 0x1300))
    assert sorted(o for o, _ in dec["connections"]) == list(range(nobj))
    assert all(0 <= b < nb for _, b in dec["connections"])
    assert all(0 <= p["bone"] < nb for p in dec["proxies"])
    for o in dec["objects"]:
        if o["kind"] != "mesh":
            continue
        assert o["collision"] == int(all(sm["collision"] for sm in o["submeshes"]))
        for sm in o["submeshes"]:
            nv = len(sm["vertices"])
            assert all(0 <= i < nv for t in sm["indices"] for i in t)
            if sm["bone_map"]:
                assert all(0 <= b < nb for b in sm["bone_map"])
                assert all(v["bone_indices"][k] < len(sm["bone_map"])
                           for v in sm["vertices"] for k in range(4) if v["bone_weights"][k])
    # content: what was decoded is what went in
    want = {k: spec[k] for k in ("bones", "bone_chunk_type", "connections", "proxies",
                                 "dazzles", "dazzle_count", "dazzle_layout")}
    got = {k: dec[k] for k in want}
    for b in got["bones"]:
        b.pop("name_pad", None)
    assert norm(got) == norm(want)
    keys = ("kind", "name", "submeshes", "bbox", "hidden", "collision")
    light_keys = ("kind", "name", "type", "color", "intensity", "far_end", "far_start",
                  "hotspot", "falloff")
    for o_dec, o_spec in zip(dec["objects"], spec["objects"], strict=True):
        ks = keys if o_spec["kind"] == "mesh" else light_keys
        assert norm({k: o_dec[k] for k in ks}) == norm({k: o_spec[k] for k in ks})
    assert spec["meshes"] == [o for o in spec["objects"] if o["kind"] == "mesh"]
    assert spec["lights"] == [o for o in spec["objects"] if o["kind"] == "light"]


def test_fixture_values_are_float32_exact():
    """So that readers' decoded values compare with == against the spec dicts."""
    def floats(x):
        if isinstance(x, dict):
            for v in x.values():
                yield from floats(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                yield from floats(v)
        elif isinstance(x, float):
            yield x
    for name, fn in sb.ALL_FIXTURES.items():
        _, spec = fn()
        bad = [v for v in floats(spec) if f32(v) != v]
        assert not bad, (name, bad[:5])


def test_fixture_205_has_56_byte_bones():
    data, _ = sb.fixture_alo_205_bones()
    roots = walk(data)
    assert {n.size for n in iter_nodes(roots) if n.type == 0x205} == {56}
    assert not [n for n in iter_nodes(roots) if n.type == 0x206]


def test_fixture_10005_vertices():
    data, spec = sb.fixture_alo_10005_vertices()
    vbs = [n for n in iter_nodes(walk(data)) if n.type in (0x10005, 0x10007)]
    assert {n.type for n in vbs} == {0x10005}
    assert all(n.size % 128 == 0 and n.size == 128 * 4 for n in vbs)
    assert all("unused" not in v for sm in spec["meshes"][0]["submeshes"]
               for v in sm["vertices"])


def test_fixture_lights_types_and_object_indices():
    data, spec = sb.fixture_alo_lights()
    roots = walk(data)
    assert [r.type for r in roots] == [0x200, 0x400, 0x1300, 0x400, 0x1300, 0x1300, 0x600]
    assert sorted(l["type"] for l in spec["lights"]) == [0, 1, 2]


@pytest.mark.parametrize("fn,layout", [(sb.fixture_alo_dazzles_direct, "direct"),
                                       (sb.fixture_alo_dazzles_nested, "nested")])
def test_fixture_dazzles(fn, layout):
    data, spec = fn()
    con = walk(data)[-1]
    dz = con.kids(0x604)
    assert len(dz) == 2
    assert all(d.is_container == (layout == "nested") for d in dz)
    if layout == "nested":
        assert all([k.type for k in d.kids()] == [0x0] for d in dz)
    biases = [d["bias"] for d in spec["dazzles"]]
    assert biases[0] is not None and biases[1] is None
    assert dict(minis(con.one(0x601).body))[9] == struct.pack("<I", 2)


def test_fixture_proxies_minis():
    data, spec = sb.fixture_alo_proxies_no_minis()
    con = walk(data)[-1]
    assert [t for t, _ in minis(con.one(0x601).body)] == [1, 4]
    shapes = [[t for t, _ in minis(p.body)] for p in con.kids(0x603)]
    assert [5, 6] in shapes and [5, 6, 7] in shapes and [5, 6, 8] in shapes
    assert [5, 6, 7, 8] in shapes


def test_fixture_b4i4_skinning():
    data, spec = sb.fixture_alo_b4i4()
    sm = decode_alo(data)["objects"][0]["submeshes"][0]
    assert sm["vertex_format"] == "alD3dVertB4I4NU2U3U3" and sm["bone_map"]
    assert max(len({i for i, w in zip(v["bone_indices"], v["bone_weights"]) if w})
               for v in sm["vertices"]) == 4
    assert all(sum(v["bone_weights"]) == 1.0 for v in sm["vertices"])


def test_fixture_all_param_types():
    data, _ = sb.fixture_alo_all_param_types()
    mat = [n for n in iter_nodes(walk(data)) if n.type == 0x10100][0]
    types = [k.type for k in mat.kids()[1:]]
    assert set(types) == set(PARAM_KIND)
    assert types != sorted(types)


def test_fixture_collision_tree_valid():
    data, spec = sb.fixture_alo_collision()
    dec = decode_alo(data)
    m = dec["objects"][0]
    assert m["collision"] == 1 and m["hidden"] == 1
    sm = m["submeshes"][0]
    tree = sm["collision"]
    nodes = tree["nodes"]
    assert nodes[0][:2] == ((0, 0, 0), (255, 255, 255))
    seen_tris, visited = [], set()

    def visit(i, bmin, bmax, depth):
        assert i not in visited and depth < 32
        visited.add(i)
        qmin, qmax, count, link = nodes[i]
        span = [bmax[a] - bmin[a] for a in range(3)]
        lo = [bmin[a] + qmin[a] / 255 * span[a] for a in range(3)]
        hi = [bmin[a] + qmax[a] / 255 * span[a] for a in range(3)]
        if count:
            assert 1 <= count <= 7 and link + count <= len(tree["triangles"])
            for t in tree["triangles"][link:link + count]:
                seen_tris.append(t)
                for vi in sm["indices"][t]:
                    p = sm["vertices"][vi]["position"]
                    assert all(lo[a] - 1e-5 <= p[a] <= hi[a] + 1e-5 for a in range(3))
        else:
            assert link + 1 < len(nodes)
            visit(link, lo, hi, depth + 1)
            visit(link + 1, lo, hi, depth + 1)

    visit(0, tree["box_min"], tree["box_max"], 0)
    assert visited == set(range(len(nodes)))
    assert sorted(seen_tris) == list(range(len(sm["indices"])))


def test_fixture_unknown_chunks():
    data, spec = sb.fixture_alo_unknown_chunks()
    roots = walk(data)
    assert [r.type for r in roots] == [0x200, 0x400, 0x7778, 0x600]
    assert roots[2].is_container
    assert [k.type for k in roots[1].kids()][:3] == [0x401, 0x402, 0x7777]
    assert not roots[1].kids()[2].is_container
    info = roots[1].one(0x402)
    assert info.size == 128 and info.body[40:] == spec["unknown"]["mesh_info_pad"]
    assert any(b != 0 for b in info.body[40:])
    assert 0x63 in [t for p in roots[-1].kids(0x603) for t, _ in minis(p.body)]
    bone = decode_skeleton(roots[0])["bones"][1]
    assert bone["name"] == "B_Turret" and bone["name_pad"] == spec["unknown"]["bone_name_pad"]


@pytest.mark.parametrize("name", sorted(ALA_FIXTURES))
def test_ala_fixture_decodes_to_spec(name):
    data, spec = ALA_FIXTURES[name]()
    _check_sizes(data, ALA_MINI_TYPES)
    dec = decode_ala(data)
    assert dec["format"] == spec["format"]
    assert (dec["num_frames"], dec["fps"]) == (spec["num_frames"], spec["fps"])
    assert norm(dec["bones"]) == norm(spec["bones"])
    if spec["format"] == 2:
        rs, ts, ss = dec["frame_sizes"]
        have = lambda k: [b for b in spec["bones"] if b[k] is not None]  # noqa: E731
        assert (rs, ts, ss) == (4 * len(have("rotation")), 3 * len(have("translation")),
                                3 * len(have("scale")))


def test_ala_specific_chunks():
    d1, _ = sb.fixture_ala_v1_scale_step()
    types = {n.type for n in iter_nodes(walk(d1))}
    assert {0x1004, 0x1005, 0x1006, 0x1007, 0x1008} <= types
    d2, s2 = sb.fixture_ala_v2_scale()
    top = walk(d2)[0]
    assert [k.type for k in top.kids()[-3:]] == [0x100A, 0x1009, 0x100B]
    assert decode_ala(d2)["indices"] == [(0, 0, 0), (-1, -1, 4), (3, 3, -1), (-1, -1, -1),
                                         (-1, -1, 8)]
    d3, s3 = sb.fixture_ala_v1_constant()
    nodes = list(iter_nodes(walk(d3)))
    assert 0x1004 not in {n.type for n in nodes}
    assert {n.size for n in nodes if n.type == 0x1006} == {8} and s3["num_frames"] > 1


# ---------------------------------------------------------------------------------------
# Malformed cases
# ---------------------------------------------------------------------------------------


def test_malformed_cases_listed():
    cases = sb.malformed_cases()
    names = [n for n, _ in cases]
    assert len(set(names)) == len(names) and names == list(sb.MALFORMED_EXPECT)
    assert set(sb.MALFORMED_EXPECT.values()) == {"error", "validator"}
    d = dict(cases)
    assert d["empty_file"] == b"" and len(d["seven_stray_bytes"]) == 7
    assert len(d["deep_nesting_10000"]) == 8 * 10001
    # every "error" case is rejected by this file's strict walker/decoders, and the
    # "validator" cases parse but break a reference rule
    for name, data in cases:
        kind = sb.MALFORMED_EXPECT[name]
        if name == "deep_nesting_10000":
            continue  # the recursive test walker would stop at depth 64 anyway
        is_ala = name.startswith("ala") or name == "truncated_ala_in_frames"
        decode = decode_ala if is_ala else decode_alo
        if name in ("vertex_count_exceeds_buffer", "index_buffer_short"):
            # header count disagrees with whole buffers: this strict walker rejects it
            with pytest.raises((AssertionError, ValueError)):
                decode(data)
        elif kind == "error":
            with pytest.raises((AssertionError, ValueError, struct.error, IndexError,
                                KeyError)):
                decode(data)
        else:
            dec = decode(data)
            nb = len(dec["bones"])
            bad_parent = any(not 0 <= b["parent"] < i for i, b in enumerate(dec["bones"]) if i)
            bad_map = any(not 0 <= x < nb for o in dec["objects"]
                          for sm in o.get("submeshes", []) for x in sm["bone_map"] or [])
            assert bad_parent or bad_map, name


def test_deep_tower_depth():
    data = dict(sb.malformed_cases())["deep_nesting_10000"]
    off, depth = 0, 0
    while True:
        t, s = struct.unpack_from("<II", data, off)
        assert off + 8 + (s & 0x7FFFFFFF) == len(data)
        if not s & 0x80000000:
            break
        off, depth = off + 8, depth + 1
    assert depth == 10000


# ---------------------------------------------------------------------------------------
# Real corpus: the decoders agree with SOURCES.md, and the builder reproduces real files
# ---------------------------------------------------------------------------------------


def _corpus():
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS} (shared/ beside the work tree)")
    return CORPUS


def _sources():
    rows = {}
    src = _corpus() / "SOURCES.md"
    if not src.is_file():
        pytest.skip(f"{src} missing")
    for line in src.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and "." in cells[0] and cells[0] != "file":
            what = "|".join(cells[6:])  # the chunk list in that cell holds "|" too
            rows[cells[0]] = dict(re.findall(r"([\w-]+)=([^\s]+)", what))
            rows[cells[0]]["kind"] = what.split(":")[0]
    return rows


def _files(ext):
    return sorted(p for p in _corpus().iterdir() if p.suffix.lower() == ext)


def test_corpus_known_values():
    rows = _sources()
    checked = 0
    for p in _files(".ala") + _files(".alo"):
        row = rows.get(p.name)
        if row is None:
            continue
        data = p.read_bytes()
        if row["kind"] == "animation":
            dec = decode_ala(data)
            assert dec["format"] == int(row["ala"][1])
            assert dec["num_frames"] == int(row["frames"])
            assert dec["fps"] == float(row["fps"])
            assert len(dec["bones"]) == int(row["bones"])
            assert walk(data)[0].one(0x1001).size == int(row["0x1001size"])
            types = {f"{n.type:#x}" for n in iter_nodes(walk(data))}
            assert types == set(row["chunks"].split("|")), p.name
            checked += 1
        elif row["kind"] == "model":
            dec = decode_alo(data)
            meshes = [o for o in dec["objects"] if o["kind"] == "mesh"]
            subs = [sm for m in meshes for sm in m["submeshes"]]
            assert len(dec["bones"]) == int(row["bones"]), p.name
            assert dec["bone_chunk_type"] == int(row["bonechunk"], 16)
            assert len(meshes) == int(row["meshes"])
            assert len(subs) == int(row["submeshes"])
            assert sum(len(sm["vertices"]) for sm in subs) == int(row["verts"])
            assert sum(len(sm["indices"]) for sm in subs) == int(row["tris"])
            assert len(dec["proxies"]) == int(row["proxies"])
            assert len(dec["dazzles"]) == int(row["dazzles"])
            assert sum(1 for sm in subs if sm["collision"]) == int(row["colltrees"])
            assert sum(1 for sm in subs if sm["bone_map"]) == int(row["skinmaps"])
            minis601 = "1,4,9" if dec["dazzle_count"] is not None else "1,4"
            assert minis601.startswith(row["conn601minis"].rstrip(","))  # cells are cut short
            checked += 1
    assert checked >= 20


def _rebuild_alo(dec):
    roots = [sb.skeleton(dec["bones"], dec["bone_chunk_type"], dec["header_pad"])]
    for o in dec["objects"]:
        if o["kind"] == "mesh":
            roots.append(sb.mesh(o["name"], o["submeshes"], o["bbox"], o["hidden"],
                                 o["collision"], unused=o["unused"], info_pad=o["info_pad"],
                                 name_pad=o["name_pad"]))
        else:
            roots.append(sb.light(o["name"], o["type"], o["color"], o["intensity"],
                                  o["far_end"], o["far_start"], o["hotspot"], o["falloff"]))
    roots.append(sb.connections(dec["connections"], dec["proxies"], dec["dazzles"],
                                dec["dazzle_count"], dec["dazzle_layout"]))
    return sb.alo(*roots)


def test_corpus_alo_rebuilt_byte_for_byte():
    """Decoding a real model and feeding the values to the builder gives the same bytes."""
    done = 0
    for p in _files(".alo"):
        data = p.read_bytes()
        if struct.unpack_from("<I", data)[0] != 0x200:
            continue  # particle effect
        assert _rebuild_alo(decode_alo(data)) == data, p.name
        done += 1
    assert done >= 10


def test_corpus_ala_rebuilt_byte_for_byte():
    """Same for animations: per-bone chunk order, bit packing, format-2 index assignment
    and frame-block layout of the builder all match real files."""
    done = sequential = 0
    for p in _files(".ala"):
        data = p.read_bytes()
        dec = decode_ala(data)
        if dec["format"] == 2:
            bones = [sb._ala_bone_defaults(b) for b in dec["bones"]]
            ti, si, ri, rs, ts, ss = sb.ala_v2_layout(bones)
            assert (rs, ts, ss) == dec["frame_sizes"]
            if list(zip(ti, si, ri)) == dec["indices"]:
                sequential += 1
            else:
                # offsets are not always assigned in bone-chunk order: keep the file's
                for b, (t, s, r) in zip(dec["bones"], dec["indices"]):
                    b.update(translation_index=t, scale_index=s, rotation_index=r)
        assert sb.build_ala(dec) == data, p.name
        done += 1
    assert done >= 10 and sequential >= 1
