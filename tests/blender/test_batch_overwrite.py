"""The batch's one overwrite rule and its inputs (issue 36): an existing output is replaced
only with --overwrite (and the line says so), a folder never; --out naming a file is one
clear error; wildcards are expanded by the batch itself."""

import subprocess
import sys
from pathlib import Path

import pytest

from io_alamo.blender import batch
from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")
ROOT = Path(__file__).resolve().parents[2]


def test_import_refuses_existing_outputs_without_overwrite(blender, tmp_path, capsys):
    write_sample(tmp_path / "src")
    out = tmp_path / "out"
    out.mkdir()
    (out / "Sample_Tank.blend").write_bytes(b"hand made")
    assert batch.run(["import", str(tmp_path / "src"), "--out", str(out)], "t") == 1
    line = capsys.readouterr().out
    assert "failed" in line and "Sample_Tank.blend: exists (--overwrite replaces it)" in line
    assert (out / "Sample_Tank.blend").read_bytes() == b"hand made"
    assert batch.run(["import", str(tmp_path / "src"), "--out", str(out), "--overwrite"],
                     "t") == 0
    assert "replaced 1 existing file" in capsys.readouterr().out
    blend = (out / "Sample_Tank.blend").read_bytes()
    assert blend[:7] == b"BLENDER" or blend[:4] == b"\x28\xb5\x2f\xfd"   # 5.0: zstd


def test_export_leaves_hand_edited_files_alone_without_overwrite(blender, tmp_path, capsys):
    write_sample(tmp_path / "src")
    blends, alos = tmp_path / "blends", tmp_path / "alos"
    assert batch.run(["import", str(tmp_path / "src"), "--out", str(blends)], "t") == 0
    assert batch.run(["export", str(blends), "--out", str(alos)], "t") == 0
    edited = alos / "Sample_Tank_Turn_00.ala"
    edited.write_bytes(b"hand edited")
    before = sorted(p.name for p in alos.iterdir())
    capsys.readouterr()
    assert batch.run(["export", str(blends), "--out", str(alos)], "t") == 1
    out = capsys.readouterr().out
    assert f"{alos / 'Sample_Tank.alo'}: exists (--overwrite replaces it)" in out
    assert edited.read_bytes() == b"hand edited"
    assert sorted(p.name for p in alos.iterdir()) == before      # no temporary folder left
    assert batch.run(["export", str(blends), "--out", str(alos), "--overwrite"], "t") == 0
    assert "replaced 2 existing files" in capsys.readouterr().out
    assert edited.read_bytes()[:4] != b"hand"


def test_wildcards_are_expanded_by_the_batch(blender, tmp_path, capsys):
    write_sample(tmp_path / "src")
    assert batch.run(["roundtrip", str(tmp_path / "src" / "*.ALO")], "t") == 0
    assert "1 identical" in capsys.readouterr().out


def test_out_naming_a_file_is_one_clear_error(tmp_path):
    write_sample(tmp_path / "src")
    (tmp_path / "out.txt").write_text("a file")
    r = subprocess.run([sys.executable, "-m", "io_alamo.batch", "import", str(tmp_path / "src"),
                        "--out", str(tmp_path / "out.txt")], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (f"{tmp_path / 'out.txt'}: is a file; --out names the output "
                                "folder (it is made if missing)")
    assert (tmp_path / "out.txt").read_text() == "a file"


def test_a_batch_run_leaves_nothing_in_the_temp_folder(tmp_path):
    write_sample(tmp_path / "src")
    temp = tmp_path / "temp"
    temp.mkdir()
    env = dict(__import__("os").environ, TMPDIR=str(temp), TEMP=str(temp), TMP=str(temp))
    env.pop("BLENDER_USER_RESOURCES", None)
    r = subprocess.run([sys.executable, "-m", "io_alamo.batch", "roundtrip", str(tmp_path / "src")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert list(temp.iterdir()) == []             # Blender's user folder and the scratch gone


def test_the_progress_line_shows_the_stage(tmp_path):
    from test_batch_output import batch_on_terminal
    write_sample(tmp_path / "in")
    proc, text = batch_on_terminal(["import", str(tmp_path / "in"), "--out",
                                    str(tmp_path / "o"), "--glb"])
    assert proc.returncode == 0, text
    for stage in ("importing", "saving .blend", "writing .glb"):
        assert f"now Sample_Tank.alo: {stage}" in text, text


def test_a_pipe_gets_each_files_line_as_it_is_done(tmp_path):
    for k in range(3):
        write_sample(tmp_path / "in" / f"m{k}")
    proc = subprocess.Popen([sys.executable, "-m", "io_alamo", "batch", "import",
                             str(tmp_path / "in"), "--out", str(tmp_path / "o"), "--glb"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    first = proc.stdout.readline()
    running = proc.poll() is None            # the other two files are still being converted
    rest, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert first.startswith("[1/3] ok ") and running
    lines = rest.strip().splitlines()
    assert [line[:9] for line in lines[:2]] == ["[2/3] ok ", "[3/3] ok "]
    assert "\r" not in first + rest and len(lines) == 3      # nothing redrawn in a pipe
