"""MEG v1 archives: the real one of the corpus, archives built here, hostile and broken ones,
the command line's ``meg list``/``meg extract`` and ``ARCHIVE:NAME`` members."""

import json
import os
import struct
import zlib

import pytest
from corpus import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from megbuild import build_meg, write_meg

from io_alamo import cli
from io_alamo.formats.alamo.game_data import ArchiveSet, data_archives
from io_alamo.formats.alamo.meg import MegArchive, MegFormatError, looks_like_meg
from io_alamo.formats.registry import identify
from io_alamo.formats.alamo.meg.cli import UnsafeNameError, extract

REAL = CORPUS / "Cinematics.meg"
needs_real = pytest.mark.skipif(not REAL.is_file(),
                                reason=f"no shared corpus at {CORPUS}: real-archive tests skipped")
FILES = {"Data\\Art\\Models\\A.ALO": b"model a" * 10, "Data\\Art\\Textures\\B.DDS": b"tex",
         "Data\\Scripts\\C.LUA": b"", "DATA\\D.TXT": bytes(range(256))}


# --- the real archive ----------------------------------------------------------------------

@needs_real
def test_real_archive_lists_with_crcs_of_upper_case_names():
    meg = MegArchive(REAL)
    assert len(meg) == 10 and meg.problems == []
    assert all(e.name.startswith("DATA\\ART\\CINEMATICS\\") and e.name.endswith(".TEC")
               for e in meg)
    assert all(e.crc == zlib.crc32(e.name.encode()) for e in meg)
    assert [e.crc for e in meg] == sorted(e.crc for e in meg)
    assert meg.names == sorted(meg.names)


@needs_real
def test_real_archive_extracts_byte_for_byte(tmp_path):
    raw = REAL.read_bytes()
    written = extract(REAL, tmp_path / "out")
    assert len(written) == 10
    meg = MegArchive(REAL)
    for e in meg:
        path = tmp_path / "out" / e.name.replace("\\", "/")
        assert path.read_bytes() == raw[e.start:e.start + e.size]
    # the test writer, given the extracted files, rebuilds the very same archive
    files = {e.name: (tmp_path / "out" / e.name.replace("\\", "/")).read_bytes() for e in meg}
    assert build_meg(files) == raw


@needs_real
def test_real_archive_on_the_command_line(tmp_path, capsys):
    assert cli.main(["meg", "list", "--json", str(REAL)]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert len(listing["files"]) == 10 and listing["problems"] == []
    member = f"{REAL}:data/art/cinematics/cam_atat_glory01.tec"
    assert cli.main(["validate", member]) == 1          # a camera file, not an Alamo file
    assert "not an Alamo file" in capsys.readouterr().out
    assert cli.main(["info", str(REAL)]) == 0
    assert "MEG v1 archive: 10 files" in capsys.readouterr().out


# --- built archives ------------------------------------------------------------------------

def test_built_archive_reads_each_member(tmp_path):
    path = write_meg(tmp_path / "x.meg", FILES)
    meg = MegArchive(path)
    assert meg.problems == []
    for name, data in FILES.items():
        assert meg.read(name.lower().replace("\\", "/")) == data
    with meg:
        assert meg.read("DATA\\D.TXT") == FILES["DATA\\D.TXT"]
    assert MegArchive(path.read_bytes()).read("data/d.txt") == FILES["DATA\\D.TXT"]


def test_member_of_an_archive_on_the_command_line(tmp_path, capsys):
    import specbuild
    alo, _ = specbuild.fixture_alo_lights()
    path = write_meg(tmp_path / "Models.meg", {"DATA\\ART\\MODELS\\M.ALO": alo})
    assert cli.main(["info", f"{path}:DATA\\ART\\MODELS\\M.ALO"]) == 0
    assert "model:" in capsys.readouterr().out
    assert cli.main(["dump", f"{path}:data/art/models/m.alo"]) == 0
    assert "0x200" in capsys.readouterr().out
    assert cli.main(["validate", f"{path}:DATA\\ART\\MODELS\\M.ALO"]) == 0


def test_extract_patterns_keep_folders_and_never_overwrite_unasked(tmp_path):
    path = write_meg(tmp_path / "x.meg", FILES)
    out = tmp_path / "out"
    assert cli.main(["meg", "extract", str(path), str(out), "*.alo", "data\\d.txt"]) == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == \
        ["DATA/ART/MODELS/A.ALO", "DATA/D.TXT"]
    (out / "DATA" / "D.TXT").write_bytes(b"mine")
    assert cli.main(["meg", "extract", str(path), str(out)]) == 1
    assert (out / "DATA" / "D.TXT").read_bytes() == b"mine"
    assert not (out / "DATA" / "SCRIPTS").exists()          # refused before writing anything
    assert cli.main(["meg", "extract", str(path), str(out), "--overwrite"]) == 0
    assert (out / "DATA" / "D.TXT").read_bytes() == FILES["DATA\\D.TXT"]
    assert not [p for p in out.rglob(".io_alamo-*")]
    (out / "DATA" / "SCRIPTS" / "C.LUA").unlink()
    (out / "DATA" / "SCRIPTS" / "C.LUA").mkdir()           # a folder is never replaced
    assert cli.main(["meg", "extract", "--overwrite", str(path), str(out), "*.lua"]) == 1
    other = tmp_path / "other"
    other.mkdir()
    (other / "DATA").write_bytes(b"a file where a folder should be")
    with pytest.raises(FileExistsError, match="a file is in the way"):
        extract(path, other, overwrite=True)
    assert [p.name for p in other.iterdir()] == ["DATA"]


@pytest.mark.parametrize("name", ["..\\..\\x.txt", "DATA\\..\\..\\x.txt", "\\x.txt",
                                  "C:\\x.txt", "/tmp/x.txt", "DATA\\a:b.txt", "DATA\\..",
                                  "DATA\\NUL.txt"])
def test_hostile_names_are_refused_and_nothing_is_written(tmp_path, capsys, name):
    path = write_meg(tmp_path / "bad.meg", {"DATA\\OK.TXT": b"ok", name: b"evil"},
                     upper=False)
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(UnsafeNameError) as e:
        extract(path, out)
    assert name in str(e.value) and "bad.meg" in str(e.value)
    assert cli.main(["meg", "extract", str(path), str(out)]) == 1
    assert f"member '{name}'" in capsys.readouterr().err
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "bad.meg"]
    assert written == []


