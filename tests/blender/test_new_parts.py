"""Issue 25, points 2, 3 and 7: kitbashing (an object from another imported unit is new to
this one: appended after the file's own, never matched by its index), new parts with
n-gons (tangents computed on the triangulated mesh, around a cylinder, not along it), and
mesh names of the older plugin's scenes without Blender's ``.001`` suffixes."""

import numpy as np
import pytest
from corpus import CORPUS

from io_alamo.formats.alamo import read_alo, save
from io_alamo.sample import sample_model

bpy = pytest.importorskip("bpy")
BUMP = "MeshBumpColorize.fx"


def import_model(path):
    from io_alamo.blender.alamo.imp.alo import ImportOptions, import_alo
    return import_alo(bpy.context, str(path), ImportOptions(import_animations=False))


def export_model(path, **kw):
    from io_alamo.blender.alamo.exp.alo import ExportOptions, export_alo
    return export_alo(bpy.context, str(path), ExportOptions(**kw))


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
