"""Issue 44 point 3: ``validate --jobs`` gives what one core gives, in the files' order.

The files are cut into parts spread over worker processes; each worker keeps its own run cache
of models. An animation whose model fell in another part (another worker) must still be checked
against it, and the results must come back as one list in the order of the files asked for.
The parts are made small here so that a few dozen files make many of them.
"""

import shutil

import pytest
from corpus import CORPUS, corpus_files

from io_alamo import cli_validate
from io_alamo.formats.alamo import convert_animation, write_ala, write_alo
from io_alamo.formats.alamo.sample import sample_animation, sample_model


def _files(tmp_path):
    """Models each followed by animations that come in the next parts: sound ones, one with
    a bone its model lacks (an error naming the model), one with no model beside it; a file
    that is no model at all among them."""
    model = sample_model()
    anim = convert_animation(sample_animation(model), 2)
    broken = convert_animation(sample_animation(model), 2)
    broken.bones[0].index = 99
    for k in range(6):
        (tmp_path / f"Unit{k}.alo").write_bytes(write_alo(model))
        for j in range(4):
            (tmp_path / f"Unit{k}_Move_{j:02d}.ala").write_bytes(write_ala(anim))
        (tmp_path / f"Unit{k}_Zbroken.ala").write_bytes(write_ala(broken))
    (tmp_path / "Lonely_Idle.ala").write_bytes(write_ala(anim))
    (tmp_path / "Unit3_Junk.alo").write_bytes(b"\0" * 10)
    return sorted(str(p) for p in tmp_path.iterdir())


def _parts_of(paths):
    """{path: index of its part} as check_files cuts them."""
    return {p: k for k, part in enumerate(cli_validate.parts(paths, 2)) for p in part}


@pytest.mark.parametrize("chunk", [2, 5])
def test_jobs_give_one_cores_results_in_file_order(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(cli_validate, "CHUNK", chunk)
    paths = _files(tmp_path)
    where = _parts_of(paths)
    assert len(set(where.values())) > 4
    # the premise: animations checked against a model in another part
    assert sum(where[p] != where[str(tmp_path / (p.split("/")[-1].split("_")[0] + ".alo"))]
               for p in paths if p.endswith(".ala") and "Lonely" not in p) > 3
    one = cli_validate.check_files(paths, jobs=1, on_progress=lambda *a: None)
    seen = []
    many = cli_validate.check_files(paths, jobs=2, on_progress=lambda *a: seen.append(a))
    assert many == one
    assert [r["file"] for r in many] == paths
    assert seen[-1] == (len(paths), len(paths))
    # results that depend on the model being read: the bone it lacks, named with the model
    broken = [r for r in many if "Zbroken" in r["file"]]
    assert len(broken) == 6 and all(not r["ok"] for r in broken)
    assert all(any("checked against the model Unit" in p["message"] for p in r["problems"])
               for r in broken)
    assert any(r.get("unread") for r in many) and any(r["ok"] for r in many)


def test_jobs_on_the_corpus_twice(tmp_path, monkeypatch):
    files = [p for p in corpus_files(".alo", ".ala") if p.parent == CORPUS]
    if not files:
        pytest.skip(f"no corpus at {CORPUS}")
    for k in range(2):
        (tmp_path / f"copy{k}").mkdir()
        for p in files:
            shutil.copyfile(p, tmp_path / f"copy{k}" / p.name)
    paths = sorted(str(p) for p in tmp_path.rglob("*") if p.is_file())
    monkeypatch.setattr(cli_validate, "CHUNK", 7)
    one = cli_validate.check_files(paths, jobs=1, on_progress=lambda *a: None)
    assert cli_validate.check_files(paths, jobs=2, on_progress=lambda *a: None) == one
    assert [r["file"] for r in one] == paths
