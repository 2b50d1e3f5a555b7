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
