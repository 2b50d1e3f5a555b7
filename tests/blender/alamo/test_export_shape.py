"""The export's shape (issue #18): the source model is parsed once per export, however many
actions go with it; problems are records (the faulty vertices' flag is a field, not words in
the text); both results summarise themselves."""

import pytest

from io_alamo.blender.alamo.exporter import ala as ala_export
from io_alamo.blender.alamo.exporter import alo as alo_export
from io_alamo.blender.alamo.exporter.alo import ExportError, AloExportOptions, export_alo
from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")


def import_sample(tmp_path):
    paths = write_sample(tmp_path / "in")
    model = next(p for p in paths if str(p).endswith(".alo"))
    return import_alo(bpy.context, str(model), AloImportOptions())


def counting(monkeypatch, module, calls):
    real = module.parse_source

    def parse(arm):
        calls.append(module.__name__)
        return real(arm)
    monkeypatch.setattr(module, "parse_source", parse)


def test_the_source_model_is_parsed_once_for_the_model_and_all_its_actions(
        blender, tmp_path, monkeypatch):
    result = import_sample(tmp_path)
    arm = result.armature
    [first] = ala_export.armature_actions(arm)
    second = first.copy()                 # a second action of the armature
    second.name = "Second"
    calls = []
    counting(monkeypatch, alo_export, calls)
    counting(monkeypatch, ala_export, calls)
    out = export_alo(bpy.context, str(tmp_path / "Model.alo"),
                     AloExportOptions(animations=True))
    assert len(out.animations) == 2
    assert calls == [alo_export.__name__]            # once, by the model export
    # a lone animation export parses it itself, once
    calls.clear()
    ala_export.export_ala(bpy.context, arm, second, str(tmp_path / "one.ala"))
    assert calls == [ala_export.__name__]
    assert out.summary().endswith(", 2 animations") and f"{out.counts['bones']} bones" in \
        out.summary()
    assert result.summary() and result.warnings == [p.text for p in result.problems]


def test_unweighted_vertices_are_an_error_record_that_says_they_were_selected(
        blender, tmp_path):
    result = import_sample(tmp_path)
    mesh = next(o for o in result.objects if o.type == "MESH" and len(o.vertex_groups))
    for g in list(mesh.vertex_groups):
        g.remove(list(range(len(mesh.data.vertices))))
    with pytest.raises(ExportError) as e:
        export_alo(bpy.context, str(tmp_path / "out.alo"), AloExportOptions())
    [error] = [p for p in e.value.details if p.level == "ERROR"]
    assert error.elements_selected and error.objects == [mesh.name]
    assert e.value.problems == [error.text] and e.value.objects == [mesh]
    assert not any(p.elements_selected for p in e.value.details if p.level != "ERROR")
