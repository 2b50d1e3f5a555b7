"""Importing .alo models in real Blender: the scene matches the file."""

import numpy as np
import pytest
import specbuild as sb
from corpus import corpus_params
from scene import (corner_attribute, corner_normals, corner_positions_world, datablock_counts,
                   file_corners, load_model, objects_by_role, reaches, uv)

from io_alamo.formats.alamo import AlamoFormatError
from io_alamo.formats.alamo.naming import format_has_colors

bpy = pytest.importorskip("bpy")


def do_import(path, **kw):
    """Import a model at rest: these tests compare against the file's bind pose."""
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    kw.setdefault("import_animations", False)
    return import_alo(bpy.context, str(path), AloImportOptions(**kw))


def bone_worlds_blender(arm_obj):
    return {b.alamo.index: np.array(arm_obj.matrix_world, np.float64)
            @ np.array(b.matrix_local, np.float64) for b in arm_obj.data.bones}


def check_model(path, result):
    model = load_model(path)
    worlds = model.skeleton.world_matrices()
    arm = result.armature
    # skeleton: every bone, original names and indices, world transforms
    bones = arm.data.bones
    assert len(bones) == len(model.bones)
    got = bone_worlds_blender(arm)
    for i, b in enumerate(model.bones):
        bb = next(x for x in bones if x.alamo.index == i)
        assert bb.alamo.name == b.name and bb.alamo.visible == bool(b.visible)
        assert np.array_equal(np.array(bb.alamo.matrix, np.float32), b.matrix.ravel())
        parent = bb.parent.alamo.index if bb.parent else -1
        assert parent == (b.parent if 0 <= b.parent < i else -1)
        scale = max(1.0, float(np.abs(worlds[i][:3, 3]).max()))
        assert np.allclose(got[i][:3, 3], worlds[i][:3, 3], atol=1e-5 * scale)
        # Blender bones hold no scale: the rotation is the file's, normalised
        u, _, vt = np.linalg.svd(worlds[i][:3, :3])
        assert np.allclose(got[i][:3, :3], u @ vt, atol=1e-5)
    # meshes: triangles, world positions, normals, UVs, colours per corner
    meshes = objects_by_role("MESH")
    file_meshes = [i for i, o in enumerate(model.objects) if hasattr(o, "submeshes")]
    assert [o.alamo.file_index for o in meshes] == file_meshes
    for obj in meshes:
        fm = model.objects[obj.alamo.file_index]
        assert obj.alamo.name == fm.name
        assert obj.alamo.hidden == bool(fm.hidden) and obj.alamo.collision == bool(fm.collision)
        assert len(obj.data.polygons) == sum(len(s.indices) for s in fm.submeshes)
        pos, nrm, uvs, col = file_corners(model, obj.alamo.file_index, worlds)
        extent = max(1.0, float(np.abs(pos).max()) if len(pos) else 1.0)
        assert np.allclose(corner_positions_world(obj), pos, atol=2e-5 * extent)
        if len(nrm):
            exact = np.ones(len(nrm), bool)
            if bpy.app.version < (4, 5):
                # 4.2 cannot hold a normal on a zero-area face (4.5+ stores them exactly)
                area = np.empty(len(obj.data.polygons), np.float32)
                obj.data.polygons.foreach_get("area", area)
                exact = np.repeat(area > 0, 3)
            # 4.5+ stores custom normals as floats; 4.2 encodes them in int16 pairs per fan
            tol = 1e-5 if bpy.app.version >= (4, 5) else 1e-2
            assert np.allclose(corner_normals(obj)[exact], nrm[exact], atol=tol)
            assert np.allclose(uv(obj.data, "UV0"), uvs[:, 0] * [1, -1] + [0, 1], atol=1e-6)
        for k in range(1, 4):
            name = f"UV{k}"
            if np.any(uvs[:, k] != 0):
                assert np.allclose(uv(obj.data, name), uvs[:, k] * [1, -1] + [0, 1], atol=1e-6)
            else:
                assert name not in obj.data.uv_layers
        if any("U3U3" in s.vertex_format for s in fm.submeshes):
            tangents = np.concatenate([s.vertices["tangent"][s.indices.ravel().astype(int)]
                                       for s in fm.submeshes])
            binormals = np.concatenate([s.vertices["binormal"][s.indices.ravel().astype(int)]
                                        for s in fm.submeshes])
            # import hashes the corners from the arrays it wrote (4.5+): the keys must be
            # the ones export computes from what Blender holds, or kept tangents are lost
            from io_alamo.blender.alamo import corners
            kept = np.empty(len(obj.data.loops), np.int32)
            obj.data.attributes[corners.KEY_ATTRIBUTE].data.foreach_get("value", kept)
            assert np.array_equal(kept, corners.corner_keys(obj.data))
            assert corners.unchanged_corners(obj.data).all()
            if not any(s.bone_map is not None for s in fm.submeshes):   # stored as in the file
                assert np.array_equal(corner_attribute(obj.data, "alamo_tangent", 3, "vector"),
                                      tangents)
                assert np.array_equal(corner_attribute(obj.data, "alamo_binormal", 3, "vector"),
                                      binormals)
        if any(format_has_colors(s.vertex_format) for s in fm.submeshes):
            assert np.array_equal(corner_attribute(obj.data, "Color", 4, "color"),
                                  col.astype(np.float32))
        smooth = np.zeros(len(obj.data.polygons), bool)
        obj.data.polygons.foreach_get("use_smooth", smooth)
        assert smooth.all()                 # the file's normals are per corner, faces smooth
        # materials: shader and parameters in file order
        assert len(obj.data.materials) == len(fm.submeshes)
        for mat, s in zip(obj.data.materials, fm.submeshes):
            assert mat.alamo.shader == s.material.shader
            assert mat.alamo.vertex_format == s.vertex_format
            assert [(p.name, p.type) for p in mat.alamo.params] == \
                [(p.name, p.type.name) for p in s.material.params]
            from io_alamo.blender.alamo.props import param_value
            for bp, fp in zip(mat.alamo.params, s.material.params):
                v = param_value(bp)
                assert v == fp.value if isinstance(v, str) else np.allclose(v, fp.value)
        # skinning: vertex groups carry the file's bones and weights
        skinned = [s for s in fm.submeshes if s.bone_map is not None and len(s.bone_map)]
        if skinned:
            assert obj.parent == arm and obj.parent_type == "OBJECT"
            assert any(m.type == "ARMATURE" and m.object == arm for m in obj.modifiers)
            check_weights(obj, fm, model)
        else:
            assert obj.parent == arm and obj.parent_type == "BONE"
    # lights, proxies, dazzles with their bones
    conn = model.connections
    proxies = objects_by_role("PROXY")
    assert [p.alamo.name for p in proxies] == [p.name for p in conn.proxies]
    for obj, p in zip(proxies, conn.proxies):
        assert bones[obj.parent_bone].alamo.index == p.bone
        assert np.allclose(np.array(obj.matrix_world)[:3, 3], worlds[p.bone][:3, 3],
                           atol=1e-4 * max(1.0, np.abs(worlds[p.bone][:3, 3]).max()))
        assert obj.alamo.hidden == bool(p.hidden)
        assert obj.alamo.alt_decrease_stay_hidden == bool(p.alt_decrease_stay_hidden)
    return model


