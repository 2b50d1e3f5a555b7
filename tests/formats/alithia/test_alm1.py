"""Alithia ALM1: reading and writing files built from the spec; bad input fails fast and
clearly; the command line's info, validate and roundtrip."""

import importlib.util
import struct
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import alm1build as ab
import numpy as np
import pytest

from io_alamo.formats.alithia.alm1 import (Alm1FormatError, Alm1Model, new_model, problems,
                                           read_alm1, write_alm1)
from io_alamo.formats.errors import FormatError

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("fuzz_alm1", ROOT / "scripts" / "fuzz_alm1.py")
fuzz_alm1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_alm1)


def check_matches(model, built):
    assert model.frame_count == len(built.positions)
    np.testing.assert_array_equal(model.positions, built.positions)
    np.testing.assert_array_equal(model.normals, built.normals)
    np.testing.assert_array_equal(model.uvs, built.uvs)
    np.testing.assert_array_equal(model.faces, built.faces)
    assert model.flags == built.flags
    assert model.trailing == built.trailing


@pytest.mark.parametrize("frames", [1, 12, 40])
def test_spec_built_files_read_and_write_back(frames):
    built = ab.wave_grid(frames)
    model = read_alm1(built.data)
    check_matches(model, built)
    assert model.vertex_count == 25 and model.face_count == 32
    assert write_alm1(model) == built.data


def test_unknown_flags_and_trailing_bytes_are_kept():
    built = ab.wave_grid(3, flags=0x80000001, trailing=b"\x00extra bytes\xff")
    model = read_alm1(built.data)
    check_matches(model, built)
    assert write_alm1(model) == built.data
    assert any("flags" in p for p in problems(built.data))
    assert any("after the faces" in p for p in problems(built.data))


def test_nan_payloads_survive_a_round_trip():
    built = ab.wave_grid(2)
    data = bytearray(built.data)
    data[20:24] = b"\x01\x00\xc0\x7f"              # a NaN with a payload
    assert write_alm1(read_alm1(bytes(data))) == bytes(data)
    assert any("NaN" in p for p in problems(bytes(data)))


def test_largest_counts_read_and_write_back():
    built = ab.largest()
    model = read_alm1(built.data)
    check_matches(model, built)
    assert model.vertex_count == 65_535 and model.faces.max() == 65_534
    assert write_alm1(model) == built.data
    # the engine reads indices as int16: say so
    assert any("signed 16-bit" in p for p in problems(built.data))


def test_a_model_built_in_memory_writes_what_the_spec_says():
    built = ab.wave_grid(4)
    model = new_model(built.positions, built.normals, built.uvs, built.faces)
    assert write_alm1(model) == built.data


@pytest.mark.parametrize("counts", [(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 1, 1),
                                    (1, 0xFFFFFFFF, 1), (1, 1, 0xFFFFFFFF), (2**31, 0, 2)])
def test_huge_counts_fail_fast_without_allocating(counts):
    data = ab.huge_counts(*counts)
    tracemalloc.start()
    t = time.perf_counter()
    try:
        with pytest.raises(Alm1FormatError) as e:
            read_alm1(data, "huge.alm")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - t < 0.5
    assert peak < 1 << 20
    assert "huge.alm" in str(e.value) and "offset 0x" in str(e.value)
    assert "the header promises" in str(e.value)


def test_zero_vertices_with_countless_frames_is_read_without_allocating():
    data = ab.huge_counts(0, 0, 0xFFFFFFFF, body=0)
    tracemalloc.start()
    try:
        model = read_alm1(data)
        assert problems(data) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert model.frame_count == 0xFFFFFFFF and model.vertex_count == 0
    assert peak < 1 << 20


def error_of(data):
    with pytest.raises(Alm1FormatError) as e:
        read_alm1(data, "bad.alm")
    assert isinstance(e.value, FormatError)
    assert "\n" not in str(e.value) and str(e.value).startswith("bad.alm, offset 0x")
    return e.value


