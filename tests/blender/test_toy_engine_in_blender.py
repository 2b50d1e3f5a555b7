"""A format declared in one place (the toy engine in tests/toy) gets its File > Import entry
and its batch step by discovery: nothing in io_alamo names it."""

from pathlib import Path

import numpy as np
import pytest
from toyengine import TOY_FILE, toy_engine

bpy = pytest.importorskip("bpy")


def test_a_declared_engine_gets_its_file_import_entry(blender, tmp_path):
    import io_alamo.blender
    p = tmp_path / "x.toy"
    p.write_bytes(TOY_FILE)
    with toy_engine(blender=True):
        names = [m.__name__ for m in io_alamo.blender.modules()]
        assert "io_alamo.blender.toy.operators" in names
        assert names.index("io_alamo.blender.toy.operators") < names.index(
            "io_alamo.blender.alamo.ui")                       # operators before the sidebar
        from io_alamo.blender.toy import operators
        operators.register()
        try:
            assert operators.menu_import in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()
            assert bpy.ops.import_scene.toy(filepath=str(p)) == {"FINISHED"}
            obj = bpy.data.objects["toy"]
            co = np.empty(len(obj.data.vertices) * 3, np.float32)
            obj.data.vertices.foreach_get("co", co)
            assert co.reshape(-1, 3)[:, 0].tolist() == [1.0, 2.0]
        finally:
            operators.unregister()
    assert not hasattr(bpy.types, "IMPORT_SCENE_OT_toy")


def test_a_declared_engine_gets_its_batch_step(blender, tmp_path):
    from io_alamo.blender import batch
    p = tmp_path / "x.toy"
    p.write_bytes(TOY_FILE)
    with toy_engine(blender=True):
        r = batch.run_one("import", p, Path("x"), tmp_path / "out", {})
        assert r["status"] == "ok", r
        assert (tmp_path / "out" / "x.blend").is_file()
        wrong = tmp_path / "y.toy"
        wrong.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(8))
        r = batch.run_one("import", wrong, Path("y"), tmp_path / "out", {})
        assert r["status"] == "failed" and "starts with 89 50 4e 47" in r["message"], r


def _toy_x(obj):
    co = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)[:, 0].tolist()


def test_a_declared_option_reaches_the_operator(blender, tmp_path):
    """The toy's one option, declared once in its format package, is File > Import's
    property (label and description from the declaration) and reaches the import."""
    p = tmp_path / "x.toy"
    p.write_bytes(TOY_FILE)
    with toy_engine(blender=True):
        from io_alamo.blender.toy import operators
        operators.register()
        try:
            prop = bpy.ops.import_scene.toy.get_rna_type().properties["mirror"]
            assert (prop.name, prop.default) == ("Mirror", False)
            assert prop.description == "Negate the values (x = -value)"
            assert bpy.ops.import_scene.toy(filepath=str(p), mirror=True) == {"FINISHED"}
            assert _toy_x(bpy.data.objects["toy"]) == [-1.0, -2.0]
        finally:
            operators.unregister()


def test_a_declared_option_is_a_batch_flag(blender, tmp_path, capsys):
    from io_alamo.batch.jobs import build_parser
    from io_alamo.blender import batch
    p = tmp_path / "x.toy"
    p.write_bytes(TOY_FILE)
    with toy_engine(blender=True):
        helptext = build_parser("b")._subparsers._group_actions[0].choices["import"]
        assert "--toy-mirror" in helptext.format_help()
        assert batch.run(["import", str(p), "--out", str(tmp_path / "out"), "--toy-mirror"],
                         "b") == 0
    assert "a mirrored toy" in capsys.readouterr().out
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "out" / "x.blend"))
    assert _toy_x(bpy.data.objects["toy"]) == [-1.0, -2.0]
    bpy.ops.wm.read_factory_settings(use_empty=True)


WORKER = '''import sys
sys.path[:0] = {paths!r}
from toyengine import toy_engine
with toy_engine(blender=True):
    from io_alamo import batch
    status = batch.main(sys.argv[4:])        # after "-b -c alamo", as Blender is called
sys.exit(status)
'''


def test_a_declared_option_reaches_a_jobs_worker(blender, tmp_path, capsys):
    """``--jobs 2``: the declared flag is forwarded to the worker processes (here a Python
    with the toy engine on its paths stands where Blender would), whose imports use it."""
    import sys
    from io_alamo.batch.jobs import _worker_command, build_parser
    from io_alamo.blender import batch
    for name in ("a", "b"):
        (tmp_path / f"{name}.toy").write_bytes(TOY_FILE)
    tests = str(Path(__file__).resolve().parents[1])
    root = str(Path(tests).parent)
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(paths=[tests, root]))
    binary = tmp_path / "fake-blender"
    binary.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    binary.chmod(0o755)
    argv = ["import", str(tmp_path / "a.toy"), str(tmp_path / "b.toy"), "--out",
            str(tmp_path / "out"), "--jobs", "2", "--toy-mirror"]
    with toy_engine(blender=True):
        command = _worker_command(build_parser("b").parse_args(argv), [tmp_path / "a.toy"],
                                  str(binary))
        assert "--toy-mirror" in command
        assert batch.run(argv, "b", blender_binary=str(binary)) == 0
    out = capsys.readouterr().out
    assert out.count("a mirrored toy") == 2, out