def check_weights(obj, fm, model):
    """Every face corner's vertex has the file vertex's bones and weights (works with merged
    vertices too: compared per corner)."""
    from io_alamo.formats.alamo.naming import format_is_b4i4
    arm_bones = obj.parent.data.bones
    group_bone = {g.index: arm_bones[g.name].alamo.index for g in obj.vertex_groups}
    got = [{group_bone[g.group]: round(g.weight, 5) for g in v.groups}
           for v in obj.data.vertices]
    conn_bone = model.object_bone(obj.alamo.file_index) or 0
    want, corners, base = [], [], 0
    for s in fm.submeshes:
        slots = 4 if format_is_b4i4(s.vertex_format) else 1
        for vi in range(len(s.vertices)):
            w = {}
            if s.bone_map is None:
                w = {conn_bone: 1.0}
            else:
                for k in range(slots):
                    weight = 1.0 if slots == 1 else float(s.vertices["bone_weights"][vi, k])
                    if weight > 0:
                        b = int(s.bone_map[s.vertices["bone_indices"][vi, k]])
                        w[b] = round(w.get(b, 0) + weight, 5)
            want.append(w)
        corners.append(s.indices.ravel().astype(np.int64) + base)
        base += len(s.vertices)
    file_v = np.concatenate(corners)
    blender_v = np.empty(len(obj.data.loops), np.int32)
    obj.data.loops.foreach_get("vertex_index", blender_v)
    for bv, fv in set(zip(blender_v.tolist(), file_v.tolist())):
        assert got[bv] == want[fv], (obj.name, fv)


