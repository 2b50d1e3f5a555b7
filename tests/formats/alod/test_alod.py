"""ALOD ``ALM\\0`` meshes: the reader on spec-built files of every version, byte-identical
round trips, a file packed by hand from the spec's layout, levels of detail from the collapse
records, bad input (one AlodFormatError naming offset and record), the command line, and a
short fuzz run (``python scripts/fuzz_alod.py --minutes N`` runs it longer)."""

import importlib.util
import struct
from pathlib import Path

import alod_build as ab
import numpy as np
import pytest

from io_alamo.cli import main
from io_alamo.formats.alamo import FormatError
from io_alamo.formats.alod import (AlodFormatError, collapse_vertex_maps, lod_stops, lod_triangles,
                                   matrix_row_problems, problems, read_alod, write_alod)
from io_alamo.formats.registry import identify as foreign_kind

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("fuzz_alod", ROOT / "scripts" / "fuzz_alod.py")
fuzz_alod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_alod)


@pytest.mark.parametrize("version", range(2, 11))
def test_every_version_reads_and_writes_back_byte_identical(version):
    data = ab.build_bytes(version)
    mesh = read_alod(data)
    assert write_alod(mesh) == data
    assert mesh.version == version
    assert len(mesh.bones) == 3 and len(mesh.triangles) == 18 and len(mesh.positions) == 18
    # the rest positions are the grid points, in every version's layout
    pts = mesh.positions.transformed(mesh.world_matrices())
    np.testing.assert_allclose(pts[:16, :3], ab.grid_points(), atol=1e-5)
    np.testing.assert_allclose(pts[:, 3], 1.0, atol=1e-6)
    assert (len(mesh.frames) == 3) == (version >= 4)
    assert (mesh.vertices.tangents is not None) == (version >= 7)
    assert len(mesh.tangent_maps) == (1 if version >= 8 else 0)
    assert mesh.collapses.is_influence.sum() == (1 if version >= 9 else 0)


def test_version_2_uses_64_bit_floats():
    data = ab.build_bytes(2)
    mesh = read_alod(data)
    assert mesh.bones["transform"].dtype == np.dtype(">f8")
    assert mesh.bones["transform"].shape == (3, 12)          # 3x3 matrix and an offset
    assert mesh.positions.components["coords"].dtype == np.dtype(">f8")
    assert mesh.collapses.edges["error"].dtype == np.dtype(">f8")
    # header: magic, version and eight counts (tangent maps from v8, frames from v4)
    head = struct.unpack(">4sI8I", data[:40])
    assert head == (b"ALM\0", 2, 2, 3, 18, 22, 2, 2, 18, 8)
    # the first comment follows directly (no frame rate before v6)
    assert struct.unpack(">I", data[40:44])[0] == len(b"made from the ALOD spec")
    # bone 0: parent, then 12 doubles (row-major 3x3, then the offset)
    off = 40 + 4 + 23 + 4 + 14
    parent, *rows = struct.unpack(">i12d", data[off:off + 100])
    assert parent == -1
    np.testing.assert_allclose(rows[9:], [1.0, 2.0, 0.5])
    np.testing.assert_allclose(mesh.rest_local()[0], ab.BONE_LOCALS[0], atol=1e-12)


def _hand_packed_v10():
    """A v10 file packed field by field from the spec's structs."""
    out = [b"ALM\0", struct.pack(">I", 10)]
    # comments, bones, positions, vertices, textures, tangents, materials, triangles,
    # collapses, frames; then frame_rate and override_P
    out.append(struct.pack(">10I", 1, 1, 1, 1, 1, 1, 1, 1, 2, 2))
    out.append(struct.pack(">fI", 25.0, 0))
    out.append(struct.pack(">I", 2) + b"hi")
    eye = np.eye(4)
    eye[:3, 3] = (1.0, 2.0, 3.0)
    out.append(struct.pack(">i16f", -1, *eye.ravel()))               # parent, transform
    out.append(struct.pack(">I3f", 0x07, 0.0, 2.0, 0.0))              # flags, tail
    out.append(struct.pack(">f3ff", 1.0, 0.0, 0.0, 0.0, 0.5))         # bounding sphere
    out.append(struct.pack(">16f16ff", *eye.ravel(), *np.zeros(16), 0.0))
    out.append(struct.pack(">II4f", 1, 0, 0.5, 0.0, 0.0, 1.0))         # one position
    out.append(struct.pack(">I", 0)                                    # vertex: position
               + struct.pack(">II4f", 1, 0, 1.0, 0.0, 0.0, 0.0)         # tangent U
               + struct.pack(">I", 0)                                  # tangent V: empty
               + struct.pack(">2f", 0.25, 0.75))                       # s, t
    out.append(struct.pack(">4I", 1, 1, 3, 0) + bytes([10, 20, 30]))    # texture
    out.append(struct.pack(">2I", 1, 1) + struct.pack(">i", 7)          # tangent map
               + struct.pack(">I", 0) + struct.pack(">II4f", 1, 0, 0.0, 1.0, 0.0, 0.0))
    out.append(struct.pack(">ii", 0, 0))                               # material
    out.append(struct.pack(">4I", 0, 0, 0, 0))                          # triangle
    out.append(struct.pack(">4If", 0, 0, 0, 0, 0.5))                    # edge collapse
    out.append(struct.pack(">2I2If", 0xFFFFFFFF, 1, 0, 0, 0.75))         # influence
    out.append(struct.pack(">16f", *eye.ravel()) + struct.pack(">16f", *np.eye(4).ravel()))
    return b"".join(out)


