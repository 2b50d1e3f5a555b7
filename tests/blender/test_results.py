"""One result type for every import and export (issue 24): each is a ``Result`` with problems
as data (Problem records that name their objects), counts and ``summary()``; the older
``result.warnings`` still reads (and appends) the warnings' texts."""

import pytest

bpy = pytest.importorskip("bpy")

from io_alamo.blender.alamo.exporter.ala import AlaExportResult  # noqa: E402
from io_alamo.blender.alamo.exporter.alo import AloExportResult  # noqa: E402
from io_alamo.blender.alamo.importer.ala import AlaImportResult, import_ala
from io_alamo.blender.alamo.importer.alo import AloImportOptions, AloImportResult, import_alo
from io_alamo.blender.alithia.exporter import Alm1ExportResult  # noqa: E402
from io_alamo.blender.alithia.importer import Alm1ImportResult  # noqa: E402
from io_alamo.blender.alod.importer import AlodImportResult  # noqa: E402
from io_alamo.blender.arma.importer import P3dImportResult  # noqa: E402
from io_alamo.blender.problems import ERROR, WARNING, Problem  # noqa: E402
from io_alamo.blender.results import Result  # noqa: E402
from io_alamo.formats.alamo import read_ala, save  # noqa: E402
from io_alamo.formats.alamo.sample import write_sample  # noqa: E402

RESULTS = (AloImportResult, AloExportResult, AlaImportResult, AlaExportResult,
           Alm1ImportResult, Alm1ExportResult, AlodImportResult, P3dImportResult)


@pytest.mark.parametrize("cls", RESULTS, ids=[c.__name__ for c in RESULTS])
def test_every_result_is_one_type_with_problems_as_data(cls):
    assert issubclass(cls, Result)
    r = cls()
    assert r.problems == [] and r.warnings == [] and isinstance(r.counts, dict)
    r.warn("first", [type("Obj", (), {"name": "Cube"})()])
    r.warnings.append("second")                    # the older plain-string lists' way
    r.warnings += ["third"]
    assert r.warnings == ["first", "second", "third"]
    assert [p.level for p in r.problems] == [WARNING] * 3
    assert r.problems[0] == Problem(WARNING, "first", ["Cube"])


def test_problem_keeps_its_signature():
    p = Problem(ERROR, "bad", objects=["A"], elements_selected=True)
    assert (p.level, p.text, p.objects, p.elements_selected) == (ERROR, "bad", ["A"], True)
    assert Problem(WARNING, "w").objects == []


@pytest.mark.game_refuses   # an animated bone the model lacks, on purpose
def test_an_animation_import_warning_names_the_armature(blender, tmp_path):
    """The .ala import's warnings used to be plain strings; they now select their armature."""
    alo, ala = write_sample(tmp_path)
    arm = import_alo(bpy.context, str(alo), AloImportOptions(import_animations=False)).armature
    anim = read_ala(ala.read_bytes())
    anim.bones[-1].name = "NotInTheModel"              # one animated bone the armature lacks
    save(anim, ala, game_check=False)
    result = import_ala(bpy.context, arm, str(ala))
    assert isinstance(result, Result) and result.summary()
    missing = [p for p in result.problems if "not in the armature" in p.text]
    assert missing and missing[0].objects == [arm.name]
