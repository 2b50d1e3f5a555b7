"""Issue 25, point 1: resizing a unit, three ways (the armature object scaled and left
unapplied; Ctrl+A > Apply Scale on the armature, with or without its children; the
``alamo.scale_model`` operator): every bone, mesh, proxy and dazzle is written at 1.5x, and
the animation's bone positions at every frame too."""

from pathlib import Path

import numpy as np
import pytest
from corpus import CORPUS
from posing import mesh_positions, posed_positions

from io_alamo.formats.alamo import read_ala, read_alo, save
from io_alamo.formats.alamo.naming import format_has_tangents
from io_alamo.formats.alamo.sample import sample_animation, sample_model

bpy = pytest.importorskip("bpy")
mathutils = pytest.importorskip("mathutils")

FACTOR = 1.5
WAYS = ["unapplied", "apply_scale", "apply_scale_with_children", "operator"]
# rigid units with an animation (of both formats), the spec-built sample tank besides
UNITS = [("EV_AT-Barge_D.alo", "EV_AT-Barge_D_Die_00.ala"),
         ("UV_CanderousAssaultTank.alo", "UV_CanderousAssaultTank_Idle_00.ala"),
         ("RB_TLTower.alo", "RB_TLTower_Build_00.ala")]


def mesh_points(model):
    """Per mesh: (unique model-space vertex positions' min, max, mean)."""
    out = []
    for name, p in mesh_positions(model):
        p = np.unique(p.round(5), axis=0)
        out.append((name, p.min(axis=0), p.max(axis=0), p.mean(axis=0)))
    return out


def dazzle_points(model):
    worlds = model.skeleton.world_matrices()
    return np.array([worlds[d.bone][:3, :3] @ d.position + worlds[d.bone][:3, 3]
                     for d in model.connections.dazzles]).reshape(-1, 3)


def resize(way, arm):
    ctx = bpy.context
    for o in ctx.view_layer.objects:
        o.select_set(False)
    ctx.view_layer.objects.active = arm
    arm.select_set(True)
    if way == "operator":
        assert bpy.ops.alamo.scale_model(factor=FACTOR) == {"FINISHED"}
        assert tuple(arm.scale) == (1.0, 1.0, 1.0)
        return
    arm.scale = (FACTOR,) * 3
    if way.startswith("apply_scale"):
        if way.endswith("children"):
            for o in arm.children_recursive:
                o.select_set(True)
        bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)


def exported(tmp_path, arm, action):
    from io_alamo.blender.alamo.exporter.ala import export_ala
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    bpy.context.view_layer.objects.active = arm
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    result = export_alo(bpy.context, str(out / "m.alo"), AloExportOptions())
    export_ala(bpy.context, arm, action, str(out / "a.ala"))
    return (result, read_alo((out / "m.alo").read_bytes()),
            read_ala((out / "a.ala").read_bytes()))


def check_scaled(model, anim, new, new_anim):
    reach = max(1.0, float(np.abs(model.skeleton.world_matrices()[:, :3, 3]).max()))
    tol = 2e-4 * reach * FACTOR
    a, b = model.skeleton.world_matrices(), new.skeleton.world_matrices()
    assert [x.name for x in new.bones] == [x.name for x in model.bones]
    assert np.allclose(b[:, :3, 3], FACTOR * a[:, :3, 3], atol=tol)
    assert np.allclose(b[:, :3, :3], a[:, :3, :3], atol=1e-3)     # rotations kept, rigid
    assert [(p.name, p.bone) for p in new.connections.proxies] == \
        [(p.name, p.bone) for p in model.connections.proxies]
    assert np.allclose(dazzle_points(new), FACTOR * dazzle_points(model), atol=tol)
    ma, mb = mesh_points(model), mesh_points(new)
    assert [m[0] for m in mb] == [m[0] for m in ma]
    for (name, lo, hi, mean), (_, lo2, hi2, mean2) in zip(ma, mb):
        for x, y in ((lo, lo2), (hi, hi2), (mean, mean2)):
            assert np.allclose(y, FACTOR * x, atol=tol), name
    pa, pb = posed_positions(model, anim), posed_positions(new, new_anim)
    assert pa.shape == pb.shape
    assert np.allclose(pb, FACTOR * pa, atol=tol * 4)


