"""Checks before writing (errors stop the export and select what is wrong, warnings do not),
the export operator's scope and modifier options."""

import numpy as np
import pytest

from io_alamo.formats.alamo import read_alo

bpy = pytest.importorskip("bpy")


def cube(name, shader="alDefault.fx", parent=None):
    import bmesh
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=2.0)
    bm.to_mesh(me)
    bm.free()
    me.uv_layers.new(name="UVMap")
    obj = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(obj)
    if shader is not None:
        mat = bpy.data.materials.new(name)
        mat.alamo.shader = shader
        me.materials.append(mat)
    obj.parent = parent
    return obj


def armature(bones=("Root", "Arm")):
    arm = bpy.data.armatures.new("Rig")
    obj = bpy.data.objects.new("Rig", arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for k, name in enumerate(bones):
        b = arm.edit_bones.new(name)
        b.head, b.tail = (k, 0, 0), (k, 0, 1)
        if k:
            b.parent = arm.edit_bones[bones[0]]
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def skin(obj, arm, groups):
    obj.parent = arm
    for name, verts, weight in groups:
        g = obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)
        g.add(verts, weight, "REPLACE")
    obj.modifiers.new("Armature", "ARMATURE").object = arm


def export(path, **kw):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    return export_alo(bpy.context, str(path), AloExportOptions(**kw))


def export_op(path, **kw):
    return bpy.ops.export_scene.alo(filepath=str(path), **kw)


def test_name_the_game_cannot_store_stops_export_and_selects(blender, tmp_path):
    bad = cube("Hull \u2713")                      # a check mark: not in Windows-1252
    good = cube("Other")
    out = tmp_path / "x.alo"
    out.write_bytes(b"previous good file")
    with pytest.raises(RuntimeError, match="Windows-1252"):     # the operator's error report
        export_op(out, scope="SCENE")
    assert out.read_bytes() == b"previous good file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.alo"]
    assert bad.select_get() and not good.select_get()
    from io_alamo.blender.alamo.exporter.alo import ExportError
    with pytest.raises(ExportError, match="Windows-1252") as e:
        export(out, scope="SCENE")
    assert [d.objects for d in e.value.details if d.level == "ERROR"] == [["Hull \u2713"]]


def test_cp1252_names_are_written_byte_for_byte_with_a_warning(blender, tmp_path):
    cube("Flügel")
    out = tmp_path / "x.alo"
    result = export(out, scope="SCENE")
    assert any("not plain ASCII" in w for w in result.warnings)
    assert "Flügel".encode("cp1252") in out.read_bytes()
    assert read_alo(out.read_bytes()).meshes[0].name == "Flügel"


def proxy_named(file_name):
    """A proxy whose name in the file is ``file_name`` (Blender names stop at 63 bytes)."""
    proxy = bpy.data.objects.new("Proxy", None)
    bpy.context.scene.collection.objects.link(proxy)
    proxy.alamo.role = "PROXY"
    proxy.alamo.name = file_name
    proxy["alamo_import_name"] = proxy.name
    return proxy


