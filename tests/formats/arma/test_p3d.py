"""Binarized P3D (ODOL): decompressors, spec-built v40/v47 files, the shared samples, bad
input and the command line."""

import os
import random
import time
from pathlib import Path

import numpy as np
import pytest
from p3d_build import PROXY_FLAG, SpecLod, box_lod, build_odol, grid_lod
from p3d_compress import lzo_compress, lzss_compress
from test_no_blender import run as run_without_blender

from io_alamo.cli import main
from io_alamo.formats.arma import P3dFormatError, lod_name, lzo, lzss, proxy_marker_faces, read_p3d
from io_alamo.formats.arma.lod import face_starts
from io_alamo.formats.errors import FormatError

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus-odol"
SAMPLES = sorted(CORPUS.rglob("*.p3d")) if CORPUS.is_dir() else []
needs_samples = pytest.mark.skipif(not SAMPLES, reason=f"no ODOL samples at {CORPUS}")


def _payloads():
    rng = np.random.default_rng(7)
    yield b""
    yield b"a"
    yield b"abc"
    yield bytes(rng.integers(0, 256, 5000, dtype=np.uint8))           # incompressible
    yield bytes(rng.integers(0, 3, 20000, dtype=np.uint8))            # short matches
    yield b"xyz" * 7000 + bytes(3000)                                  # long runs
    yield np.linspace(0, 1, 3000, dtype="<f4").tobytes()               # float arrays


# --- decompressors -----------------------------------------------------------------------

@pytest.mark.parametrize("codec,compress", [(lzo, lzo_compress), (lzss, lzss_compress)])
def test_decompressors_expand_and_report_bytes_consumed(codec, compress):
    for data in _payloads():
        packed = compress(data)
        out, used = codec.decompress(b"\x99" * 5 + packed + b"trailing", 5, len(data))
        assert out == data
        assert used == len(packed)


def test_lzss_window_starts_as_spaces():
    # one flag byte: a back reference 10 bytes before the start (4 bytes), then 2 literals
    stream = bytes([0b110, 10, 0x01, ord("h"), ord("i")])
    out = b"    hi"
    checksum = sum(out).to_bytes(4, "little")
    assert lzss.decompress(stream + checksum, 0, 6) == (out, len(stream) + 4)


def test_lzo_first_literal_run_and_end_marker():
    stream = bytes([17 + 5]) + b"hello" + b"\x11\x00\x00"
    assert lzo.decompress(stream, 0, 5) == (b"hello", len(stream))


@pytest.mark.parametrize("codec,compress,error", [(lzo, lzo_compress, lzo.LzoError),
                                                  (lzss, lzss_compress, lzss.LzssError)])