@pytest.mark.parametrize("path", corpus_params(".alo"))
def test_corpus_model_imports_and_matches_the_file(blender, path):
    model = load_model(path)
    if model.kind == "particle":          # issue 33: a system object and its emitters
        from io_alamo.blender.alamo.importer.alo import import_alamo
        result = import_alamo(bpy.context, str(path))     # the one way in picks the effect's
        assert result.system.alamo_particle_system.is_system
        assert len(result.emitters) > 0
        return
    result = do_import(path)
    check_model(path, result)
    assert result.counts["triangles"] == sum(len(s.indices) for m in model.meshes
                                             for s in m.submeshes)
    # the source is kept so that an unedited export can be byte-identical
    from io_alamo.blender.source import get_source
    assert bytes(get_source(result.armature)) == path.read_bytes()
    # in a Text, not on the armature, which Blender copies whenever it re-evaluates it
    assert isinstance(result.armature["alamo_source"], bpy.types.Text)
    for block in (result.armature, result.armature.data):
        assert not any(isinstance(block[k], bytes) and len(block[k]) > 1024 for k in block.keys())


FIXTURES = ["fixture_alo_205_bones", "fixture_alo_10005_vertices", "fixture_alo_lights",
            "fixture_alo_dazzles_direct", "fixture_alo_dazzles_nested", "fixture_alo_b4i4",
            "fixture_alo_all_param_types", "fixture_alo_collision", "fixture_alo_unknown_chunks",
            "fixture_alo_proxies_no_minis"]


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_model_imports_and_matches_the_file(blender, tmp_path, name):
    data, spec = getattr(sb, name)()
    path = tmp_path / f"{name}.alo"
    path.write_bytes(data)
    result = do_import(path)
    model = check_model(path, result)
    worlds = model.skeleton.world_matrices()
    lights = objects_by_role("LIGHT")
    assert len(lights) == len(model.lights)
    kinds = {0: "POINT", 1: "SUN", 2: "SPOT"}
    for obj in lights:
        fl = model.objects[obj.alamo.file_index]
        assert obj.data.type == kinds[fl.type]
        assert np.allclose(obj.data.color, fl.color)
        assert obj.alamo.far_attenuation_end == pytest.approx(float(fl.far_attenuation_end))
        assert obj.alamo.intensity == pytest.approx(float(fl.intensity))
        if fl.type == 2:
            assert obj.data.spot_size == pytest.approx(float(fl.falloff), abs=1e-5)
        bone = model.object_bone(obj.alamo.file_index)
        assert np.allclose(np.array(obj.matrix_world), worlds[bone], atol=1e-5)
    dazzles = objects_by_role("DAZZLE")
    assert len(dazzles) == len(model.connections.dazzles)
    for obj, d in zip(dazzles, model.connections.dazzles):
        p = obj.alamo
        assert p.name == d.name and p.texture == d.texture
        assert np.allclose(p.color, d.color) and p.radius == pytest.approx(float(d.radius))
        assert (p.tex_x, p.tex_y, p.tex_size) == (d.tex_x, d.tex_y, d.tex_size)
        assert p.frequency == pytest.approx(float(d.frequency))
        assert p.phase == pytest.approx(float(d.phase))
        assert p.bias == pytest.approx(1.0 if d.bias is None else float(d.bias))
        assert p.night_only == bool(d.night_only) and p.hidden == bool(d.hidden)
        want = worlds[d.bone] @ np.r_[np.asarray(d.position, float), 1.0]
        assert np.allclose(np.array(obj.matrix_world)[:3, 3], want[:3], atol=1e-5)
    if name == "fixture_alo_205_bones":
        assert all(b.alamo.billboard == "DISABLE" for b in result.armature.data.bones)


