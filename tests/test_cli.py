"""The command line: python -m io_alamo <verb>."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import specbuild as sb

from io_alamo.cli import chunk_path_at, first_difference, main
from io_alamo.formats import decode_animation, read_ala

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def files(tmp_path):
    out = {}
    for name in ("fixture_alo_dazzles_nested", "fixture_alo_lights", "fixture_ala_v2_scale",
                 "fixture_ala_v1_scale_step", "fixture_alo_collision"):
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
    assert main(["convert-ala", str(one), str(two), "--format", "2"]) == 0
    a, b, c = (read_ala(p.read_bytes()) for p in (src, one, two))
    assert (b.format, c.format) == (1, 2)
    for x in (b, c):
        for name in ("translation", "rotation", "scale", "visible"):
            assert np.array_equal(getattr(decode_animation(a), name),
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
