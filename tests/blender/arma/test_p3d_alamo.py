"""Arma models (.p3d) that become Alamo units: faces outward, no proxy marker triangles, LODs
mapped onto Alamo's, skeleton and weights, textures found and decoded, default export."""

from pathlib import Path

import bpy
import numpy as np
import pytest
from corpus import P3D_CORPUS as CORPUS
from p3d_build import SpecLod, box_lod, build_odol
from paa_build import DXT1, build_paa, random_blocks, reference_dxt

from io_alamo.blender.alamo.importer.alo import import_alo
from io_alamo.blender.alamo.lod_alt import lod_alt_objects, shown_lod_alt
from io_alamo.blender.arma.importer import P3dImportOptions, import_p3d
from io_alamo.formats.alamo import read_alo
from io_alamo.formats.arma import read_p3d

SAMPLES = sorted(CORPUS.rglob("*.p3d")) if CORPUS.is_dir() else []
needs_samples = pytest.mark.skipif(not SAMPLES, reason=f"no ODOL samples at {CORPUS}")
GEOMETRY, SHADOW_VOLUME, MEMORY = 1e13, 1e4, 1e15


def _unit(version=73, weights=False):
    """Two visual LODs, Geometry, ShadowVolume 0 and Memory, as real files hold them."""
    return build_odol(version, [
        box_lod(1.0, weights=weights), box_lod(3.0, half=(0.4, 0.3, 0.2), weights=weights),
        box_lod(GEOMETRY, weights=weights), box_lod(SHADOW_VOLUME, weights=weights),
        SpecLod(MEMORY, np.array([[0, 1, 2], [0, 0.5, 0]], np.float32), [])])


def _array(collection, attr, width, dtype=np.float32):
    out = np.empty(len(collection) * width, dtype)
    collection.foreach_get(attr, out)
    return out.reshape(-1, width) if width > 1 else out


def _triangles(me):
    me.calc_loop_triangles()
    return _array(me.loop_triangles, "vertices", 3, np.int32)


def signed_volume(me):
    """Volume enclosed by the mesh, positive when its faces wind outward."""
    co = _array(me.vertices, "co", 3).astype(np.float64)
    t = co[_triangles(me)]
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)


def normals_agree(me):
    """Fraction of corners whose custom normal points the way of its face."""
    face_n = _array(me.polygons, "normal", 3)
    corner = _array(me.corner_normals, "vector", 3)
    face_of = np.repeat(np.arange(len(me.polygons)), _array(me.polygons, "loop_total", 1,
                                                              np.int32))
    return float(((face_n[face_of] * corner).sum(axis=1) > 0).mean())


def _import(tmp_path, data, name="Box_Unit", **kw):
    path = tmp_path / "models" / f"{name}.p3d"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    kw = {"game_scale": False, "on_ground": False, **kw}      # the file's own metres
    return import_p3d(bpy.context, str(path), P3dImportOptions(**kw)), path


def test_faces_and_normals_point_outward(blender, tmp_path):
    _import(tmp_path, _unit())
    lod = bpy.data.objects["Box_Unit_LOD1"]
    assert signed_volume(lod.data) == pytest.approx(1.0 * 0.6 * 0.4, rel=1e-5)
    assert normals_agree(lod.data) == 1.0
    centre = _array(lod.data.polygons, "center", 3) - (0.0, 0.0, 0.4)
    assert ((centre * _array(lod.data.polygons, "normal", 3)).sum(axis=1) > 0).all()


def test_proxy_marker_triangles_stay_out(blender, tmp_path):
    res, _ = _import(tmp_path, _unit())
    lod = bpy.data.objects["Box_Unit_LOD1"]
    assert len(lod.data.polygons) == 12 and lod["p3d_proxy_markers"] == 1
    assert res.counts["proxy_markers"] == 4                 # one per LOD with the proxy
    proxy = next(o for o in lod.children if o.type == "EMPTY")
    assert np.allclose(proxy.matrix_world.translation, (0.1, 0.05, 0.7))


