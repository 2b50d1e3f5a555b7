"""Alithia ALM1 models in Blender: import as a mesh with one shape key per frame keyed as
steps, export back (byte for byte when unedited), bad input leaves nothing behind."""

import struct

import alm1build as ab
import numpy as np
import pytest
from scene import evaluated_positions

from io_alamo.formats.alod import AlodFormatError

bpy = pytest.importorskip("bpy")

from io_alamo.blender.alamo.exporter.alo import ExportError  # noqa: E402
from io_alamo.blender.alithia import morph  # noqa: E402
from io_alamo.blender.alithia.exporter import Alm1ExportOptions, export_alm1  # noqa: E402
from io_alamo.blender.alithia.importer import Alm1ImportOptions, import_alm1  # noqa: E402
from io_alamo.blender.alod.importer import import_alod  # noqa: E402
from io_alamo.formats.alamo import read_alo  # noqa: E402
from io_alamo.formats.alithia.alm1 import read_alm1  # noqa: E402
from io_alamo.formats.errors import FormatError  # noqa: E402


def to_blender(v):
    return np.stack([v[..., 0], -v[..., 2], v[..., 1]], axis=-1)


def write(tmp_path, built, name="wave.alm"):
    path = tmp_path / name
    path.write_bytes(built.data)
    return path


def key_co(kb):
    a = np.empty(len(kb.data) * 3, np.float32)
    kb.data.foreach_get("co", a)
    return a.reshape(-1, 3)


def scene_state():
    d = bpy.data
    s = bpy.context.scene
    return ({o.name for o in d.objects}, len(d.meshes), len(d.materials), len(d.images),
            len(d.actions), len(d.texts), len(d.shape_keys), s.render.fps, s.frame_end)


@pytest.mark.parametrize("frames", [1, 12, 40])
def test_import_one_key_per_frame_and_export_byte_identical(blender, tmp_path, frames):
    built = ab.wave_grid(frames)
    result = import_alm1(bpy.context, str(write(tmp_path, built)))
    obj = result.object
    me = obj.data
    assert [o.type for o in bpy.data.objects] == ["MESH"]
    assert len(me.vertices) == 25 and len(me.polygons) == 32
    blocks = me.shape_keys.key_blocks
    assert [kb.name for kb in blocks] == [f"Frame {k}" for k in range(frames)]
    for k, kb in enumerate(blocks):
        np.testing.assert_array_equal(key_co(kb), to_blender(built.positions[k]))
    corner = built.faces.ravel()
    uv = np.empty(len(me.loops) * 2, np.float32)
    me.uv_layers[0].data.foreach_get("uv", uv)
    expect = built.uvs[0][corner].copy()
    expect[:, 1] = 1.0 - expect[:, 1]
    np.testing.assert_allclose(uv.reshape(-1, 2), expect, atol=1e-6)
    n = morph.corner_normals(me)
    np.testing.assert_allclose(n, to_blender(built.normals[0][corner]), atol=2e-3)
    out = tmp_path / "out.alm"
    res = export_alm1(bpy.context, str(out))
    assert res.reused
    assert out.read_bytes() == built.data


def test_step_keys_play_the_frames_at_20_fps(blender, tmp_path):
    built = ab.wave_grid(12)
    obj = import_alm1(bpy.context, str(write(tmp_path, built))).object
    scene = bpy.context.scene
    assert scene.render.fps == 20 and scene.render.fps_base == 1.0
    assert scene.frame_end == scene.frame_start + 11
    for k in (0, 1, 5, 11):
        scene.frame_set(scene.frame_start + k)
        np.testing.assert_allclose(evaluated_positions(obj), to_blender(built.positions[k]),
                                   atol=1e-5)
    fcurves = [fc for fc in morph.compat.action_fcurves(
        obj.data.shape_keys.animation_data.action)]
    assert len(fcurves) == 11
    interp = {kp.interpolation for fc in fcurves for kp in fc.keyframe_points}
    assert interp == {"CONSTANT"}


