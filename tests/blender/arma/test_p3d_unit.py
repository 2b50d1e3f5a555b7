"""Arma models as finished Alamo units (issue 35): game scale, standing on the ground, whole
vehicles from their proxied parts, repaired windings, normals and stray points, normal maps
in a bump shader, DXT textures, and the batch converter on every engine's models."""

import struct

import bpy
import numpy as np
import pytest
from alm1build import wave_grid
from alod_build import build_bytes as alod_bytes
from p3d_build import box_lod, build_odol
from p3d_vehicle import PREFIX, boxes_lod, build_vehicle, paa_bytes, texture_pixels

from io_alamo.blender import batch
from io_alamo.blender.arma.importer import P3dImportOptions, import_p3d
from io_alamo.formats.alamo import read_alo
from io_alamo.formats.alamo.dds import describe_dds, encode_dds, mip_chain
from io_alamo.formats.arma.placement import ALAMO_UNITS_PER_METRE

GAME_DDS_FLAGS, GAME_DDS_CAPS = 0xA1007, 0x401008      # as ../shared/corpus/Textures


def _co(obj):
    """World positions of a mesh object's points."""
    me = obj.data
    co = np.empty(3 * len(me.vertices), np.float32)
    me.vertices.foreach_get("co", co)
    m = np.array(obj.matrix_world)
    return co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]


def _shown(res):
    return [o for o in res.objects if o.type == "MESH" and o.visible_get()]


def _signed_volume(obj):
    me = obj.data
    me.calc_loop_triangles()
    tris = np.empty(3 * len(me.loop_triangles), np.int32)
    me.loop_triangles.foreach_get("vertices", tris)
    t = _co(obj).astype(np.float64)[tris.reshape(-1, 3)]
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)


@pytest.fixture(scope="module")
def vehicle(tmp_path_factory):
    return build_vehicle(tmp_path_factory.mktemp("mod") / "truck", textures=4, side=64)


# --- 1. scale and ground ---------------------------------------------------------------------

def test_game_scale_and_on_the_ground_by_default(blender, tmp_path):
    path = tmp_path / "box.p3d"
    path.write_bytes(build_odol(73, [box_lod(1.0, half=(0.5, 0.9, 0.2), centre=(0, 2.0, 0))]))
    res = import_p3d(bpy.context, str(path))
    co = _co(_shown(res)[0])
    assert np.ptp(co[:, 2]) == pytest.approx(1.8 * ALAMO_UNITS_PER_METRE, rel=1e-5)
    assert co[:, 2].min() == pytest.approx(0.0, abs=1e-5)            # stands on the ground
    coll = res.collection
    assert coll["p3d_import_scale"] == ALAMO_UNITS_PER_METRE
    assert coll["p3d_import_lift"] == pytest.approx(-1.1 * ALAMO_UNITS_PER_METRE, rel=1e-5)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    res = import_p3d(bpy.context, str(path), P3dImportOptions(game_scale=False,
                                                              on_ground=False))
    co = _co(_shown(res)[0])
    assert co[:, 2].min() == pytest.approx(1.1) and np.ptp(co[:, 2]) == pytest.approx(1.8)


# --- 2. whole vehicles ------------------------------------------------------------------------

