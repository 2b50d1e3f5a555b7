"""Issue 31, point 8: nothing read from a file is clamped by a UI range. Every property that
holds a value of the file has soft limits (the slider's range) only, and a model whose values
lie outside those ranges (a dazzle phase of 1.5, as Universe at War has) comes back byte for
byte, also when its objects are rebuilt from Blender's data."""

import numpy as np
import pytest
from corpus import corpus_params

from io_alamo.formats.alamo import (Bone, Connections, Dazzle, Light, Material, Mesh, Model,
                                    ObjectConnection, ShaderParam, Skeleton, SubMesh, read_alo,
                                    save)
from io_alamo.formats.alamo.model import ParamType
from io_alamo.formats.alamo.sample import box_vertices

bpy = pytest.importorskip("bpy")

# the add-on's property groups that hold values read from files: (ID type, property)
FILE_DATA_GROUPS = (("Object", "alamo"), ("Bone", "alamo"), ("Action", "alamo"),
                    ("Material", "alamo"))


def test_no_property_that_holds_file_data_has_hard_limits(addon):
    checked = 0
    groups = [getattr(bpy.types, t).bl_rna.properties[p].fixed_type for t, p in FILE_DATA_GROUPS]
    params = groups[3].properties["params"].fixed_type           # the shader parameters
    for rna in groups[:3] + [params]:
        group = rna.identifier
        for prop in rna.properties:
            if prop.type not in ("FLOAT", "INT") or prop.identifier == "rna_type":
                continue
            checked += 1
            if prop.type == "FLOAT":
                assert prop.hard_min < -1e30 and prop.hard_max > 1e30, \
                    f"{group}.{prop.identifier} clamps to {prop.hard_min}..{prop.hard_max}"
            else:
                assert prop.hard_min <= -2 ** 31 and prop.hard_max >= 2 ** 31 - 1, \
                    f"{group}.{prop.identifier} clamps to {prop.hard_min}..{prop.hard_max}"
    assert checked >= 15


def odd_values_model():
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4")),
             Bone("Light_Bone", 0, np.eye(3, 4, dtype="<f4")),
             Bone("Dazzle_Bone", 0, np.eye(3, 4, dtype="<f4"))]
    v, t = box_vertices((0, 0, 0), (1, 1, 1))
    mat = Material("MeshAlpha.fx", [ShaderParam("Emissive", ParamType.FLOAT, np.float32(7.5))])
    mesh = Mesh("Box", [SubMesh(mat, "alD3dVertNU2", v, t)], v["position"].min(0),
                v["position"].max(0))
    light = Light("Lamp", 0, np.array([2.0, -0.25, 1.0], "<f4"), np.float32(-3.0),
                  np.float32(-1.0), np.float32(-2.0), np.float32(0.5), np.float32(0.75))
    dazzle = Dazzle("Blink", 2, color=np.array([1.5, -0.5, 3.0], "<f4"),
                    radius=np.float32(-2.0), tex_x=0, tex_y=0, tex_size=2, texture="d.tga",
                    frequency=np.float32(-0.5), phase=np.float32(1.5), bias=np.float32(1.25))
    conn = Connections([ObjectConnection(0, 0), ObjectConnection(1, 1)], [], [dazzle])
    return Model(Skeleton(bones), [mesh, light], conn)


def _rebuild_export(arm, path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    del arm["alamo_source"]
    for o in bpy.data.objects:
        o.pop("alamo_fingerprint", None)
    return export_alo(bpy.context, str(path), AloExportOptions())


def test_values_outside_the_ui_ranges_come_back_unclamped(blender, tmp_path):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    path = tmp_path / "Odd.alo"
    save(odd_values_model(), path)
    arm = import_alo(bpy.context, str(path), AloImportOptions()).armature
    dazzle = next(o for o in bpy.data.objects if o.alamo.role == "DAZZLE")
    assert dazzle.alamo.phase == pytest.approx(1.5) and dazzle.alamo.bias == pytest.approx(1.25)
    assert dazzle.alamo.radius == pytest.approx(-2.0)
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    export_alo(bpy.context, str(tmp_path / "same.alo"), AloExportOptions())
    assert (tmp_path / "same.alo").read_bytes() == path.read_bytes()
    _rebuild_export(arm, tmp_path / "out.alo")
    back = read_alo((tmp_path / "out.alo").read_bytes())
    d = back.connections.dazzles[0]
    assert (float(d.phase), float(d.bias), float(d.radius), float(d.frequency)) == \
        (1.5, 1.25, -2.0, -0.5)
    assert np.array_equal(d.color, [1.5, -0.5, 3.0])
    lamp = back.objects[1]
    assert (float(lamp.far_attenuation_end), float(lamp.far_attenuation_start)) == (-1.0, -2.0)
    assert np.array_equal(lamp.color, [2.0, -0.25, 1.0])


@pytest.mark.parametrize("path", corpus_params(".alo"))
def test_corpus_file_values_survive_a_rebuild(blender, tmp_path, path):
    """Dazzles, lights and shader values of real models written from Blender's data alone
    are the file's values."""
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    model = read_alo(path.read_bytes())
    if model.kind != "model":
        pytest.skip("particle effect")
    arm = import_alo(bpy.context, str(path), AloImportOptions(import_animations=False)).armature
    _rebuild_export(arm, tmp_path / "out.alo")
    back = read_alo((tmp_path / "out.alo").read_bytes())
    fields = ("color", "radius", "frequency", "phase", "bias", "tex_size", "tex_x", "tex_y")
    for a, b in zip(model.connections.dazzles, back.connections.dazzles):
        for f in fields:
            assert np.array_equal(np.asarray(getattr(a, f), float),
                                  np.asarray(getattr(b, f), float)), f
    lights = [o for o in model.objects if isinstance(o, Light)]
    lights_back = [o for o in back.objects if isinstance(o, Light)]
    for a, b in zip(lights, lights_back):
        assert float(a.far_attenuation_start) == float(b.far_attenuation_start)
        assert float(a.far_attenuation_end) == float(b.far_attenuation_end)
    assert len(lights) == len(lights_back)