def test_keys_spread_over_the_scenes_own_rate(blender, tmp_path):
    built = ab.wave_grid(10)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 30, 1.0
    obj = import_alm1(bpy.context, str(write(tmp_path, built)),
                      Alm1ImportOptions(set_frame_rate=False)).object
    assert scene.render.fps == 30
    assert scene.frame_end == scene.frame_start + 14      # 10 frames of 1.5 scene frames
    scene.frame_set(scene.frame_start + 4)                # 4 / 1.5: file frame 2
    np.testing.assert_allclose(evaluated_positions(obj), to_blender(built.positions[2]),
                               atol=1e-5)
    scene.frame_set(scene.frame_start + 14)
    np.testing.assert_allclose(evaluated_positions(obj), to_blender(built.positions[9]),
                               atol=1e-5)


def test_operators_and_edited_export(blender, tmp_path):
    built = ab.wave_grid(6, flags=3, trailing=b"tail")
    path = write(tmp_path, built)
    assert bpy.ops.import_scene.alm1(filepath=str(path)) == {"FINISHED"}
    obj = bpy.context.active_object
    kb = obj.data.shape_keys.key_blocks[4]
    co = key_co(kb)
    co[7] += (0.0, 0.0, 2.0)                                 # Blender z is the file's y
    kb.data.foreach_set("co", co.ravel())
    obj.data.update()                       # tell the dependency graph (as editing does)
    out = tmp_path / "edited.alm"
    assert bpy.ops.export_scene.alm1(filepath=str(out)) == {"FINISHED"}
    m = read_alm1(out.read_bytes())
    expect = built.positions.copy()
    expect[4, 7, 1] += 2.0
    np.testing.assert_allclose(m.positions, expect, atol=1e-6)
    np.testing.assert_array_equal(m.faces, built.faces)      # Blender order = file order
    np.testing.assert_allclose(m.uvs, built.uvs, atol=1e-6)
    np.testing.assert_allclose(m.normals[0], built.normals[0], atol=2e-3)
    assert (m.flags, m.trailing) == (3, b"tail")            # kept from the imported file
    # later frames: Blender's own normals of each key (unit, facing up like the wave's)
    np.testing.assert_allclose(np.linalg.norm(m.normals[1:], axis=2), 1.0, atol=1e-5)
    assert (m.normals[1:, :, 1] > 0.5).all()
    assert len(bpy.data.meshes) == 1 and len(bpy.data.objects) == 1   # no helper left
    assert bpy.ops.export_scene.alm1(filepath=str(out), frames="SCENE") == {"FINISHED"}
    m = read_alm1(out.read_bytes())
    assert m.frame_count == 6
    np.testing.assert_allclose(m.positions, expect, atol=1e-5)


def test_export_splits_where_uvs_differ_and_triangulates(blender, tmp_path):
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Up")
    co = key_co(key)
    co[:, 2] += 1.0
    key.data.foreach_set("co", co.ravel())
    out = tmp_path / "cube.alm"
    res = export_alm1(bpy.context, str(out))
    m = read_alm1(out.read_bytes())
    assert m.frame_count == 2 and m.face_count == 12
    assert m.vertex_count == 24            # 8 corners x 3 (flat faces: normals differ)
    np.testing.assert_allclose(m.positions[1][:, 1] - m.positions[0][:, 1], 1.0, atol=1e-6)
    assert res.counts["vertices"] == 24