def test_proxied_parts_are_imported_at_their_places_each_file_once(blender, vehicle):
    res = import_p3d(bpy.context, str(vehicle))
    parts = [o for o in res.objects if o.get("p3d_part_file")]
    files = sorted({o["p3d_part_file"].replace("\\", "/").split("/")[-1] for o in parts})
    assert files == ["frame.p3d", "hub.p3d", "wheel.p3d"]
    wheels = [o for o in parts if o["p3d_part_file"].endswith("wheel.p3d")]
    assert len(wheels) == 4 and len({o.data.name for o in wheels}) == 1     # one mesh
    assert len([o for o in parts if o["p3d_part_file"].endswith("hub.p3d")]) == 4
    assert res.counts["parts"] == 9 and res.counts["proxies_missing"] == 1
    assert any("driver_missing" in w and "not found" in w for w in res.warnings)
    empties = [o for o in res.objects if o.type == "EMPTY"]
    assert [o["p3d_proxy_path"] for o in empties] == [PREFIX + "\\crew\\driver_missing"]
    s = ALAMO_UNITS_PER_METRE
    for w in wheels:                     # a wheel at its proxy, e.g. (+-1, 0, -2 or 1.8) m
        centre = _co(w).mean(axis=0)
        assert abs(abs(centre[0]) - 1.0 * s) < 1e-4
        assert centre[1] == pytest.approx(-2.0 * s, abs=1e-4) or \
            centre[1] == pytest.approx(1.8 * s, abs=1e-4)
        assert w.parent == res.armature and w.alamo.role == "MESH"
    lowest = min(_co(o)[:, 2].min() for o in _shown(res))
    assert lowest == pytest.approx(0.0, abs=1e-4)                # the wheels touch the ground
    hubs = [o for o in parts if o["p3d_part_file"].endswith("hub.p3d")]
    wheel_x = sorted(_co(w).mean(axis=0)[0] for w in wheels)
    hub_x = sorted(_co(h).mean(axis=0)[0] for h in hubs)
    assert np.allclose(np.array(hub_x) - wheel_x, 0.25 * s, atol=1e-4)     # the wheel's proxy


def test_a_part_binarised_with_autocenter_stands_where_the_game_puts_it(blender, tmp_path):
    """Issue 43: a frame whose file stores a non-zero bounding centre (its points minus it)
    lands at the proxy plus that centre, where the plain frame of the same truck lands: the
    wheels on the ground, no part sunk below them."""
    plain = import_p3d(bpy.context, str(build_vehicle(tmp_path / "plain", textures=1, side=8)))
    frame = [o for o in plain.objects if o.get("p3d_part_file", "").endswith("frame.p3d")]
    expected = _co(frame[0])
    bpy.ops.wm.read_factory_settings(use_empty=True)
    res = import_p3d(bpy.context, str(build_vehicle(tmp_path / "centred", textures=1, side=8,
                                                    centred=True)))
    parts = [o for o in res.objects if o.get("p3d_part_file")]
    frame = [o for o in parts if o["p3d_part_file"].endswith("frame.p3d")]
    wheels = [o for o in parts if o["p3d_part_file"].endswith("wheel.p3d")]
    np.testing.assert_allclose(_co(frame[0]), expected, atol=1e-4)
    s = ALAMO_UNITS_PER_METRE
    np.testing.assert_allclose(_co(frame[0]).mean(axis=0), [0.0, -0.4 * s, 1.2 * s], atol=1e-4)
    wheel_bottom = min(_co(w)[:, 2].min() for w in wheels)
    assert wheel_bottom == pytest.approx(0.0, abs=1e-4)          # the wheels on the ground
    assert min(_co(o)[:, 2].min() for o in _shown(res)) >= wheel_bottom - 1e-4   # none sunk
    assert res.collection["p3d_import_lift"] == pytest.approx(0.5 * s, rel=1e-5)


