"""Test-only builder for Alamo .alo / .ala files, written straight from the format specs.

This module is deliberately independent of the add-on (it never imports ``io_alamo``):
it turns plain Python values into file bytes with ``struct.pack`` so that tests can feed
a reader inputs whose content is known, including layouts that no real file in the corpus
has (0x205 bones, 0x10005 vertices, lights, dazzles, B4I4 skinning, scale tracks, ...).

Sources: ``shared/specs/alo-model-format.md``, ``ala-animation-format.md`` and
``FORMAT-NOTES.md`` (the notes win where they disagree with the spec pages).

Conventions
-----------
* All integers and floats are little-endian; floats are IEEE single precision.  Fixture
  values are chosen to be exactly representable as float32, so a reader's decoded values can
  be compared with ``==`` against the ``spec`` dict a fixture returns.
* Strings are written as cp1252 + NUL (``cstr``); anything after the NUL is "padding".
* Builder functions that take ``check=True`` raise ``ValueError`` on inconsistent input
  (wrong track lengths, indices out of range, ...).  ``malformed_cases`` passes
  ``check=False`` to build deliberately bad files.

Public API (see the docstrings for the dict fields):
    chunk, container, mini, cstr
    skeleton, bone_chunk, mesh, submesh_chunks, light, connections, alo, build_alo
    ala_v1, ala_v2, build_ala
    fixture_* functions (each returns ``(data: bytes, spec: dict)``)
    malformed_cases(), MALFORMED_EXPECT
"""

from __future__ import annotations

import copy
import math
import struct

__all__ = [
    "chunk", "container", "mini", "cstr",
    "skeleton", "bone_chunk", "mesh", "submesh_chunks", "light", "connections", "alo",
    "build_alo", "ala_v1", "ala_v2", "build_ala",
    "vertex_bytes", "normalize_vertex", "vertex_dtype", "quantize_box", "ala_v2_layout",
    "VERTEX_SIZE", "IDENTITY_MATRIX", "IDENTITY_QUAT",
    "LIGHT_OMNI", "LIGHT_DIRECTIONAL", "LIGHT_SPOT",
    "fixture_alo_205_bones", "fixture_alo_10005_vertices", "fixture_alo_lights",
    "fixture_alo_dazzles_direct", "fixture_alo_dazzles_nested",
    "fixture_alo_proxies_no_minis", "fixture_alo_b4i4", "fixture_alo_all_param_types",
    "fixture_alo_collision", "fixture_alo_unknown_chunks",
    "fixture_ala_v1_scale_step", "fixture_ala_v2_scale", "fixture_ala_v1_constant",
    "ALL_FIXTURES", "malformed_cases", "MALFORMED_EXPECT",
]

CONTAINER_BIT = 0x80000000

# ---------------------------------------------------------------------------------------
# Chunk-level building blocks
# ---------------------------------------------------------------------------------------


def chunk(type: int, body: bytes) -> bytes:
    """A data chunk: uint32 type, uint32 size (body only, bit 31 clear), body."""
    body = bytes(body)
    if len(body) >= CONTAINER_BIT:
        raise ValueError("chunk body too large")
    return struct.pack("<II", type, len(body)) + body


def container(type: int, *children: bytes) -> bytes:
    """A container chunk: its size has bit 31 set and its body is the child chunks."""
    body = b"".join(bytes(c) for c in children)
    if len(body) >= CONTAINER_BIT:
        raise ValueError("container body too large")
    return struct.pack("<II", type, len(body) | CONTAINER_BIT) + body


def mini(type: int, body: bytes) -> bytes:
    """A mini-chunk: uint8 type, uint8 size, body (at most 255 bytes)."""
    body = bytes(body)
    if not 0 <= type <= 255:
        raise ValueError("mini-chunk type must fit a byte")
    if len(body) > 255:
        raise ValueError("mini-chunk body longer than 255 bytes")
    return struct.pack("<BB", type, len(body)) + body


def cstr(text, pad: bytes = b"") -> bytes:
    """cp1252 text + NUL + optional bytes after the NUL (``bytes`` text is used as is)."""
    raw = text if isinstance(text, (bytes, bytearray)) else str(text).encode("cp1252")
    if b"\0" in raw:
        raise ValueError("string contains a NUL")
    return bytes(raw) + b"\0" + bytes(pad)


def _u32(v) -> bytes:
    return struct.pack("<I", int(v) & 0xFFFFFFFF)


def _i32(v) -> bytes:
    return struct.pack("<i", int(v))


def _f32(v) -> bytes:
    return struct.pack("<f", float(v))


def _f32s(vals, n) -> bytes:
    vals = [float(x) for x in vals]
    if len(vals) != n:
        raise ValueError(f"expected {n} floats, got {len(vals)}")
    return struct.pack(f"<{n}f", *vals)


def _u16(v) -> int:
    """Accepts -32768..65535 and returns the 16-bit pattern as unsigned."""
    v = int(v)
    if not -0x8000 <= v <= 0xFFFF:
        raise ValueError(f"value {v} does not fit 16 bits")
    return v & 0xFFFF


def _u16s(vals) -> bytes:
    vals = [_u16(x) for x in vals]
    return struct.pack(f"<{len(vals)}H", *vals)


def _flat(rows):
    out = []
    for r in rows:
        if hasattr(r, "__len__") and not isinstance(r, (str, bytes)):
            out.extend(int(x) for x in r)
        else:
            out.append(int(r))
    return out


