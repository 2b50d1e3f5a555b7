"""Import of binarized Arma models (.p3d) into real Blender, and on to an .alo."""

import random
from pathlib import Path

import bpy
import numpy as np
import pytest
from p3d_build import SpecLod, build_odol, grid_lod

from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
from io_alamo.blender.arma import importer as p3d_import
from io_alamo.blender.arma.importer import import_p3d
from io_alamo.formats.alamo import read_alo
from io_alamo.formats.arma import P3dFormatError, is_visual, read_p3d

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus-odol"
SAMPLES = sorted(CORPUS.rglob("*.p3d")) if CORPUS.is_dir() else []
needs_samples = pytest.mark.skipif(not SAMPLES, reason=f"no ODOL samples at {CORPUS}")


def _spec():
    return [grid_lod(1.0, 6, 5), grid_lod(2.0, 4, 3, quads=False),
            SpecLod(1e15, np.array([[0, 1, 2], [3, 4, 5]], np.float32), [])]


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "Grid_House.p3d"
    path.write_bytes(build_odol(47, _spec(), animations=True))
    return path


def _counts():
    d = bpy.data
    return (len(d.objects), len(d.meshes), len(d.materials), len(d.collections))


def _corner_lists(me):
    starts = np.empty(len(me.polygons), np.int32)
    totals = np.empty(len(me.polygons), np.int32)
    me.polygons.foreach_get("loop_start", starts)
    me.polygons.foreach_get("loop_total", totals)
    verts = np.empty(len(me.loops), np.int32)
    me.loops.foreach_get("vertex_index", verts)
    return [verts[a:a + k].tolist() for a, k in zip(starts, totals)]


def _corner_normals(me):
    out = np.empty(3 * len(me.loops), np.float32)
    me.corner_normals.foreach_get("vector", out)
    return out.reshape(-1, 3)