def test_proxies_of_a_lower_lod_become_that_lods_parts(blender, tmp_path):
    """Issue 43: each visual LOD draws its own parts in the game; a lower LOD's proxies
    become parts named for that LOD (hidden with it), not empties; both are exported."""
    box = [((0, 1, 0), (0.5, 0.5, 0.5))]
    fine = boxes_lod(1.0, box, [("\\x\\gun", (0.2, 1.6, 0.3))])
    coarse = boxes_lod(2.0, box, [("\\x\\gun", (0.2, 1.6, 0.3))])
    (tmp_path / "unit.p3d").write_bytes(build_odol(73, [fine, coarse]))
    (tmp_path / "gun.p3d").write_bytes(build_odol(73, [boxes_lod(1.0, [((0, 0, 0),
                                                                         (0.1, 0.1, 0.4))])]))
    res = import_p3d(bpy.context, str(tmp_path / "unit.p3d"))
    parts = sorted((o for o in res.objects if o.get("p3d_part_file")), key=lambda o: o.name[-5:])
    assert [o.name[-5:] for o in parts] == ["_LOD0", "_LOD1"]
    assert parts[0].hide_get() and parts[0].hide_render and parts[1].visible_get()
    assert parts[0].data == parts[1].data                      # one mesh for both
    assert not [o for o in res.objects if o.type == "EMPTY"]
    np.testing.assert_allclose(_co(parts[0]), _co(parts[1]), atol=1e-5)
    out = tmp_path / "unit.alo"
    assert bpy.ops.export_scene.alo(filepath=str(out)) == {"FINISHED"}
    names = {m.name for m in read_alo(out.read_bytes()).meshes}
    assert {parts[0].name, parts[1].name} <= names


def test_export_writes_the_parts_as_the_units_meshes(blender, vehicle, tmp_path):
    res = import_p3d(bpy.context, str(vehicle))
    out = tmp_path / "truck.alo"
    assert bpy.ops.export_scene.alo(filepath=str(out)) == {"FINISHED"}
    names = {m.name for m in read_alo(out.read_bytes()).meshes}
    parts = {o.name for o in res.objects if o.get("p3d_part_file")}
    assert parts and parts <= names and "truck_LOD0" in names


def test_a_part_hangs_on_its_proxys_bone(blender, tmp_path):
    lod = boxes_lod(1.0, [((0, 1, 0), (0.5, 0.5, 0.5))], [("\\x\\gun", (0.2, 1.6, 0.3))])
    path, m, seq = lod.proxies[0]
    lod.proxies[0] = (path, m, seq, 1)                      # skeleton bone 1, "arm"
    (tmp_path / "unit.p3d").write_bytes(build_odol(73, [lod]))
    (tmp_path / "gun.p3d").write_bytes(build_odol(73, [boxes_lod(1.0, [((0, 0, 0),
                                                                         (0.1, 0.1, 0.4))])]))
    res = import_p3d(bpy.context, str(tmp_path / "unit.p3d"))
    part = [o for o in res.objects if o.get("p3d_part_file")]
    assert len(part) == 1 and part[0].parent_type == "BONE" and part[0].parent_bone == "arm"
    bpy.context.view_layer.update()
    s = ALAMO_UNITS_PER_METRE
    centre = _co(part[0]).mean(axis=0)                      # at the proxy, lifted with the unit
    lift = res.collection["p3d_import_lift"]
    np.testing.assert_allclose(centre, [0.2 * s, 0.3 * s, 1.6 * s + lift], atol=1e-4)


def test_a_model_naming_itself_is_not_placed_inside_itself(blender, tmp_path):
    path = tmp_path / "loop.p3d"
    path.write_bytes(build_odol(73, [boxes_lod(1.0, [((0, 1, 0), (0.5, 0.5, 0.5))],
                                               [("\\x\\loop", (0, 2, 0))])]))
    res = import_p3d(bpy.context, str(path))
    assert res.counts["parts"] == 0
    assert [o.type for o in res.objects if o.get("p3d_proxy_path")] == ["EMPTY"]


def test_the_file_menu_has_the_options(blender, vehicle):
    assert bpy.ops.import_scene.p3d(filepath=str(vehicle), game_scale=False, on_ground=False,
                                    import_parts=False) == {"FINISHED"}
    assert not [o for o in bpy.data.objects if o.get("p3d_part_file")]
    coll = bpy.data.collections["truck"]
    assert (coll["p3d_import_scale"], coll["p3d_import_lift"]) == (1.0, 0.0)


def test_parts_off_keeps_empties(blender, vehicle):
    res = import_p3d(bpy.context, str(vehicle), P3dImportOptions(import_parts=False))
    assert res.counts["parts"] == 0
    assert len([o for o in res.objects if o.type == "EMPTY"]) == 6