def test_duplicate_bone_names_get_unique_blender_names(blender, tmp_path):
    bones = [sb._bone("Root", -1), sb._bone("Root", 0, sb._translate(0, 0, 1)),
             sb._bone("Root", 1, sb._translate(0, 1, 0))]
    spec = sb._model_spec(bones, [sb._mesh_obj("Body", [sb._submesh()])], [(0, 2)])
    path = tmp_path / "dup.alo"
    path.write_bytes(sb.build_alo(spec))
    arm = do_import(path).armature
    names = [b.name for b in arm.data.bones]
    assert len(set(names)) == 3
    assert [b.alamo.name for b in arm.data.bones] == ["Root"] * 3
    mesh = objects_by_role("MESH")[0]
    assert arm.data.bones[mesh.parent_bone].alamo.index == 2


def test_scaled_bone_matrix_is_kept_and_objects_sit_where_the_game_shows_them(blender, tmp_path):
    scaled = (2.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0)
    bones = [sb._bone("Root", -1), sb._bone("Big", 0, scaled)]
    spec = sb._model_spec(bones, [sb._mesh_obj("Body", [sb._submesh()])], [(0, 1)])
    path = tmp_path / "scaled.alo"
    path.write_bytes(sb.build_alo(spec))
    result = do_import(path)
    big = next(b for b in result.armature.data.bones if b.alamo.index == 1)
    assert list(big.alamo.matrix) == list(scaled)
    check_model(path, result)        # world positions include the bone's scale


def test_lod_and_alt_visibility(blender, tmp_path):
    names = ["Hull_LOD0", "Hull_LOD1", "Hull_LOD2", "Tower_ALT0", "Tower_ALT1", "Flag"]
    spec = sb._model_spec([sb._bone("Root", -1)],
                          [sb._mesh_obj(n, [sb._submesh()]) for n in names],
                          [(i, 0) for i in range(len(names))])
    path = tmp_path / "lods.alo"
    path.write_bytes(sb.build_alo(spec))
    do_import(path)
    shown = {o.alamo.name: o.visible_get() and not o.hide_render for o in objects_by_role("MESH")}
    assert shown == {"Hull_LOD0": False, "Hull_LOD1": False, "Hull_LOD2": True,
                     "Tower_ALT0": True, "Tower_ALT1": False, "Flag": True}


def test_textures_found_case_insensitively_in_the_mod_folders(blender, tmp_path):
    from io_alamo.formats.alamo.sample import sample_textures, write_tga
    models = tmp_path / "MyMod" / "Data" / "Art" / "Models"
    textures = tmp_path / "MyMod" / "Data" / "Art" / "textures"   # any case
    models.mkdir(parents=True)
    textures.mkdir(parents=True)
    base, _ = sample_textures()
    write_tga(textures / "SHIP.TGA", base)           # the file names Ship.dds
    params = [("texture", "BaseTexture", "..\\..\\Ship.dds")]
    spec = sb._model_spec([sb._bone("Root", -1)],
                          [sb._mesh_obj("Hull", [sb._submesh(params=params)])], [(0, 0)])
    path = models / "Ship.alo"
    path.write_bytes(sb.build_alo(spec))
    result = do_import(path)
    assert not [w for w in result.warnings if "texture" in w]
    mat = objects_by_role("MESH")[0].data.materials[0]
    node = mat.node_tree.nodes["Alamo Base Texture"]
    assert node.image.filepath.endswith("SHIP.TGA") and node.image.size[0] == 64
    assert reaches(node.outputs["Color"], "BSDF_PRINCIPLED", "Base Color")


def test_missing_texture_is_a_warning_and_a_placeholder(blender, tmp_path):
    spec = sb._model_spec([sb._bone("Root", -1)], [sb._mesh_obj("Hull", [sb._submesh()])],
                          [(0, 0)])
    path = tmp_path / "m.alo"
    path.write_bytes(sb.build_alo(spec))
    result = do_import(path)
    assert any("W_Test.tga" in w and "not found" in w for w in result.warnings)
    node = objects_by_role("MESH")[0].data.materials[0].node_tree.nodes["Alamo Base Texture"]
    assert node.image.source == "GENERATED"