def import_unit(alo, ala):
    from io_alamo.blender.alamo.importer.ala import import_ala
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
    action = import_ala(bpy.context, arm, str(ala)).action
    arm.animation_data.action = None
    return arm, action


@pytest.mark.parametrize("way", WAYS)
def test_resized_sample_unit_is_written_at_the_new_size(blender, tmp_path, way):
    model = sample_model()
    alo, ala = tmp_path / "Tank.alo", tmp_path / "Tank_Turn_00.ala"
    save(model, alo)
    save(sample_animation(model), ala)
    model, anim = read_alo(alo.read_bytes()), read_ala(ala.read_bytes())
    arm, action = import_unit(alo, ala)
    resize(way, arm)
    _, new, new_anim = exported(tmp_path, arm, action)
    check_scaled(model, anim, new, new_anim)


def corpus_units():
    if not CORPUS.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(
            reason=f"no shared corpus at {CORPUS}: real-file tests skipped"))]
    return [pytest.param(CORPUS / a, CORPUS / b, id=Path(a).stem) for a, b in UNITS]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("alo, ala", corpus_units())
def test_resized_corpus_unit_is_written_at_the_new_size(blender, tmp_path, alo, ala, way):
    model, anim = read_alo(alo.read_bytes()), read_ala(ala.read_bytes())
    arm, action = import_unit(alo, ala)
    resize(way, arm)
    result, new, new_anim = exported(tmp_path, arm, action)
    said = [w for w in result.warnings if "armature" in w]
    if way.startswith("apply_scale"):      # the keys Apply Scale left are reported
        assert len(said) == 1 and "(Apply Scale)" in said[0] and "1.5" in said[0]
    else:
        assert not said
    check_scaled(model, anim, new, new_anim)


def test_apply_scale_keeps_objects_on_bones_in_place(blender, tmp_path):
    """Bones of an imported unit parent objects relative to their rest (Relative Parent):
    Ctrl+A > Apply Scale moves none of them."""
    model = sample_model()
    alo = tmp_path / "Tank.alo"
    save(model, alo)
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
    assert all(b.use_relative_parent for b in arm.data.bones)
    arm.scale = (FACTOR,) * 3
    bpy.context.view_layer.update()
    before = {o.name: np.array(o.matrix_world) for o in arm.children}
    resize("apply_scale", arm)
    bpy.context.view_layer.update()
    for o in arm.children:
        assert np.allclose(np.array(o.matrix_world), before[o.name], atol=1e-5), o.name


def test_an_armature_away_from_the_origin_is_reported_and_not_moved(blender, tmp_path):
    model = sample_model()
    alo = tmp_path / "Tank.alo"
    save(model, alo)
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
    arm.location = (10, 0, 0)
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    result = export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    assert any("not at the world origin" in w and "not written" in w for w in result.warnings)
    assert (tmp_path / "out.alo").read_bytes() == alo.read_bytes()


def test_rotated_armature_is_written_turned(blender, tmp_path):
    model = sample_model()
    alo = tmp_path / "Tank.alo"
    save(model, alo)
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
    arm.rotation_euler = (0, 0, np.pi / 2)
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    new = read_alo((tmp_path / "out.alo").read_bytes())
    turn = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])
    a, b = model.skeleton.world_matrices(), new.skeleton.world_matrices()
    assert np.allclose(b[:, :3, 3], a[:, :3, 3] @ turn.T, atol=1e-4)
    for (name, lo, hi, mean), (_, lo2, hi2, mean2) in zip(mesh_points(model), mesh_points(new)):
        assert np.allclose(mean2, turn @ mean, atol=1e-4), name