# --- 6. what held-out files hold wrong --------------------------------------------------------

def test_a_part_wound_inward_is_turned_and_stray_points_are_left_out(blender, tmp_path):
    lod = boxes_lod(1.0, [((0, 1, 0), (0.5, 0.5, 0.5)), ((2, 1, 0), (0.4, 0.4, 0.4))])
    lod.faces = lod.faces[:12] + [f[::-1] for f in lod.faces[12:]]     # the second inward
    lod.points = np.vstack([lod.points, [[40.0, 0.0, 0.0], [0.0, -30.0, 0.0]]]).astype(
        np.float32)                                                    # two stray points
    lod.normals = np.vstack([lod.normals, [[0, 1, 0], [0, 1, 0]]])
    lod.uvs = [np.vstack([lod.uvs[0], np.zeros((2, 2))])]
    path = tmp_path / "parts.p3d"
    path.write_bytes(build_odol(73, [lod]))
    res = import_p3d(bpy.context, str(path), P3dImportOptions(game_scale=False))
    obj = _shown(res)[0]
    assert len(obj.data.vertices) == 16                                # strays gone
    co = _co(obj)
    assert co[:, 0].max() < 2.5 and co[:, 2].min() == pytest.approx(0.0, abs=1e-5)
    me = obj.data
    face_n = np.empty(3 * len(me.polygons), np.float32)
    me.polygons.foreach_get("normal", face_n)
    centre = np.empty(3 * len(me.polygons), np.float32)
    me.polygons.foreach_get("center", centre)
    part_centre = np.where(centre.reshape(-1, 3)[:, :1] > 1.0, [[2, 0, 0.5]], [[0, 0, 0.5]])
    outward = (face_n.reshape(-1, 3) * (centre.reshape(-1, 3) - part_centre)).sum(axis=1)
    assert (outward > 0).all()                                          # both boxes
    assert _signed_volume(obj) == pytest.approx(1.0 + 0.512, rel=1e-4)


def _corner_face_dots(me):
    """Each corner normal's dot product with its face's normal."""
    face_n = np.empty(3 * len(me.polygons), np.float32)
    me.polygons.foreach_get("normal", face_n)
    corner = np.empty(3 * len(me.loops), np.float32)
    me.corner_normals.foreach_get("vector", corner)
    sizes = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_total", sizes)
    f = np.repeat(face_n.reshape(-1, 3), sizes, axis=0)
    return (f * corner.reshape(-1, 3)).sum(axis=1)


def test_corner_normals_against_their_faces_are_turned(blender, tmp_path):
    lod = box_lod(1.0)
    lod.normals = lod.normals.copy()
    lod.normals[:3] *= -1.0                                  # three points' normals outward
    path = tmp_path / "n.p3d"
    path.write_bytes(build_odol(73, [lod]))
    res = import_p3d(bpy.context, str(path))
    assert (_corner_face_dots(_shown(res)[0].data) > 0).all()
    assert res.counts["normals_turned"] > 0


def test_corner_normals_in_their_faces_plane_take_the_faces_normal(blender, tmp_path):
    """The An-225 sample's collision LOD (corpus-odol) holds normals at right angles to 24%
    of its faces' corners: no side to turn them to, so they take their face's normal (issue
    43, point 5)."""
    lod = box_lod(1.0)
    lod.normals = lod.normals.copy()
    lod.normals[0] = (0.0, 0.0, 0.0)                         # no length
    lod.normals[1] = (1.0, 0.0, 0.0)                         # in the planes of some faces
    lod.normals[2] = (0.0, 1.0, 0.0)
    path = tmp_path / "flat.p3d"
    path.write_bytes(build_odol(73, [lod]))
    res = import_p3d(bpy.context, str(path))
    assert (_corner_face_dots(_shown(res)[0].data) > 0.5).all()                                # every corner on its face's side
    assert res.counts["normals_turned"] >= 3


