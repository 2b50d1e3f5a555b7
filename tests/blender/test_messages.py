"""Blender's import report has the one message shape of the command line and the batch,
``FILE: what is wrong (where)`` (issue 36): a truncated .alo says the file is cut short, in
the same words as ``io-alamo validate``."""

import pytest

from io_alamo import cli
from io_alamo.formats.alamo.sample import write_sample

bpy = pytest.importorskip("bpy")


def test_a_cut_short_file_reads_the_same_in_blender_and_on_the_command_line(blender, tmp_path,
                                                                             capsys):
    model = write_sample(tmp_path)[0]
    trunc = tmp_path / "trunc.alo"
    trunc.write_bytes(model.read_bytes()[:len(model.read_bytes()) // 2])
    with pytest.raises(RuntimeError) as e:
        bpy.ops.import_scene.alo(filepath=str(trunc))
    capsys.readouterr()                               # Blender prints its report too
    assert cli.main(["validate", "-q", str(trunc)]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    # validate adds the severity (issue 40); the message after it is Blender's
    assert line.startswith(f"{trunc}: error: the file is cut short: ") and "(offset 0x" in line
    report = str(e.value)
    assert line.split(": error: ", 1)[1] in report    # the same text, after the file name
    assert f"{trunc}, offset" not in report and "trunc.alo: the file is cut short" in report
