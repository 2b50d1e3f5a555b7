"""``io-alamo meg create``: MEG v1 archives laid out as the games' own (names upper case and
sorted, records in CRC order, data in record order), refusing names the format cannot hold;
``meg list``/``extract`` give the files back byte for byte."""

import json
import zlib

import pytest
from corpus import CORPUS
from megbuild import build_meg

from io_alamo import cli
from io_alamo.formats.alamo.meg import MegArchive, MegFormatError
from io_alamo.formats.alamo.meg.write import archive_name, meg_index

REAL = CORPUS / "Cinematics.meg"
FILES = {"Art/Models/EI_Tank.alo": b"model" * 100, "Art/Textures/tank.dds": b"texture",
         "Scripts/empty.lua": b"", "Xml/units.xml": bytes(range(256)) * 3}


def make_folder(root, files=FILES):
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return root


def test_create_writes_the_games_layout_and_lists_back(tmp_path, capsys):
    data = make_folder(tmp_path / "Mod" / "Data")
    archive = tmp_path / "Mod.meg"
    assert cli.main(["meg", "create", str(archive), str(data)]) == 0
    assert "4 files" in capsys.readouterr().out
    meg = MegArchive(archive)
    assert meg.problems == []
    names = sorted("DATA\\" + rel.upper().replace("/", "\\") for rel in FILES)
    assert meg.names == names                                 # upper case, sorted
    assert [e.crc for e in meg] == sorted(zlib.crc32(n.encode()) for n in names)
    assert [e.index for e in meg] == list(range(4))
    starts = [e.start for e in meg]
    assert starts == sorted(starts) and starts[0] == meg.index_end   # data in record order
    # the test suite's own spec writer makes the same bytes from the same files
    assert archive.read_bytes() == build_meg({n: FILES[r] for n, r in zip(
        ["DATA\\" + r.upper().replace("/", "\\") for r in FILES], FILES)})
    assert cli.main(["meg", "list", "--json", str(archive)]) == 0
    assert len(json.loads(capsys.readouterr().out)["files"]) == 4


def test_extract_then_create_round_trips_byte_for_byte(tmp_path):
    make_folder(tmp_path / "src")
    first, second = tmp_path / "a.meg", tmp_path / "b.meg"
    assert cli.main(["meg", "create", str(first), str(tmp_path / "src")]) == 0
    assert cli.main(["meg", "extract", str(first), str(tmp_path / "out")]) == 0
    for rel, data in FILES.items():
        assert (tmp_path / "out" / rel.upper()).read_bytes() == data
    assert cli.main(["meg", "create", str(second), str(tmp_path / "out")]) == 0
    assert second.read_bytes() == first.read_bytes()


@pytest.mark.skipif(not REAL.is_file(), reason=f"no corpus archive at {REAL}: skipped")
def test_game_archive_extracted_and_created_again_is_identical(tmp_path):
    assert cli.main(["meg", "extract", str(REAL), str(tmp_path / "out")]) == 0
    again = tmp_path / "again.meg"
    assert cli.main(["meg", "create", str(again), str(tmp_path / "out")]) == 0
    assert again.read_bytes() == REAL.read_bytes()
    # given the Data folder itself, DATA\ stays in front of the names
    assert cli.main(["meg", "create", str(tmp_path / "d.meg"), str(tmp_path / "out" / "DATA")]) == 0
    assert (tmp_path / "d.meg").read_bytes() == REAL.read_bytes()


def test_patterns_choose_the_files(tmp_path):
    make_folder(tmp_path / "src")
    archive = tmp_path / "a.meg"
    assert cli.main(["meg", "create", str(archive), str(tmp_path / "src"), "*.ALO", "xml\\*"]) == 0
    assert MegArchive(archive).names == ["ART\\MODELS\\EI_TANK.ALO", "XML\\UNITS.XML"]


@pytest.mark.parametrize("name", ["Art/caf\u00e9.tga", "Art/\u4e2d.dds"])
def test_names_the_format_cannot_hold_are_refused(tmp_path, capsys, name):
    make_folder(tmp_path / "src", {name: b"x", "ok.txt": b"y"})
    archive = tmp_path / "a.meg"
    assert cli.main(["meg", "create", str(archive), str(tmp_path / "src")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{archive}: cannot store") and "ASCII" in err
    assert not archive.exists() and list(tmp_path.iterdir()) == [tmp_path / "src"]


def test_names_equal_once_upper_cased_are_refused(tmp_path):
    with pytest.raises(MegFormatError, match="both stored as A.TXT"):
        meg_index([("a.txt", 1), ("A.txt", 2)], "x.meg")
    with pytest.raises(MegFormatError, match="holds 65,535"):
        archive_name("A" * 70000)


def test_existing_archive_needs_overwrite_and_a_folder_is_never_replaced(tmp_path, capsys):
    make_folder(tmp_path / "src")
    archive = tmp_path / "a.meg"
    archive.write_bytes(b"hand made")
    assert cli.main(["meg", "create", str(archive), str(tmp_path / "src")]) == 1
    assert "exists (--overwrite replaces it)" in capsys.readouterr().err
    assert archive.read_bytes() == b"hand made"
    assert cli.main(["meg", "create", "--overwrite", str(archive), str(tmp_path / "src")]) == 0
    assert "replaced" in capsys.readouterr().out and len(MegArchive(archive)) == 4
    (tmp_path / "dir.meg").mkdir()
    assert cli.main(["meg", "create", "--overwrite", str(tmp_path / "dir.meg"),
                     str(tmp_path / "src")]) == 1
    assert "is a folder" in capsys.readouterr().err
    assert (tmp_path / "dir.meg").is_dir()