def test_export_refuses_more_vertices_than_the_engine_reads(blender, tmp_path):
    """ALM1's own limit: the engine reads face indices as signed 16-bit (0 to 32,767)."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=160, y_subdivisions=160)
    res = export_alm1(bpy.context, str(tmp_path / "fits.alm"))
    assert 160 * 160 <= res.counts["vertices"] <= 32768
    assert read_alm1((tmp_path / "fits.alm").read_bytes()).faces.max() <= 32767
    bpy.ops.object.delete()
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=182, y_subdivisions=182)   # 33,124+
    with pytest.raises(ExportError, match="at most 32,768 .indices 0 to 32,767."):
        export_alm1(bpy.context, str(tmp_path / "big.alm"))
    assert not (tmp_path / "big.alm").exists()


def _bmp_pixels(data):
    """(h, w, 3) RGB rows bottom-up of a 24-bit BMP, read by the spec (not our writer)."""
    offset, = struct.unpack_from("<I", data, 10)
    w, h, planes, bits = struct.unpack_from("<iiHH", data, 18)
    assert bits == 24 and planes == 1
    stride = (3 * w + 3) & ~3
    rows = np.frombuffer(data, np.uint8, h * stride, offset).reshape(h, stride)
    return rows[:, :3 * w].reshape(h, w, 3)[:, :, ::-1]


def test_export_writes_the_texture_the_engine_needs(blender, tmp_path):
    path = write(tmp_path, ab.wave_grid(2), "Thing.alm")
    rows = b"\x00\x00\xff\x00\xff\x00\x00\x00" * 2     # red, green on both rows
    (tmp_path / "Thing.bmp").write_bytes(
        b"BM" + struct.pack("<IHHI", 54 + len(rows), 0, 0, 54)
        + struct.pack("<IiiHHIIiiII", 40, 2, 2, 1, 24, 0, len(rows), 2835, 2835, 0, 0) + rows)
    import_alm1(bpy.context, str(path))
    out = tmp_path / "out"
    out.mkdir()
    res = export_alm1(bpy.context, str(out / "New.alm"))
    assert res.warnings == [] and res.counts["texture"] == str(out / "New.bmp")
    got = _bmp_pixels((out / "New.bmp").read_bytes())
    assert got[:, 0].tolist() == [[255, 0, 0]] * 2 and got[:, 1].tolist() == [[0, 255, 0]] * 2
    export_alm1(bpy.context, str(out / "Plain.alm"), Alm1ExportOptions(write_texture=False))
    assert not (out / "Plain.bmp").exists()
    # exported over itself, its own .bmp is left as it is
    before = (tmp_path / "Thing.bmp").stat().st_mtime_ns
    export_alm1(bpy.context, str(path))
    assert (tmp_path / "Thing.bmp").stat().st_mtime_ns == before


def test_export_without_an_image_warns(blender, tmp_path):
    bpy.ops.mesh.primitive_cube_add()
    res = export_alm1(bpy.context, str(tmp_path / "cube.alm"))
    assert len(res.warnings) == 1 and "refuses a model without its .bmp" in res.warnings[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cube.alm"]


def test_sibling_bmp_is_the_texture(blender, tmp_path):
    path = write(tmp_path, ab.wave_grid(2), "Thing.alm")
    rows = b"\x00\x00\xff\x00\xff\x00\x00\x00" * 2          # 2x2 24-bit, rows padded to 8
    bmp = (b"BM" + struct.pack("<IHHI", 54 + len(rows), 0, 0, 54)
           + struct.pack("<IiiHHIIiiII", 40, 2, 2, 1, 24, 0, len(rows), 2835, 2835, 0, 0)
           + rows)
    (tmp_path / "thing.BMP").write_bytes(bmp)
    obj = import_alm1(bpy.context, str(path)).object
    mat = obj.data.materials[0]
    images = [n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert len(images) == 1 and images[0].filepath.lower().endswith("thing.bmp")
    assert tuple(images[0].size) == (2, 2)


def test_imported_model_exports_as_alo(blender, tmp_path):
    built = ab.wave_grid(5)
    import_alm1(bpy.context, str(write(tmp_path, built)))
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    out = tmp_path / "wave.alo"
    export_alo(bpy.context, str(out), AloExportOptions(scope="SCENE"))
    model = read_alo(out.read_bytes())
    assert len(model.meshes) == 1
    subs = model.meshes[0].submeshes
    assert sum(len(s.indices) for s in subs) == 32
    got = np.concatenate([s.vertices["position"] for s in subs])
    want = to_blender(built.positions[0])
    # every file vertex is there (the .alo is in Blender's axes, Alamo's z up)
    d = np.abs(got[:, None, :] - want[None, :, :]).max(axis=2)
    assert d.min(axis=0).max() < 1e-5


def bad_files():
    b = ab.wave_grid(3)
    faces = b.faces.copy()
    faces[5, 1] = 200
    zero = bytearray(b.data)
    zero[16:20] = bytes(4)
    many = np.zeros((10_001, 1, 3), np.float32)
    return {"truncated": (b.data[:20 + 800 + 100], "frame 1/"),
            "more frames than Blender handles": (
                ab.assemble(many, many, many[..., :2], np.zeros((0, 3))), "frame count"),
            "counts beyond the file": (ab.huge_counts(1000, 1000, 1000, body=500), "frame 0/"),
            "zero frames": (bytes(zero), "frame count"),
            "index out of range": (ab.assemble(b.positions, b.normals, b.uvs, faces),
                                   "faces/face 5")}


@pytest.mark.parametrize("case", list(bad_files()))
def test_bad_input_one_clear_error_nothing_left(blender, tmp_path, case):
    data, where = bad_files()[case]
    path = tmp_path / "bad.alm"
    path.write_bytes(data)
    before = scene_state()
    with pytest.raises(FormatError) as e:
        import_alm1(bpy.context, str(path))
    text = str(e.value)
    assert "bad.alm" in text and "offset 0x" in text and where in text and "\n" not in text
    with pytest.raises(RuntimeError, match=r"bad.alm: .*\(offset 0x"):   # the operator's report
        bpy.ops.import_scene.alm1(filepath=str(path))
    assert scene_state() == before


def test_alod_magic_is_told_apart(blender, tmp_path):
    """``ALM\\0`` goes to the ALOD reader (whose error names its own structure), not ALM1's:
    since each engine has its own File > Import entry (issue 24), the Alithia import refuses
    it and names the ALOD entry."""
    path = tmp_path / "alod.alm"
    path.write_bytes(b"ALM\0" + bytes(60))
    with pytest.raises(FormatError, match=r"is an ALOD model.*File > Import > ALOD Model"):
        import_alm1(bpy.context, str(path))
    with pytest.raises(AlodFormatError):
        import_alod(bpy.context, str(path))
    assert len(bpy.data.objects) == 0


def test_failure_midway_rolls_back_everything(blender, tmp_path, monkeypatch):
    path = write(tmp_path, ab.wave_grid(8), "thing.alm")
    (tmp_path / "thing.bmp").write_bytes(b"BM" + bytes(60))     # unreadable: still tried
    before = scene_state()

    def broken(*args):
        raise FormatError("broken on purpose")
    monkeypatch.setattr(morph, "key_steps", broken)
    with pytest.raises(FormatError, match="broken on purpose"):
        import_alm1(bpy.context, str(path))
    assert scene_state() == before


def test_degenerate_triangles_are_left_out_but_kept_on_export(blender, tmp_path):
    b = ab.wave_grid(2)
    faces = np.concatenate([b.faces, [[3, 3, 4]]])
    data = ab.assemble(b.positions, b.normals, b.uvs, faces)
    path = tmp_path / "deg.alm"
    path.write_bytes(data)
    res = import_alm1(bpy.context, str(path))
    assert len(res.object.data.polygons) == 32
    assert any("use a vertex twice" in w for w in res.warnings)
    out = tmp_path / "out.alm"
    export_alm1(bpy.context, str(out), Alm1ExportOptions())
    assert out.read_bytes() == data


def test_the_bytes_are_kept_under_alithias_own_key_and_old_blends_still_export(blender,
                                                                               tmp_path):
    """ALM1 bytes are not kept under Alamo's source key (an Alamo export never takes them
    for .alo bytes); a .blend from before, holding them under Alamo's key, exports the same."""
    from io_alamo.blender import source
    built = ab.wave_grid(3)
    obj = import_alm1(bpy.context, str(write(tmp_path, built))).object
    assert source.get_source(obj, morph.SOURCE_KEY) == built.data
    assert source.KEY not in obj and not source.has_source(obj)
    obj[source.KEY] = obj[morph.SOURCE_KEY]           # as issue 32's predecessors kept them
    del obj[morph.SOURCE_KEY]
    out = tmp_path / "old.alm"
    assert export_alm1(bpy.context, str(out)).reused
    assert out.read_bytes() == built.data