def test_too_long_proxy_name_is_an_error(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import ExportError
    cube("Hull")
    proxy = proxy_named("P" * 255)
    with pytest.raises(ExportError, match="254"):
        export(tmp_path / "x.alo", scope="SCENE")
    proxy.alamo.name = "Q" * 254                           # at the limit it is fine
    export(tmp_path / "x.alo", scope="SCENE")
    assert read_alo((tmp_path / "x.alo").read_bytes()).connections.proxies[0].name == "Q" * 254


def test_skinned_vertex_without_weights_is_an_error_and_selected(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import ExportError
    arm = armature()
    obj = cube("Body", "RSkinGloss.fx")
    skin(obj, arm, [("Arm", [0, 1, 2, 3, 4, 5], 1.0)])       # vertices 6 and 7 have none
    obj.data.vertices.foreach_set("select", [False] * 8)
    with pytest.raises(ExportError, match="2 skinned vertices have no bone weights"):
        export(tmp_path / "x.alo")
    sel = [v.select for v in obj.data.vertices]
    assert sel == [False] * 6 + [True] * 2
    assert not (tmp_path / "x.alo").exists()


def test_weights_beyond_the_format_warn_and_keep_the_strongest(blender, tmp_path):
    arm = armature(("Root", "A", "B"))
    obj = cube("Body", "RSkinGloss.fx")
    skin(obj, arm, [("A", list(range(8)), 0.7), ("B", [0, 1], 0.3)])
    result = export(tmp_path / "x.alo")
    assert any("more than 1 bone weight" in w and "Body" in p.objects
               for p in result.problems for w in [p.text])
    sub = read_alo((tmp_path / "x.alo").read_bytes()).meshes[0].submeshes[0]
    assert [int(b) for b in sub.bone_map] == [1]                  # only A, the strongest
    assert np.all(sub.vertices["bone_weights"][:, 0] == 1.0)


def test_skinned_mesh_with_a_rigid_shader_warns(blender, tmp_path):
    arm = armature()
    obj = cube("Body", "MeshGloss.fx")
    skin(obj, arm, [("Arm", list(range(8)), 1.0)])
    result = export(tmp_path / "x.alo")
    assert any("RSkinGloss.fx" in w for w in result.warnings)
    sub = read_alo((tmp_path / "x.alo").read_bytes()).meshes[0].submeshes[0]
    assert sub.vertex_format == "alD3dVertRSkinNU2" and list(sub.bone_map) == [1]


def test_material_without_shader_warns_and_uses_default(blender, tmp_path):
    obj = cube("Plain", shader=None)
    obj.data.materials.append(bpy.data.materials.new("NoShader"))
    result = export(tmp_path / "x.alo", scope="SCENE")
    [p] = [p for p in result.problems if "no Alamo shader" in p.text]
    assert p.objects == ["Plain"] and p.level == "WARNING"
    sub = read_alo((tmp_path / "x.alo").read_bytes()).meshes[0].submeshes[0]
    assert sub.material.shader == "alDefault.fx"


def test_mesh_without_triangles_is_an_error(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import ExportError
    me = bpy.data.meshes.new("Empty")
    me.from_pydata([(0, 0, 0), (1, 0, 0)], [(0, 1)], [])
    obj = bpy.data.objects.new("Empty", me)
    bpy.context.scene.collection.objects.link(obj)
    with pytest.raises(ExportError, match="no triangles") as e:
        export(tmp_path / "x.alo", scope="SCENE")
    assert e.value.objects == [obj]


def test_mesh_without_uv_map_gets_a_tangent_frame_and_a_warning(blender, tmp_path):
    obj = cube("Bumpy", "MeshBumpColorize.fx")
    obj.data.uv_layers.remove(obj.data.uv_layers[0])
    result = export(tmp_path / "x.alo", scope="SCENE")
    assert any("no UV map" in w for w in result.warnings)
    v = read_alo((tmp_path / "x.alo").read_bytes()).meshes[0].submeshes[0].vertices
    assert np.allclose(np.linalg.norm(v["tangent"], axis=1), 1.0, atol=1e-5)
    assert np.allclose(np.einsum("ij,ij->i", v["tangent"], v["normal"]), 0.0, atol=1e-5)


def names_in(path):
    return sorted(m.name for m in read_alo(path.read_bytes()).meshes)


def test_scope_options(blender, tmp_path):
    arm = armature()
    on_arm = cube("OnArm", parent=arm)
    loose = cube("Loose")
    hidden = cube("Hidden")
    hidden.hide_set(True)
    out = tmp_path / "x.alo"
    bpy.context.view_layer.objects.active = on_arm
    on_arm.select_set(True)
    assert export_op(out) == {"FINISHED"}                 # default: the selection's armature
    assert names_in(out) == ["OnArm"]
    for o in bpy.context.view_layer.objects:
        o.select_set(o.name == "Loose")
    bpy.context.view_layer.objects.active = loose
    assert export_op(out, scope="SELECTION") == {"FINISHED"}
    assert names_in(out) == ["Loose"]
    assert export_op(out, scope="VISIBLE") == {"FINISHED"}
    assert names_in(out) == ["Loose", "OnArm"]
    assert export_op(out, scope="SCENE") == {"FINISHED"}
    assert names_in(out) == ["Hidden", "Loose", "OnArm"]
    assert on_arm.name in bpy.data.objects and loose.name in bpy.data.objects


def test_apply_modifiers_option(blender, tmp_path):
    obj = cube("Smooth")
    obj.modifiers.new("Subdivision", "SUBSURF").levels = 1
    out = tmp_path / "x.alo"
    export(out, scope="SCENE", apply_modifiers=True)
    assert len(read_alo(out.read_bytes()).meshes[0].submeshes[0].indices) == 48
    export(out, scope="SCENE", apply_modifiers=False)
    assert len(read_alo(out.read_bytes()).meshes[0].submeshes[0].indices) == 12
    assert len(obj.modifiers) == 1 and len(obj.data.polygons) == 6      # the scene is unchanged


def test_objects_the_format_cannot_hold_are_named_in_a_warning(blender, tmp_path):
    cube("Hull")
    curve = bpy.data.objects.new("Cable", bpy.data.curves.new("Cable", "CURVE"))
    bpy.context.scene.collection.objects.link(curve)
    result = export(tmp_path / "x.alo", scope="SCENE")
    [p] = [p for p in result.problems if "Cable" in p.text]
    assert p.objects == ["Cable"] and "Convert" in p.text
    assert names_in(tmp_path / "x.alo") == ["Hull"]


def test_shader_switch_on_an_unedited_import_rebuilds_its_vertex_format(blender, tmp_path):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    from io_alamo.formats.alamo.sample import write_sample
    alo, _ = write_sample(tmp_path / "in")
    import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False))
    original = read_alo(alo.read_bytes())
    hull = [m for m in original.meshes if m.submeshes[0].vertex_format == "alD3dVertNU2U3U3"][0]
    obj = bpy.data.objects[hull.name]
    mat = obj.material_slots[0].material
    assert bpy.ops.alamo.set_shader(material=mat.name, shader="MeshGloss.fx") == {"FINISHED"}
    export(tmp_path / "x.alo")
    model = read_alo((tmp_path / "x.alo").read_bytes())
    sub = [m for m in model.meshes if m.name == hull.name][0].submeshes[0]
    assert (sub.material.shader, sub.vertex_format) == ("MeshGloss.fx", "alD3dVertNU2")
    # the other meshes are still written from the file
    for a, b in zip(original.meshes, model.meshes):
        if a.name != hull.name:
            assert all(np.array_equal(x.vertices, y.vertices)
                       for x, y in zip(a.submeshes, b.submeshes))
