"""Issue 25, points 2, 3 and 7: kitbashing (an object from another imported unit is new to
this one: appended after the file's own, never matched by its index), new parts with
n-gons (tangents computed on the triangulated mesh, around a cylinder, not along it), and
mesh names of the older plugin's scenes without Blender's ``.001`` suffixes."""

import numpy as np
import pytest
from corpus import CORPUS

from io_alamo.formats.alamo import read_alo, save
from io_alamo.formats.alamo.sample import sample_model

bpy = pytest.importorskip("bpy")
BUMP = "MeshBumpColorize.fx"


def import_model(path):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    return import_alo(bpy.context, str(path), AloImportOptions(import_animations=False))


def export_model(path, **kw):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    return export_alo(bpy.context, str(path), AloExportOptions(**kw))


def select_only(obj):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


# --- point 3: n-gon tangents -----------------------------------------------------------------

def bump_cylinder(arm):
    """A Shift+A cylinder (its caps are n-gons) with a bump shader, on the armature's bone."""
    bpy.ops.mesh.primitive_cylinder_add(vertices=16, radius=1.0, depth=4.0)
    cyl = bpy.context.active_object
    mat = bpy.data.materials.new("Bump")
    mat.alamo.shader = BUMP
    cyl.data.materials.append(mat)
    cyl.parent = arm
    return cyl


def test_new_ngon_cylinder_gets_tangents_around_it(blender, tmp_path):
    save(sample_model(), tmp_path / "Tank.alo")
    arm = import_model(tmp_path / "Tank.alo").armature
    cyl = bump_cylinder(arm)
    assert max(len(p.vertices) for p in cyl.data.polygons) == 16      # n-gon caps
    select_only(arm)
    result = export_model(tmp_path / "out.alo")
    assert not [w for w in result.warnings if "tangent" in w], result.warnings
    model = read_alo((tmp_path / "out.alo").read_bytes())
    mesh = next(m for m in model.meshes if m.name == cyl.name)
    v = np.concatenate([s.vertices for s in mesh.submeshes])
    side = np.abs(v["normal"][:, 2]) < 0.1                 # the cylinder's side (axis: Z)
    assert side.sum() >= 32
    t = v["tangent"][side].astype(np.float64)
    # around the cylinder: perpendicular to its axis and to the radius
    radial = v["position"][side].astype(np.float64) * [1, 1, 0]
    radial /= np.linalg.norm(radial, axis=1, keepdims=True)
    assert np.abs(t[:, 2]).max() < 1e-3
    assert np.abs(np.einsum("ij,ij->i", t, radial)).max() < 0.2
    caps = np.abs(v["normal"][:, 2]) > 0.9
    assert np.allclose(np.linalg.norm(v["tangent"][caps], axis=1), 1.0, atol=1e-3)


def test_tangents_that_cannot_be_computed_say_why(blender, tmp_path):
    save(sample_model(), tmp_path / "Tank.alo")
    arm = import_model(tmp_path / "Tank.alo").armature
    cyl = bump_cylinder(arm)
    while cyl.data.uv_layers:
        cyl.data.uv_layers.remove(cyl.data.uv_layers[0])
    select_only(arm)
    result = export_model(tmp_path / "out.alo")
    assert any(f"mesh {cyl.name!r}" in w and "no UV map" in w for w in result.warnings)


# --- point 2: kitbashing -----------------------------------------------------------------------

KITBASH = [("UV_CanderousAssaultTank.alo", "NV_SwampSpeeder_U.alo"),
           ("EV_AT-Barge_D.alo", "UV_CanderousAssaultTank.alo"),
           ("NV_SwampSpeeder_U.alo", "RB_TLTower.alo"),
           ("j1_proton_cannon.alo", "EV_AT-Barge_D.alo")]


def kitbash_pairs():
    if not CORPUS.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(
            reason=f"no shared corpus at {CORPUS}: real-file tests skipped"))]
    return [pytest.param(CORPUS / a, CORPUS / b, id=f"{a[:-4]}+{b[:-4]}") for a, b in KITBASH]


def same_record(a, b):
    if type(a) is not type(b) or a.name != b.name:
        return False
    if hasattr(a, "submeshes"):
        return len(a.submeshes) == len(b.submeshes) and all(
            np.array_equal(x.vertices, y.vertices) and np.array_equal(x.indices, y.indices)
            for x, y in zip(a.submeshes, b.submeshes))
    return True


def move_part(part, arm):
    """Hang ``part`` on ``arm`` where it is (Ctrl+P > Object, Keep Transform)."""
    world = part.matrix_world.copy()
    for m in [m for m in part.modifiers if m.type == "ARMATURE"]:
        part.modifiers.remove(m)
    part.parent = arm
    part.parent_type = "OBJECT"
    part.matrix_world = world


def rigid_part(result):
    meshes = [o for o in result.objects if o.type == "MESH"
              and not any(m.type == "ARMATURE" for m in o.modifiers)]
    return min(meshes, key=lambda o: o.alamo.file_index) if meshes else None