def test_lods_become_alamo_parts_and_the_default_export_succeeds(blender, tmp_path):
    res, _ = _import(tmp_path, _unit())
    arm = res.armature
    objs = {o.name: o for o in res.collection.objects if o.type == "MESH"}
    assert set(objs) == {"Box_Unit_LOD1", "Box_Unit_LOD0", "Box_Unit_Collision",
                         "Box_Unit_Shadow", "Memory"}
    assert all(objs[n].parent is arm for n in objs if n != "Memory")
    assert objs["Memory"].parent is None and objs["Memory"].hide_get()
    assert objs["Box_Unit_Collision"].alamo.collision and objs["Box_Unit_Collision"].alamo.hidden
    assert objs["Box_Unit_Shadow"].data.materials[0].alamo.shader == "MeshShadowVolume.fx"
    assert objs["Box_Unit_LOD1"].data.materials[0].alamo.shader == "MeshGloss.fx"
    # one LOD shown at a time: the most detailed, as the game starts
    assert shown_lod_alt(lod_alt_objects(bpy.context))[0] == 1
    assert [n for n, o in objs.items() if o.visible_get()] == ["Box_Unit_LOD1"]
    out = tmp_path / "Box_Unit.alo"
    assert bpy.ops.export_scene.alo(filepath=str(out)) == {"FINISHED"}
    model = read_alo(out.read_bytes())
    meshes = {m.name: m for m in model.meshes}
    assert set(meshes) == {"Box_Unit_LOD1", "Box_Unit_LOD0", "Box_Unit_Collision",
                           "Box_Unit_Shadow"}
    assert meshes["Box_Unit_Collision"].collision and meshes["Box_Unit_Collision"].hidden
    assert meshes["Box_Unit_LOD1"].submeshes[0].material.shader == "MeshGloss.fx"
    texture = next(p.value for p in meshes["Box_Unit_LOD1"].submeshes[0].material.params
                   if p.name == "BaseTexture")
    assert texture == "box_co.dds"
    # the exported unit faces outward too: imported back, its LOD encloses a positive volume
    bpy.ops.wm.read_homefile(use_empty=True)
    back = import_alo(bpy.context, str(out))
    lod = next(o for o in back.objects if o.name.startswith("Box_Unit_LOD1"))
    assert signed_volume(lod.data) == pytest.approx(0.24, rel=1e-4)


def test_skeleton_and_weights_become_an_armature(blender, tmp_path):
    res, _ = _import(tmp_path, _unit(weights=True))
    arm = res.armature
    assert [b.name for b in arm.data.bones] == ["Root", "root", "arm"]
    assert arm.data.bones["arm"].parent.name == "root"
    assert arm.data.bones["root"].parent.name == "Root"
    lod = bpy.data.objects["Box_Unit_LOD1"]
    mod = next(m for m in lod.modifiers if m.type == "ARMATURE")
    assert mod.object is arm
    co = _array(lod.data.vertices, "co", 3)
    upper = [v.index for v in lod.data.vertices
             if any(g.group == lod.vertex_groups["arm"].index and g.weight == 1.0
                    for g in v.groups)]
    assert sorted(upper) == sorted(np.flatnonzero(co[:, 2] > 0.4).tolist())
    # the bone sits at the centre of the vertices it moves (upper box corners + marker)
    assert np.allclose(arm.data.bones["arm"].head_local, co[upper].mean(axis=0), atol=1e-5)
    assert lod.data.materials[0].alamo.shader == "RSkinGloss.fx"
    shadow, collision = (bpy.data.objects[f"Box_Unit_{n}"] for n in ("Shadow", "Collision"))
    assert shadow.data.materials[0].alamo.shader == "RSkinShadowVolume.fx"
    assert not collision.modifiers and collision.parent is arm        # collision stays rigid
    out = tmp_path / "Skinned.alo"
    assert bpy.ops.export_scene.alo(filepath=str(out)) == {"FINISHED"}
    model = read_alo(out.read_bytes())
    lod1 = next(m for m in model.meshes if m.name == "Box_Unit_LOD1")
    assert len(lod1.submeshes[0].bone_map) == 2
    assert "arm" in [b.name for b in model.skeleton.bones]


def _paa_tree(tmp_path):
    """data\\box_co.paa below the mod folder, and a decoy of the same name beside the model
    (a shorter tail of the path): the longer tail must win."""
    raw = random_blocks(DXT1, 4, seed=11)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "box_co.paa").write_bytes(build_paa(DXT1, 8, 8, raw))
    (tmp_path / "models").mkdir()
    decoy = random_blocks(DXT1, 4, seed=12)
    (tmp_path / "models" / "box_co.paa").write_bytes(build_paa(DXT1, 8, 8, decoy))
    return reference_dxt(raw, 8, 8, DXT1)


