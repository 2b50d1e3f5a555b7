"""The File > Import entries and the format registry (issue 24; issue 26 item 8): a file given
to the wrong entry is refused in one line that says what it is and which entry opens it (no
chunk jargon), the scene unchanged; Alithia and ALOD ``.alm`` files have an entry each, with
their own options."""

import alm1build as ab
import alod_build as alodb
import pytest
from p3d_build import build_odol, grid_lod
from scene import datablock_counts

bpy = pytest.importorskip("bpy")

from io_alamo.formats import registry  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def files(tmp_path):
    out = {"tank.p3d": build_odol(73, [grid_lod(1.0, 3, 3)]), "wave.alm": ab.wave_grid(2).data,
           "grid.alm": alodb.build_bytes(10), "picture.png": PNG}
    for name, data in out.items():
        (tmp_path / name).write_bytes(data)
    return {name: tmp_path / name for name in out}


def report_of(op, path):
    """The operator's error report (bpy.ops raises it as RuntimeError) and the scene after."""
    with pytest.raises(RuntimeError) as e:
        op(filepath=str(path))
    return str(e.value)


@pytest.mark.parametrize("name, what, entry", [
    ("tank.p3d", "is an Arma binarized model (ODOL v73), not an Alamo model",
     "File > Import > Arma Binarized Model (.p3d)"),
    ("wave.alm", "is an Alithia ALM1 model, not an Alamo model",
     "File > Import > Alithia Model (.alm)"),
    ("grid.alm", "is an ALOD model (version 10), not an Alamo model",
     "File > Import > ALOD Model (.alm)"),
    ("picture.png", "is a PNG image, not an Alamo model",
     "File > Import entries open Alamo .alo/.ala, Alithia .alm, ALOD .alm and Arma .p3d"),
])
def test_alamo_model_entry_says_what_the_file_is_and_where_it_goes(blender, tmp_path, name,
                                                                    what, entry):
    path = files(tmp_path)[name]
    before = datablock_counts()
    text = report_of(bpy.ops.import_scene.alo, path)
    assert f"{name}: {what}" in text and entry in text
    assert "chunk" not in text and "0x" not in text and "\n" not in text.strip().split(": ", 1)[1]
    assert datablock_counts() == before


def test_alithia_and_alod_entries_refuse_each_others_files(blender, tmp_path):
    f = files(tmp_path)
    before = datablock_counts()
    text = report_of(bpy.ops.import_scene.alm1, f["grid.alm"])
    assert "grid.alm: is an ALOD model (version 10), not an Alithia ALM1 model" in text
    assert "open it with File > Import > ALOD Model (.alm)" in text
    text = report_of(bpy.ops.import_scene.alod, f["wave.alm"])
    assert "wave.alm: is an Alithia ALM1 model, not an ALOD model" in text
    assert "open it with File > Import > Alithia Model (.alm)" in text
    assert datablock_counts() == before


def test_each_entry_opens_its_own_format(blender, tmp_path):
    f = files(tmp_path)
    assert bpy.ops.import_scene.alm1(filepath=str(f["wave.alm"])) == {"FINISHED"}
    assert bpy.ops.import_scene.alod(filepath=str(f["grid.alm"])) == {"FINISHED"}
    assert bpy.ops.import_scene.p3d(filepath=str(f["tank.p3d"])) == {"FINISHED"}


def test_alod_entry_has_its_levels_of_detail_options(blender, tmp_path):
    path = files(tmp_path)["grid.alm"]
    assert bpy.ops.import_scene.alod(filepath=str(path), levels_of_detail=False) == {"FINISHED"}
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    assert len(meshes) == 1 and "_LOD" not in meshes[0].name
    bpy.ops.wm.read_factory_settings(use_empty=True)
    assert bpy.ops.import_scene.alod(filepath=str(path), lod_count=1) == {"FINISHED"}
    one = len([o for o in bpy.data.objects if o.type == "MESH"])
    assert one == 2                               # full detail and one lower level
    props = bpy.ops.import_scene.alod.get_rna_type().properties
    assert {"levels_of_detail", "lod_count", "set_frame_rate"} <= set(props.keys())
    assert "levels_of_detail" not in bpy.ops.import_scene.alm1.get_rna_type().properties.keys()


def test_every_operator_the_registry_names_is_registered(blender):
    """Each File > Import / Export operator takes its name and file filter from its format's
    registry entry."""
    for fmt in registry.FORMATS:
        for name in (fmt.import_operator, fmt.export_operator):
            if name:
                group, op = name.split(".")
                assert op in dir(getattr(bpy.ops, group)), name
                rna = getattr(getattr(bpy.ops, group), op).get_rna_type()
                assert rna.properties["filter_glob"].default == "*" + fmt.extensions[0]