def test_a_proxied_part_wound_inward_is_turned_as_the_model_is(blender, tmp_path):
    """The part repair the main model gets (a closed part enclosing its volume inward keeps
    the file's order) also runs on proxied parts, once per part file: the same door file
    faces the same way proxied and imported on its own (issue 43, 5)."""
    mod = tmp_path / "mod"
    mod.mkdir()
    part = boxes_lod(1.0, [((0, 0.5, 0), (0.5, 0.5, 0.5))])
    part.faces = [f[::-1] for f in part.faces]                       # wound inward
    (mod / "door.p3d").write_bytes(build_odol(73, [part]))
    main = boxes_lod(1.0, [((0, 0.5, 0), (1.0, 0.5, 1.0))],
                     proxies=[("\\mod\\door", (3.0, 0.0, 0.0))])
    (mod / "car.p3d").write_bytes(build_odol(73, [main]))
    opts = P3dImportOptions(game_scale=False, on_ground=False)
    alone = _shown(import_p3d(bpy.context, str(mod / "door.p3d"), opts))[0]
    assert _signed_volume(alone) == pytest.approx(1.0, rel=1e-4)      # turned: outward
    res = import_p3d(bpy.context, str(mod / "car.p3d"), opts)
    door = next(o for o in res.objects if o.get("p3d_part_file", "").endswith("door.p3d"))
    assert _signed_volume(door) == pytest.approx(1.0, rel=1e-4)


def test_a_normal_map_makes_a_bump_material(blender, tmp_path):
    data = build_odol(73, [box_lod(1.0)])
    stage = b"data\\box_co.paa\0"
    at = data.index(stage, data.index(stage) + 1)            # the .rvmat's stage texture
    data = data[:at] + b"data\\b_nohq.paa\0" + data[at + len(stage):]
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "u.p3d").write_bytes(data)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "box_co.paa").write_bytes(paa_bytes(0, 8))
    (tmp_path / "data" / "b_nohq.paa").write_bytes(paa_bytes(1, 8))
    res = import_p3d(bpy.context, str(tmp_path / "models" / "u.p3d"))
    mat = _shown(res)[0].data.materials[0]
    params = {p.name: p for p in mat.alamo.params}
    assert mat.alamo.shader == "MeshBumpColorize.fx"
    assert params["NormalTexture"].texture == "b_nohq.dds"
    assert params["BaseTexture"].texture == "box_co.dds"
    out = tmp_path / "out" / "u.alo"
    out.parent.mkdir()
    bpy.ops.export_scene.alo(filepath=str(out), write_textures=True)
    base = (out.parent / "box_co.dds").read_bytes()
    w, h, kind, _ = describe_dds(base)
    assert kind == "DXT5"                          # alpha 0: no team colour on an Arma base
    assert (out.parent / "b_nohq.dds").exists()


# --- 4. DXT textures --------------------------------------------------------------------------

