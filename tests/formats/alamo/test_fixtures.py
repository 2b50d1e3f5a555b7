"""Files built straight from the spec (tests/specbuild.py, struct.pack, not our writer):
the reader decodes exactly what went in, and the writer gives back the identical bytes."""

import numpy as np
import pytest
import specbuild as sb

from io_alamo.formats.alamo import (Light, Mesh, ParamType, decode_animation, read_ala, read_alo,
                                    write_ala, write_alo)
from io_alamo.formats.alamo.validate import validate

ALO_FIXTURES = [getattr(sb, n) for n in sb.ALL_FIXTURES if n.startswith("fixture_alo")]
ALA_FIXTURES = [getattr(sb, n) for n in sb.ALL_FIXTURES if n.startswith("fixture_ala")]
PARAM_KINDS = {"int": ParamType.INT, "float": ParamType.FLOAT, "float3": ParamType.FLOAT3,
               "float4": ParamType.FLOAT4, "texture": ParamType.TEXTURE}


def same(a, b):
    return np.array_equal(np.asarray(a, np.float64), np.asarray(b, np.float64))


def check_submesh(sub, want):
    assert sub.material.shader == want["shader"]
    got = [(p.type, p.name) for p in sub.material.params]
    assert got == [(PARAM_KINDS[k], n) for k, n, _ in want["params"]]
    for p, (_, _, value) in zip(sub.material.params, want["params"]):
        assert p.value == value if isinstance(value, str) else same(p.value, value), p.name
    assert sub.vertex_format == want["vertex_format"]
    assert sub.vertex_chunk_type == want["vertex_chunk"]
    verts = want["vertices"]
    assert len(sub.vertices) == len(verts)
    for field in ("position", "normal", "tangent", "binormal", "color", "bone_indices",
                  "bone_weights"):
        assert same(sub.vertices[field], [v[field] for v in verts]), field
    assert same(sub.vertices["uv"], [v["uv"] for v in verts])
    if want["vertex_chunk"] == 0x10007:
        assert same(sub.vertices["unused"], [v["unused"] for v in verts])
    assert same(sub.indices, want["indices"])
    if want["bone_map"] is None:
        assert sub.bone_map is None
    else:
        assert list(sub.bone_map) == want["bone_map"]
    tree = want["collision"]
    if tree is None:
        assert sub.collision_tree is None
    else:
        t = sub.collision_tree
        assert same(t.box_min, tree["box_min"]) and same(t.box_max, tree["box_max"])
        assert [(tuple(n["min"]), tuple(n["max"]), n["count"], n["link"]) for n in t.nodes] \
            == [(tuple(a), tuple(b), c, l) for a, b, c, l in tree["nodes"]]
        assert list(t.triangles) == tree["triangles"]


@pytest.mark.parametrize("fixture", ALO_FIXTURES, ids=lambda f: f.__name__)
def test_alo_fixture_decodes_to_its_spec_and_writes_back_identical(fixture):
    data, spec = fixture()
    model = read_alo(data)
    assert write_alo(model) == data
    assert [b.name for b in model.bones] == [b["name"] for b in spec["bones"]]
    for b, want in zip(model.bones, spec["bones"]):
        assert b.parent == want["parent"] and b.visible == want["visible"]
        assert b.billboard == (want["billboard"] if spec["bone_chunk_type"] == 0x206 else 0)
        assert b.chunk_type == spec["bone_chunk_type"]
        assert same(b.matrix.ravel(), want["matrix"])
    assert len(model.objects) == len(spec["objects"])
    for obj, want in zip(model.objects, spec["objects"]):
        if want["kind"] == "mesh":
            assert isinstance(obj, Mesh) and obj.name == want["name"]
            assert obj.hidden == want["hidden"] and obj.collision == want["collision"]
            assert same(obj.bbox_min, want["bbox"][0]) and same(obj.bbox_max, want["bbox"][1])
            assert len(obj.submeshes) == len(want["submeshes"])
            for sub, sw in zip(obj.submeshes, want["submeshes"]):
                check_submesh(sub, sw)
        else:
            assert isinstance(obj, Light) and obj.name == want["name"]
            assert obj.type == want["type"] and same(obj.color, want["color"])
            for attr, key in (("intensity", "intensity"), ("far_attenuation_end", "far_end"),
                              ("far_attenuation_start", "far_start"), ("hotspot", "hotspot"),
                              ("falloff", "falloff")):
                assert getattr(obj, attr) == np.float32(want[key]), attr
    conn = model.connections
    assert [(c.object, c.bone) for c in conn.objects] == spec["connections"]
    assert [(p.name, p.bone, p.hidden, p.alt_decrease_stay_hidden) for p in conn.proxies] == \
        [(p["name"], p["bone"], p["hidden"], p["alt"]) for p in spec["proxies"]]
    assert len(conn.dazzles) == len(spec["dazzles"])
    for d, want in zip(conn.dazzles, spec["dazzles"]):
        assert d.nested == (spec["dazzle_layout"] == "nested")
        for key, value in want.items():
            got = getattr(d, key)
            if value is None or isinstance(value, str):
                assert got == value, key
            else:
                assert same(got, value), key
    assert conn.write_dazzle_count == (spec["dazzle_count"] is not None)
    if "unknown" not in spec:
        assert validate(model) == []