def test_failed_import_leaves_the_scene_unchanged(blender, tmp_path, monkeypatch):
    from io_alamo.blender.alamo.importer import alo
    data, _ = sb.fixture_alo_lights()
    path = tmp_path / "ok.alo"
    path.write_bytes(data)
    do_import(path)                                  # something already in the scene
    before = datablock_counts()
    bad = tmp_path / "bad.alo"
    bad.write_bytes(data[: len(data) - 9])
    with pytest.raises(AlamoFormatError):
        do_import(bad)
    assert datablock_counts() == before

    def explode(self, light, oi):                    # fail half-way through building
        raise RuntimeError("boom")
    monkeypatch.setattr(alo._ModelBuilder, "_light", explode)
    with pytest.raises(RuntimeError):
        do_import(path)
    assert datablock_counts() == before
    assert bpy.context.object is None or bpy.context.object.mode == "OBJECT"


def test_merge_vertices_option(blender, tmp_path):
    from io_alamo.formats.alamo.sample import write_sample
    alo, _ = write_sample(tmp_path)
    one = do_import(alo)
    n_one = sum(len(o.data.vertices) for o in objects_by_role("MESH"))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    merged = do_import(alo, merge_vertices=True)
    meshes = objects_by_role("MESH")
    assert sum(len(o.data.vertices) for o in meshes) < n_one
    check_model(alo, merged)        # same triangles, corners, normals, UVs and weights
    assert one.counts == merged.counts


def test_operator_menu_and_drag_and_drop_handler(blender, tmp_path):
    from io_alamo.formats.alamo.sample import write_sample
    alo, _ = write_sample(tmp_path)
    assert bpy.ops.import_scene.alo(filepath=str(alo)) == {"FINISHED"}
    assert len(objects_by_role("MESH")) == 3 and len(objects_by_role("DAZZLE")) == 1
    assert hasattr(bpy.types, "ALAMO_FH_alo")
    assert bpy.types.ALAMO_FH_alo.bl_import_operator == "import_scene.alo"
    from io_alamo.blender.alamo.operators import menu_import
    assert menu_import in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()
    # several files at once, as a multi-selection or a drop of several files delivers them
    bpy.ops.wm.read_factory_settings(use_empty=True)
    other = tmp_path / "copy.alo"
    other.write_bytes(alo.read_bytes())
    r = bpy.ops.import_scene.alo(directory=str(tmp_path),
                                 files=[{"name": alo.name}, {"name": other.name}])
    assert r == {"FINISHED"} and len(objects_by_role("SKELETON")) == 2


def test_operator_imports_particle_files(blender):
    from corpus import corpus_files
    particles = [p for p in corpus_files(".alo") if load_model(p).kind == "particle"]
    if not particles:
        pytest.skip("no shared corpus: particle file test skipped")
    assert bpy.ops.import_scene.alo(filepath=str(particles[0])) == {"FINISHED"}
    assert any(o.alamo_particle_system.is_system for o in bpy.data.objects)
    assert any(o.alamo_emitter.index == 0 for o in bpy.data.objects)


def test_user_texture_folders_are_searched(blender, tmp_path):
    from io_alamo.formats.alamo.sample import sample_textures, write_tga
    lib = tmp_path / "library"
    lib.mkdir()
    write_tga(lib / "w_test.TGA", sample_textures()[0])
    spec = sb._model_spec([sb._bone("Root", -1)], [sb._mesh_obj("Hull", [sb._submesh()])],
                          [(0, 0)])
    (tmp_path / "m").mkdir()
    path = tmp_path / "m" / "m.alo"
    path.write_bytes(sb.build_alo(spec))
    assert any("not found" in w for w in do_import(path).warnings)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = do_import(path, texture_folders=[str(lib)])
    assert not [w for w in result.warnings if "not found" in w]
    node = objects_by_role("MESH")[0].data.materials[0].node_tree.nodes["Alamo Base Texture"]
    assert node.image.source == "FILE" and node.image.filepath.endswith("w_test.TGA")


def test_drop_invokes_the_import_directly(blender, tmp_path):
    from io_alamo.formats.alamo.sample import write_sample
    alo, _ = write_sample(tmp_path)
    # a drop calls the operator with INVOKE and the file already set: no file browser
    assert bpy.ops.import_scene.alo("INVOKE_DEFAULT", filepath=str(alo)) == {"FINISHED"}
    assert len(objects_by_role("SKELETON")) == 1
