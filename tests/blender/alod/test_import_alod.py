"""Importing ALOD ``ALM\\0`` meshes in real Blender: bones, rest positions (against the spec's
formula computed here in numpy), UVs, weights and raw coordinates, textures, the action,
levels of detail and the kept collapses; bad files change nothing; the result exports as an
Alamo .alo."""

import importlib.util
import random
from pathlib import Path

import alod_build as ab
import numpy as np
import pytest
from scene import corner_attribute, datablock_counts, uv

bpy = pytest.importorskip("bpy")

from io_alamo.blender.alamo.props import find_param
from io_alamo.blender.alod import importer as alod_import  # noqa: E402
from io_alamo.blender.source import get_source  # noqa: E402
from io_alamo.formats.alod import AlodFormatError, read_alod  # noqa: E402


def write(tmp_path, version=10, name="grid.alm"):
    path = tmp_path / name
    path.write_bytes(ab.build_bytes(version))
    return path


def do_import(path, **kw):
    return alod_import.import_alod(bpy.context, str(path), alod_import.AlodImportOptions(**kw))


def expected_points(mesh, worlds):
    """The spec: a position is the sum over its weights of bone matrix @ coords."""
    out = []
    comp = mesh.positions.components
    k = 0
    for n in mesh.positions.counts.tolist():
        p = np.zeros(4)
        for c in comp[k:k + n]:
            p += worlds[int(c["bone"])] @ c["coords"].astype(np.float64)
        out.append(p[:3])
        k += n
    return np.array(out)


def full_mesh(result):
    return next(o for o in result.objects if o.name.endswith("_LOD3"))


def vertex_positions(obj, evaluated=False):
    if evaluated:
        obj = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    return co.reshape(-1, 3).astype(np.float64)


def point_ints(me, name):
    a = np.empty(len(me.attributes[name].data), np.int32)
    me.attributes[name].data.foreach_get("value", a)
    return a


def test_bones_follow_the_file_parent_first(blender, tmp_path):
    res = do_import(write(tmp_path))
    arm = res.armature
    bones = [arm.data.bones[f"Bone_{i}"] for i in range(3)]
    assert [b.parent.name if b.parent else None for b in bones] == [None, "Bone_0", "Bone_1"]
    worlds = ab.bone_worlds()
    for i, b in enumerate(bones):
        m = np.array(b.matrix_local)
        np.testing.assert_allclose(m[:3, 3], worlds[i][:3, 3], atol=1e-5)
        # v10 tails: bone-local tail moved by the rest matrix
        tail = worlds[i][:3, :3] @ np.array([(0, 1.5, 0), (0, 1.0, 0), (0, 0.5, 0)][i])
        np.testing.assert_allclose(np.array(b.tail_local) - np.array(b.head_local), tail,
                                   atol=1e-5)
        np.testing.assert_allclose(m[:3, :3], worlds[i][:3, :3], atol=1e-5)
        assert b.alamo.index == i


def test_rest_positions_uvs_weights_and_raw_coordinates(blender, tmp_path):
    res = do_import(write(tmp_path))
    mesh = ab.build_mesh(10)
    obj = full_mesh(res)
    me = obj.data
    pos_ids = point_ints(me, "alod_position")
    expected = expected_points(mesh, ab.bone_worlds())
    np.testing.assert_allclose(vertex_positions(obj), expected[pos_ids], atol=1e-5)
    np.testing.assert_allclose(expected[:16], ab.grid_points(), atol=1e-6)
    assert sorted(pos_ids.tolist()) == list(range(16))            # the hi-res positions only
    assert len(me.polygons) == 18
    # UVs per corner: the s, t of the corner's file vertex
    corner_vertex = corner_attribute(me, "alod_vertex", 1, "value").astype(np.int64).ravel()
    np.testing.assert_allclose(uv(me, "UVMap"), mesh.vertices.tex_coords[corner_vertex])
    np.testing.assert_array_equal(np.sort(corner_vertex.reshape(-1, 3), axis=1),
                                  np.sort(mesh.triangles["vertices"].astype(np.int64), axis=1))
    # vertex groups: the fourth coordinate of each component; raw coordinates as attributes
    starts = mesh.positions.starts
    for vi, p in enumerate(pos_ids.tolist()):
        comps = mesh.positions.components[starts[p]:starts[p] + mesh.positions.counts[p]]
        got = {obj.vertex_groups[g.group].name: g.weight for g in me.vertices[vi].groups}
        want = {f"Bone_{int(c['bone'])}": float(c["coords"][3]) for c in comps}
        assert got.keys() == want.keys()
        assert all(abs(got[k] - want[k]) < 1e-6 for k in want)
        for k, c in enumerate(comps):
            assert me.attributes[f"alod_bone{k}"].data[vi].value == int(c["bone"])
            np.testing.assert_allclose(me.attributes[f"alod_coords{k}"].data[vi].vector,
                                       c["coords"][:3], rtol=1e-6, atol=1e-6)
            assert abs(me.attributes[f"alod_w{k}"].data[vi].value - c["coords"][3]) < 1e-6