def test_a_link_inside_the_output_folder_does_not_lead_outside(tmp_path):
    path = write_meg(tmp_path / "x.meg", {"LINK\\X.TXT": b"evil"})
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", out / "LINK")
    with pytest.raises(UnsafeNameError):
        extract(path, out)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_duplicates_wrong_crcs_and_order_are_reported(tmp_path, capsys):
    data = build_meg([("DATA\\A.TXT", b"1"), ("DATA\\A.TXT", b"2"), ("DATA\\B.TXT", b"3")],
                     crc={"DATA\\B.TXT": 1234})
    meg = MegArchive(data, "dup.meg")
    text = "\n".join(meg.problems)
    assert "duplicate name 'DATA\\A.TXT'" in text
    assert "CRC 0x000004d2 does not match" in text
    first = next(e for e in meg.entries if e.name == "DATA\\A.TXT")
    assert meg.read("data/a.txt") == data[first.start:first.start + first.size]
    path = tmp_path / "dup.meg"
    path.write_bytes(data)
    assert cli.main(["meg", "list", str(path)]) == 1
    assert "duplicate name" in capsys.readouterr().err
    assert cli.main(["validate", str(path)]) == 1


def test_later_layouts_are_refused_by_name(tmp_path):
    plain = struct.pack("<6I", 0xFFFFFFFF, 0x3F7D70A4, 24, 0, 0, 0)
    encrypted = struct.pack("<6I", 0x8FFFFFFF, 0x3F7D70A4, 24, 0, 0, 0)
    with pytest.raises(MegFormatError, match=r"MEG v2/v3 archive \(a header with flags"):
        MegArchive(plain, "new.meg")
    with pytest.raises(MegFormatError, match="encrypted MEG v3"):
        MegArchive(encrypted, "secret.meg")
    assert looks_like_meg(encrypted) and identify(encrypted).name == "a Petroglyph MEG archive"


def test_every_truncation_is_one_clear_error():
    data = build_meg(FILES)
    for cut in range(len(data)):
        try:
            meg = MegArchive(data[:cut], "cut.meg")
        except MegFormatError as e:
            assert str(e).startswith("cut.meg: ") and "(offset 0x" in str(e) and " in " in str(e), str(e)
            continue
        # only cuts inside the last member's data... which is checked: none may pass
        raise AssertionError(f"cut at {cut} read as {len(meg)} files")


def test_counts_are_checked_before_anything_is_allocated():
    with pytest.raises(MegFormatError, match="not a MEG archive|names cannot fit"):
        MegArchive(struct.pack("<II", 0xFFFFFFF0, 1) + b"\0" * 40, "huge.meg")
    with pytest.raises(MegFormatError, match="names cannot fit"):
        MegArchive(struct.pack("<II", 1000, 1) + b"\1\0A" + b"\0" * 40, "huge.meg")
    with pytest.raises(MegFormatError, match="not a MEG archive|records cannot fit"):
        MegArchive(struct.pack("<II", 1, 0x7FFFFFFF) + b"\1\0A" + b"\0" * 40, "huge.meg")


def test_sizes_and_offsets_are_checked_against_the_file():
    data = bytearray(build_meg({"A": b"abc"}))
    records = 8 + 3
    struct.pack_into("<I", data, records + 8, 1 << 31)          # size
    with pytest.raises(MegFormatError, match=r"truncated.*\(offset 0x13, in record #0\)"):
        MegArchive(bytes(data), "x.meg")
    data = bytearray(build_meg({"A": b"abc"}))
    struct.pack_into("<I", data, records + 12, 2)               # start inside the index
    with pytest.raises(MegFormatError, match="inside the index"):
        MegArchive(bytes(data), "x.meg")
    data = bytearray(build_meg({"A": b"abc"}))
    struct.pack_into("<I", data, records + 16, 5)               # name index
    with pytest.raises(MegFormatError, match="name index 5"):
        MegArchive(bytes(data), "x.meg")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzzed_archives_read_or_give_one_error(data):
    base = bytearray(build_meg(FILES))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(base) - 1))
        base[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(base)))
    blob = bytes(base[:cut])
    try:
        meg = MegArchive(blob, "fuzz.meg")
    except MegFormatError as e:
        assert str(e).startswith("fuzz.meg")
        return
    for e in meg:
        assert e.start + e.size <= len(blob)
        assert len(meg.read(e)) == e.size


