"""What the batch converter tells a modder: texture folders (--textures, the mod's
Data/Art/Textures), one line per file with its warnings counted, a progress line on a
terminal, no Blender noise, a summary that counts warnings, and empty folders named."""

import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from io_alamo.blender import batch
from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")
ROOT = Path(__file__).resolve().parents[2]
TEXTURES = ("Sample_Tank.tga", "Sample_Tank_B.tga")
NOISE = ("Fra:", "INFO", "Info:", "Saved:", "Time:", "Synchronizing")


def sample_without_textures(folder, textures):
    """The sample model and animation in ``folder``, its two textures moved to ``textures``."""
    write_sample(folder)
    textures.mkdir(parents=True, exist_ok=True)
    for name in TEXTURES:
        shutil.move(folder / name, textures / name)
    return folder / "Sample_Tank.alo"


def loaded_images():
    """Paths of the images of the scene the last batch import left in this process (those
    with a file; placeholders have none)."""
    return sorted(Path(bpy.path.abspath(i.filepath)).name for i in bpy.data.images
                  if i.filepath and i.source == "FILE")


def run_cli(*args, **kw):
    """``python -m io_alamo batch ...`` in a process of its own, output piped."""
    return subprocess.run([sys.executable, "-m", "io_alamo", "batch", *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, **kw)


def test_missing_textures_are_counted_per_file_and_in_the_summary(blender, tmp_path, capsys):
    sample_without_textures(tmp_path / "models", tmp_path / "elsewhere")
    status = batch.run(["import", str(tmp_path / "models"), "--out", str(tmp_path / "o")],
                       "test")
    out = capsys.readouterr().out
    assert status == 0, out
    line, summary = out.strip().splitlines()
    assert line.startswith("[1/1] ok ") and line.endswith("; 2 textures not found")
    assert summary.endswith("1 ok; 2 warnings in 1 file (2 textures not found); "
                            "--verbose lists them")
    assert loaded_images() == []


def test_verbose_lists_each_warning(blender, tmp_path, capsys):
    sample_without_textures(tmp_path / "models", tmp_path / "elsewhere")
    batch.run(["import", str(tmp_path / "models"), "--out", str(tmp_path / "o"), "--verbose"],
              "test")
    out = capsys.readouterr().out
    listed = [l for l in out.splitlines() if l.startswith("    warning: ")]
    assert len(listed) == 2 and all("not found" in l for l in listed)
    assert "'Sample_Tank.tga'" in out and "'Sample_Tank_B.tga'" in out


def test_textures_option_adds_search_folders(blender, tmp_path, capsys):
    sample_without_textures(tmp_path / "models", tmp_path / "tex")
    other = tmp_path / "other"
    other.mkdir()
    status = batch.run(["import", str(tmp_path / "models"), "--out", str(tmp_path / "o"),
                        "--textures", str(other), "--textures", str(tmp_path / "tex")], "test")
    out = capsys.readouterr().out
    assert status == 0 and "not found" not in out and "warning" not in out, out
    assert loaded_images() == sorted(TEXTURES)
    assert all(Path(bpy.path.abspath(i.filepath)).resolve().parent == tmp_path / "tex"
               for i in bpy.data.images if i.filepath)


def test_a_missing_textures_folder_is_an_error(blender, tmp_path, capsys):
    write_sample(tmp_path / "models")
    status = batch.run(["import", str(tmp_path / "models"), "--out", str(tmp_path / "o"),
                        "--textures", str(tmp_path / "nope")], "test")
    assert status == 2
    assert f"--textures {tmp_path / 'nope'}: no such folder" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_the_mods_data_art_textures_is_found_from_the_input(blender, tmp_path, capsys):
    mod = tmp_path / "MyMod"
    sample_without_textures(mod / "Data" / "Art" / "Models" / "Units",
                            mod / "Data" / "Art" / "textures")       # any case, as the game
    status = batch.run(["import", str(mod), "--out", str(tmp_path / "o")], "test")
    out = capsys.readouterr().out
    assert status == 0 and "not found" not in out, out
    assert loaded_images() == sorted(TEXTURES)


def test_textures_reach_worker_processes(blender, tmp_path, capsys):
    for k in range(2):
        sample_without_textures(tmp_path / "models" / f"copy{k}", tmp_path / "tex")
    status = batch.run(["import", str(tmp_path / "models"), "--out", str(tmp_path / "o"),
                        "--textures", str(tmp_path / "tex"), "--jobs", "2"], "test")
    out = capsys.readouterr().out
    assert status == 0 and "2 files in" in out and "not found" not in out, out


def test_piped_output_is_one_line_per_file_without_blender_noise(tmp_path):
    write_sample(tmp_path / "in" / "a")
    write_sample(tmp_path / "in" / "b")
    r = run_cli("import", tmp_path / "in", "--out", tmp_path / "o", "--glb", "--preview")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert len(lines) == 3, r.stdout                    # two files and the summary
    assert lines[0].startswith("[1/2] ok ") and lines[1].startswith("[2/2] ok ")
    assert lines[2].startswith("2 files in ") and lines[2].endswith(": 2 ok")
    assert "\r" not in r.stdout and "\x1b" not in r.stdout
    assert not any(n in r.stdout + r.stderr for n in NOISE), r.stdout + r.stderr
    assert (tmp_path / "o" / "a" / "Sample_Tank.png").is_file()     # the render did happen

    r = run_cli("import", tmp_path / "in" / "a", "--out", tmp_path / "o2", "--verbose")
    assert r.returncode == 0
    assert "Saved" in r.stdout + r.stderr                # Blender's own output, when asked


def batch_on_terminal(args):
    """(process, everything it printed) of ``python -m io_alamo batch ARGS`` run on a
    pseudo-terminal, as a user's shell runs it."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "io_alamo", "batch", *args],
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                            cwd=ROOT)
    os.close(follower)
    try:
        return proc, read_pty(leader, proc)
    finally:
        os.close(leader)


def read_pty(fd, proc, timeout=300):
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            break
        try:
            data = os.read(fd, 4096)
        except OSError:                     # the other end closed (Linux gives EIO)
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=timeout)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(os.name == "nt", reason="needs a pseudo-terminal")
def test_a_terminal_gets_a_progress_line_with_rate_and_time_left(tmp_path):
    for k in range(3):
        write_sample(tmp_path / "in" / f"m{k}")
    proc, text = batch_on_terminal(["import", str(tmp_path / "in"), "--out",
                                    str(tmp_path / "o")])
    assert proc.returncode == 0, text
    assert "\r\x1b[K" in text                                # redrawn in place
    assert "files/s" in text and " left" in text and "now Sample_Tank.alo" in text
    assert "[3/3] ok " in text and "3 files in " in text
    finished = text.rsplit("\r\x1b[K", 1)[1]                 # after the last redraw
    assert "files/s" not in finished                         # cleared before the summary
    assert not any(n in text for n in NOISE), text


def test_a_folder_without_models_is_named(blender, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("no models here")
    assert batch.run(["import", str(tmp_path / "empty"), "--out", str(tmp_path / "o")],
                     "test") == 1
    assert capsys.readouterr().err == (f"{tmp_path / 'empty'}: no .alm or .alo or .p3d files "
                                       "found (folders are searched recursively)\n")
    assert batch.run(["export", str(tmp_path / "empty"), "--out", str(tmp_path / "o")],
                     "test") == 1
    assert capsys.readouterr().err == (f"{tmp_path / 'empty'}: no .alm or .blend or .p3d files "
                                       "found (folders are searched recursively)\n")


def test_an_empty_folder_beside_a_full_one_does_not_stop_the_run(blender, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    write_sample(tmp_path / "full")
    status = batch.run(["roundtrip", str(tmp_path / "empty"), str(tmp_path / "full")], "test")
    captured = capsys.readouterr()
    assert status == 0 and "1 identical" in captured.out
    assert f"{tmp_path / 'empty'}: no .alo files found" in captured.err


def test_failures_name_the_file_once(blender, tmp_path, capsys):
    write_sample(tmp_path / "in")
    data = (tmp_path / "in" / "Sample_Tank.alo").read_bytes()
    (tmp_path / "in" / "Broken.alo").write_bytes(data[:1000])
    (tmp_path / "in" / "Picture.alo").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    status = batch.run(["import", str(tmp_path / "in"), "--out", str(tmp_path / "o")], "test")
    out = capsys.readouterr().out
    assert status == 1
    lines = {l.split()[2].rsplit("/", 1)[-1]: l for l in out.splitlines() if l.startswith("[")}
    assert lines["Picture.alo"].endswith(
        "  not an Alamo file (starts with 89 50 4e 47)")          # no Python class name
    assert "Error" not in lines["Picture.alo"]
    assert "failed" in lines["Broken.alo"] and "offset 0x" in lines["Broken.alo"]
    for name in ("Picture.alo", "Broken.alo"):
        assert lines[name].count(name) == 1, lines[name]
    assert "2 failed, 1 ok" in out


def test_batch_export_of_a_game_file_says_so_and_leaves_no_out_folder(blender, tmp_path, capsys):
    """Issue 40: batch export of an .alo gets a clear line (not Blender's "File format is not
    supported"), and a run that wrote nothing leaves no empty --out folder behind."""
    write_sample(tmp_path / "models")
    model = next((tmp_path / "models").glob("*.alo"))
    batch.run(["export", str(model), "--out", str(tmp_path / "o")], "test")
    out = capsys.readouterr().out
    line = out.strip().splitlines()[0]
    assert "failed" in line and "is an Alamo model, not a .blend" in line
    assert "batch import" in line
    assert "File format is not supported" not in out
    assert out.strip().splitlines()[-1].startswith("1 file in ")
    assert not (tmp_path / "o").exists()