def test_unknown_chunks_are_kept_in_place():
    data, spec = sb.fixture_alo_unknown_chunks()
    model = read_alo(data)
    extra = spec["unknown"]
    assert model.bones[1].name == "B_Turret"
    assert model.bones[1].layout.tails["name"] == extra["bone_name_pad"]
    assert model.meshes[0].unused == extra["mesh_info_unused"]
    assert model.meshes[0].layout.tails["info"] == extra["mesh_info_pad"]
    assert any(getattr(c, "type", None) == extra["mesh_data_chunk"]
               for c in model.meshes[0].layout.order)
    assert any(getattr(c, "type", None) == extra["root_container"] for c in model.layout.order)
    # after an edit elsewhere every extra is still written, in place
    model.bones[2].name = "B_Barrel_Renamed"
    out = read_alo(write_alo(model))
    assert out.bones[2].name == "B_Barrel_Renamed"
    assert out.bones[1].layout.tails["name"] == extra["bone_name_pad"]
    model.bones[2].name = "B_Barrel"
    assert write_alo(model) == data


def test_b4i4_weights_and_bone_map():
    data, spec = sb.fixture_alo_b4i4()
    sub = read_alo(data).meshes[0].submeshes[0]
    assert sub.is_skinned and sub.vertex_format.startswith("alD3dVertB4I4")
    assert np.allclose(sub.vertices["bone_weights"].sum(axis=1), 1)
    assert sub.vertices["bone_indices"][3].tolist() == [4, 3, 2, 1]


def _bits(flags, frames):
    return [bool(x) for x in flags[:frames]]


@pytest.mark.parametrize("fixture", ALA_FIXTURES, ids=lambda f: f.__name__)
def test_ala_fixture_decodes_to_its_spec_and_writes_back_identical(fixture):
    data, spec = fixture()
    anim = read_ala(data)
    assert write_ala(anim) == data
    assert anim.format == spec["format"] and anim.num_frames == spec["num_frames"]
    assert anim.fps == np.float32(spec["fps"])
    frames = spec["num_frames"]
    dec = decode_animation(anim)
    for i, (b, want) in enumerate(zip(anim.bones, spec["bones"])):
        assert b.name == want["name"] and b.index == want["index"]
        assert b.unknown == want["unknown"]
        for key in ("translation_offset", "translation_scale", "scale_offset", "scale_scale"):
            assert same(getattr(b, key), want[key]), key
        for key, width in (("translation", 3), ("scale", 3)):
            raw = want[key]
            if raw is None:
                assert getattr(b, key) is None
                expect = np.broadcast_to(np.float32(want[f"{key}_offset"]), (frames, 3))
            else:
                q = np.asarray(raw, np.int64).reshape(frames, width) & 0xFFFF
                assert same(getattr(b, key), q), key
                expect = (np.float32(want[f"{key}_offset"])
                          + q.astype(np.float32) * np.float32(want[f"{key}_scale"]))
            assert same(getattr(dec, key)[i], expect), key
        if want["rotation"] is not None:
            q = np.asarray(want["rotation"], np.int16).reshape(frames, 4)
            assert same(b.rotation, q)
            assert same(dec.rotation[i], q / np.float32(32767))
        else:
            assert b.rotation is None
            assert same(dec.rotation[i][0], np.asarray(want["default_rotation"], np.float32) / np.float32(32767))
        for key, field, default in (("visibility", "visible", True), ("step", "step", False)):
            if want[key] is None:
                assert getattr(b, key) is None and (getattr(dec, field)[i] == default).all()
            else:
                assert getattr(dec, field)[i].tolist() == _bits(want[key], frames)


@pytest.mark.parametrize("name, data", sb.malformed_cases(), ids=lambda x: x if isinstance(x, str) else "")
def test_malformed_input_gives_one_clear_error(name, data):
    from io_alamo.formats.alamo import AlamoFormatError, read_any
    expect = sb.MALFORMED_EXPECT[name]
    try:
        obj = read_any(data, filename="bad.alo")
    except AlamoFormatError as e:
        assert e.filename == "bad.alo"
        assert e.offset is not None or "empty" in e.message
        assert str(e).startswith("bad.alo")
        return
    assert expect == "validator", f"{name} was accepted by the reader"
    assert validate(obj), f"{name} passed validation"