def test_truncated_vertex_arrays_name_frame_and_field():
    built = ab.wave_grid(5)                  # 25 vertices of 32 bytes per frame
    cut = 20 + 3 * 25 * 32 + 7 * 32 + 13     # inside vertex 7 of frame 3, in its normal
    e = error_of(built.data[:cut])
    assert e.path == "frame 3/normals"
    assert e.offset == 20 + 3 * 800 + 7 * 32 + 12
    e = error_of(built.data[:20 + 800 + 25])
    assert e.path == "frame 1/uvs"


def test_truncated_faces_name_the_face():
    built = ab.wave_grid(2)
    faces_at = 20 + 2 * 800
    e = error_of(built.data[:faces_at + 6 * 10 + 4])
    assert e.path == "faces/face 10" and e.offset == faces_at + 60


def test_short_header_wrong_magic_and_zero_frames():
    assert error_of(b"ALM1\0\0").path == "header"
    e = error_of(b"ALM\0" + bytes(40))
    assert e.path == "header/magic" and "ALM1" in str(e)
    built = ab.wave_grid(1)
    data = built.data[:16] + struct.pack("<I", 0) + built.data[20:]
    e = error_of(data)
    assert e.path == "header/frame count" and e.offset == 16 and "zero frames" in str(e)


def test_index_out_of_range_names_face_and_offset():
    built = ab.wave_grid(2)
    faces = built.faces.copy()
    faces[9, 2] = 25                         # one past the last vertex
    data = ab.assemble(built.positions, built.normals, built.uvs, faces)
    e = error_of(data)
    assert e.path == "faces/face 9"
    assert e.offset == 20 + 2 * 800 + (9 * 3 + 2) * 2
    assert "25" in str(e)


def test_writer_refuses_what_the_format_cannot_hold():
    built = ab.wave_grid(1)
    model = read_alm1(built.data)
    bad = Alm1Model(model.vertices, np.array([[0, 1, 25]]))
    with pytest.raises(Alm1FormatError, match="face indices"):
        write_alm1(bad)
    with pytest.raises(Alm1FormatError, match="at least one frame"):
        write_alm1(Alm1Model(model.vertices[:0], model.faces))


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "io_alamo", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_command_line_info_validate_roundtrip(tmp_path):
    good = tmp_path / "wave.alm"
    good.write_bytes(ab.wave_grid(12).data)
    odd = tmp_path / "odd.alm"
    odd.write_bytes(ab.wave_grid(2, trailing=b"xyz").data)
    cut = tmp_path / "cut.alm"
    cut.write_bytes(ab.wave_grid(2).data[:900])
    r = run_cli("info", str(good))
    assert r.returncode == 0, r.stderr
    assert "Alithia ALM1 model: 25 vertices, 32 triangles, 12 frames" in r.stdout
    r = run_cli("validate", str(good))
    assert r.returncode == 0 and r.stdout.strip().endswith("ok")
    r = run_cli("validate", str(odd), str(cut))
    assert r.returncode == 1
    assert "3 bytes after the faces" in r.stdout and "frame 1/normals" in r.stdout
    r = run_cli("roundtrip", str(good), str(odd))
    assert r.returncode == 0 and r.stdout.count("identical") == 2
    r = run_cli("roundtrip", str(cut))
    assert r.returncode == 1 and "cut.alm" in r.stdout and "offset 0x" in r.stdout


def test_short_fuzz_run_finds_nothing():
    """A few hundred mutated files through scripts/fuzz_alm1.py's checks (the long runs are
    the script's: python scripts/fuzz_alm1.py --minutes N)."""
    pool = fuzz_alm1.seeds()
    failures = []
    for n in range(300):
        draw = fuzz_alm1.RandomDraw(n)
        data, steps = fuzz_alm1.mutate(draw.choice(pool), draw)
        found = fuzz_alm1.run_one(data)
        if found:
            failures.append((steps, found))
    assert failures == []