def test_spec_built_model_imports_every_lod(blender, spec_file):
    spec = _spec()
    res = import_p3d(bpy.context, str(spec_file))
    coll = bpy.data.collections["Grid_House"]
    lods = [o for o in coll.objects if o.type == "MESH"]
    # the most detailed visual LOD gets the highest Alamo LOD number
    assert [o.name for o in lods] == ["Grid_House_LOD1", "Grid_House_LOD0", "Memory"]
    assert [o["p3d_lod_resolution"] for o in lods] == [1.0, 2.0, float(np.float32(1e15))]
    assert [o.visible_get() for o in lods] == [True, False, False]
    for obj, s in zip(lods, spec):
        me = obj.data
        co = np.empty(3 * len(me.vertices), np.float32)
        me.vertices.foreach_get("co", co)
        assert np.array_equal(co.reshape(-1, 3), s.points[:, [0, 2, 1]])    # y up -> z up
        assert len(me.polygons) == len(s.faces)
        # quads stay quads, each face's corners reversed (outward in Blender)
        assert _corner_lists(me) == [f[::-1] for f in s.faces]
    grid = lods[0].data
    # as in real files, the grid's faces point down (file -y: their right-handed cross
    # product) and its stored normals up (inward): in Blender both point down (-z)
    face_n = np.empty(3 * len(grid.polygons), np.float32)
    grid.polygons.foreach_get("normal", face_n)
    assert (face_n.reshape(-1, 3)[:, 2] < -0.9).all()
    assert np.allclose(_corner_normals(grid), [0, 0, -1], atol=1e-3)
    # UV sets, v flipped; named selection with its weights; sections as materials
    assert [uv.name for uv in grid.uv_layers] == ["UVSet0", "UVSet1"]
    uv = np.empty(2 * len(grid.loops), np.float32)
    grid.uv_layers["UVSet1"].data.foreach_get("uv", uv)
    corners = np.concatenate([f[::-1] for f in spec[0].faces])
    want = spec[0].uvs[1][corners] * [1, -1] + [0, 1]
    assert np.abs(uv.reshape(-1, 2) - want).max() < 1e-4
    group = lods[0].vertex_groups["door"]
    assert group.weight(0) == 1.0 and abs(group.weight(2) - 128 / 255) < 1e-6
    with pytest.raises(RuntimeError):
        group.weight(1)                                   # not in the selection
    assert [m["p3d_texture"] for m in grid.materials] == ["data\\grid_co.paa", ""]
    assert [m["p3d_rvmat"] for m in grid.materials] == ["data\\grid.rvmat", "inline.rvmat"]
    slots = np.empty(len(grid.polygons), np.int32)
    grid.polygons.foreach_get("material_index", slots)
    half = len(spec[0].faces) // 2
    assert (slots[:half] == 0).all() and (slots[half:] == 1).all()
    # proxy empty, frames as shape keys, properties, model info
    proxy = next(o for o in lods[0].children if o.type == "EMPTY")
    assert proxy["p3d_proxy_path"] == "\\a3\\data_f\\proxies\\gunner"
    assert proxy["p3d_proxy_index"] == 1
    bpy.context.view_layer.update()
    assert np.allclose(proxy.matrix_world.translation, (0.1, 0.3, 0.2))
    keys = lods[0].data.shape_keys.key_blocks
    assert [k.name for k in keys] == ["Basis", "Frame 0", "Frame 1"]
    co = np.empty(3 * len(grid.vertices), np.float32)
    keys["Frame 1"].data.foreach_get("co", co)
    assert np.allclose(co.reshape(-1, 3), spec[0].points[:, [0, 2, 1]] + [0, 0, 0.5])
    assert lods[0]["p3d_named_properties"].to_dict() == {"lodnoshadow": "1"}
    assert len(lods[2].data.vertices) == 2 and len(lods[2].data.polygons) == 0
    assert coll["p3d_mass"] == 1500.0 and list(coll["p3d_centre_of_gravity"]) == [0.25, 0.75, 0.5]
    assert list(coll["p3d_skeleton_bones"]) == ["root", "arm"]
    assert coll["p3d_lod_types"]["geometry"] == "Memory"
    assert list(coll["p3d_animation_classes"]) == ["door", "hide"]
    assert res.counts["faces"] == sum(len(s.faces) for s in spec)


def test_bad_file_leaves_nothing(blender, tmp_path, spec_file):
    before = _counts()
    bad = tmp_path / "cut.p3d"
    bad.write_bytes(spec_file.read_bytes()[:700])
    with pytest.raises(P3dFormatError, match="ODOL v47"):
        import_p3d(bpy.context, str(bad))
    assert _counts() == before
    with pytest.raises(RuntimeError, match="ODOL v47"):      # the operator's error report
        bpy.ops.import_scene.p3d(filepath=str(bad))
    assert _counts() == before


def test_failure_half_way_rolls_back(blender, spec_file, monkeypatch):
    before = _counts()

    def broken(self, parent, proxy):
        raise RuntimeError("injected failure after the first LOD was built")
    monkeypatch.setattr(p3d_import._Builder, "_proxy", broken)
    with pytest.raises(RuntimeError, match="injected"):
        import_p3d(bpy.context, str(spec_file))
    assert _counts() == before


def test_operator_imports(blender, spec_file):
    assert bpy.ops.import_scene.p3d(filepath=str(spec_file)) == {"FINISHED"}
    # 3 LODs, 2 proxies, the armature
    assert len(bpy.data.collections["Grid_House"].objects) == 6


@needs_samples
@pytest.mark.parametrize("path", SAMPLES[:1] + [p for p in SAMPLES if p.name == "cig1.p3d"],
                         ids=lambda p: p.name)
