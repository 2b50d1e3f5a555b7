"""Writing models: from scratch, after edits, with limits checked before any byte is made."""

import numpy as np
import pytest
from corpus import corpus_files

from io_alamo.formats.alamo import (VERTEX_DTYPE, VERTEX_DTYPE_NO_UNUSED, AlamoFormatError, Bone,
                                    Connections, Dazzle, Light, Material, Mesh, Model,
                                    ObjectConnection, ParamType, Proxy, ShaderParam, Skeleton,
                                    SubMesh, build_collision_tree, read_alo, write_alo)
from io_alamo.formats.alamo.chunks import read_chunks
from io_alamo.formats.alamo.validate import validate


def quad_submesh(shader="alDefault.fx", dtype=VERTEX_DTYPE):
    v = np.zeros(4, dtype)
    v["position"] = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    v["normal"][:, 2] = 1
    v["bone_weights"][:, 0] = 1
    mat = Material(shader, [
        ShaderParam("BaseTexture", ParamType.TEXTURE, "quad.dds"),
        ShaderParam("Passes", ParamType.INT, -3),
        ShaderParam("Glow", ParamType.FLOAT, np.float32(0.5)),
        ShaderParam("Dir", ParamType.FLOAT3, np.array([1, 2, 3], "<f4")),
        ShaderParam("Color", ParamType.FLOAT4, np.array([1, 0.5, 0.25, 1], "<f4")),
    ])
    return SubMesh(mat, "alD3dVertNU2", v, np.array([[0, 1, 2], [0, 2, 3]], "<u2"))


def new_model():
    eye = np.eye(3, 4, dtype="<f4")
    arm = eye.copy()
    arm[:, 3] = [0, 0, 2]
    skel = Skeleton([Bone("Root", -1, eye), Bone("Arm", 0, arm, billboard=2)])
    sub = quad_submesh()
    sub.collision_tree = build_collision_tree(sub.vertices["position"], sub.indices)
    mesh = Mesh("Quad", [sub], np.zeros(3, "<f4"), np.array([1, 1, 0], "<f4"), collision=1)
    light = Light("Lamp", 2, np.array([1, 0.9, 0.8], "<f4"), np.float32(2), hotspot=np.float32(0.3),
                  falloff=np.float32(0.6))
    conn = Connections(
        objects=[ObjectConnection(0, 0), ObjectConnection(1, 1)],
        proxies=[Proxy("p_smoke", 1), Proxy("p_fire_ALT1", 1, hidden=1, alt_decrease_stay_hidden=1)],
        dazzles=[Dazzle("FC_blink", 1, texture="dazzle.tga", bias=np.float32(0.4))])
    return Model(skel, [mesh, light], conn)


def test_model_from_scratch_writes_and_reads_back_equal():
    model = new_model()
    data = write_alo(model)
    back = read_alo(data)
    assert validate(back) == []
    assert [b.name for b in back.bones] == ["Root", "Arm"]
    assert back.bones[1].billboard == 2 and np.array_equal(back.bones[1].matrix, model.bones[1].matrix)
    sub = back.meshes[0].submeshes[0]
    assert [(p.name, p.type) for p in sub.material.params] == [
        (p.name, p.type) for p in model.meshes[0].submeshes[0].material.params]
    assert sub.material.param("passes").value == -3
    assert np.array_equal(sub.material.param("Color").value, [1, 0.5, 0.25, 1])
    assert np.array_equal(sub.vertices, model.meshes[0].submeshes[0].vertices)
    assert np.array_equal(sub.collision_tree.nodes, model.meshes[0].submeshes[0].collision_tree.nodes)
    light = back.lights[0]
    assert light.type == 2 and np.isclose(light.falloff, 0.6)
    p = back.connections.proxies
    assert p[0].hidden is None and p[1].alt_decrease_stay_hidden == 1
    d = back.connections.dazzles[0]
    assert d.nested and d.texture == "dazzle.tga" and np.isclose(d.bias, 0.4)
    # canonical layout: 0x200, objects, 0x600; fixed headers 128 bytes
    roots = read_chunks(data)
    assert [c.type for c in roots] == [0x200, 0x400, 0x1300, 0x600]
    assert len(roots[0].children[0].data) == 128
    assert write_alo(back) == data


def test_edits_keep_everything_else_identical():
    model = read_alo(write_alo(new_model()))
    model.skeleton.bones.append(Bone("Extra", 1, np.eye(3, 4, dtype="<f4")))
    model.meshes[0].name = "Renamed"
    model.connections.proxies.pop(0)
    back = read_alo(write_alo(model))
    assert [b.name for b in back.bones] == ["Root", "Arm", "Extra"]
    assert back.meshes[0].name == "Renamed" and len(back.connections.proxies) == 1
    assert write_alo(back) == write_alo(model)