def test_operator_keeps_topology_uvs_tangents_and_vertex_order(blender, tmp_path):
    model = sample_model()
    alo = tmp_path / "Tank.alo"
    save(model, alo)
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
    resize("operator", arm)
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    new = read_alo((tmp_path / "out.alo").read_bytes())
    for a, b in zip(model.meshes, new.meshes):
        for sa, sb in zip(a.submeshes, b.submeshes):
            assert np.array_equal(sa.indices, sb.indices), a.name
            va, vb = sa.vertices, sb.vertices
            assert np.allclose(vb["position"], FACTOR * va["position"], atol=1e-4), a.name
            fields = ["normal", "uv", "color"]
            if format_has_tangents(sa.vertex_format):
                fields += ["tangent", "binormal"]
            for f in fields:
                assert np.allclose(vb[f], va[f], atol=1e-5), (a.name, f)


def test_scale_model_is_in_the_sidebar_and_the_transform_menu(blender):
    from io_alamo.blender.alamo.ui.objects import ALAMO_OT_scale_model, menu_transform
    assert ALAMO_OT_scale_model.bl_idname == "alamo.scale_model"
    assert "factor" in ALAMO_OT_scale_model.__annotations__
    assert menu_transform in bpy.types.VIEW3D_MT_transform_object._dyn_ui_initialize()


def test_scale_model_after_apply_scale_scales_the_keys_apply_scale_left(blender, tmp_path):
    model = sample_model()
    alo, ala = tmp_path / "Tank.alo", tmp_path / "Tank_Turn_00.ala"
    save(model, alo)
    save(sample_animation(model), ala)
    model, anim = read_alo(alo.read_bytes()), read_ala(ala.read_bytes())
    arm, action = import_unit(alo, ala)
    arm.scale = (1.2,) * 3
    for o in bpy.context.view_layer.objects:
        o.select_set(o == arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)  # 1.2
    select_only_and = bpy.ops.alamo.scale_model(factor=FACTOR / 1.2)
    assert select_only_and == {"FINISHED"}
    result, new, new_anim = exported(tmp_path, arm, action)
    assert not [w for w in result.warnings if "Apply Scale" in w]
    check_scaled(model, anim, new, new_anim)


def test_a_bone_edited_before_scale_model_keeps_its_edit(blender, tmp_path):
    model = sample_model()
    alo = tmp_path / "Tank.alo"
    save(model, alo)
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
    select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = arm.data.edit_bones[2]
    name = eb.name
    eb.translate(mathutils.Vector((0.0, 0.0, 0.5)))
    bpy.ops.object.mode_set(mode="OBJECT")
    edited = np.array(arm.data.bones[name].matrix_local)[:3, 3]
    assert bpy.ops.alamo.scale_model(factor=FACTOR) == {"FINISHED"}
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    new = read_alo((tmp_path / "out.alo").read_bytes())
    k = next(i for i, b in enumerate(new.bones) if b.name == arm.data.bones[name].alamo.name)
    assert np.allclose(new.skeleton.world_matrices()[k][:3, 3], FACTOR * edited, atol=1e-4)


def select_only(obj):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def test_parts_stay_where_blender_shows_them_when_their_bone_is_moved(blender, tmp_path):
    """Meshes on a bone with Relative Parent stay put when the bone is moved in Edit Mode:
    the file must say the same (they are written relative to the moved bone). Dazzles (and
    proxies, lights), which the game puts at their bone, move with it (issue 39)."""
    model = sample_model()
    alo = tmp_path / "Tank.alo"
    save(model, alo)
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    result = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False))
    arm = result.armature
    select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    for eb in arm.data.edit_bones:
        if eb.parent is not None:
            eb.translate(mathutils.Vector((0.0, 0.7, 0.0)))
    bpy.ops.object.mode_set(mode="OBJECT")
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    new = read_alo((tmp_path / "out.alo").read_bytes())
    assert not np.allclose(new.skeleton.world_matrices()[1:, :3, 3],
                           model.skeleton.world_matrices()[1:, :3, 3])
    for (name, lo, hi, mean), (_, lo2, hi2, mean2) in zip(mesh_points(model),
                                                          mesh_points(new)):
        assert np.allclose([lo2, hi2, mean2], [lo, hi, mean], atol=1e-4), name
    assert np.allclose(dazzle_points(new), dazzle_points(model) + (0.0, 0.7, 0.0), atol=1e-4)