def test_samples_one_object_per_lod_with_the_files_faces(blender, path):
    model = read_p3d(path.read_bytes())
    res = import_p3d(bpy.context, str(path))
    assert [w for w in res.warnings if "not found" not in w] == []      # textures are not
    lods = [o for o in res.objects if o.type == "MESH"]
    assert len(lods) == len(model.lods)
    for obj, lod in zip(lods, model.lods):
        assert obj["p3d_lod_resolution"] == float(lod.resolution)
        assert len(obj.data.polygons) == len(lod.faces) - obj["p3d_proxy_markers"]
        assert len(obj.data.vertices) == len(lod.vertices)
        if len(obj.data.polygons) and is_visual(lod.resolution):
            # outward: each face's normal agrees with the file's normals at its corners
            face_n = np.empty(3 * len(obj.data.polygons), np.float32)
            obj.data.polygons.foreach_get("normal", face_n)
            corner = _corner_normals(obj.data)
            starts = np.empty(len(obj.data.polygons), np.int32)
            obj.data.polygons.foreach_get("loop_start", starts)
            agree = (face_n.reshape(-1, 3) * corner[starts]).sum(axis=1) > 0
            assert agree.mean() > 0.9


def _export_lod(obj, out):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    obj.hide_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    export_alo(bpy.context, str(out), AloExportOptions(scope="SELECTION"))
    return read_alo(out.read_bytes())


def test_imported_lod_exports_as_alo(blender, tmp_path):
    """A sample's first LOD (a spec-built one without the samples) goes out as an .alo."""
    path = next((p for p in SAMPLES if p.name == "cig1.p3d"), None)
    if path is None:
        path = tmp_path / "Grid_House.p3d"
        path.write_bytes(build_odol(47, _spec()))
    lod = read_p3d(path.read_bytes()).lods[0]
    res = import_p3d(bpy.context, str(path))
    model = _export_lod([o for o in res.objects if o.type == "MESH"][0], tmp_path / "lod.alo")
    (mesh,) = model.meshes
    triangles = sum(len(s.indices) for s in mesh.submeshes)
    assert triangles == int((lod.faces.sizes - 2).sum())
    assert len(mesh.submeshes) == len(lod.sections)
    got = np.concatenate([s.vertices["position"] for s in mesh.submeshes])
    want = lod.vertices[:, [0, 2, 1]]
    assert np.allclose(np.sort(np.unique(got.round(5), axis=0), axis=0),
                       np.sort(np.unique(want[lod.faces.indices].round(5), axis=0), axis=0))


def test_edited_texture_paths_import_with_a_warning(blender, tmp_path):
    spec = [grid_lod(1.0, 5, 5), grid_lod(2.0, 4, 3)]
    data = build_odol(47, spec)
    old = b"data\\grid_co.paa\0"
    last = data.rindex(old, 0, data.rindex(old))         # the last LOD's texture list
    path = tmp_path / "edited.p3d"
    path.write_bytes(data[:last] + b"d\\g.paa\0" + data[last + len(old):])
    res = import_p3d(bpy.context, str(path))
    assert len(res.warnings) == 3 and "past the end of the file" in res.warnings[0]
    assert all("not found" in w for w in res.warnings[1:])          # no textures beside it
    lods = [o for o in res.objects if o.type == "MESH"]
    assert [len(o.data.polygons) for o in lods] == [len(s.faces) for s in spec]
    assert lods[1].data.materials[0]["p3d_texture"] == "d\\g.paa"


def test_mutated_files_import_or_leave_nothing(blender, tmp_path):
    """Damaged files either import (whatever their values) or fail with the one error type,
    leaving the scene as it was."""
    rng = random.Random(5)
    seed = build_odol(47, _spec(), animations=True)
    imported = 0
    for k in range(40):
        data = bytearray(seed)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(data))
            data[at] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
        path = tmp_path / f"mutated_{k}.p3d"
        path.write_bytes(bytes(data))
        before = _counts()
        try:
            import_p3d(bpy.context, str(path))
            imported += 1
        except P3dFormatError:
            assert _counts() == before
    assert imported > 0
