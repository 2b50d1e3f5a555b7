"""Exporting .alo models: every corpus model, imported and exported unedited, comes back byte
for byte. (Rebuilt meshes: test_export_rebuild.py; export checks: test_export_checks.py; models
made from scratch: test_export_scratch.py.)"""

import pytest
from corpus import corpus_params
from scene import load_model

bpy = pytest.importorskip("bpy")


def do_import(path):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    return import_alo(bpy.context, str(path), AloImportOptions(import_animations=False))


def do_export(path, **kw):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    return export_alo(bpy.context, str(path), AloExportOptions(**kw))


@pytest.mark.parametrize("path", corpus_params(".alo"))
def test_unedited_import_exports_byte_identical(blender, tmp_path, path):
    if load_model(path).kind == "particle":
        pytest.skip("particle effect: not imported")
    do_import(path)
    out = tmp_path / "out.alo"
    do_export(out)
    assert out.read_bytes() == path.read_bytes()