def test_textures_are_packed_images_on_the_materials(blender, tmp_path):
    res = do_import(write(tmp_path))
    obj = full_mesh(res)
    mats = [s.material for s in obj.material_slots]
    assert len(mats) == 2
    node = mats[0].node_tree.nodes["Alamo Base Texture"]
    img = node.image
    assert img.packed_file is not None and tuple(img.size) == (4, 4)
    px = np.empty(64, np.float32)
    img.pixels.foreach_get(px)
    want = np.frombuffer(ab.build_mesh(10).textures[0].values, np.uint8).reshape(16, 3) / 255
    np.testing.assert_allclose(px.reshape(16, 4)[:, :3], want, atol=1e-6)
    assert img.colorspace_settings.name != "Non-Color"
    signed = mats[1].node_tree.nodes["Alamo Base Texture"].image
    assert signed["alod_signed"] == 1 and signed.colorspace_settings.name == "Non-Color"
    assert signed.packed_file is not None and tuple(signed.size) == (2, 2)
    px = np.empty(16, np.float32)
    signed.pixels.foreach_get(px)
    want = np.frombuffer(ab.build_mesh(10).textures[1].values, np.uint8) / 255
    np.testing.assert_allclose(px, want, atol=1e-6)           # raw values: non-colour
    # the tangent map as a tangent-space normal map in a bump shader (issue 35); the
    # material without one keeps the gloss shader
    assert (mats[0].alamo.shader, mats[1].alamo.shader) == ("RSkinBumpColorize.fx",
                                                            "RSkinGloss.fx")
    assert mats[0].alamo.vertex_format == "alD3dVertB4I4NU2U3U3"
    normal = bpy.data.images[find_param(mats[0].alamo, "NormalTexture").texture]
    assert normal.packed_file is not None and tuple(normal.size) == (2, 1)
    assert normal.colorspace_settings.name == "Non-Color"
    px = np.empty(8, np.float32)
    normal.pixels.foreach_get(px)
    w = ab.bone_worlds()[:, :3, :3]
    u, v = w[0] @ [1, 0, 0], w[0] @ [0, 1, 0] + w[1] @ [0, 0.5, 0]        # every vertex's
    t = u / np.linalg.norm(u)
    n = np.cross(u, v) / np.linalg.norm(np.cross(u, v))
    texel = np.cross(w[0] @ [1, 0, 0], w[1] @ [0, 1, 0])                   # texel 0's plane
    texel /= np.linalg.norm(texel)
    want = 0.5 + 0.5 * np.array([texel @ t, texel @ np.cross(n, t), texel @ n])
    np.testing.assert_allclose(px.reshape(2, 4)[0, :3], want, atol=0.5 / 255)   # 8 bits
    np.testing.assert_allclose(px.reshape(2, 4)[1, :3], [0.5, 0.5, 1.0], atol=0.5 / 255)  # flat
    tangent = mats[0].node_tree.nodes["ALOD Tangent Map"].image
    assert tangent.packed_file is not None and tuple(tangent.size) == (4, 1)
    px = np.empty(16, np.float32)
    tangent.pixels.foreach_get(px)
    # U tangents left, V right; entry 1 has no U components
    np.testing.assert_allclose(px.reshape(4, 4)[:, :3], [[1, 0, 0], [0, 0, 0], [0, 1, 0],
                                                          [0, 0, 1]])
    mat_index = np.empty(len(obj.data.polygons), np.int32)
    obj.data.polygons.foreach_get("material_index", mat_index)
    np.testing.assert_array_equal(mat_index, ab.build_mesh(10).triangles["material"])