def test_dds_headers_as_the_games_and_full_mip_chains():
    opaque = texture_pixels(0, 64)
    alpha = texture_pixels(3, 64)
    for rgba, kind in ((opaque, "DXT1"), (alpha, "DXT5")):
        data = encode_dds(rgba)
        flags, h, w, linear, _, mips = struct.unpack_from("<6I", data, 8)
        assert (flags, h, w, mips) == (GAME_DDS_FLAGS, 64, 64, 7)
        assert struct.unpack_from("<I", data, 108)[0] == GAME_DDS_CAPS
        assert data[84:88] == kind.encode()
        block = 8 if kind == "DXT1" else 16
        sides = [64 >> k for k in range(7)]
        assert linear == 16 * 16 * block
        assert len(data) == 128 + sum(max(1, (s + 3) // 4) ** 2 * block for s in sides)
    assert [m.shape[0] for m in mip_chain(opaque)] == [64, 32, 16, 8, 4, 2, 1]


def test_written_dds_shows_in_blender_as_the_image(blender, tmp_path):
    rgba = texture_pixels(2, 32)
    path = tmp_path / "t.dds"
    path.write_bytes(encode_dds(rgba))
    img = bpy.data.images.load(str(path))
    px = np.empty(32 * 32 * 4, np.float32)
    img.pixels.foreach_get(px)
    got = (px.reshape(32, 32, 4)[::-1] * 255).round()
    assert np.abs(got - rgba).mean() < 6                  # DXT1 is lossy, but close


def test_vehicle_textures_written_compressed_and_smaller(blender, vehicle, tmp_path):
    import_p3d(bpy.context, str(vehicle))
    sizes = {}
    for fmt in ("DXT", "A8R8G8B8"):
        out = tmp_path / fmt / "truck.alo"
        out.parent.mkdir()
        bpy.ops.export_scene.alo(filepath=str(out), write_textures=True, texture_format=fmt)
        dds = sorted(out.parent.glob("*.dds"))
        assert len(dds) == 5                    # 4 textures and the hub's grey (untextured)
        sizes[fmt] = sum(p.stat().st_size for p in dds)
        for p in dds:
            w, h, kind, mips = describe_dds(p.read_bytes())
            if fmt == "DXT":                    # part03 has alpha; every mipmap down to 1 x 1
                assert kind == ("DXT5" if p.name == "part03_co.dds" else "DXT1")
                assert mips == int(np.log2(max(w, h))) + 1
            else:
                assert (kind, mips) == ("A8R8G8B8", 1)
    assert sizes["DXT"] * 3 < sizes["A8R8G8B8"]


# --- 5. the batch converter -------------------------------------------------------------------

def test_batch_imports_and_exports_every_engines_models(blender, vehicle, tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "wave.alm").write_bytes(wave_grid().data)
    (src / "alod.alm").write_bytes(alod_bytes())
    assert batch.run(["import", str(src), "--out", str(tmp_path / "b")], "test") == 0
    assert batch.run(["import", str(vehicle), "--out", str(tmp_path / "b"), "--preview"],
                     "test") == 0
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == \
        ["alod.blend", "truck.blend", "truck.png", "wave.blend"]
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "b" / "truck.blend"))
    assert len([o for o in bpy.data.objects if o.get("p3d_part_file")]) == 9   # whole truck
    img = bpy.data.images["part00_co.dds"]                  # the packed DDS travels along
    assert img.packed_file is not None and tuple(img.size) == (64, 64)
    assert batch.run(["export", str(vehicle), "--out", str(tmp_path / "a")], "test") == 0
    written = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert written == ["p3d_color_808080ff.dds", "part00_co.dds", "part01_co.dds",
                       "part02_co.dds", "part03_co.dds", "truck.alo"]
    model = read_alo((tmp_path / "a" / "truck.alo").read_bytes())
    assert len([m for m in model.meshes if "wheel" in m.name]) == 4
    assert describe_dds((tmp_path / "a" / "part00_co.dds").read_bytes())[2] == "DXT1"
    assert batch.run(["export", str(vehicle), "--out", str(tmp_path / "m"), "--metres",
                      "--no-parts", "--uncompressed-textures"], "test") == 0
    assert describe_dds((tmp_path / "m" / "part00_co.dds").read_bytes())[2] == "A8R8G8B8"
    model = read_alo((tmp_path / "m" / "truck.alo").read_bytes())
    assert not [m for m in model.meshes if "wheel" in m.name]
    capsys.readouterr()


def test_batch_goes_by_the_files_content(blender, tmp_path, capsys):
    bad = tmp_path / "x.alo"
    bad.write_bytes(build_odol(73, [box_lod(1.0)]))           # a .p3d named .alo: imported
    assert batch.run(["import", str(bad), "--out", str(tmp_path / "o")], "test") == 0
    assert (tmp_path / "o" / "x.blend").exists()
    capsys.readouterr()