def test_decompressors_reject_corrupt_streams(codec, compress, error):
    data = b"abcdefgh" * 400
    packed = compress(data)
    with pytest.raises(error):
        codec.decompress(packed[: len(packed) // 2], 0, len(data))      # cut short
    with pytest.raises(error):
        codec.decompress(packed, 0, len(data) - 10)                     # would overflow
    with pytest.raises(error):
        codec.decompress(packed, 0, len(data) + 10)                     # ends too early
    rng = random.Random(3)
    for _ in range(300):                                                # garbage: never hangs
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        t = time.perf_counter()
        try:
            out, used = codec.decompress(junk, 0, 4096)
            assert len(out) == 4096 and used <= len(junk)
        except error:
            pass
        assert time.perf_counter() - t < 0.5


def test_lzss_checksum_is_checked():
    packed = bytearray(lzss_compress(b"checksum" * 200))
    packed[-1] ^= 0x40
    with pytest.raises(lzss.LzssError, match="checksum"):
        lzss.decompress(bytes(packed), 0, 1600)


def test_lzo_back_reference_before_start_is_an_error():
    stream = bytes([17 + 1]) + b"a" + bytes([(2 << 5) | (7 << 2), 0xFF]) + b"\x11\x00\x00"
    with pytest.raises(lzo.LzoError, match="does not fit"):
        lzo.decompress(stream, 0, 10)


# --- files built from the published layout -----------------------------------------------

def _spec_lods():
    return [grid_lod(1.0, 12, 12), grid_lod(2.0, 4, 3, quads=False),
            SpecLod(1e15, np.array([[0, 1, 2], [3, 4, 5]], np.float32), [])]


@pytest.mark.parametrize("version", [40, 43, 47, 48, 50, 52, 53, 54, 56, 58, 60, 64, 67, 68, 69,
                                     73])
def test_spec_built_file_reads_back_every_value(version):
    spec = _spec_lods()
    data = build_odol(version, spec, animations=version in (47, 53, 56, 73))
    model = read_p3d(data)
    assert model.version == version and model.warnings == []
    assert model.prefix == ("\\test\\house" if version >= 58 else "")
    assert [lod_name(lod.resolution) for lod in model.lods] == ["1.000", "2.000", "Memory"]
    assert model.info.mass == 1500.0
    assert model.info.skeleton.bones == [("root", ""), ("arm", "root")]
    assert model.info.lod_indices["geometry"] == 2
    assert np.allclose(model.info.center_of_mass, [0.25, 0.5, 0.75])
    if version in (47, 53, 56, 73):
        assert [a.name for a in model.animations.classes] == ["door", "hide"]
    for lod, s in zip(model.lods, spec):
        assert np.array_equal(lod.vertices, s.points)
        assert len(lod.faces) == len(s.faces)
        got = [lod.faces.indices[a:a + k].tolist()
               for a, k in zip(lod.faces.starts, lod.faces.sizes)]
        assert got == s.faces
        if not s.faces:
            continue
        step = 4.0 / 65536 if version >= 45 else 1e-7
        for uv, want in zip(lod.uv_sets, s.uvs):
            assert np.abs(uv - want).max() <= step
        assert np.abs(lod.normals - s.normals).max() < 2.5e-3
        assert lod.textures == s.textures
        assert [m.path for m in lod.materials] == s.materials
        assert lod.materials[0].stages[1].path == s.textures[0]
        assert [(x.first_face, x.end_face) for x in lod.sections] == [(a, b) for a, b, _, _
                                                                      in s.sections]
        assert lod.sections[1].material_path == "inline.rvmat"
        sel = lod.selections[0]
        assert sel.name == "door" and sel.vertices.tolist() == s.selections[0][1]
        assert sel.weights.tolist() == s.selections[0][2]
        assert lod.proxies[0].path == "\\a3\\data_f\\proxies\\gunner"
        assert np.allclose(lod.proxies[0].matrix, s.proxies[0][1])
        assert lod.properties == [("lodnoshadow", "1")]
        assert [f.time for f in lod.frames] == [0.0, 1.0]
        assert np.allclose(lod.frames[1].points, s.frames[1][1])


@pytest.mark.parametrize("version", [40, 47, 64, 73])
def test_spec_built_file_has_compressed_and_stored_arrays(version):
    spec = _spec_lods()
    spec[0].frames = []                                  # frames hold the points raw
    data = build_odol(version, spec)
    big = spec[0].points.astype("<f4").tobytes()         # 1,728 bytes: compressed
    small = spec[1].points.astype("<f4").tobytes()       # 144 bytes: stored as they are
    assert big not in data and small in data
    assert np.array_equal(read_p3d(data).lods[0].vertices, spec[0].points)


def _shorten_texture(data, index):
    """Cut 5 bytes from a LOD's texture path as hand edits after binarisation do."""
    old, new = b"data\\grid_co.paa\0", b"data\\g_co.paa\0"[:-1] + b"\0"
    at = -1
    for _ in range(2 * index + 1):            # each LOD: its texture list, then a material
        at = data.index(old, at + 1)
    return data[:at] + b"d\\grid.paa\0" + data[at + len(old):]


@pytest.mark.parametrize("which", [0, 1])
def test_lod_offsets_past_edited_texture_paths_still_read(which):
    spec = [grid_lod(1.0, 5, 5), grid_lod(2.0, 4, 3)]
    data = build_odol(47, spec)
    edited = _shorten_texture(data, which)
    assert len(edited) == len(data) - 6
    model = read_p3d(edited)
    assert [len(lod.faces) for lod in model.lods] == [len(s.faces) for s in spec]
    assert model.lods[which].textures == ["d\\grid.paa"]
    assert len(model.warnings) == 1 and "texture paths edited" in model.warnings[0]
    if which == 1:
        assert "past the end of the file" in model.warnings[0]


# --- bad input ---------------------------------------------------------------------------

def test_not_odol_is_one_clear_error():
    with pytest.raises(P3dFormatError, match="not a binarized P3D"):
        read_p3d(b"\x89PNG\r\n\x1a\n" + bytes(40), filename="x.p3d")
    with pytest.raises(P3dFormatError, match="editable .MLOD"):
        read_p3d(b"MLOD" + bytes(40))


@pytest.mark.parametrize("version,text", [(7, "version 7 is not supported"),
                                          (39, "version 39 is not supported"),
                                          (74, "version 74 is not supported")])
def test_unsupported_versions(version, text):
    data = b"ODOL" + version.to_bytes(4, "little") + bytes(64)
    with pytest.raises(P3dFormatError, match=text) as e:
        read_p3d(data, filename="m.p3d")
    assert f"ODOL v{version}" in str(e.value) and "m.p3d" in str(e.value)


def test_encrypted_model():
    data = b"ODOL" + (75).to_bytes(4, "little") + b"\x01\x02\x03\x04" + bytes(60)
    with pytest.raises(P3dFormatError, match="encrypted"):
        read_p3d(data)


def test_truncated_files_name_version_and_place():
    data = build_odol(47, _spec_lods())
    for cut in range(8, len(data), 97):
        with pytest.raises(P3dFormatError) as e:
            read_p3d(data[:cut], filename="cut.p3d")
        text = str(e.value)
        assert "ODOL v47" in text and "cut.p3d" in text and "offset 0x" in text
        assert isinstance(e.value, FormatError)


def test_nul_bytes_replaced_by_spaces():
    data = build_odol(48, _spec_lods())
    with pytest.raises(P3dFormatError) as e:
        read_p3d(data.replace(b"\0", b" "), filename="spaces.p3d")
    text = str(e.value)
    assert "ODOL v48" in text and "spaces.p3d, offset 0x4" in text
    assert "NUL bytes were replaced by spaces" in text
    # the same damage after an intact header is found where it starts
    head = len(data) // 3
    with pytest.raises(P3dFormatError) as e:
        read_p3d(data[:head] + data[head:].replace(b"\0", b" "), filename="spaces.p3d")
    assert "ODOL v48" in str(e.value) and e.value.path and e.value.offset >= head - 64


def test_fuzzed_files_raise_only_format_errors():
    rng = random.Random(21)
    seeds = [build_odol(40, _spec_lods()), build_odol(47, _spec_lods(), animations=True)]
    for k in range(400):
        data = bytearray(seeds[k % 2])
        for _ in range(rng.randrange(1, 6)):
            at = rng.randrange(len(data))
            data[at] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
        t = time.perf_counter()
        try:
            read_p3d(bytes(data))
        except P3dFormatError:
            pass
        assert time.perf_counter() - t < 2.0


# --- the shared samples ------------------------------------------------------------------

# resolutions and face counts per LOD, as the files' own LOD tables and LOD headers give them
EXPECTED = {
    "An_225_2.p3d": (48, [(0.0, 26893), (1100.0, 18712), (1200.0, 18924), (10001.0, 7488),
                          (1e13, 122), (1e15, 0), (2e15, 0), (3e15, 44), (7e15, 268),
                          (11000.0, 1872)]),
    "cig1.p3d": (73, [(1.0, 32), (10000.0, 48), (11000.0, 12)]),
}


@needs_samples
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_samples_every_lod_parses_to_its_recorded_end(path):
    model = read_p3d(path.read_bytes(), filename=str(path))
    assert model.warnings == []                  # each LOD ended exactly where recorded
    for lod, d in zip(model.lods, model.defaults):
        assert len(lod.vertices) == len(lod.normals)
        assert all(len(uv) == len(lod.vertices) for uv in lod.uv_sets)
        if len(lod.faces):
            assert lod.faces.indices.max() < len(lod.vertices)
        if d is not None:
            assert d.face_count == len(lod.faces)
    want = EXPECTED.get(path.name)
    if want is not None:
        assert model.version == want[0]
        got = [(float(lod.resolution), len(lod.faces)) for lod in model.lods]
        assert [(pytest.approx(r, rel=1e-6), f) for r, f in want[1]] == got


@needs_samples
def test_samples_through_the_command_line(capsys):
    assert main(["validate"] + [str(p) for p in SAMPLES]) == 0
    assert main(["info", str(next(p for p in SAMPLES if p.name == "cig1.p3d"))]) == 0
    out = capsys.readouterr().out
    assert "version 73, 3 LODs" in out
    assert "LOD 1: ShadowVolume 0 (resolution 10000): 36 vertices, 48 faces" in out
    assert "overthrow_main\\data\\cigs.paa" in out and "named selections: tip, head" in out


def test_command_line_on_spec_built_and_bad_files(tmp_path, capsys):
    good = tmp_path / "grid.p3d"
    good.write_bytes(build_odol(47, _spec_lods()))
    bad = tmp_path / "bad.p3d"
    bad.write_bytes(good.read_bytes()[:300])
    assert main(["info", str(good)]) == 0
    out = capsys.readouterr().out
    assert "version 47, 3 LODs" in out and "proxy: \\a3\\data_f\\proxies\\gunner #1" in out
    assert main(["validate", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{good}: ok" in out and "ODOL v47" in out and os.fspath(bad) in out


def test_reader_works_without_blender():
    r = run_without_blender("""
import sys
sys.path.insert(0, 'tests')
from p3d_build import build_odol, grid_lod
from io_alamo.formats.arma import read_p3d
from io_alamo.formats.registry import identify
data = build_odol(47, [grid_lod(1.0, 9, 9)])
lod = read_p3d(data).lods[0]
assert len(lod.vertices) == 81 and len(lod.faces) > 64
assert identify(data).name == 'an Arma binarized model'
assert not any(k.split('.')[0] in ('bpy', 'mathutils', 'bmesh') for k in sys.modules)
print('ok')
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


@pytest.mark.parametrize("isz", [2, 4])
def test_mixed_face_walk_matches_a_plain_walk(isz):
    rng = np.random.default_rng(isz)
    for count in (1, 2, 63, 64, 65, 1000):
        sizes = rng.choice([3, 4], count)
        blob = bytearray(b"\x07" * 5)            # bytes before the block
        want = []
        for k in sizes:
            want.append(len(blob) - 5)
            blob += bytes([k]) + bytes(rng.integers(0, 256, k * isz, dtype=np.uint8))
        got, _ = face_starts(np.frombuffer(bytes(blob), np.uint8), 5, count, isz)
        assert got.tolist() == want


def test_proxy_marker_faces_are_found():
    """The marker triangle: in a section with the proxy flag and a corner at the proxy's
    origin; a triangle with only one of the two is not a marker."""
    spec = box_lod(1.0)
    lod = read_p3d(build_odol(73, [spec])).lods[0]
    marked = proxy_marker_faces(lod)
    assert marked.tolist() == [False] * 12 + [True]
    moved = box_lod(1.0, proxy_at=(0.1, 0.7, 0.05))
    moved.proxies[0][1][:3, 3] += 0.001                     # no corner at the origin any more
    assert not proxy_marker_faces(read_p3d(build_odol(73, [moved])).lods[0]).any()
    plain = box_lod(1.0)
    plain.sections[1] = plain.sections[1][:4]               # the flag gone
    assert not proxy_marker_faces(read_p3d(build_odol(73, [plain])).lods[0]).any()
    flagged = box_lod(1.0)
    flagged.sections[0] = (0, 12, 0, 0, PROXY_FLAG)         # box faces flagged, none at it
    assert proxy_marker_faces(read_p3d(build_odol(73, [flagged])).lods[0]).tolist() == \
        [False] * 12 + [True]
