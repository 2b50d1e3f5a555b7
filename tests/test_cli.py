"""The command line: python -m io_alamo <verb>."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import specbuild as sb

from io_alamo.cli import first_difference, main
from io_alamo.formats.alamo.compare import chunk_path_at
from io_alamo.formats.alamo import decode_animation, read_ala

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def files(tmp_path):
    out = {}
    for name in ("fixture_alo_dazzles_nested", "fixture_alo_lights", "fixture_ala_v2_scale",
                 "fixture_ala_v1_scale_step", "fixture_alo_collision", "fixture_ala_v1_constant"):
        data, _ = getattr(sb, name)()
        p = tmp_path / (name + (".ala" if "ala_" in name else ".alo"))
        p.write_bytes(data)
        out[name] = p
    return out


def test_info_summarises_models_and_animations(files, capsys):
    assert main(["info", str(files["fixture_alo_dazzles_nested"]),
                 str(files["fixture_ala_v1_scale_step"])]) == 0
    out = capsys.readouterr().out
    assert "dazzle 'Dazzle01' on bone 1" in out and "alDefault.fx / alD3dVertNU2" in out
    assert "format #1 (EaW), 10 frames" in out and "translation, rotation, scale" in out


def test_dump_json_has_offsets_and_decoded_minis(files, capsys):
    assert main(["dump", "--json", str(files["fixture_alo_dazzles_nested"])]) == 0
    tree = json.loads(capsys.readouterr().out)
    conn = next(n for n in tree if n["type"] == "0x600")
    dazzle = next(n for n in conn["children"] if n["type"] == "0x604")
    minis = {m["field"]: m["value"] for m in dazzle["children"][0]["minis"]}
    assert minis["name"] == "Dazzle01" and minis["tex_size"] == 4
    assert conn["offset"] > 0 and conn["size"] > 0


def test_roundtrip_reports_identical_and_exit_zero(files, capsys):
    assert main(["roundtrip", *map(str, files.values())]) == 0
    out = capsys.readouterr().out
    assert out.count(": identical") == len(files)


def test_first_difference_and_chunk_path():
    data, _ = sb.fixture_alo_lights()
    changed = bytearray(data)
    at = data.index(b"Lamp") if b"Lamp" in data else len(data) - 3
    changed[at] ^= 0xFF
    assert first_difference(data, bytes(changed)) == at
    assert first_difference(data, data) is None
    assert first_difference(data, data[:-5]) == len(data) - 5
    path = chunk_path_at(data, at)
    assert path.count("/") >= 1 and path.startswith("0x")


def test_validate_prints_one_line_per_problem(tmp_path, files, capsys):
    assert main(["validate", str(files["fixture_alo_collision"])]) == 0
    bad = dict(sb.malformed_cases())["bone_parent_not_lower"]
    p = tmp_path / "bad.alo"
    p.write_bytes(bad)
    assert main(["validate", "-q", str(p)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert any("parent 3" in l and l.startswith(str(p)) for l in lines)


def test_convert_ala_both_ways_keeps_motion(tmp_path, files):
    src = files["fixture_ala_v2_scale"]
    one, two = tmp_path / "one.ala", tmp_path / "two.ala"
    assert main(["convert-ala", str(src), str(one), "--format", "1"]) == 0
    # per-frame scale: the game's format #2 loader reads none (0x100b), so it is refused
    assert main(["convert-ala", str(one), str(two), "--format", "2"]) == 1
    assert not two.exists()
    constant = files["fixture_ala_v1_constant"]
    assert main(["convert-ala", str(constant), str(two), "--format", "2"]) == 0
    a, b, c = (read_ala(p.read_bytes()) for p in (src, one, two))
    assert (b.format, c.format) == (1, 2)
    for x, y in ((b, a), (c, read_ala(constant.read_bytes()))):
        for name in ("translation", "rotation", "scale", "visible"):
            assert np.array_equal(getattr(decode_animation(y), name),
                                  getattr(decode_animation(x), name))
    assert all(bone.step is None for bone in c.bones)        # no 0x1008 in format #2


def test_bad_file_gives_one_line_and_nonzero_exit(tmp_path):
    p = tmp_path / "broken.alo"
    data, _ = sb.fixture_alo_lights()
    p.write_bytes(data[:len(data) // 2])
    r = subprocess.run([sys.executable, "-m", "io_alamo", "info", str(p)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "broken.alo" in err[0] and "offset 0x" in err[0]
    assert "Traceback" not in r.stderr


def test_missing_file_is_a_clean_error(tmp_path, capsys):
    assert main(["info", str(tmp_path / "nope.alo")]) == 1
    assert "cannot read" in capsys.readouterr().err


# --- messages: what is not an Alamo file, names once per line, strings in dump -------------

NOT_ALAMO = {
    "x.png": (b"\x89PNG\r\n\x1a\n" + bytes(40), "starts with 89 50 4e 47"),
    "notes.txt": (b"hello, modders\n", "starts with 68 65 6c 6c"),
    "scene.blend": (b"BLENDER-v405RENDH" + bytes(40), None),
    "empty.alo": (b"", "it is empty"),
}


@pytest.fixture
def not_alamo(tmp_path):
    out = {}
    for name, (data, why) in NOT_ALAMO.items():
        (tmp_path / name).write_bytes(data)
        out[str(tmp_path / name)] = f"not an Alamo file ({why})" if why else BLEND
    return out


BLEND = ("is a Blender file (.blend); io_alamo reads the games' files: open it in Blender, or "
         "write its units as .alo with io-alamo batch export")


@pytest.mark.parametrize("verb", ["info", "validate", "roundtrip"])
def test_a_file_that_is_not_alamo_gets_one_line_saying_so(verb, not_alamo, capsys):
    assert main([verb, *not_alamo]) == 1
    captured = capsys.readouterr()
    lines = (captured.err + captured.out).strip().splitlines()
    summary = {"info": "info: 4 files, 4 not read", "validate": "validated 4 files: 4 not read, 0 ok",
               "roundtrip": "roundtrip: 4 files: 4 not read"}[verb]
    assert lines[-1] == summary
    severity = "error: " if verb == "validate" else ""        # validate's lines say how bad
    assert sorted(lines[:-1]) == sorted(f"{path}: {severity}{why}"
                                        for path, why in not_alamo.items())


@pytest.mark.parametrize("verb", [["dump"], ["dump", "--json"], ["convert-ala"]])
def test_single_file_verbs_say_not_an_alamo_file(verb, not_alamo, tmp_path, capsys):
    for path, why in not_alamo.items():
        extra = [str(tmp_path / "out.ala"), "--format", "1"] if verb == ["convert-ala"] else []
        assert main([verb[0], path, *verb[1:], *extra]) == 1
        captured = capsys.readouterr()
        assert captured.err == f"{path}: {why}\n" and captured.out == ""
        assert not (tmp_path / "out.ala").exists()


def test_a_damaged_alamo_file_still_gets_the_chunk_error(tmp_path, capsys):
    data, _ = sb.fixture_alo_lights()
    p = tmp_path / "broken.alo"
    p.write_bytes(data[:len(data) // 2])
    for verb in ("info", "validate", "roundtrip"):
        assert main([verb, str(p)]) == 1
        captured = capsys.readouterr()
        line, summary = (captured.err + captured.out).strip().splitlines()
        assert "1 not read" in summary
        assert "not an Alamo file" not in line and "offset 0x" in line and "chunk 0x" in line
        assert line.count("broken.alo") == 1, line          # the name once, at the start
        assert line.startswith(f"{p}: ")


def test_another_engines_format_is_not_called_not_alamo(tmp_path, capsys, monkeypatch):
    from io_alamo.formats import registry
    png = registry.Format("png", "Test", "a test PNG", (".png",),
                          lambda head: head.startswith(b"\x89PNG"), lambda data, path: None,
                          lambda data, path: ["a test image"], lambda data, path: [])
    monkeypatch.setattr(registry, "FORMATS", (png,))
    p = tmp_path / "x.png"
    p.write_bytes(NOT_ALAMO["x.png"][0])
    assert main(["info", str(p)]) == 0 and main(["validate", str(p)]) == 0
    out = capsys.readouterr().out
    assert "a test image" in out and f"{p}: ok" in out and "not an Alamo" not in out


def test_dump_shows_names_inside_data_chunks_as_text(files, capsys):
    assert main(["dump", str(files["fixture_alo_lights"])]) == 0
    out = capsys.readouterr().out
    assert "'Root'" in out                                  # bone name 0x203
    assert "alDefault.fx" in out or ".fx'" in out           # shader name 0x10101
    assert "526f6f7400" not in out                          # not as hex any more
    assert main(["dump", "--json", str(files["fixture_alo_lights"])]) == 0
    tree = json.loads(capsys.readouterr().out)

    def walk(nodes):
        for n in nodes:
            yield n
            yield from walk(n.get("children", []))
    texts = {}
    for n in walk(tree):
        if "text" in n:
            texts.setdefault(n["name"], []).append(n["text"])
    assert texts["bone name"][0] == "Root"
    assert texts["mesh name"] and texts["shader name"][0].lower().endswith(".fx")
    assert texts["light name"]
    assert all("head" not in n for n in walk(tree) if "text" in n)   # clean strings


def test_dump_keeps_bytes_after_a_string_visible(tmp_path, capsys):
    data, _ = sb.fixture_alo_lights()
    at = data.index(b"Root\x00")
    p = tmp_path / "odd.alo"
    p.write_bytes(data[:at] + b"Roo\x00" + b"\x07" + data[at + 5:])   # same size, junk after
    assert main(["dump", str(p)]) == 0
    out = capsys.readouterr().out
    assert "'Roo'  (bytes: 526f6f0007)" in out


def test_program_name_follows_how_it_was_called(monkeypatch):
    from io_alamo.cli import program_name
    monkeypatch.setattr(sys, "argv", ["/venv/bin/io-alamo", "info"])
    assert program_name() == "io-alamo"
    monkeypatch.setattr(sys, "argv", ["/x/io_alamo/__main__.py", "info"])
    assert program_name() == "python -m io_alamo"


@pytest.mark.skipif(importlib.util.find_spec("bpy") is not None,
                    reason="checks the message for a Python without bpy (the numpy 2 run)")
def test_batch_without_bpy_says_what_it_needs(tmp_path, capsys):
    assert main(["batch", "import", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "needs Blender's Python module bpy" in err and "pip install bpy==4.5.*" in err
    assert "blender -b -c alamo import ..." in err
    assert not (tmp_path / "o").exists()
