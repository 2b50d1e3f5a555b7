"""Files, folders and wildcards for every verb that takes files (io_alamo.inputs), and the
summary lines of info, validate and roundtrip (issue 36, points 2 and 4)."""

import os
from pathlib import Path

import pytest

from io_alamo import cli
from io_alamo.inputs import expand
from io_alamo.formats.alamo.sample import write_sample


@pytest.fixture()
def mod(tmp_path):
    """A mod folder: the sample model and animation, and a copy one folder down in upper
    case, plus a file no verb reads."""
    write_sample(tmp_path / "Models")
    sub = tmp_path / "Models" / "Sub"
    sub.mkdir()
    (sub / "COPY.ALO").write_bytes((tmp_path / "Models" / "Sample_Tank.alo").read_bytes())
    (tmp_path / "Models" / "notes.txt").write_text("not a model")
    return tmp_path / "Models"


def names(found):
    return [f.path.name for f in found]


def test_folders_are_walked_recursively_for_the_types_asked(mod):
    found, empty = expand([mod], {".alo"})
    assert names(found) == ["Sample_Tank.alo", "COPY.ALO"] and empty == []
    assert [str(f.relative) for f in found] == ["Sample_Tank.alo", "Sub/COPY.ALO"]


def test_wildcards_are_expanded_in_any_case_and_each_file_counts_once(mod):
    found, _ = expand([str(mod / "*.ALO"), str(mod / "**" / "*.alo"), str(mod / "Sample*")],
                      {".alo", ".ala"})
    assert sorted(names(found)) == sorted(["Sample_Tank.alo", "COPY.ALO",
                                           "Sample_Tank_Turn_00.ala"])
    assert all(f.root is None for f in found)
    found, empty = expand([str(mod / "*.xyz")], {".alo"})
    assert found == [] and empty == [str(mod / "*.xyz")]


@pytest.mark.parametrize("verb", ["info", "validate", "roundtrip"])
def test_every_verb_takes_folders_and_wildcards_with_a_summary(mod, capsys, monkeypatch, verb):
    monkeypatch.chdir(mod)
    assert cli.main([verb, "."]) == 0
    out = capsys.readouterr().out
    assert "COPY.ALO" in out and "Sample_Tank_Turn_00.ala" in out and "notes.txt" not in out
    last = out.strip().splitlines()[-1]
    assert last in ("info: 3 files", "validated 3 files: 3 ok",
                    "roundtrip: 3 files: 3 identical"), last
    assert cli.main([verb, "*.alo"]) == 0            # as a Windows shell passes it on
    out = capsys.readouterr().out
    assert "Sample_Tank.alo" in out and "COPY.ALO" not in out


def test_validate_quiet_prints_only_problems_and_the_summary(mod, capsys):
    (mod / "bad.alo").write_bytes(b"\0\2\0\0\xff\0\0\0")
    assert cli.main(["validate", "-q", str(mod)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"{mod / 'bad.alo'}: ")
    assert lines[1] == "validated 4 files: 1 not read, 3 ok"


def test_a_folder_or_wildcard_without_files_is_named_and_fails(mod, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert cli.main(["validate", str(tmp_path / "empty"), str(mod / "*.p3d")]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'empty'}: no " in err and f"{mod / '*.p3d'}: no file matches" in err


def test_convert_ala_replaces_an_existing_file_only_with_overwrite(mod, capsys):
    src, out = mod / "Sample_Tank_Turn_00.ala", mod / "old.ala"
    out.write_bytes(b"hand edited")
    assert cli.main(["convert-ala", str(src), str(out), "--format", "1"]) == 1
    assert capsys.readouterr().err.strip() == (f"{out}: exists (--overwrite replaces it); "
                                               "nothing was written")
    assert out.read_bytes() == b"hand edited"
    assert cli.main(["convert-ala", str(src), str(out), "--format", "1", "--overwrite"]) == 0
    assert "(replaced the existing file)" in capsys.readouterr().out
    assert out.read_bytes() != b"hand edited"
    (mod / "dir.ala").mkdir()
    assert cli.main(["convert-ala", str(src), str(mod / "dir.ala"), "--format", "1",
                     "--overwrite"]) == 1
    assert "is never replaced" in capsys.readouterr().err and (mod / "dir.ala").is_dir()
    assert Path(src).is_file()


def _reference(items, suffixes):
    """What ``expand`` gives for folders, by the plain means: ``rglob``, and every file's real
    path asked for one by one."""
    found, seen = [], set()
    for item in items:
        files = sorted((p for p in Path(item).rglob("*") if p.is_file()
                        and p.suffix.lower() in suffixes),
                       key=lambda p: [part.lower() for part in p.relative_to(item).parts])
        for f in files:
            key = os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                found.append((str(f), str(item)))
    return found


@pytest.mark.skipif(os.name == "nt", reason="symlinks need rights on Windows")
def test_the_folder_walk_finds_and_dedupes_as_rglob_and_realpath_do(mod, tmp_path):
    """Files linked to, folders linked to (not entered), a folder given twice under another
    name, links to files in another folder given too, a broken link, mixed case."""
    other = tmp_path / "Other"
    (other / "Deep").mkdir(parents=True)
    (other / "Deep" / "b.ALO").write_bytes(b"x")
    (other / "a.alo").write_bytes(b"x")
    (mod / "link_to_a.alo").symlink_to(other / "a.alo")
    (mod / "broken.alo").symlink_to(tmp_path / "nowhere.alo")
    (mod / "LinkedDir").symlink_to(other / "Deep", target_is_directory=True)
    (mod / "Sub" / "z_second.alo").write_bytes(b"x")
    (mod / "Sub" / "A_first.ALO").write_bytes(b"x")
    (tmp_path / "again").symlink_to(mod, target_is_directory=True)
    items = [mod, other, tmp_path / "again"]
    found, empty = expand(items, {".alo", ".ala"})
    assert [(str(f.path), str(f.root)) for f in found] == _reference(items, {".alo", ".ala"})
    assert empty == []
    assert "b.ALO" in names(found) and "link_to_a.alo" in names(found)
    assert "a.alo" not in names(found)      # the same file as link_to_a.alo, found first
    assert not any("LinkedDir" in str(f.path) for f in found)