def test_action_replaces_rest_matrices_frame_by_frame(blender, tmp_path):
    res = do_import(write(tmp_path))
    arm = res.armature
    scene = bpy.context.scene
    action = arm.animation_data.action
    assert action is not None and action.alamo.fps == 24.0 and action.alamo.frames == 3
    assert scene.render.fps / scene.render.fps_base == pytest.approx(24.0)
    assert scene.frame_end == scene.frame_start + 2
    mesh = ab.build_mesh(10)
    rest = ab.bone_worlds()
    obj = full_mesh(res)
    pos_ids = point_ints(obj.data, "alod_position")
    for f in range(3):
        scene.frame_set(scene.frame_start + f)
        local = [m @ ab.rot_z(10 * f if b else 0) for b, m in enumerate(ab.BONE_LOCALS)]
        frame_worlds = ab.bone_worlds(local)
        for i in range(3):
            b = arm.data.bones[f"Bone_{i}"]
            want = frame_worlds[i] @ np.linalg.inv(rest[i]) @ np.array(b.matrix_local)
            np.testing.assert_allclose(np.array(arm.pose.bones[b.name].matrix), want,
                                       atol=1e-5)
        # the deformed mesh is the spec's skinning with the frame's matrices
        np.testing.assert_allclose(vertex_positions(obj, evaluated=True),
                                   expected_points(mesh, frame_worlds)[pos_ids], atol=1e-4)


def test_levels_of_detail_and_kept_collapses(blender, tmp_path):
    path = write(tmp_path)
    res = do_import(path)
    meshes = sorted((o for o in res.objects if o.type == "MESH"), key=lambda o: o.name)
    assert [o.name for o in meshes] == [f"grid_Mesh_LOD{n}" for n in range(4)]
    assert [len(o.data.polygons) for o in meshes] == [9, 12, 15, 18]
    assert [o["alod_collapses_applied"] for o in meshes] == [7, 5, 3, 0]
    assert [o["alod_error_threshold"] for o in meshes] == [0.875, 0.625, 0.375, 0.0]
    assert [o.hide_get() for o in meshes] == [True, True, True, False]   # most detailed shown
    # lower levels use the positions the collapses lead to, at their rest places
    low = meshes[0]
    pos_ids = point_ints(low.data, "alod_position")
    assert 16 in pos_ids and not {1, 3, 5}.intersection(pos_ids.tolist())
    expected = expected_points(ab.build_mesh(10), ab.bone_worlds())
    np.testing.assert_allclose(vertex_positions(low), expected[pos_ids], atol=1e-5)
    assert low.modifiers["Armature"].object == res.armature and len(low.vertex_groups) == 3
    # every record, the collapses among them, is kept with the armature as read
    kept = bytes(get_source(res.armature, alod_import.SOURCE_KEY))
    assert kept == path.read_bytes()
    collapses = read_alod(kept).collapses
    assert len(collapses) == 9 and collapses.is_influence.sum() == 1


def test_version_2_file_with_64_bit_floats(blender, tmp_path):
    res = do_import(write(tmp_path, 2, "old.alm"))
    assert len(res.armature.data.bones) == 3
    assert res.armature.animation_data is None                     # no frames before v4
    obj = next(o for o in res.objects if o.name.endswith("_LOD3"))
    mesh = ab.build_mesh(2)
    pos_ids = point_ints(obj.data, "alod_position")
    np.testing.assert_allclose(vertex_positions(obj),
                               expected_points(mesh, ab.bone_worlds())[pos_ids], atol=1e-5)


