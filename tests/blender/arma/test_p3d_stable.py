"""Byte-stable exports of converted Arma vehicles (issue 43, point 4): the tangent frames of
new meshes are computed in numpy in a fixed order (``mesh_data.corner_tangents``), not by
Blender's threaded MikkTSpace, whose bits change from one call to the next; so the same
scene writes the same bytes every time, before and after a save and reload."""

import bpy
import numpy as np
from p3d_vehicle import build_vehicle

from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
from io_alamo.blender.arma import preview_copies
from io_alamo.blender.arma.preview_copies import TEMPLATE_NAME
from io_alamo.blender.arma.importer import import_p3d
from io_alamo.blender.mesh_data import corner_tangents
from io_alamo.formats.alamo import read_alo

BUMP = "MeshBumpColorize.fx"


def _sphere(segments=256, rings=128):
    bpy.ops.mesh.primitive_uv_sphere_add(segments=segments, ring_count=rings)
    obj = bpy.context.active_object
    bpy.ops.object.shade_smooth()
    return obj


def _blender_tangents(me):
    me.calc_tangents(uvmap=me.uv_layers[0].name)
    t = np.empty(3 * len(me.loops), np.float32)
    me.loops.foreach_get("tangent", t)
    s = np.empty(len(me.loops), np.float32)
    me.loops.foreach_get("bitangent_sign", s)
    me.free_tangents()
    return t.reshape(-1, 3), s


def test_corner_tangents_give_the_same_bits_every_time_and_agree_with_mikktspace(blender):
    me = _sphere().data                    # 130k corners: big enough for Blender's threads
    first_t, first_s = corner_tangents(me)
    for _ in range(4):
        t, s = corner_tangents(me)
        assert t.tobytes() == first_t.tobytes() and s.tobytes() == first_s.tobytes()
    mikk_t, mikk_s = _blender_tangents(me)
    assert np.einsum("ij,ij->i", first_t, mikk_t).min() > 0.999      # the same frames
    assert (first_s == mikk_s).all()
    normals = np.empty(3 * len(me.loops), np.float32)
    me.corner_normals.foreach_get("vector", normals)
    dots = np.einsum("ij,ij->i", first_t, normals.reshape(-1, 3))
    assert np.abs(dots).max() < 1e-5 and np.allclose(np.linalg.norm(first_t, axis=1), 1.0)


def _export(path):
    arm = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    for o in bpy.context.view_layer.objects:
        o.select_set(o == arm)
    bpy.context.view_layer.objects.active = arm
    result = export_alo(bpy.context, str(path), AloExportOptions(scope="ARMATURE"))
    assert path.exists(), result.warnings
    return path.read_bytes()


def test_a_converted_vehicle_exports_the_same_bytes_every_time(blender, tmp_path):
    res = import_p3d(bpy.context, str(build_vehicle(tmp_path / "mod", textures=2, side=16)))
    hull = _sphere()                       # a dense bump-mapped part, as a real hull
    mat = bpy.data.materials.new("Hull")
    mat.alamo.shader = BUMP
    hull.data.materials.append(mat)
    hull.parent = res.armature
    first = _export(tmp_path / "a.alo")
    for k in range(3):
        assert _export(tmp_path / f"b{k}.alo") == first
    model = read_alo(first)
    mesh = next(m for m in model.meshes if m.name == hull.name)
    t = np.concatenate([s.vertices["tangent"] for s in mesh.submeshes])
    assert np.allclose(np.linalg.norm(t, axis=1), 1.0, atol=1e-4)
    blend = tmp_path / "truck.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    assert _export(tmp_path / "c.alo") == first          # after a save and reload too


def _tree(mat):
    """A material's nodes (type, values, image), links and Alamo settings, by node name."""
    nodes = {n.name: (n.bl_idname, getattr(getattr(n, "image", None), "name", None),
                      [tuple(np.ravel(s.default_value)) if hasattr(s, "default_value") and
                       not isinstance(s.default_value, str) else None for s in n.inputs])
             for n in mat.node_tree.nodes}
    links = sorted((lk.from_node.name, lk.from_socket.identifier, lk.to_node.name,
                    lk.to_socket.identifier) for lk in mat.node_tree.links)
    params = [(p.name, p.texture, tuple(p.float4_value), p.float_value) for p in mat.alamo.params]
    return nodes, links, params, mat.surface_render_method, tuple(mat.diffuse_color), \
        {k: repr(mat[k]) for k in mat.keys() if k.startswith("p3d_")}


def test_previews_copied_per_layout_are_the_previews_a_build_makes(blender, tmp_path,
                                                                    monkeypatch):
    # the sections of one layout share a template: each copy shows its own texture and values
    path = str(build_vehicle(tmp_path / "mod", textures=4, side=16))

    def materials():
        import_p3d(bpy.context, path)
        mats = sorted((m for m in bpy.data.materials if m.get("p3d_texture")),
                      key=lambda m: m.name)
        assert not [m for m in bpy.data.materials if m.name.startswith(TEMPLATE_NAME)]
        out = [(m.name, _tree(m)) for m in mats]
        bpy.ops.wm.read_factory_settings(use_empty=True)
        return out

    copied = materials()
    assert len(copied) >= 4
    assert len({t[0]["Alamo Base Texture"][1] for _, t in copied}) >= 4
    monkeypatch.setattr(preview_copies, "_slots", lambda mat, shown: None)   # no templates
    assert materials() == copied