def test_unknown_root_chunk_and_string_tail_survive_an_edit():
    from io_alamo.formats.alamo import Chunk
    model = read_alo(write_alo(new_model()))
    model.layout.order.insert(1, Chunk(0x7777, data=b"keep me"))
    model.meshes[0].layout.tails["name"] = b"\xcdjunk"
    edited = read_alo(write_alo(model))
    edited.bones[1].visible = 0
    out = write_alo(edited)
    assert b"keep me" in out and b"Quad\0\xcdjunk" in out
    assert [c.type for c in read_chunks(out)][:2] == [0x200, 0x7777]
    assert read_alo(out).bones[1].visible == 0


def test_cp1252_names_are_kept_byte_for_byte():
    model = new_model()
    model.bones[1].name = "Arm_\u00e9\u20ac"          # é and € in cp1252
    out = write_alo(model)
    assert b"Arm_\xe9\x80\0" in out
    assert read_alo(out).bones[1].name == "Arm_\u00e9\u20ac"


def test_vertex_buffer_without_unused_field():
    model = new_model()
    model.meshes[0].submeshes[0] = quad_submesh(dtype=VERTEX_DTYPE_NO_UNUSED)
    model.meshes[0].collision = 0
    back = read_alo(write_alo(model))
    sub = back.meshes[0].submeshes[0]
    assert sub.vertex_chunk_type == 0x10005 and sub.vertices.dtype.itemsize == 128


@pytest.mark.parametrize("breakage, message", [
    (lambda m: setattr(m.meshes[0].submeshes[0], "vertices", np.zeros(70000, VERTEX_DTYPE)), "65,535"),
    (lambda m: setattr(m.bones[1], "matrix", np.eye(4)), "3x4"),
    (lambda m: setattr(m.meshes[0], "name", "bad\0name"), "NUL"),
    (lambda m: setattr(m.meshes[0], "name", "\u4e2d"), "cp1252"),
    (lambda m: setattr(m.connections.proxies[0], "bone", -1), "fit"),
    (lambda m: setattr(m.connections.proxies[0], "name", "x" * 300), "255"),
    (lambda m: m.meshes[0].submeshes[0].material.params.__setitem__(
        1, ShaderParam("Passes", ParamType.INT, 2 ** 40)), "int32"),
])
def test_writer_refuses_what_the_format_cannot_hold(breakage, message):
    model = new_model()
    breakage(model)
    with pytest.raises(AlamoFormatError, match=message):
        write_alo(model)


def test_collision_tree_too_big_for_the_file_is_refused_on_write():
    rng = np.random.default_rng(0)
    n = 70000
    pos = rng.random((n * 3, 3)).astype(np.float32)
    tree = build_collision_tree(pos, np.arange(n * 3).reshape(n, 3))
    model = new_model()
    model.meshes[0].submeshes[0].collision_tree = tree
    with pytest.raises(AlamoFormatError, match="collision tree"):
        write_alo(model)


@pytest.mark.skipif(not corpus_files(".alo"), reason="no shared corpus: real-file test skipped")
def test_editing_one_real_mesh_leaves_the_rest_byte_identical():
    path = max(corpus_files(".alo"), key=lambda p: p.stat().st_size)
    data = path.read_bytes()
    model = read_alo(data)
    first = model.meshes[0].submeshes[0]
    first.vertices = first.vertices.copy()
    first.vertices["position"][:, 2] += 1.0
    out = write_alo(model)
    assert len(out) == len(data)
    changed = np.flatnonzero(np.frombuffer(out, np.uint8) != np.frombuffer(data, np.uint8))
    vb = read_chunks(data)
    # every changed byte lies inside the first sub-mesh's vertex buffer
    mesh_chunk = next(c for c in vb if c.type == 0x400)
    sub = next(c for c in mesh_chunk.children if c.type == 0x10000)
    vbuf = next(c for c in sub.children if c.type in (0x10005, 0x10007))
    lo, hi = vbuf.offset + 8, vbuf.offset + 8 + vbuf.size()
    assert changed.size and changed.min() >= lo and changed.max() < hi


def test_header_counts_that_disagree_are_kept_while_unchanged_and_reported():
    import struct as st
    data = bytearray(write_alo(new_model()))
    skel = read_chunks(bytes(data))[0]
    at = skel.children[0].offset + 8
    data[at:at + 4] = st.pack("<I", 5)            # skeleton header claims 5 bones, has 2
    model = read_alo(bytes(data))
    assert len(model.bones) == 2
    assert any("header says 5 bones, the data holds 2" in p for p in validate(model))
    assert write_alo(model) == bytes(data)        # unchanged: written as read
    model.skeleton.bones.append(Bone("New", 0, np.eye(3, 4, dtype="<f4")))
    fixed = read_alo(write_alo(model))            # changed: the real count is written
    assert len(fixed.bones) == 3 and validate(fixed) == []