def test_bad_file_changes_nothing(blender, tmp_path):
    path = tmp_path / "bad.alm"
    path.write_bytes(ab.build_bytes(10)[:700])
    before = datablock_counts()
    with pytest.raises(AlodFormatError) as e:
        do_import(path)
    assert "bad.alm" in str(e.value)
    assert datablock_counts() == before


def test_failure_half_way_rolls_everything_back(blender, tmp_path, monkeypatch):
    path = write(tmp_path)
    before = datablock_counts()
    texts = len(bpy.data.texts)
    fps = bpy.context.scene.render.fps

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(alod_import.compat, "set_keys", boom)     # during the action
    with pytest.raises(RuntimeError):
        do_import(path)
    assert datablock_counts() == before and len(bpy.data.texts) == texts
    assert bpy.context.scene.render.fps == fps


def test_mutated_files_import_cleanly_or_change_nothing(blender, tmp_path):
    root = Path(__file__).resolve().parents[3]
    spec = importlib.util.spec_from_file_location("fuzz_alod", root / "scripts" / "fuzz_alod.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    rnd = random.Random(5)
    seeds = fuzz.seeds()
    imported = refused = 0
    for k in range(25):
        path = tmp_path / f"m{k}.alm"
        path.write_bytes(fuzz.mutate(rnd.choice(seeds), rnd))
        bpy.ops.wm.read_factory_settings(use_empty=True)
        before = datablock_counts()
        try:
            do_import(path)
            imported += 1
        except AlodFormatError:
            refused += 1
            assert datablock_counts() == before
    assert imported and refused


def test_imported_model_exports_as_alamo_alo(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.formats.alamo import read_alo
    do_import(write(tmp_path))
    out = tmp_path / "grid.alo"
    result = export_alo(bpy.context, str(out), AloExportOptions())
    model = read_alo(out.read_bytes())
    # the file's three bones under the identity Root bone 0 every new Alamo skeleton gets
    assert [b.parent for b in model.bones] == \
        [-1] + [p + 1 if p >= 0 else 0 for p in ab.BONE_PARENTS]
    assert model.bones[0].name == "Root" and np.array_equal(model.bones[0].matrix, np.eye(3, 4))
    names = sorted(m.name for m in model.meshes)
    assert names == [f"grid_Mesh_LOD{n}" for n in range(4)]
    by_name = {m.name: m for m in model.meshes}
    full = by_name["grid_Mesh_LOD3"]
    assert sum(len(s.indices) for s in full.submeshes) == 18
    assert sum(len(s.indices) for s in by_name["grid_Mesh_LOD0"].submeshes) == 9
    for s in full.submeshes:
        assert s.bone_map is not None and len(s.bone_map) >= 2          # skinned
        assert "B4I4" in s.vertex_format
        used = s.vertices["bone_weights"] > 0
        assert (used.sum(axis=1) >= 1).all() and (used.sum(axis=1) == 2).any()   # blended
    assert not [w for w in result.warnings if "no Alamo shader" in w]


def test_file_menu_operator_imports_alod_files(blender, tmp_path):
    # bpy.ops answers hasattr() for any name, and the add-on registers only in the fixture:
    # ask the registered operators, here
    path = write(tmp_path)
    assert bpy.ops.import_scene.alod(filepath=str(path)) == {"FINISHED"}
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    assert len(arm.data.bones) == 3


def test_matrices_the_other_way_round_are_reported(blender, tmp_path):
    from io_alamo.formats.alod import write_alod
    mesh = ab.build_mesh(10)
    rows = np.asarray(mesh.bones["transform"]).reshape(-1, 4, 4)
    mesh.bones["transform"] = rows.transpose(0, 2, 1).reshape(len(rows), 16)
    path = tmp_path / "flipped.alm"
    path.write_bytes(write_alod(mesh))
    res = do_import(path)
    assert any("last row other than (0, 0, 0, 1)" in w for w in res.warnings)
    assert not any("last row" in w for w in do_import(write(tmp_path)).warnings)