# --- Data folders -------------------------------------------------------------------------

def test_megafiles_xml_order_the_last_mounted_archive_wins(tmp_path):
    data = tmp_path / "Game" / "Data"
    write_meg(data / "Zeta.meg", {"DATA\\X.TXT": b"zeta", "DATA\\Z.TXT": b"z"})
    write_meg(data / "Alpha.meg", {"DATA\\X.TXT": b"alpha"})
    write_meg(data / "Unlisted.meg", {"DATA\\U.TXT": b"u"})
    (data / "MegaFiles.xml").write_text(
        '<?xml version="1.0" ?>\n<Mega_Files>\n\t<File>Data\\zeta.MEG</File>\n'
        '\t<File> Data\\Missing.meg </File>\n\t<File>Data\\Alpha.meg</File>\n</Mega_Files>\n')
    paths = data_archives(str(data))
    # the game mounts them in the listed order and a later archive overrides an earlier one
    assert [os.path.basename(p) for p in paths] == ["Alpha.meg", "Zeta.meg"]
    found = ArchiveSet(paths).find("data/x.txt")
    assert found[1].read(found[2]) == b"alpha"
    write_meg(data / "patch2.MEG", {"DATA\\X.TXT": b"patched"})   # mounted after the list
    found = ArchiveSet(data_archives(str(data))).find("data/x.txt")
    assert found[1].read(found[2]) == b"patched"
    (data / "patch2.MEG").unlink()
    (data / "MegaFiles.xml").unlink()                       # no list: every .meg, last name first
    assert [os.path.basename(p) for p in data_archives(str(data))] == \
        ["Zeta.meg", "Unlisted.meg", "Alpha.meg"]
    found = ArchiveSet(data_archives(str(data))).find("DATA\\X.TXT")
    assert found[1].read(found[2]) == b"zeta"


def test_a_broken_archive_in_a_set_is_skipped_with_its_error(tmp_path):
    bad = tmp_path / "Bad.meg"
    bad.write_bytes(b"\1\0\0\0")
    good = write_meg(tmp_path / "Good.meg", {"DATA\\X.TXT": b"x"})
    s = ArchiveSet([bad, good])
    assert s.find("DATA\\X.TXT")[0] == str(good)
    assert len(s.errors) == 1 and "Bad.meg" in str(s.errors[0])


def test_megafiles_xml_variants(tmp_path):
    data = tmp_path / "Mods" / "MyMod" / "Data"
    write_meg(data / "Textures.meg", {"DATA\\A.TXT": b"a"})
    write_meg(data / "Models.meg", {"DATA\\B.TXT": b"b"})
    xml = data / "megafiles.XML"
    # a mod's list naming its archives from the game's folder, as UTF-16 with a BOM
    xml.write_text("<Mega_Files><File>Mods\\MyMod\\Data\\Textures.meg</File>"
                   "<file>MODS/MYMOD/DATA/MODELS.MEG</file></Mega_Files>", encoding="utf-16")
    assert [os.path.basename(p) for p in data_archives(str(data))] == ["Models.meg",
                                                                       "Textures.meg"]
    xml.write_text("<Mega_Files><File>Data\\Gone.meg</File></Mega_Files>")
    assert [os.path.basename(p) for p in data_archives(str(data))] == ["Textures.meg",
                                                                       "Models.meg"]
    write_meg(tmp_path / "Mods" / "Outside.meg", {"DATA\\C.TXT": b"c"})
    xml.write_text("<Mega_Files><File>..\\..\\Outside.meg</File><File>/Outside.meg</File>"
                   "<File>Data\\Models.meg</File></Mega_Files>")
    assert [os.path.basename(p) for p in data_archives(str(data))] == ["Models.meg"]


@pytest.mark.parametrize("head", [b"\x89PNG\r\n\x1a\n" + b"\0" * 80,
                                  struct.pack("<II", 0x200, 5000) + bytes(range(200))])
def test_a_file_that_is_no_archive_says_so(tmp_path, capsys, head):
    path = tmp_path / "x.png"
    path.write_bytes(head)
    assert cli.main(["meg", "list", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{path}: not a MEG archive (starts with ")
    assert "cannot fit" not in err and "\\\\" not in err


def test_missing_member_message_has_single_backslashes(tmp_path, capsys):
    archive = write_meg(tmp_path / "a.meg", {"DATA\\A.TXT": b"a"})
    assert cli.main(["info", f"{archive}:DATA\\ART\\NONE.ALO"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{archive}: no member 'DATA\\ART\\NONE.ALO'"), err