def test_textures_are_found_decoded_and_shown(blender, tmp_path):
    want = _paa_tree(tmp_path)
    res, _ = _import(tmp_path, _unit())
    assert res.counts["textures"] == res.counts["textures_found"] == 1
    assert not [w for w in res.warnings if "texture" in w]
    mat = bpy.data.objects["Box_Unit_LOD1"].data.materials[0]
    node = mat.node_tree.nodes["Alamo Base Texture"]
    img = node.image
    assert img.name == "box_co.dds"
    assert Path(img["p3d_texture_file"]) == tmp_path / "data" / "box_co.paa"
    px = np.empty(8 * 8 * 4, np.float32)
    img.pixels.foreach_get(px)
    got = np.rint(px.reshape(8, 8, 4)[::-1] * 255).astype(np.uint8)     # Blender: bottom up
    # Blender decodes the packed DXT blocks itself: in-between colours may round one step
    assert got.shape == want.shape and np.abs(got.astype(int) - want).max() <= 1
    # the .rvmat's stage texture (here the same file) shows in an image node of its own
    assert mat.node_tree.nodes["Arma Stage 1"].image is img
    assert res.counts["stage_textures_found"] == 1


def test_missing_textures_warn_and_show_a_placeholder(blender, tmp_path):
    res, _ = _import(tmp_path, _unit())
    assert res.counts["textures_found"] == 0
    assert any("'data\\box_co.paa' not found" in w for w in res.warnings)  # as written
    img = bpy.data.objects["Box_Unit_LOD1"].data.materials[0].node_tree.nodes[
        "Alamo Base Texture"].image
    assert tuple(img.generated_color) == pytest.approx((1.0, 0.0, 1.0, 1.0))


def test_export_writes_the_textures_beside_the_model(blender, tmp_path):
    want = _paa_tree(tmp_path)
    _import(tmp_path, _unit())
    out = tmp_path / "export" / "Box_Unit.alo"
    out.parent.mkdir()
    assert bpy.ops.export_scene.alo(filepath=str(out), write_textures=True,
                                    texture_format="A8R8G8B8") == {"FINISHED"}
    dds = (out.parent / "box_co.dds").read_bytes()
    assert dds[:4] == b"DDS " and int.from_bytes(dds[12:16], "little") == 8
    bgra = np.frombuffer(dds[128:], np.uint8).reshape(8, 8, 4)
    assert np.abs(bgra[:, :, [2, 1, 0, 3]].astype(int) - want).max() <= 1
    assert sorted(p.name for p in out.parent.iterdir()) == ["Box_Unit.alo", "box_co.dds"]
    (tmp_path / "plain").mkdir()
    bpy.ops.export_scene.alo(filepath=str(tmp_path / "plain" / "x.alo"))
    assert not (tmp_path / "plain" / "box_co.dds").exists()           # off by default


def test_failed_import_removes_images_too(blender, tmp_path, monkeypatch):
    _paa_tree(tmp_path)
    from io_alamo.blender.arma import importer

    def broken(self, parent, proxy):
        raise RuntimeError("injected")
    monkeypatch.setattr(importer._Builder, "_proxy", broken)
    before = (len(bpy.data.images), len(bpy.data.objects), len(bpy.data.armatures))
    with pytest.raises(RuntimeError, match="injected"):
        _import(tmp_path, _unit())
    assert (len(bpy.data.images), len(bpy.data.objects), len(bpy.data.armatures)) == before


@needs_samples
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_samples_face_outward_and_export_one_lod_at_a_time(blender, tmp_path, path):
    model = read_p3d(path.read_bytes())
    res = import_p3d(bpy.context, str(path))
    shown = [o for o in res.objects if o.type == "MESH" and o.visible_get()]
    assert len(shown) == 1 and "_LOD" in shown[0].name
    assert signed_volume(shown[0].data) > 0
    assert normals_agree(shown[0].data) > 0.95
    lods = [o for o in res.objects if o.type == "MESH"]
    markers = sum(o["p3d_proxy_markers"] for o in lods)
    assert markers == sum(len(lod.proxies) for lod in model.lods if lod.proxies and
                          any(s.special & 0x10000000 for s in lod.sections))
    out = tmp_path / "unit.alo"
    assert bpy.ops.export_scene.alo(filepath=str(out)) == {"FINISHED"}
    names = [m.name for m in read_alo(out.read_bytes()).meshes]
    visual = [n for n in names if "_LOD" in n]
    assert visual and all(n in {o.name for o in lods} for n in names)