def _bits(flags) -> bytes:
    """Frame i at byte i // 8, bit i % 8 (ceil(frames / 8) bytes)."""
    flags = [bool(x) for x in flags]
    out = bytearray((len(flags) + 7) // 8)
    for i, f in enumerate(flags):
        if f:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


# ---------------------------------------------------------------------------------------
# ALO: skeleton
# ---------------------------------------------------------------------------------------

IDENTITY_MATRIX = (1.0, 0.0, 0.0, 0.0,
                   0.0, 1.0, 0.0, 0.0,
                   0.0, 0.0, 1.0, 0.0)


def bone_chunk(bone: dict, chunk_type: int = 0x206) -> bytes:
    """One 0x202 container: 0x203 name + 0x205/0x206 data.

    bone = {"name": str, "parent": int, "visible": int, "billboard": int,
            "matrix": 12 floats (3 rows of 4, row-major, translation at 3, 7, 11)}
    Optional: "name_pad": bytes written after the name's NUL.
    0x206 = parent(i32) visible(u32) billboard(u32) matrix(12 f32) = 60 bytes;
    0x205 = the same without billboard = 56 bytes.
    """
    matrix = bone.get("matrix", IDENTITY_MATRIX)
    body = _i32(bone.get("parent", -1)) + _u32(bone.get("visible", 1))
    if chunk_type == 0x206:
        body += _u32(bone.get("billboard", 0))
    elif chunk_type != 0x205:
        raise ValueError("bone data chunk must be 0x205 or 0x206")
    body += _f32s(matrix, 12)
    return container(0x202,
                     chunk(0x203, cstr(bone["name"], bone.get("name_pad", b""))),
                     chunk(chunk_type, body))


def skeleton(bones, chunk_type: int = 0x206, header_pad: bytes = b"\0" * 124,
             count=None, check: bool = True) -> bytes:
    """0x200: 0x201 header (nBones + header_pad, 128 bytes by default) then one 0x202 per bone.

    ``count`` overrides nBones in the header (defect fixtures only).
    """
    if check:
        for i, b in enumerate(bones):
            p = b.get("parent", -1)
            if i == 0 and p != -1:
                raise ValueError("bone 0 must be the root (parent -1)")
            if i > 0 and not 0 <= p < i:
                raise ValueError(f"bone {i}: parent {p} must be in 0..{i - 1}")
    n = len(bones) if count is None else count
    header = chunk(0x201, _u32(n) + bytes(header_pad))
    return container(0x200, header, *(bone_chunk(b, chunk_type) for b in bones))


# ---------------------------------------------------------------------------------------
# ALO: meshes
# ---------------------------------------------------------------------------------------

VERTEX_SIZE = {0x10007: 144, 0x10005: 128}

_PARAM_CHUNK = {"int": 0x10102, "float": 0x10103, "float3": 0x10104,
                "texture": 0x10105, "float4": 0x10106}


def _param_chunk(kind: str, name: str, value) -> bytes:
    kind = kind.lower()
    if kind == "int":
        v = _i32(value) if int(value) < 0 else _u32(value)
    elif kind == "float":
        v = _f32(value)
    elif kind == "float3":
        v = _f32s(value, 3)
    elif kind == "float4":
        v = _f32s(value, 4)
    elif kind == "texture":
        v = cstr(value)
    else:
        raise ValueError(f"unknown parameter kind {kind!r}")
    return chunk(_PARAM_CHUNK[kind], mini(1, cstr(name)) + mini(2, v))


def _uv_pairs(uv):
    if uv is None:
        return [(0.0, 0.0)] * 4
    uv = list(uv)
    if len(uv) == 2 and not hasattr(uv[0], "__len__"):
        uv = [uv]  # a single (u, v) pair
    pairs = [tuple(float(x) for x in p) for p in uv]
    if len(pairs) > 4 or any(len(p) != 2 for p in pairs):
        raise ValueError("uv must be up to 4 (u, v) pairs")
    return pairs + [(0.0, 0.0)] * (4 - len(pairs))


def normalize_vertex(v: dict, vertex_chunk: int = 0x10007) -> dict:
    """Fill in defaults: zeros; uv 4 pairs; bone_weights (1,0,0,0); unused (1,1,1,1).

    For 0x10005 the returned dict has no "unused" key (the field is not in the file).
    """
    out = {
        "position": tuple(float(x) for x in v.get("position", (0, 0, 0))),
        "normal": tuple(float(x) for x in v.get("normal", (0, 0, 0))),
        "uv": [tuple(p) for p in _uv_pairs(v.get("uv"))],
        "tangent": tuple(float(x) for x in v.get("tangent", (0, 0, 0))),
        "binormal": tuple(float(x) for x in v.get("binormal", (0, 0, 0))),
        "color": tuple(float(x) for x in v.get("color", (0, 0, 0, 0))),
        "bone_indices": tuple(int(x) for x in v.get("bone_indices", (0, 0, 0, 0))),
        "bone_weights": tuple(float(x) for x in v.get("bone_weights", (1, 0, 0, 0))),
    }
    if vertex_chunk == 0x10007:
        out["unused"] = tuple(float(x) for x in v.get("unused", (1, 1, 1, 1)))
    return out


def vertex_bytes(v: dict, vertex_chunk: int = 0x10007) -> bytes:
    """One vertex: position3 normal3 uv(4x2) tangent3 binormal3 color4 [unused4]
    boneIndices(4 x u32) boneWeights(4 x f32): 144 bytes (0x10007) or 128 (0x10005)."""
    n = normalize_vertex(v, vertex_chunk)
    out = _f32s(n["position"], 3) + _f32s(n["normal"], 3)
    out += _f32s([x for p in n["uv"] for x in p], 8)
    out += _f32s(n["tangent"], 3) + _f32s(n["binormal"], 3) + _f32s(n["color"], 4)
    if vertex_chunk == 0x10007:
        out += _f32s(n["unused"], 4)
    elif vertex_chunk != 0x10005:
        raise ValueError("vertex chunk must be 0x10007 or 0x10005")
    out += struct.pack("<4I", *n["bone_indices"]) + _f32s(n["bone_weights"], 4)
    return out


def _is_numpy(a) -> bool:
    return type(a).__module__.startswith("numpy") and hasattr(a, "dtype")


def vertex_dtype(vertex_chunk: int = 0x10007):
    """numpy structured dtype matching one file vertex (needs numpy)."""
    import numpy as np
    fields = [("position", "<f4", (3,)), ("normal", "<f4", (3,)), ("uv", "<f4", (4, 2)),
              ("tangent", "<f4", (3,)), ("binormal", "<f4", (3,)), ("color", "<f4", (4,))]
    if vertex_chunk == 0x10007:
        fields.append(("unused", "<f4", (4,)))
    fields += [("bone_indices", "<u4", (4,)), ("bone_weights", "<f4", (4,))]
    return np.dtype(fields)


def _vertices_bytes(vertices, vertex_chunk: int) -> bytes:
    if _is_numpy(vertices) and vertices.dtype.names:
        if vertices.dtype == vertex_dtype(vertex_chunk):
            return vertices.tobytes()
        names = vertices.dtype.names
        vertices = [{k: rec[k].tolist() for k in names} for rec in vertices]
    return b"".join(vertex_bytes(v, vertex_chunk) for v in vertices)


def _vertex_list(vertices, vertex_chunk):
    if _is_numpy(vertices) and vertices.dtype.names:
        names = vertices.dtype.names
        vertices = [{k: rec[k].tolist() for k in names} for rec in vertices]
    return [normalize_vertex(v, vertex_chunk) for v in vertices]


def _collision_chunk(col: dict) -> bytes:
    """0x1200: 0x1201 minis (0 min, 1 max, 2 nNodes, 3 nPrimitives), 0x1202 nodes, 0x1203."""
    nodes = col["nodes"]
    tris = col["triangles"]
    header = (mini(0, _f32s(col["box_min"], 3)) + mini(1, _f32s(col["box_max"], 3))
              + mini(2, _u32(len(nodes))) + mini(3, _u32(len(tris))))
    nb = b"".join(struct.pack("<3B3BHH", *mn, *mx, cnt, link) for (mn, mx, cnt, link) in nodes)
    return container(0x1200, chunk(0x1201, header), chunk(0x1202, nb),
                     chunk(0x1203, struct.pack(f"<{len(tris)}H", *tris)))


def submesh_chunks(sm: dict, check: bool = True):
    """Returns (0x10100 material container, 0x10000 data container) for one sub-mesh.

    sm = {"shader": str, "params": [(kind, name, value), ...]
              kind in "int", "float", "float3", "float4", "texture",
          "vertex_format": str, "vertices": list of vertex dicts or numpy structured array,
          "indices": [(a, b, c), ...], "bone_map": list[int] or None,
          "collision": None or {"box_min", "box_max", "nodes": [(min3, max3, count, link)],
                                "triangles": [int, ...]},
          "vertex_chunk": 0x10007 (default) or 0x10005}
    Optional defect/extra keys: "header_pad" (120 bytes after nVertices/nPrimitives),
    "n_vertices" / "n_primitives" (override the 0x10001 counts).
    Data children order: 0x10001, 0x10002, vertex buffer, 0x10004, [0x10006], [0x1200].
    """
    vc = sm.get("vertex_chunk", 0x10007)
    verts = sm.get("vertices", [])
    nverts = len(verts)
    tris = [tuple(int(i) for i in t) for t in sm.get("indices", [])]
    if check:
        for t in tris:
            if len(t) != 3 or any(not 0 <= i < nverts for i in t):
                raise ValueError(f"bad triangle {t} for {nverts} vertices")
        bm = sm.get("bone_map")
        if bm is not None and not 1 <= len(bm) <= 24:
            raise ValueError("bone_map must hold 1..24 entries")
    material = container(0x10100, chunk(0x10101, cstr(sm["shader"])),
                         *(_param_chunk(k, n, v) for (k, n, v) in sm.get("params", [])))
    header = (_u32(sm.get("n_vertices", nverts)) + _u32(sm.get("n_primitives", len(tris)))
              + bytes(sm.get("header_pad", b"\0" * 120)))
    children = [chunk(0x10001, header),
                chunk(0x10002, cstr(sm["vertex_format"])),
                chunk(vc, _vertices_bytes(verts, vc)),
                chunk(0x10004, struct.pack(f"<{3 * len(tris)}H", *[i for t in tris for i in t]))]
    if sm.get("bone_map") is not None:
        bm = [int(x) for x in sm["bone_map"]]
        children.append(chunk(0x10006, struct.pack(f"<{len(bm)}I", *bm)))
    if sm.get("collision") is not None:
        children.append(_collision_chunk(sm["collision"]))
    return material, container(0x10000, *children)


def _bbox_of(submeshes):
    pts = []
    for sm in submeshes:
        for v in _vertex_list(sm.get("vertices", []), sm.get("vertex_chunk", 0x10007)):
            pts.append(v["position"])
    if not pts:
        return ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    return (tuple(min(p[i] for p in pts) for i in range(3)),
            tuple(max(p[i] for p in pts) for i in range(3)))


def mesh(name, submeshes, bbox=None, hidden=0, collision=None, *, unused=0,
         info_pad: bytes = b"\0" * 88, name_pad: bytes = b"", extra=(),
         check: bool = True) -> bytes:
    """0x400: 0x401 name, 0x402 info (128 bytes), then a 0x10100/0x10000 pair per sub-mesh.

    0x402 = nMaterials(u32) bboxMin(3f) bboxMax(3f) unused(u32) isHidden(u32)
            isCollisionEnabled(u32) + 88 bytes of ``info_pad``.
    ``bbox=None`` computes the box from the vertex positions; ``collision=None`` sets
    isCollisionEnabled to 1 exactly when every sub-mesh has a collision tree.
    ``extra`` = [(position, chunk_bytes), ...] inserts foreign chunks before the child at
    that position of the final child list (0 = before 0x401).
    """
    if bbox is None:
        bbox = _bbox_of(submeshes)
    if collision is None:
        collision = int(bool(submeshes)
                        and all(sm.get("collision") is not None for sm in submeshes))
    info = (_u32(len(submeshes)) + _f32s(bbox[0], 3) + _f32s(bbox[1], 3) + _u32(unused)
            + _u32(hidden) + _u32(collision) + bytes(info_pad))
    children = [chunk(0x401, cstr(name, name_pad)), chunk(0x402, info)]
    for sm in submeshes:
        children.extend(submesh_chunks(sm, check=check))
    for pos, extra_chunk in sorted(extra, key=lambda e: -e[0]):
        children.insert(pos, extra_chunk)
    return container(0x400, *children)


# ---------------------------------------------------------------------------------------
# ALO: lights, connections
# ---------------------------------------------------------------------------------------

LIGHT_OMNI, LIGHT_DIRECTIONAL, LIGHT_SPOT = 0, 1, 2


def light(name, type, color, intensity, far_end, far_start, hotspot, falloff) -> bytes:
    """0x1300: 0x1301 name, 0x1302 info (36 bytes: type u32, color 3f, intensity,
    farAttenuationEnd, farAttenuationStart, hotspot, falloff; angles in radians)."""
    info = (_u32(type) + _f32s(color, 3) + _f32(intensity) + _f32(far_end) + _f32(far_start)
            + _f32(hotspot) + _f32(falloff))
    return container(0x1300, chunk(0x1301, cstr(name)), chunk(0x1302, info))


def _dazzle_minis(d: dict) -> bytes:
    """Mini order 0,1,2,3,4,6,5,7,8,9,10,11,12 then optional 13 (bias)."""
    out = (mini(0, _f32s(d["color"], 3)) + mini(1, _f32s(d["position"], 3))
           + mini(2, _f32(d["radius"])) + mini(3, _u32(d["tex_x"])) + mini(4, _u32(d["tex_y"]))
           + mini(6, _u32(d["tex_size"])) + mini(5, cstr(d["texture"]))
           + mini(7, _f32(d["frequency"])) + mini(8, _f32(d["phase"]))
           + mini(9, _u32(d["night_only"])) + mini(10, _u32(d["bone"]))
           + mini(11, cstr(d["name"])) + mini(12, _u32(d["hidden"])))
    if d.get("bias") is not None:
        out += mini(13, _f32(d["bias"]))
    return out


def connections(objects=(), proxies=(), dazzles=(), dazzle_count=None,
                dazzle_layout: str = "direct") -> bytes:
    """0x600: 0x601 header, one 0x602 per object, one 0x603 per proxy, one 0x604 per dazzle.

    objects = [(object_index, bone_index), ...]   object index counts 0x400 and 0x1300
              chunks together in file order.
    proxies = [{"name": str, "bone": int, "hidden": int|None, "alt": int|None}, ...]
              hidden None omits mini 7, alt None omits mini 8.  Optional "extra_minis":
              bytes appended after the known minis.
    dazzles = [{"name", "color"(3), "position"(3), "radius", "tex_x", "tex_y", "tex_size",
                "texture", "frequency", "phase", "night_only", "bone", "hidden",
                "bias" (None = omit mini 13)}, ...]
    dazzle_count: None omits mini 9 of 0x601, else its value.
    dazzle_layout: "direct" = minis directly in a data chunk 0x604; "nested" = container
                   0x604 holding a data chunk of type 0x0 with the minis (UaW layout).
    """
    hdr = mini(1, _u32(len(objects))) + mini(4, _u32(len(proxies)))
    if dazzle_count is not None:
        hdr += mini(9, _u32(dazzle_count))
    children = [chunk(0x601, hdr)]
    for obj, bone in objects:
        children.append(chunk(0x602, mini(2, _u32(obj)) + mini(3, _u32(bone))))
    for p in proxies:
        body = mini(5, cstr(p["name"])) + mini(6, _u32(p["bone"]))
        if p.get("hidden") is not None:
            body += mini(7, _u32(p["hidden"]))
        if p.get("alt") is not None:
            body += mini(8, _u32(p["alt"]))
        body += bytes(p.get("extra_minis", b""))
        children.append(chunk(0x603, body))
    for d in dazzles:
        if dazzle_layout == "direct":
            children.append(chunk(0x604, _dazzle_minis(d)))
        elif dazzle_layout == "nested":
            children.append(container(0x604, chunk(0x0, _dazzle_minis(d))))
        else:
            raise ValueError("dazzle_layout must be 'direct' or 'nested'")
    return container(0x600, *children)


def alo(*root_chunks: bytes) -> bytes:
    """A model file is its root chunks back to back: 0x200, meshes/lights, 0x600."""
    return b"".join(bytes(c) for c in root_chunks)


def build_alo(spec: dict, check: bool = True) -> bytes:
    """Build a model from a spec dict as returned by the ALO fixtures:

    {"bones": [bone dicts], "bone_chunk_type": 0x206|0x205,
     "objects": [ {"kind": "mesh", "name", "submeshes", "bbox", "hidden", "collision"}
                | {"kind": "light", "name", "type", "color", "intensity", "far_end",
                   "far_start", "hotspot", "falloff"} ]   (file order = object index),
     "connections": [(object_index, bone_index)], "proxies": [...], "dazzles": [...],
     "dazzle_count": None|int, "dazzle_layout": "direct"|"nested"}
    """
    roots = [skeleton(spec["bones"], spec.get("bone_chunk_type", 0x206), check=check)]
    for o in spec.get("objects", []):
        if o["kind"] == "mesh":
            roots.append(mesh(o["name"], o["submeshes"], o.get("bbox"), o.get("hidden", 0),
                              o.get("collision"), check=check))
        elif o["kind"] == "light":
            roots.append(light(o["name"], o["type"], o["color"], o["intensity"], o["far_end"],
                               o["far_start"], o["hotspot"], o["falloff"]))
        else:
            raise ValueError(f"unknown object kind {o['kind']!r}")
    if check:
        nobj = len(spec.get("objects", []))
        nb = len(spec["bones"])
        for obj, bone in spec.get("connections", []):
            if not (0 <= obj < nobj and 0 <= bone < nb):
                raise ValueError(f"bad connection {(obj, bone)}")
        for p in spec.get("proxies", []):
            if not 0 <= p["bone"] < nb:
                raise ValueError(f"bad proxy bone {p['bone']}")
        for o in spec.get("objects", []):
            for sm in o.get("submeshes", []):
                if any(not 0 <= b < nb for b in sm.get("bone_map") or []):
                    raise ValueError("bone map index beyond the skeleton")
    roots.append(connections(spec.get("connections", []), spec.get("proxies", []),
                             spec.get("dazzles", []), spec.get("dazzle_count"),
                             spec.get("dazzle_layout", "direct")))
    return alo(*roots)


# ---------------------------------------------------------------------------------------
# ALA animations
# ---------------------------------------------------------------------------------------

IDENTITY_QUAT = (0, 0, 0, 32767)


def _ala_bone_defaults(b: dict) -> dict:
    out = {
        "name": b["name"], "index": int(b["index"]), "unknown": int(b.get("unknown", 0)),
        "translation_offset": tuple(float(x) for x in b.get("translation_offset", (0, 0, 0))),
        "translation_scale": tuple(float(x) for x in b.get("translation_scale", (0, 0, 0))),
        "scale_offset": tuple(float(x) for x in b.get("scale_offset", (1, 1, 1))),
        "scale_scale": tuple(float(x) for x in b.get("scale_scale", (0, 0, 0))),
    }
    for k in ("translation", "scale", "rotation"):
        v = b.get(k)
        out[k] = None if v is None else [tuple(int(x) for x in row) for row in v]
    dr = b.get("default_rotation")
    if dr is None:
        dr = out["rotation"][0] if out["rotation"] else IDENTITY_QUAT
    out["default_rotation"] = tuple(int(x) for x in dr)
    for k in ("visibility", "step"):
        v = b.get(k)
        out[k] = None if v is None else [bool(x) for x in v]
    return out


def _check_tracks(num_frames, b):
    for k, width in (("translation", 3), ("scale", 3), ("rotation", 4)):
        rows = b[k]
        if rows is None:
            continue
        if len(rows) != num_frames or any(len(r) != width for r in rows):
            raise ValueError(f"bone {b['name']}: {k} must be {num_frames} x {width}")
    for k in ("visibility", "step"):
        if b[k] is not None and len(b[k]) != num_frames:
            raise ValueError(f"bone {b['name']}: {k} must have {num_frames} entries")
    if len(b["default_rotation"]) != 4:
        raise ValueError("default_rotation must be 4 int16")


def _bone_header_minis(b: dict) -> bytes:
    """Minis 4 name, 5 index, 10 unknown, 6..9 float3 (the order real files use)."""
    return (mini(4, cstr(b["name"])) + mini(5, _u32(b["index"])) + mini(10, _u32(b["unknown"]))
            + mini(6, _f32s(b["translation_offset"], 3)) + mini(7, _f32s(b["translation_scale"], 3))
            + mini(8, _f32s(b["scale_offset"], 3)) + mini(9, _f32s(b["scale_scale"], 3)))


def ala_v1(num_frames: int, fps: float, bones, check: bool = True) -> bytes:
    """Format #1 (Empire at War).

    bone = {"name", "index", "unknown" (mini 10), "translation_offset"(3), "translation_scale"(3),
            "scale_offset"(3), "scale_scale"(3),
            "translation": frames x 3 uint16 or None (= constant, no 0x1004),
            "scale": frames x 3 uint16 or None (no 0x1005),
            "rotation": frames x 4 int16 or None (then 0x1006 holds only default_rotation),
            "default_rotation": 4 int16 (default: rotation[0], else identity 0,0,0,32767),
            "visibility": list of frames bools or None (no 0x1007),
            "step": list of frames bools or None (no 0x1008)}
    0x1000 = 0x1001 (minis 1 frames, 2 fps, 3 bone count) + per bone 0x1002 with
    0x1003 (minis 4,5,10,6,7,8,9), [0x1004], [0x1005], 0x1006, [0x1007], [0x1008].
    """
    bones = [_ala_bone_defaults(b) for b in bones]
    header = mini(1, _u32(num_frames)) + mini(2, _f32(fps)) + mini(3, _u32(len(bones)))
    parts = [chunk(0x1001, header)]
    for b in bones:
        if check:
            _check_tracks(num_frames, b)
        kids = [chunk(0x1003, _bone_header_minis(b))]
        if b["translation"] is not None:
            kids.append(chunk(0x1004, _u16s(_flat(b["translation"]))))
        if b["scale"] is not None:
            kids.append(chunk(0x1005, _u16s(_flat(b["scale"]))))
        rot = b["rotation"] if b["rotation"] is not None else [b["default_rotation"]]
        kids.append(chunk(0x1006, _u16s(_flat(rot))))
        if b["visibility"] is not None:
            kids.append(chunk(0x1007, _bits(b["visibility"])))
        if b["step"] is not None:
            kids.append(chunk(0x1008, _bits(b["step"])))
        parts.append(container(0x1002, *kids))
    return container(0x1000, *parts)


def ala_v2_layout(bones):
    """Frame-block indices of format #2 for the (normalized) bone dicts.

    Returns (translation_indices, scale_indices, rotation_indices, rot_size, trans_size,
    scale_size): indices are int16 offsets counted in int16 values, assigned in bone order
    over the bones that have the track (translation 0,3,6..; scale 0,3,..; rotation 0,4,..;
    -1 = absent); sizes are the int16 values per frame (header minis 11, 12, 13).
    """
    ti, si, ri = [], [], []
    t = s = r = 0
    for b in bones:
        ti.append(t if b["translation"] is not None else -1)
        t += 3 if b["translation"] is not None else 0
        si.append(s if b["scale"] is not None else -1)
        s += 3 if b["scale"] is not None else 0
        ri.append(r if b["rotation"] is not None else -1)
        r += 4 if b["rotation"] is not None else 0
    return ti, si, ri, r, t, s


def ala_v2(num_frames: int, fps: float, bones, check: bool = True) -> bytes:
    """Format #2 (Forces of Corruption): same bone dicts as ``ala_v1``.

    Optional per-bone overrides: "translation_index", "scale_index", "rotation_index" (int16
    offsets written to minis 14/15/16; the bone's data is placed at that offset when it fits
    the frame, which reproduces real files whose offsets are not in bone-chunk order, e.g.
    multi-troop_transport_Deploy_00.ALA; an offset that does not fit is written to the header
    only, for defect fixtures).
    0x1000 = 0x1001 (minis 1, 2, 3, 11 rotation frame size, 12 translation frame size,
    13 scale frame size; sizes in int16 values) + per bone 0x1002 with 0x1003
    (minis 4,5,10,6,7,8,9, 14 translation index, 15 scale index, 16 rotation index (int16 each,
    -1 = absent), 17 default rotation 4 x int16), [0x1007], [0x1008]; then 0x100a translations
    (frames x mini12 uint16), 0x1009 rotations (frames x mini11 int16), 0x100b scales
    (frames x mini13 uint16), each omitted when its frame size is 0.
    """
    raw = list(bones)
    bones = [_ala_bone_defaults(b) for b in raw]
    ti, si, ri, rsize, tsize, ssize = ala_v2_layout(bones)
    header = (mini(1, _u32(num_frames)) + mini(2, _f32(fps)) + mini(3, _u32(len(bones)))
              + mini(11, _u32(rsize)) + mini(12, _u32(tsize)) + mini(13, _u32(ssize)))
    parts = [chunk(0x1001, header)]
    for n, b in enumerate(bones):
        if check:
            _check_tracks(num_frames, b)
        t = raw[n].get("translation_index", ti[n])
        s = raw[n].get("scale_index", si[n])
        r = raw[n].get("rotation_index", ri[n])
        hdr = (_bone_header_minis(b) + mini(14, struct.pack("<h", t))
               + mini(15, struct.pack("<h", s)) + mini(16, struct.pack("<h", r))
               + mini(17, _u16s(b["default_rotation"])))
        kids = [chunk(0x1003, hdr)]
        if b["visibility"] is not None:
            kids.append(chunk(0x1007, _bits(b["visibility"])))
        if b["step"] is not None:
            kids.append(chunk(0x1008, _bits(b["step"])))
        parts.append(container(0x1002, *kids))

    def block(key, width, size, layout):
        # each bone's values go at its index in every frame; an override index that does
        # not fit the frame (a defect fixture) only changes the header, not the data
        frames = [[0] * size for _ in range(num_frames)]
        for n, b in enumerate(bones):
            if b[key] is None:
                continue
            at = raw[n].get(key + "_index", layout[n])
            if not (0 <= at and at + width <= size):
                at = layout[n]
            for f in range(num_frames):
                frames[f][at:at + width] = b[key][f]
        return _u16s([v for fr in frames for v in fr])

    if tsize:
        parts.append(chunk(0x100A, block("translation", 3, tsize, ti)))
    if rsize:
        parts.append(chunk(0x1009, block("rotation", 4, rsize, ri)))
    if ssize:
        parts.append(chunk(0x100B, block("scale", 3, ssize, si)))
    return container(0x1000, *parts)


def build_ala(spec: dict, check: bool = True) -> bytes:
    """spec = {"format": 1|2, "num_frames", "fps", "bones": [bone dicts]}"""
    fn = ala_v1 if spec["format"] == 1 else ala_v2
    return fn(spec["num_frames"], spec["fps"], spec["bones"], check=check)


# ---------------------------------------------------------------------------------------
# Helpers for fixtures
# ---------------------------------------------------------------------------------------


def _bone(name, parent, matrix=IDENTITY_MATRIX, visible=1, billboard=0):
    return {"name": name, "parent": parent, "visible": visible, "billboard": billboard,
            "matrix": tuple(float(x) for x in matrix)}


def _translate(x, y, z):
    return (1.0, 0.0, 0.0, float(x), 0.0, 1.0, 0.0, float(y), 0.0, 0.0, 1.0, float(z))


def _rot_z90(x=0.0, y=0.0, z=0.0):
    # [R | t] with R = rotation of +90 degrees about Z (column-vector convention)
    return (0.0, -1.0, 0.0, float(x), 1.0, 0.0, 0.0, float(y), 0.0, 0.0, 1.0, float(z))


def _quad_vertices(z=0.0, size=1.0, extra=None):
    """4 vertices of a square in the XY plane, with every field set to distinct values."""
    pts = [(-size, -size, z), (size, -size, z), (size, size, z), (-size, size, z)]
    out = []
    for i, p in enumerate(pts):
        v = {"position": p, "normal": (0.0, 0.0, 1.0),
             "uv": [(i * 0.25, 1.0 - i * 0.25), (0.5, i * 0.125), (0.0, 0.0), (i * 1.0, 2.0)],
             "tangent": (1.0, 0.0, 0.0), "binormal": (0.0, 1.0, 0.0),
             "color": (0.5, 0.25, 0.125 * i, 1.0), "unused": (1.0, 1.0, 1.0, 1.0),
             "bone_indices": (0, 0, 0, 0), "bone_weights": (1.0, 0.0, 0.0, 0.0)}
        if extra:
            v.update(extra(i))
        out.append(v)
    return out


QUAD_INDICES = [(0, 1, 2), (0, 2, 3)]


def _submesh(shader="alDefault.fx", vertex_format="alD3dVertNU2", vertices=None, indices=None,
             params=None, bone_map=None, collision_tree=None, vertex_chunk=0x10007):
    vertices = _quad_vertices() if vertices is None else vertices
    return {"shader": shader,
            "params": list(params if params is not None
                           else [("texture", "BaseTexture", "W_Test.tga")]),
            "vertex_format": vertex_format,
            "vertices": [normalize_vertex(v, vertex_chunk) for v in vertices],
            "indices": [tuple(t) for t in (QUAD_INDICES if indices is None else indices)],
            "bone_map": bone_map, "collision": collision_tree, "vertex_chunk": vertex_chunk}


def _mesh_obj(name, submeshes, hidden=0, collision=None, bbox=None):
    if bbox is None:
        bbox = _bbox_of(submeshes)
    if collision is None:
        collision = int(bool(submeshes) and all(sm["collision"] is not None for sm in submeshes))
    return {"kind": "mesh", "name": name, "submeshes": submeshes, "bbox": bbox,
            "hidden": hidden, "collision": collision}


def _light_obj(name, type, color, intensity, far_end, far_start, hotspot, falloff):
    return {"kind": "light", "name": name, "type": type, "color": tuple(color),
            "intensity": intensity, "far_end": far_end, "far_start": far_start,
            "hotspot": hotspot, "falloff": falloff}


def _model_spec(bones, objects, conns, proxies=(), dazzles=(), dazzle_count=None,
                dazzle_layout="direct", bone_chunk_type=0x206):
    spec = {"bones": bones, "bone_chunk_type": bone_chunk_type, "objects": list(objects),
            "connections": [tuple(c) for c in conns], "proxies": list(proxies),
            "dazzles": list(dazzles), "dazzle_count": dazzle_count,
            "dazzle_layout": dazzle_layout}
    spec["meshes"] = [o for o in spec["objects"] if o["kind"] == "mesh"]
    spec["lights"] = [o for o in spec["objects"] if o["kind"] == "light"]
    return spec


# ---------------------------------------------------------------------------------------
# ALO fixtures
# ---------------------------------------------------------------------------------------


def fixture_alo_205_bones():
    """Skeleton with 0x205 bone data (no billboard: a reader must assume billboard 0)."""
    bones = [_bone("Root", -1),
             _bone("B_Body", 0, _translate(0.0, 0.0, 1.5)),
             _bone("B_Arm", 1, _rot_z90(0.5, 0.0, 0.25), visible=0),
             _bone("B_Head", 1, _translate(0.0, 0.25, 2.0))]
    sm = _submesh(vertex_format="alD3dVertNU2")
    spec = _model_spec(bones, [_mesh_obj("Body", [sm])], [(0, 1)], bone_chunk_type=0x205)
    return build_alo(spec), spec


def fixture_alo_10005_vertices():
    """Two sub-meshes whose vertex buffers are 0x10005 (128-byte vertices, no 'unused')."""
    bones = [_bone("Root", -1), _bone("B_Hull", 0, _translate(1.0, 2.0, 3.0))]
    sm1 = _submesh(shader="MeshBumpColorize.fx", vertex_format="alD3dVertNU2U3U3",
                   vertex_chunk=0x10005,
                   params=[("texture", "BaseTexture", "Hull.tga"),
                           ("texture", "NormalTexture", "Hull_B.tga")])
    verts2 = _quad_vertices(z=0.5, size=2.0,
                            extra=lambda i: {"bone_indices": (0, 0, 0, 0),
                                             "color": (1.0, 1.0, 1.0, 0.5)})
    sm2 = _submesh(shader="MeshAdditive.fx", vertex_format="alD3dVertNU2", vertices=verts2,
                   vertex_chunk=0x10005, params=[("texture", "BaseTexture", "Glow.tga")])
    spec = _model_spec(bones, [_mesh_obj("Hull", [sm1, sm2])], [(0, 1)])
    return build_alo(spec), spec


def fixture_alo_lights():
    """Omni, directional and spot lights interleaved with meshes (object indices count
    0x400 and 0x1300 chunks together in file order: mesh 0, light 1, mesh 2, light 3, light 4)."""
    bones = [_bone("Root", -1), _bone("L_Omni", 0, _translate(0.0, 0.0, 4.0)),
             _bone("L_Sun", 0, _rot_z90()), _bone("L_Spot", 0, _translate(2.0, 0.0, 1.0)),
             _bone("B_Mast", 0, _translate(0.0, 0.0, 2.0))]
    objects = [
        _mesh_obj("Base", [_submesh()]),
        _light_obj("Omni01", LIGHT_OMNI, (1.0, 0.5, 0.25), 2.0, 100.0, 50.0, 0.0, 0.0),
        _mesh_obj("Mast", [_submesh(vertices=_quad_vertices(z=2.0, size=0.5))]),
        _light_obj("Sun01", LIGHT_DIRECTIONAL, (1.0, 1.0, 0.875), 1.5, 0.0, 0.0, 0.0, 0.0),
        _light_obj("Spot01", LIGHT_SPOT, (0.0, 0.75, 1.0), 3.0, 40.0, 10.0, 0.5, 0.75),
    ]
    conns = [(0, 0), (1, 1), (2, 4), (3, 2), (4, 3)]
    spec = _model_spec(bones, objects, conns, dazzle_count=0)
    return build_alo(spec), spec


def _dazzles():
    return [
        {"name": "Dazzle01", "color": (1.0, 0.5, 0.0), "position": (0.5, -0.25, 1.0),
         "radius": 0.75, "tex_x": 1, "tex_y": 2, "tex_size": 4, "texture": "W_Dazzle.tga",
         "frequency": 2.0, "phase": 0.25, "night_only": 0, "bone": 1, "hidden": 0,
         "bias": 0.375},
        {"name": "FC_Dazzle02", "color": (0.0, 1.0, 0.25), "position": (0.0, 0.0, 0.0),
         "radius": 1.5, "tex_x": 0, "tex_y": 0, "tex_size": 1, "texture": "W_Flare.dds",
         "frequency": 0.0, "phase": 0.0, "night_only": 1, "bone": 2, "hidden": 1,
         "bias": None},
    ]


def _dazzle_model(layout):
    bones = [_bone("Root", -1), _bone("B_Light1", 0, _translate(1.0, 0.0, 2.0)),
             _bone("B_Light2", 1, _translate(-1.0, 0.5, 0.0))]
    spec = _model_spec(bones, [_mesh_obj("Tower", [_submesh()])], [(0, 0)],
                       dazzles=_dazzles(), dazzle_count=2, dazzle_layout=layout)
    return build_alo(spec), spec


def fixture_alo_dazzles_direct():
    """Two dazzles (one with bias mini 13, one without) with minis directly in 0x604."""
    return _dazzle_model("direct")


def fixture_alo_dazzles_nested():
    """Same dazzles in the UaW layout: container 0x604 > data chunk 0x0 > minis."""
    return _dazzle_model("nested")


def fixture_alo_proxies_no_minis():
    """Proxies without minis 7/8, with only 7, only 8, and both; 0x601 without mini 9."""
    bones = [_bone("Root", -1)] + [_bone(f"P_Bone{i}", 0, _translate(i, 0.0, 0.0))
                                   for i in range(1, 5)]
    proxies = [{"name": "p_smoke", "bone": 1, "hidden": None, "alt": None},
               {"name": "p_fire_ALT1", "bone": 2, "hidden": 1, "alt": None},
               {"name": "p_sparks_ALT2", "bone": 3, "hidden": None, "alt": 1},
               {"name": "p_debris", "bone": 4, "hidden": 0, "alt": 0},
               {"name": "p_root_glow", "bone": 0, "hidden": 1, "alt": 1}]
    spec = _model_spec(bones, [_mesh_obj("Hull", [_submesh()])], [(0, 0)], proxies=proxies,
                       dazzle_count=None)
    return build_alo(spec), spec


def fixture_alo_b4i4():
    """Skinned sub-mesh "alD3dVertB4I4NU2U3U3", 0x10006 bone map, up to 4 distinct bone
    indices per vertex (indices into the bone map) with weights summing to 1."""
    bones = [_bone("Root", -1), _bone("B_Pelvis", 0, _translate(0.0, 0.0, 1.0)),
             _bone("B_Spine", 1, _translate(0.0, 0.0, 0.5)),
             _bone("B_Arm_L", 2, _translate(0.5, 0.0, 0.25)),
             _bone("B_Arm_R", 2, _translate(-0.5, 0.0, 0.25)),
             _bone("B_Head", 2, _translate(0.0, 0.0, 0.5))]
    bone_map = [1, 2, 3, 4, 5]
    skin = [((0, 0, 0, 0), (1.0, 0.0, 0.0, 0.0)),
            ((0, 1, 0, 0), (0.75, 0.25, 0.0, 0.0)),
            ((1, 2, 3, 0), (0.5, 0.25, 0.25, 0.0)),
            ((4, 3, 2, 1), (0.5, 0.25, 0.125, 0.125)),
            ((2, 4, 0, 3), (0.25, 0.25, 0.25, 0.25)),
            ((3, 0, 0, 0), (1.0, 0.0, 0.0, 0.0))]
    verts = []
    for i, (bi, bw) in enumerate(skin):
        verts.append({"position": (0.25 * i, 0.0, 1.0 + 0.25 * i), "normal": (0.0, -1.0, 0.0),
                      "uv": [(0.125 * i, 0.5)], "tangent": (1.0, 0.0, 0.0),
                      "binormal": (0.0, 0.0, 1.0), "color": (1.0, 1.0, 1.0, 1.0),
                      "bone_indices": bi, "bone_weights": bw})
    sm = _submesh(shader="SkinBumpColorize.fx", vertex_format="alD3dVertB4I4NU2U3U3",
                  vertices=verts, indices=[(0, 1, 2), (1, 3, 2), (2, 3, 4), (3, 5, 4)],
                  bone_map=bone_map,
                  params=[("texture", "BaseTexture", "Trooper.tga"),
                          ("float4", "Colorization", (1.0, 0.0, 0.0, 1.0))])
    spec = _model_spec(bones, [_mesh_obj("Trooper", [sm])], [(0, 0)])
    return build_alo(spec), spec


def fixture_alo_all_param_types():
    """One material with INT, FLOAT, FLOAT3, FLOAT4 and TEXTURE parameters in mixed order."""
    params = [("texture", "BaseTexture", "Ship.tga"),
              ("float", "Shininess", 32.0),
              ("int", "CullMode", 2),
              ("float4", "Diffuse", (1.0, 0.5, 0.25, 1.0)),
              ("float3", "UVOffset", (0.5, -0.25, 0.0)),
              ("int", "AlphaRef", -1),
              ("texture", "NormalTexture", "Ship_B.dds"),
              ("float", "BumpScale", 0.125),
              ("float4", "Specular", (0.0, 0.0, 0.0, 0.0)),
              ("float3", "Emissive", (0.25, 0.25, 0.25))]
    bones = [_bone("Root", -1)]
    sm = _submesh(shader="MeshBumpColorize.fx", vertex_format="alD3dVertNU2U3U3", params=params)
    spec = _model_spec(bones, [_mesh_obj("Ship", [sm])], [(0, 0)], dazzle_count=0)
    return build_alo(spec), spec


def quantize_box(child_min, child_max, parent_min, parent_max):
    """Quantize a float box to bytes relative to its parent box, outward (floor min,
    ceil max), clamped to 0..255.  Returns (min3, max3, (float_min3, float_max3)) where the
    float box is the one the bytes describe (the parent box for the node's children)."""
    qmin, qmax, fmin, fmax = [], [], [], []
    for a in range(3):
        span = parent_max[a] - parent_min[a]
        if span <= 0:
            lo, hi = 0, 255
        else:
            lo = math.floor((child_min[a] - parent_min[a]) / span * 255.0)
            hi = math.ceil((child_max[a] - parent_min[a]) / span * 255.0)
        lo, hi = max(0, min(255, lo)), max(0, min(255, hi))
        qmin.append(lo)
        qmax.append(hi)
        fmin.append(parent_min[a] + lo / 255.0 * span)
        fmax.append(parent_min[a] + hi / 255.0 * span)
    return tuple(qmin), tuple(qmax), (tuple(fmin), tuple(fmax))


def _tri_bounds(verts, indices, tris):
    pts = [verts[i]["position"] for t in tris for i in indices[t]]
    return (tuple(min(p[a] for p in pts) for a in range(3)),
            tuple(max(p[a] for p in pts) for a in range(3)))


def fixture_alo_collision():
    """A hidden collision mesh (isCollisionEnabled = 1) with a hand-made 5-node tree:

        node 0 (root, box 0..255)  link 1 -> children 1, 2
        node 1 leaf: triangles[0:2] (tris 0, 1: bottom face)
        node 2 inner link 3 -> children 3, 4
        node 3 leaf: triangles[2:3] (tri 2)
        node 4 leaf: triangles[3:5] (tris 3, 4)
    Child boxes are quantized relative to their parent's box, outward.
    """
    # a wedge: bottom quad at z=0 and two slanted faces rising to a ridge at z=2
    pos = [(-2.0, -1.0, 0.0), (2.0, -1.0, 0.0), (2.0, 1.0, 0.0), (-2.0, 1.0, 0.0),
           (-2.0, 0.0, 2.0), (2.0, 0.0, 2.0)]
    verts = [normalize_vertex({"position": p, "normal": (0.0, 0.0, 1.0)}) for p in pos]
    indices = [(0, 2, 1), (0, 3, 2),      # bottom
               (0, 1, 5), (3, 4, 5),      # front slope, back slope (part)
               (3, 5, 2)]                 # back slope (rest)
    box_min = (-2.0, -1.0, 0.0)
    box_max = (2.0, 1.0, 2.0)
    root = ((0, 0, 0), (255, 255, 255), 0, 1)
    rmin, rmax = box_min, box_max
    n1min, n1max, _ = quantize_box(*_tri_bounds(verts, indices, [0, 1]), rmin, rmax)
    n2min, n2max, (p2min, p2max) = quantize_box(*_tri_bounds(verts, indices, [2, 3, 4]), rmin, rmax)
    n3min, n3max, _ = quantize_box(*_tri_bounds(verts, indices, [2]), p2min, p2max)
    n4min, n4max, _ = quantize_box(*_tri_bounds(verts, indices, [3, 4]), p2min, p2max)
    nodes = [root, (n1min, n1max, 2, 0), (n2min, n2max, 0, 3),
             (n3min, n3max, 1, 2), (n4min, n4max, 2, 3)]
    tree = {"box_min": box_min, "box_max": box_max, "nodes": nodes, "triangles": [0, 1, 2, 3, 4]}
    sm = _submesh(shader="MeshCollision.fx", vertex_format="alD3dVertN", vertices=verts,
                  indices=indices, params=[], collision_tree=tree)
    bones = [_bone("Root", -1)]
    spec = _model_spec(bones, [_mesh_obj("Wedge_COLLISION", [sm], hidden=1)], [(0, 0)],
                       dazzle_count=0)
    return build_alo(spec), spec


def fixture_alo_unknown_chunks():
    """Valid model with things a reader must skip or tolerate:

    * an unknown data chunk 0x7777 inside the mesh, between 0x402 and the first 0x10100;
    * an unknown container chunk 0x7778 (holding a data chunk 0x7779) at the root, between
      the mesh and 0x600;
    * an unknown mini-chunk (type 0x63) inside a 0x603, after the known minis;
    * the bone "B_Turret" whose 0x203 name has junk bytes after the NUL (name is "B_Turret");
    * the mesh's 0x402 with non-zero bytes in its 88-byte padding (and in the 'unused' dword).
    ``spec`` holds what a reader should decode; ``spec["unknown"]`` describes the extras.
    """
    bones = [_bone("Root", -1), _bone("B_Turret", 0, _translate(0.0, 0.0, 1.0)),
             _bone("B_Barrel", 1, _translate(1.0, 0.0, 0.0))]
    sm = _submesh(vertex_format="alD3dVertNU2")
    proxies = [{"name": "p_muzzle", "bone": 2, "hidden": 0, "alt": None},
               {"name": "p_smoke", "bone": 1, "hidden": None, "alt": None}]
    spec = _model_spec(bones, [_mesh_obj("Turret", [sm])], [(0, 1)], proxies=proxies,
                       dazzle_count=0)
    # what is written differs from what a reader should decode only by these extras
    name_pad = b"\xcd\xcdJUNK\x01"
    written_bones = copy.deepcopy(bones)
    written_bones[1]["name_pad"] = name_pad
    written_proxies = copy.deepcopy(proxies)
    written_proxies[0]["extra_minis"] = mini(0x63, b"\x01\x02\x03")
    info_pad = bytes((i * 7 + 1) & 0xFF for i in range(88))
    m = spec["objects"][0]
    mesh_bytes = mesh(m["name"], m["submeshes"], m["bbox"], m["hidden"], m["collision"],
                      unused=0xDEADBEEF, info_pad=info_pad,
                      extra=[(2, chunk(0x7777, b"unknown data chunk\0"))])
    unknown_root = container(0x7778, chunk(0x7779, b"\x01\x02\x03\x04"))
    data = alo(skeleton(written_bones), mesh_bytes, unknown_root,
               connections(spec["connections"], written_proxies, dazzle_count=0))
    spec["unknown"] = {
        "mesh_data_chunk": 0x7777, "root_container": 0x7778, "proxy_mini": 0x63,
        "bone_name_pad": name_pad, "mesh_info_pad": info_pad,
        "mesh_info_unused": 0xDEADBEEF,
    }
    return data, spec


# ---------------------------------------------------------------------------------------
# ALA fixtures
# ---------------------------------------------------------------------------------------


def _anim_bone(name, index, **kw):
    b = {"name": name, "index": index, "unknown": 0,
         "translation_offset": (0.0, 0.0, 0.0), "translation_scale": (0.0, 0.0, 0.0),
         "scale_offset": (1.0, 1.0, 1.0), "scale_scale": (0.0, 0.0, 0.0),
         "translation": None, "scale": None, "rotation": None,
         "default_rotation": None, "visibility": None, "step": None}
    b.update(kw)
    return _ala_bone_defaults(b)


def fixture_ala_v1_scale_step():
    """Format #1, 10 frames (bit arrays of 2 bytes): 0x1004, 0x1005 scale, per-frame 0x1006,
    0x1007 visibility and 0x1008 step data."""
    nf = 10
    b1 = _anim_bone(
        "B_Body", 1, unknown=1,
        translation_offset=(-1.0, -2.0, 0.0), translation_scale=(0.0625, 0.03125, 0.5),
        scale_offset=(0.5, 0.5, 0.5), scale_scale=(0.001953125, 0.0009765625, 0.00048828125),
        translation=[(f * 100, 65535 - f * 100, f) for f in range(nf)],
        scale=[(256 * f, 512, 65535 if f % 2 else 0) for f in range(nf)],
        rotation=[(0, 0, -3000 * f, 32767 - f * 100) for f in range(nf)],
        visibility=[f not in (3, 8) for f in range(nf)],
        step=[f in (0, 4, 9) for f in range(nf)])
    b2 = _anim_bone(
        "B_Arm", 2,
        scale_offset=(1.0, 1.0, 1.0), scale_scale=(0.25, 0.25, 0.25),
        scale=[(f, f, f) for f in range(nf)],
        default_rotation=(0, 23170, 0, 23170), step=[True] * nf)
    b3 = _anim_bone("B_Head", 3, rotation=[(100 * f, -100 * f, 50, 32000) for f in range(nf)],
                    visibility=[True] * 9 + [False])
    spec = {"format": 1, "num_frames": nf, "fps": 30.0, "bones": [b1, b2, b3]}
    return build_ala(spec), spec


def fixture_ala_v2_scale():
    """Format #2, 5 frames: translations (0x100a), rotations (0x1009) and scales (0x100b).

    bone 1: translation + rotation + scale; bone 2: rotation only; bone 3: scale + translation;
    bone 4: nothing animated (all indices -1), with visibility; bone 5: rotation + step.
    """
    nf = 5
    b1 = _anim_bone("B_Body", 1, translation_offset=(0.0, 0.0, 1.0),
                    translation_scale=(0.5, 0.25, 0.125),
                    scale_offset=(0.5, 0.5, 0.5), scale_scale=(0.0078125, 0.0078125, 0.0078125),
                    translation=[(f, 2 * f, 3 * f) for f in range(nf)],
                    rotation=[(0, 0, 1000 * f, 32767 - 10 * f) for f in range(nf)],
                    scale=[(64 * f, 64, 128) for f in range(nf)])
    b2 = _anim_bone("B_Arm", 2, rotation=[(-500 * f, 0, 0, 32700) for f in range(nf)],
                    default_rotation=(0, 0, 0, 32767))
    b3 = _anim_bone("B_Leg", 3, unknown=1, translation_offset=(1.0, 1.0, 1.0),
                    translation_scale=(0.0625, 0.0625, 0.0625),
                    scale_offset=(1.0, 0.5, 0.25), scale_scale=(0.25, 0.125, 0.0625),
                    translation=[(65535, 0, 100 * f) for f in range(nf)],
                    scale=[(f, 2 * f, 65535 - f) for f in range(nf)])
    b4 = _anim_bone("B_Static", 4, translation_offset=(0.5, 0.25, 0.0),
                    default_rotation=(0, 0, 23170, 23170),
                    visibility=[True, True, False, True, False])
    b5 = _anim_bone("B_Tail", 5, rotation=[(0, 30000 - f, 0, 13000) for f in range(nf)],
                    step=[False, True, False, False, True])
    spec = {"format": 2, "num_frames": nf, "fps": 24.0, "bones": [b1, b2, b3, b4, b5]}
    return build_ala(spec), spec


def fixture_ala_v1_constant():
    """Format #1 where no bone translates (no 0x1004) and rotations are constant: every
    0x1006 holds a single quaternion (8 bytes) with num_frames = 12."""
    nf = 12
    bones = [_anim_bone("B_Base", 1, unknown=1, translation_offset=(0.75, -0.125, 0.0),
                        default_rotation=(0, 0, 23170, 23170)),
             _anim_bone("B_Turret_00", 2, translation_offset=(0.0, 0.0, 2.5),
                        default_rotation=(0, 0, 0, 32767)),
             _anim_bone("B_Barrel_00", 3, translation_offset=(1.5, 0.0, 0.0),
                        default_rotation=(-23170, 0, 0, 23170),
                        visibility=[i < 6 for i in range(nf)])]
    spec = {"format": 1, "num_frames": nf, "fps": 30.0, "bones": bones}
    return build_ala(spec), spec


ALL_FIXTURES = {
    "fixture_alo_205_bones": fixture_alo_205_bones,
    "fixture_alo_10005_vertices": fixture_alo_10005_vertices,
    "fixture_alo_lights": fixture_alo_lights,
    "fixture_alo_dazzles_direct": fixture_alo_dazzles_direct,
    "fixture_alo_dazzles_nested": fixture_alo_dazzles_nested,
    "fixture_alo_proxies_no_minis": fixture_alo_proxies_no_minis,
    "fixture_alo_b4i4": fixture_alo_b4i4,
    "fixture_alo_all_param_types": fixture_alo_all_param_types,
    "fixture_alo_collision": fixture_alo_collision,
    "fixture_alo_unknown_chunks": fixture_alo_unknown_chunks,
    "fixture_ala_v1_scale_step": fixture_ala_v1_scale_step,
    "fixture_ala_v2_scale": fixture_ala_v2_scale,
    "fixture_ala_v1_constant": fixture_ala_v1_constant,
}


# ---------------------------------------------------------------------------------------
# Malformed inputs
# ---------------------------------------------------------------------------------------


def _find(data: bytes, ctype: int, nth: int = 0):
    """Offset of the nth chunk of this type (depth-first), using a tiny local walker that
    descends only into containers.  For locating bytes to corrupt; not a reader."""
    hits = []

    def walk(off, end):
        while off + 8 <= end:
            t, s = struct.unpack_from("<II", data, off)
            size = s & 0x7FFFFFFF
            if t == ctype:
                hits.append(off)
            if s & CONTAINER_BIT:
                walk(off + 8, off + 8 + size)
            off += 8 + size

    walk(0, len(data))
    return hits[nth]


def _patch_u32(data: bytes, off: int, value: int) -> bytes:
    b = bytearray(data)
    struct.pack_into("<I", b, off, value & 0xFFFFFFFF)
    return bytes(b)


def _tower(depth: int) -> bytes:
    """``depth`` nested 0x200 containers around an empty 0x201 data chunk (built directly
    so it costs O(depth) rather than O(depth**2))."""
    inner = struct.pack("<II", 0x201, 0)
    parts = []
    for i in range(depth):
        size = 8 * (depth - 1 - i) + len(inner)
        parts.append(struct.pack("<II", 0x200, size | CONTAINER_BIT))
    return b"".join(parts) + inner


#: Expected behaviour for each malformed case:
#:   "error"     - structural: every reader must raise its own format error (a clean,
#:                 documented exception; never IndexError/struct.error/MemoryError/
#:                 RecursionError, never a hang or a 2 GB allocation).
#:   "validator" - the bytes parse; the reader must either raise its format error or
#:                 load and have the validator report the problem (never crash later,
#:                 e.g. with an IndexError while building the armature/skin).
MALFORMED_EXPECT = {
    "truncated_in_first_header": "error",       # 5 bytes: a chunk header needs 8
    "truncated_in_skeleton_header": "error",    # cut inside the 0x201 body
    "truncated_in_vertex_buffer": "error",      # cut inside 0x10007
    "truncated_last_byte": "error",             # one byte short of the 0x600 chunk
    "truncated_ala_in_frames": "error",         # format #2 cut inside 0x1009
    "root_size_past_end": "error",              # last root chunk claims 100 bytes more
    "size_2gb_root": "error",                   # root 0x200 size 0x7ffffff0 (container bit)
    "size_2gb_data_chunk": "error",             # 0x10007 size 0x7ffffff0 inside its parent
    "container_child_overruns_parent": "error", # 0x206 size 64 inside a 0x202 sized for 60
    # The buffers are whole vertices/triangles: a reader may load what they hold and keep the
    # header's count (for a lossless write) as long as validation reports the mismatch.
    "vertex_count_exceeds_buffer": "validator",  # 0x10001 nVertices > buffer / 144
    "index_buffer_short": "validator",          # 0x10001 nPrimitives one more than 0x10004 holds
    "bone_name_no_nul": "error",                # 0x203 body without a NUL terminator
    "mini_size_past_chunk": "error",            # 0x602 mini 3 claims 200 bytes
    "ala_mini_size_past_chunk": "error",        # 0x1003 mini 5 claims 250 bytes
    "bone_parent_not_lower": "validator",       # bone 2's parent is 3 (>= own index)
    "bone_parent_out_of_range": "validator",    # bone 2's parent is 99 (no such bone)
    "bone_map_beyond_skeleton": "validator",    # 0x10006 entry 40 with 6 bones
    "ala_v1_translation_short": "error",        # 0x1004 shorter than frames * 6
    "ala_v2_rotation_index_past_frame": "error",  # rotation index + 4 > rotation frame size
    "deep_nesting_10000": "error",              # 10,000 nested containers
    "empty_file": "error",                      # 0 bytes
    "seven_stray_bytes": "error",               # a 7-byte file
    "trailing_seven_stray_bytes": "error",      # valid model + 7 bytes (partial header)
}


def malformed_cases():
    """Named bad inputs built from valid fixtures: list of (name, bytes).

    See ``MALFORMED_EXPECT`` for what a reader should do with each.
    """
    model, _ = fixture_alo_205_bones()        # 0x205 skeleton, one mesh, 0x10007 vertices
    model206, mspec = fixture_alo_proxies_no_minis()
    anim2, aspec2 = fixture_ala_v2_scale()
    cases = []

    # -- truncation ------------------------------------------------------------------- error
    cases.append(("truncated_in_first_header", model[:5]))
    cases.append(("truncated_in_skeleton_header", model[:_find(model, 0x201) + 8 + 60]))
    cases.append(("truncated_in_vertex_buffer", model[:_find(model, 0x10007) + 8 + 200]))
    cases.append(("truncated_last_byte", model[:-1]))
    cases.append(("truncated_ala_in_frames", anim2[:_find(anim2, 0x1009) + 8 + 10]))

    # -- sizes ------------------------------------------------------------------------ error
    off = _find(model, 0x600)
    size = struct.unpack_from("<I", model, off + 4)[0]
    cases.append(("root_size_past_end", _patch_u32(model, off + 4, size + 100)))
    cases.append(("size_2gb_root", _patch_u32(model, 4, 0x7FFFFFF0 | CONTAINER_BIT)))
    cases.append(("size_2gb_data_chunk",
                  _patch_u32(model, _find(model, 0x10007) + 4, 0x7FFFFFF0)))
    # the 0x206 of bone 1 claims 64 bytes: it runs 4 bytes into the next 0x202's header
    off = _find(model206, 0x206, 1)
    cases.append(("container_child_overruns_parent", _patch_u32(model206, off + 4, 64)))

    # -- counts vs. buffers ----------------------------------------------------------- error
    off = _find(model, 0x10001) + 8
    nv, npr = struct.unpack_from("<II", model, off)
    cases.append(("vertex_count_exceeds_buffer", _patch_u32(model, off, nv + 10)))
    cases.append(("index_buffer_short", _patch_u32(model, off + 4, npr + 1)))

    # -- strings / mini-chunks -------------------------------------------------------- error
    off = _find(model, 0x203, 1)
    nlen = struct.unpack_from("<I", model, off + 4)[0]
    b = bytearray(model)
    b[off + 8 + nlen - 1] = ord("X")       # replace the NUL of "B_Body"
    cases.append(("bone_name_no_nul", bytes(b)))
    off = _find(model, 0x602) + 8
    b = bytearray(model)
    assert b[off + 6] == 3                  # mini 2 (6 bytes), then mini 3's type byte
    b[off + 7] = 200
    cases.append(("mini_size_past_chunk", bytes(b)))
    off = _find(anim2, 0x1003) + 8
    b = bytearray(anim2)
    name_len = b[off + 1]
    assert b[off + 2 + name_len] == 5
    b[off + 2 + name_len + 1] = 250
    cases.append(("ala_mini_size_past_chunk", bytes(b)))

    # -- references (reader or validator) -------------------------------------------- validator
    rest = model206[len(skeleton(mspec["bones"])):]   # meshes + 0x600 after the skeleton
    bones = copy.deepcopy(mspec["bones"])
    bones[2]["parent"] = 3
    cases.append(("bone_parent_not_lower", skeleton(bones, check=False) + rest))
    bones = copy.deepcopy(mspec["bones"])
    bones[2]["parent"] = 99
    cases.append(("bone_parent_out_of_range", skeleton(bones, check=False) + rest))
    _, bspec = fixture_alo_b4i4()
    bspec = copy.deepcopy(bspec)
    bspec["objects"][0]["submeshes"][0]["bone_map"][2] = 40
    cases.append(("bone_map_beyond_skeleton", build_alo(bspec, check=False)))

    # -- animations ------------------------------------------------------------------- error
    _, v1spec = fixture_ala_v1_scale_step()
    v1bones = copy.deepcopy(v1spec["bones"])
    v1bones[0]["translation"] = v1bones[0]["translation"][:-1]   # frames - 1 triples
    cases.append(("ala_v1_translation_short",
                  ala_v1(v1spec["num_frames"], v1spec["fps"], v1bones, check=False)))
    v2bones = copy.deepcopy(aspec2["bones"])
    _, _, _, rsize, _, _ = ala_v2_layout(v2bones)
    v2bones[1]["rotation_index"] = rsize         # B_Arm: offset == frame size, 4 values past it
    cases.append(("ala_v2_rotation_index_past_frame",
                  ala_v2(aspec2["num_frames"], aspec2["fps"], v2bones, check=False)))

    # -- pathological ----------------------------------------------------------------- error
    cases.append(("deep_nesting_10000", _tower(10000)))
    cases.append(("empty_file", b""))
    cases.append(("seven_stray_bytes", b"\x00\x02\x00\x00\x80\x00\x00"))
    cases.append(("trailing_seven_stray_bytes", model + b"\x00\x02\x00\x00\x80\x00\x00"))

    assert [n for n, _ in cases] == list(MALFORMED_EXPECT), "keep MALFORMED_EXPECT in sync"
    return cases
