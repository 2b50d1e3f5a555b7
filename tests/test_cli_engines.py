"""Every command-line verb on one file of each engine (and on a PNG): each answers in one
line of the shape ``FILE: what is wrong (where)`` where it cannot do the verb; --version;
--json for info and validate (issue 24). The files are built from the specs here."""

import json

import alm1build
import alod_build
import pytest
import specbuild as sb
from p3d_build import build_odol, grid_lod

from io_alamo import __version__
from io_alamo.cli import main

PNG = b"\x89PNG\r\n\x1a\n" + bytes(40)


@pytest.fixture
def engines(tmp_path):
    files = {"model.alo": sb.fixture_alo_lights()[0], "anim.ala": sb.fixture_ala_v1_constant()[0],
             "wave.alm": alm1build.wave_grid(3).data, "grid.alm": alod_build.build_bytes(10),
             "tank.p3d": build_odol(47, [grid_lod(1.0, 4, 4)]), "picture.png": PNG}
    (tmp_path / "alod").mkdir()
    out = {}
    for name, data in files.items():
        path = tmp_path / ("alod" if name == "grid.alm" else "") / name
        path.write_bytes(data)
        out[name] = str(path)
    return out


WHAT = {"model.alo": "an Alamo model", "anim.ala": "an Alamo animation",
        "wave.alm": "an Alithia ALM1 model", "grid.alm": "an ALOD model (version 10)",
        "tank.p3d": "an Arma binarized model (ODOL v47)"}
NOT_ALAMO = "not an Alamo file (starts with 89 50 4e 47)"


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("name", list(WHAT) + ["picture.png"])
def test_info_and_validate_on_every_engine(engines, capsys, name):
    path = engines[name]
    status, out, err = run(capsys, "info", path)
    if name == "picture.png":
        assert (status, out, err) == (1, "info: 1 file, 1 not read\n", f"{path}: {NOT_ALAMO}\n")
    else:
        assert status == 0 and out.startswith(f"{path}:\n  ") and err == ""
    status, out, err = run(capsys, "validate", path)
    if name == "picture.png":
        assert (status, out.strip()) == (1, f"{path}: error: {NOT_ALAMO}\nvalidated 1 file: "
                                            "1 not read, 0 ok")
    else:
        assert status == 0 and out.splitlines() == [f"{path}: ok", "validated 1 file: 1 ok"]


@pytest.mark.parametrize("name", list(WHAT) + ["picture.png"])
def test_roundtrip_on_every_engine(engines, capsys, name):
    path = engines[name]
    status, out, err = run(capsys, "roundtrip", path)
    out, summary = out.strip().rsplit("\n", 1)
    outcome = {"picture.png": "not read", "tank.p3d": "not written"}.get(name, "identical")
    assert summary == f"roundtrip: 1 file: 1 {outcome}"
    if name == "picture.png":
        assert (status, out.strip()) == (1, f"{path}: {NOT_ALAMO}")
    elif name == "tank.p3d":
        assert (status, out.strip()) == (0, f"{path}: is {WHAT[name]}, which io_alamo reads "
                                            "but does not write: no round trip")
    else:
        assert (status, out.strip()) == (0, f"{path}: identical")


@pytest.mark.parametrize("name", list(WHAT) + ["picture.png"])
@pytest.mark.parametrize("verb", ["dump", "convert-ala"])
def test_alamo_only_verbs_say_so_in_one_line(engines, capsys, tmp_path, name, verb):
    path = engines[name]
    target = str(tmp_path / "out.ala")
    args = [verb, path] + ([target, "--format", "1"] if verb == "convert-ala" else [])
    status, out, err = run(capsys, *args)
    works = {"dump": ("model.alo", "anim.ala"), "convert-ala": ("anim.ala",)}[verb]
    if name in works:
        assert status == 0 and err == "" and out
        return
    assert status == 1 and out == ""
    if name == "picture.png":
        assert err == f"{path}: {NOT_ALAMO}\n"
    else:
        only = "Alamo .alo/.ala files" if verb == "dump" else "Alamo .ala files"
        assert err == f"{path}: is {WHAT[name]}; {verb} works on {only} only\n"
    assert "0x" not in err.replace("89 50 4e 47", "") and "Error" not in err


def test_dump_offsets_are_hex_like_the_errors(engines, capsys):
    status, out, _ = run(capsys, "dump", engines["model.alo"])
    assert status == 0 and "@ 0x" in out
    assert all(" @ 0x" in line for line in out.splitlines() if " size " in line)


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip().endswith(f" {__version__}")


def test_info_json_names_each_files_format(engines, capsys):
    status, out, err = run(capsys, "info", "--json", *engines.values())
    assert status == 1 and err == ""                      # the PNG is not read
    got = {r["file"]: r for r in json.loads(out)}
    for name, what in WHAT.items():
        r = got[engines[name]]
        assert r["what"] == what and r["lines"] and "error" not in r
    assert got[engines["picture.png"]]["error"] == f"{engines['picture.png']}: {NOT_ALAMO}"
    assert [got[engines[n]]["format"] for n in WHAT] == ["alo", "ala", "alm1", "alod", "p3d"]


def test_validate_json_and_summary(engines, capsys, tmp_path):
    bad = tmp_path / "bad.alm"
    bad.write_bytes(alm1build.wave_grid(2, trailing=b"xyz").data)
    status, out, _ = run(capsys, "validate", "--json", engines["wave.alm"], str(bad),
                         engines["picture.png"])
    assert status == 1
    got = {r["file"]: r for r in json.loads(out)}
    assert got[engines["wave.alm"]]["ok"] and got[engines["wave.alm"]]["problems"] == []
    problem = got[str(bad)]["problems"][0]
    assert not got[str(bad)]["ok"] and "3 bytes after the faces" in problem["message"]
    assert problem["severity"] == "error" and not problem["message"].startswith(str(bad))
    assert got[engines["picture.png"]]["problems"] == [
        {"severity": "error", "message": NOT_ALAMO, "where": ""}]
    status, out, _ = run(capsys, "validate", engines["wave.alm"], str(bad),
                         engines["picture.png"])
    assert out.splitlines()[-1] == ("validated 3 files: 1 not read, 1 with 1 problem (1 error), "
                                    "1 ok")


def test_a_damaged_file_of_another_engine_names_the_place(tmp_path, capsys):
    cut = tmp_path / "cut.alm"
    cut.write_bytes(alm1build.wave_grid(2).data[:900])
    status, out, _ = run(capsys, "validate", str(cut))
    line, summary = out.splitlines()
    assert summary == "validated 1 file: 1 with 1 problem (1 error), 0 ok"
    assert status == 1 and line.startswith(f"{cut}: ") and line.count("cut.alm") == 1
    assert "offset 0x" in line and "Error" not in line


def test_help_shows_defaults_and_examples(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and "info --json" in out and "--version" in out
    assert ".p3d" in out and ".alm" in out
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    assert "(default: False)" in capsys.readouterr().out
