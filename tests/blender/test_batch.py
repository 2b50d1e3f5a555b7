"""Headless batch conversion: import to .blend (+ glb, preview), export back, roundtrip."""

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from io_alamo.blender import batch
from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sample(tmp_path):
    folder = tmp_path / "art" / "units"
    write_sample(folder)
    return tmp_path / "art"


def png_pixels(path):
    """(width, height, distinct RGB colours) of an 8-bit RGB(A) PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = header[:4]
    assert depth == 8 and ctype in (2, 6)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    colours = {row[i:i + 3] for row in rows[::8] for i in range(0, stride, bpp * 8)}
    return w, h, colours


def run_cli(*args):
    """python -m io_alamo.batch in a process of its own (as users run it)."""
    return subprocess.run([sys.executable, "-m", "io_alamo.batch", *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_import_export_roundtrip_through_blend_files(blender, sample, tmp_path, capsys):
    blends, alos = tmp_path / "blend", tmp_path / "alo"
    r = run_cli("import", sample, "--out", blends, "--glb", "--preview")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "[1/1] ok" in r.stdout and "1 file in" in r.stdout
    stem = blends / "units" / "Sample_Tank"             # the folder structure is kept
    assert stem.with_suffix(".blend").stat().st_size > 0
    assert stem.with_suffix(".glb").read_bytes()[:4] == b"glTF"
    w, h, colours = png_pixels(stem.with_suffix(".png"))
    assert (w, h) == (256, 256) and len(colours) > 10     # a picture, not a flat colour

    assert batch.run(["export", str(blends), "--out", str(alos)], "test") == 0
    src = sample / "units"
    # the .blend keeps what the import read: the model and its animation come back exact
    assert (alos / "units" / "Sample_Tank.alo").read_bytes() == \
        (src / "Sample_Tank.alo").read_bytes()
    assert (alos / "units" / "Sample_Tank_Turn_00.ala").read_bytes() == \
        (src / "Sample_Tank_Turn_00.ala").read_bytes()

    assert batch.run(["roundtrip", str(sample)], "test") == 0
    assert "1 identical" in capsys.readouterr().out


def test_a_bad_file_is_reported_and_the_run_goes_on(blender, sample, tmp_path, capsys):
    bad = sample / "units" / "Broken.alo"
    bad.write_bytes((sample / "units" / "Sample_Tank.alo").read_bytes()[:1000])
    status = batch.run(["import", str(sample), "--out", str(tmp_path / "o")], "test")
    out = capsys.readouterr().out
    assert status == 1
    assert "failed    " in out and "Broken.alo" in out and "offset 0x" in out
    assert "AlamoFormatError" not in out          # the words, not the Python class (issue 24)
    assert "1 failed, 1 ok" in out
    assert (tmp_path / "o" / "units" / "Sample_Tank.blend").exists()
    assert not (tmp_path / "o" / "units" / "Broken.blend").exists()


def test_jobs_run_in_worker_processes(blender, sample, tmp_path, capsys):
    for k in range(3):
        write_sample(sample / f"copy{k}")
    status = batch.run(["roundtrip", str(sample), "--jobs", "2"], "test")
    out = capsys.readouterr().out
    assert status == 0, out
    assert "4 files in" in out and "4 identical" in out
    assert out.count("identical ") == 4


def test_missing_input_is_a_clear_error(blender, tmp_path, capsys):
    assert batch.run(["roundtrip", str(tmp_path / "nope")], "test") == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_cli_command_registered_with_blender(addon):
    import io_alamo
    assert io_alamo._cli_handle is not None


def test_export_keeps_the_imported_files_exact_names(blender, tmp_path):
    """EI_TANK.ALO comes back as EI_TANK.ALO, its animation with its own name too: on a
    case-sensitive file system another case would be a second copy (issue 25)."""
    src = tmp_path / "mod"
    write_sample(src)
    for p in list(src.iterdir()):
        if p.suffix.lower() in (".alo", ".ala"):
            p.rename(p.with_name(p.name.replace("Sample_Tank", "EI_TANK").upper()))
    names = sorted(p.name for p in src.iterdir() if p.suffix in (".ALO", ".ALA"))
    assert names == ["EI_TANK.ALO", "EI_TANK_TURN_00.ALA"]
    blends, out = tmp_path / "blend", tmp_path / "out"
    assert batch.run(["import", str(src / "EI_TANK.ALO"), "--out", str(blends)], "test") == 0
    assert batch.run(["export", str(blends), "--out", str(out)], "test") == 0
    assert sorted(p.name for p in out.iterdir()) == names
    for name in names:
        assert (out / name).read_bytes() == (src / name).read_bytes()


def test_a_folder_of_models_and_effects_imports_and_round_trips(blender, sample, tmp_path,
                                                                capsys):
    """One way in: the batch picks the import by what each .alo is (registry.identify), so a
    particle effect beside a model is imported to a .blend (with its preview) and round-trips
    byte for byte, and both runs exit 0."""
    from particle_build import particle_system
    data, _ = particle_system("p_smoke")
    (sample / "units" / "p_smoke.alo").write_bytes(data)
    out = tmp_path / "blend"
    assert batch.run(["import", str(sample), "--out", str(out), "--preview"], "t") == 0
    text = capsys.readouterr().out
    assert "particle effect 'p_smoke'" in text, text
    assert (out / "units" / "p_smoke.blend").stat().st_size > 0
    assert (out / "units" / "p_smoke.png").read_bytes()[:4] == b"\x89PNG"
    assert batch.run(["roundtrip", str(sample)], "t") == 0
    text = capsys.readouterr().out
    assert "p_smoke.alo" in text and "byte-identical" in text and "2 identical" in text, text
    alos = tmp_path / "alo"                      # and back from the .blend, as a model is
    assert batch.run(["export", str(out), "--out", str(alos)], "t") == 0
    text = capsys.readouterr().out
    assert "p_smoke.alo: particle effect, 1 emitters" in text, text
    assert (alos / "units" / "p_smoke.alo").read_bytes() == data