@pytest.mark.parametrize("first, second", kitbash_pairs())
def test_kitbashed_part_is_new_and_last(blender, tmp_path, first, second):
    a = import_model(first)
    b = import_model(second)
    part = rigid_part(b)
    if part is None:
        pytest.skip("no rigid mesh to move")
    move_part(part, a.armature)
    select_only(a.armature)
    out = tmp_path / "kitbash.alo"
    export_model(out)
    old = read_alo(first.read_bytes())
    new = read_alo(out.read_bytes())
    n = len(old.objects)
    assert len(new.objects) == n + 1
    for k in range(n):
        assert same_record(old.objects[k], new.objects[k]), (k, old.objects[k].name)
        assert new.object_bone(k) == old.object_bone(k)
    assert new.objects[n].name == part.name.split(".")[0] or new.objects[n].name == part.name
    assert [p.name for p in new.connections.proxies] == [p.name for p in old.connections.proxies]


def test_kitbashed_sample_parts_keep_the_first_units_order(blender, tmp_path):
    """Spec-built: two copies of the sample tank; the second's hull (file index 0) moved
    onto the first is appended after the first's own objects, which stay as they were."""
    save(sample_model(), tmp_path / "Tank.alo")
    save(sample_model(), tmp_path / "Other.alo")
    a = import_model(tmp_path / "Tank.alo")
    b = import_model(tmp_path / "Other.alo")
    part = next(o for o in b.objects if o.type == "MESH" and o.alamo.file_index == 0)
    move_part(part, a.armature)
    dazzle = next((o for o in b.objects if o.alamo.role == "DAZZLE"), None)
    if dazzle is not None:
        world = dazzle.matrix_world.copy()
        dazzle.parent = a.armature
        dazzle.matrix_world = world
    select_only(a.armature)
    export_model(tmp_path / "out.alo")
    old = read_alo((tmp_path / "Tank.alo").read_bytes())
    new = read_alo((tmp_path / "out.alo").read_bytes())
    n = len(old.objects)
    assert [o.name for o in new.objects[:n]] == [o.name for o in old.objects]
    assert all(same_record(x, y) for x, y in zip(old.objects, new.objects))
    assert len(new.objects) == n + 1
    if dazzle is not None:
        names = [d.name for d in new.connections.dazzles]
        assert names[:len(old.connections.dazzles)] == [d.name for d in old.connections.dazzles]
        assert len(names) == len(old.connections.dazzles) + 1


def test_armature_modifier_of_another_armature_is_a_warning(blender, tmp_path):
    save(sample_model(), tmp_path / "Tank.alo")
    save(sample_model(), tmp_path / "Other.alo")
    a = import_model(tmp_path / "Tank.alo")
    b = import_model(tmp_path / "Other.alo")
    skinned = next(o for o in b.objects if o.type == "MESH"
                   and any(m.type == "ARMATURE" for m in o.modifiers))
    skinned.parent = a.armature
    select_only(a.armature)
    result = export_model(tmp_path / "out.alo")
    assert any(f"mesh {skinned.name!r} is deformed by armature {b.armature.name!r}" in w
               and "not exported" in w for w in result.warnings), result.warnings


# --- point 7: the older plugin's duplicate mesh names ----------------------------------------

@pytest.mark.parametrize("converted", [False, True], ids=["on the fly", "converted"])
def test_plugin_duplicate_mesh_names_lose_their_suffixes(blender, tmp_path, converted):
    from test_plugin_scenes import cube, hang_by_child_of, plugin_scene
    arm = plugin_scene()
    crushers = []
    for k in range(3):
        obj = cube("Crusher", 0.5)            # Blender names them Crusher, .001, .002
        hang_by_child_of(obj, arm, "b_body")
        obj["Hidden"], obj["HasCollision"] = 0, 0
        crushers.append(obj)
    assert [o.name for o in crushers] == ["Crusher", "Crusher.001", "Crusher.002"]
    if converted:
        assert bpy.ops.alamo.convert_legacy_scene() == {"FINISHED"}
    select_only(arm)
    result = export_model(tmp_path / "out.alo")
    model = read_alo((tmp_path / "out.alo").read_bytes())
    names = [m.name for m in model.meshes]
    assert names.count("Crusher") == 3 and not [n for n in names if "." in n]
    if not converted:
        assert any("'.001' suffixes" in w for w in result.warnings)


# --- safe writes of the other exporter -------------------------------------------------------

def test_alithia_export_onto_a_folder_or_read_only_file_is_refused(blender, tmp_path):
    """Issue 25, point 6: every Blender exporter writes through the same safe path."""
    import alm1build as ab

    from io_alamo.blender.alithia.exporter import export_alm1
    from io_alamo.blender.alithia.importer import import_alm1
    built = ab.wave_grid(4)
    (tmp_path / "wave.alm").write_bytes(built.data)
    import_alm1(bpy.context, str(tmp_path / "wave.alm"))
    folder = tmp_path / "MyMod"
    folder.mkdir()
    (folder / "keep.txt").write_bytes(b"x")
    with pytest.raises(OSError, match="it is a folder, not a file"):
        export_alm1(bpy.context, str(folder))
    assert sorted(p.name for p in folder.iterdir()) == ["keep.txt"]
    target = tmp_path / "locked.alm"
    target.write_bytes(b"old")
    target.chmod(0o444)
    with pytest.raises(OSError, match="read-only"):
        export_alm1(bpy.context, str(target))
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MyMod", "locked.alm", "wave.alm"]