def test_hand_packed_v10_file_reads_as_the_spec_lays_it_out():
    data = _hand_packed_v10()
    m = read_alod(data)
    assert write_alod(m) == data
    assert m.comments == [b"hi"] and float(m.frame_rate) == 25.0 and m.override_p == 0
    b = m.bones[0]
    assert b["parent"] == -1 and b["flags"] == 7
    np.testing.assert_array_equal(b["tail"], [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(m.world_matrices()[0][:3, 3], [1.0, 2.0, 3.0])
    assert m.positions.counts.tolist() == [1]
    np.testing.assert_array_equal(m.positions.transformed(m.world_matrices())[0],
                                  [1.5, 2.0, 3.0, 1.0])
    assert m.vertices.position.tolist() == [0]
    np.testing.assert_array_equal(m.vertices.tex_coords, [[0.25, 0.75]])
    assert [len(v) for v in m.vertices.tangents] == [1, 1]
    assert m.vertices.tangents[1].counts.tolist() == [0]
    assert m.textures[0].values == bytes([10, 20, 30]) and m.textures[0].signed == 0
    assert m.tangent_maps[0].patch.tolist() == [7]
    assert (m.materials[0].texture_id, m.materials[0].tangent_id) == (0, 0)
    assert m.collapses.is_influence.tolist() == [False, True]
    np.testing.assert_array_equal(m.collapses.errors(), [0.5, 0.75])
    assert m.collapses.influence_pairs.tolist() == [[0, 0]]
    assert m.frames.shape == (2, 1, 16)
    moved = np.eye(4)
    moved[:3, 3] = (1.0, 2.0, 3.0)
    np.testing.assert_array_equal(m.frame_matrices()[0, 0], moved)


def test_trailing_bytes_are_kept_and_reported():
    data = ab.build_bytes(10) + b"\x01\x02\x03"
    m = read_alod(data)
    assert m.trailing == b"\x01\x02\x03" and write_alod(m) == data
    assert any("3 bytes after the last record" in p for p in foreign_kind(data).validate(
        data, "x.alm"))


def test_validate_reports_what_reads_but_breaks_the_spec():
    m = ab.build_mesh(10)
    m.collapses.edges["vr"][4] = 3                 # vl on position 2, vr on position 3
    m.collapses.edges["error"][5] = 0.0            # errors no longer grow
    data = write_alod(m)
    found = foreign_kind(data).validate(data, "x.alm")
    assert any("1 edge collapses have vl and vr on different positions" in p for p in found)
    assert any("do not grow" in p for p in found)
    assert foreign_kind(ab.build_bytes(10)).validate(ab.build_bytes(10), "x.alm") == []


def test_levels_of_detail_follow_the_collapses():
    m = read_alod(ab.build_bytes(10))
    stops = lod_stops(m.collapses.errors())
    assert [k for k, _ in stops] == [3, 5, 7]          # 9 collapses: 1/4, 1/2, 3/4
    assert [t for _, t in stops] == [0.375, 0.625, 0.875]
    maps = collapse_vertex_maps(m, [1, 2, 3, 9])
    assert maps[0][0] == 20 and maps[0][1] == 20          # onto the new midpoint
    assert maps[1][5] == 21 and maps[0][5] == 5           # the influence swap
    assert maps[2][21] == 4 and maps[2][5] == 4           # row 1 collapsed onto column 0
    # seams: column 3 (right patch) goes to vr, the seam position's own vertices stay
    assert maps[3][3] == 16 and maps[3][2] == 2 and maps[3][16] == 16
    counts = [len(lod_triangles(m, mp)[0]) for mp in maps]
    assert counts == sorted(counts, reverse=True) and counts[-1] < 18
    tri, kept = lod_triangles(m, maps[-1])
    pos = m.vertices.position.astype(np.int64)[tri]
    assert (pos[:, 0] != pos[:, 1]).all() and (pos[:, 1] != pos[:, 2]).all()
    assert set(np.unique(pos)) <= {0, 2, 4, 6, 8, 10, 12, 14, 16}


def test_lod_stops_ignore_nothing_to_do_and_stop_at_a_smaller_error():
    assert lod_stops([]) == []
    # thresholds 1.0, 2.0, 0.5: the third applies nothing (the first collapse is over 0.5)
    assert lod_stops([1.0, 2.0, 0.5, 3.0]) == [(1, 1.0), (3, 2.0)]


# --- bad input ------------------------------------------------------------------------------

def _patch(data, offset, fmt, *values):
    b = bytearray(data)
    struct.pack_into(fmt, b, offset, *values)
    return bytes(b)


def _error(data):
    with pytest.raises(AlodFormatError) as e:
        read_alod(data, filename="bad.alm")
    assert isinstance(e.value, FormatError) and "bad.alm" in str(e.value)
    return e.value


def test_truncated_files_give_one_clear_error():
    data = ab.build_bytes(10)
    for cut in list(range(0, 64)) + list(range(64, len(data), 37)):
        e = _error(data[:cut])
        assert e.offset is not None and e.path


def test_counts_beyond_the_file_are_refused_before_allocating():
    data = ab.build_bytes(10)
    e = _error(_patch(data, 16, ">I", 0x7FFFFFFF))                # num_positions
    assert "cannot fit" in str(e) and e.path == "position"
    e = _error(_patch(data, 8, ">I", 0xFFFFFFFF))                 # num_comments
    assert e.path == "comments"
    m = read_alod(data)
    first_position = int(m.offsets["positions"][0])
    e = _error(_patch(data, first_position, ">I", 0x40000000))    # weights of position 0
    assert e.path == "position 0/vector 0" and e.offset == first_position


def test_indices_out_of_range_name_the_record():
    data = ab.build_bytes(10)
    m = read_alod(data)
    tri0 = m.offsets["triangles"]
    e = _error(_patch(data, tri0 + 16 + 4, ">I", 999))
    assert e.path == "triangle 1/vertices" and e.offset == tri0 + 16
    e = _error(_patch(data, tri0 + 12, ">I", 5))
    assert e.path == "triangle 0/material"
    comp = int(m.offsets["positions"][2]) + 4
    e = _error(_patch(data, comp, ">I", 3))
    assert e.path == "position 2/weight 0" and "bone 3 does not exist" in str(e)
    e = _error(_patch(data, m.offsets["bones"], ">i", 2))          # root under bone 2: loop
    assert e.path == "bone 0/parent" and "loop" in str(e)
    e = _error(_patch(data, int(m.offsets["collapses"][0]) + 8, ">I", 500))
    assert e.path == "collapse 0/vl"


@pytest.mark.parametrize("version", [0, 1, 11, 0xFFFFFFFF])
def test_unsupported_versions_are_one_clear_error(version):
    e = _error(_patch(ab.build_bytes(10), 4, ">I", version))
    assert f"version {version} is not supported" in str(e) and e.offset == 4


def test_not_an_alod_file():
    e = _error(b"ALO\0" + bytes(60))
    assert "not an ALOD mesh" in str(e)


# --- command line and fuzz -----------------------------------------------------------------

def test_command_line_knows_alod_files(tmp_path, capsys):
    p = tmp_path / "grid.alm"
    p.write_bytes(ab.build_bytes(10))
    v2 = tmp_path / "old.alm"
    v2.write_bytes(ab.build_bytes(2))
    assert main(["info", str(p), str(v2)]) == 0
    out = capsys.readouterr().out
    assert "ALOD mesh, version 10" in out and "64-bit floats" in out
    assert "9 collapses (8 edge, 1 influence)" in out and "3 frames at 24 fps" in out
    assert main(["validate", str(p)]) == 0 and "ok" in capsys.readouterr().out
    assert main(["roundtrip", str(p), str(v2)]) == 0
    assert capsys.readouterr().out.count(": identical\n") == 2
    bad = tmp_path / "bad.alm"
    bad.write_bytes(ab.build_bytes(10)[:300])
    assert main(["validate", str(bad)]) == 1
    assert "bad.alm" in capsys.readouterr().out


def test_fuzzed_files_only_ever_raise_alod_format_error():
    stats = fuzz_alod.run(seconds=None, iterations=400, seed=1)
    assert stats["inputs"] == 400 and stats["unexpected"] == []
    assert stats["rejected"] > 50 and stats["accepted"] > 0
    assert stats["slowest"] < 1.0


def test_tangent_ids_stored_as_pairs_are_named_at_their_material():
    """Before version 8 a material's tangent ids were, in still older files, pairs: read as
    singles, the triangles start 4 bytes early. The error names the material, not a
    triangle."""
    data = ab.build_bytes(7)
    at = read_alod(data).offsets["materials"] + 16          # after material 0's one id
    paired = data[:at] + struct.pack(">I", 1) + data[at:]
    with pytest.raises(AlodFormatError) as e:
        read_alod(paired, "old.alm")
    assert e.value.path == "material 0/tangent_ids"
    assert e.value.offset == at - 4
    assert "as pairs" in str(e.value) and "triangle" not in e.value.path


def test_bone_matrices_the_other_way_round_are_reported():
    mesh = ab.build_mesh(10)
    assert matrix_row_problems(mesh) == []
    rows = np.asarray(mesh.bones["transform"]).reshape(-1, 4, 4)
    mesh.bones["transform"] = rows.transpose(0, 2, 1).reshape(len(rows), 16)
    found = matrix_row_problems(read_alod(write_alod(mesh)))
    assert len(found) == 1 and found[0].startswith("3 of 3 rest matrices have a last row")
    assert "bone 0" in found[0]
    assert found[0] in problems(write_alod(mesh))
