"""The toy engine of tests/toy added to io_alamo's search paths, and taken away again: a
format declared in one place (tests/toy/formats/toy/entries.py) and nowhere else."""

import contextlib
import importlib
import sys
from pathlib import Path

import io_alamo.formats
from io_alamo.formats import registry

TOY = Path(__file__).resolve().parent / "toy"
TOY_FILE = b"TOY1" + bytes.fromhex("02000000") + bytes.fromhex("0000803f00000040")   # 1.0, 2.0


def _forget():
    registry.reload()
    for name in [n for n in sys.modules if ".toy" in n and n.startswith("io_alamo.")]:
        del sys.modules[name]


@contextlib.contextmanager
def toy_engine(blender=False):
    """io_alamo with the toy engine's packages on its paths (``blender``: the Blender layer's
    too); everything found again on the way out."""
    paths = [(io_alamo.formats, str(TOY / "formats"))]
    if blender:
        paths.append((importlib.import_module("io_alamo.blender"),   # bpy: Blender tests only
                      str(TOY / "blender")))
    for package, path in paths:
        package.__path__.append(path)
    _forget()
    if blender:            # what an earlier test's batch found (without the toy) goes too
        from io_alamo.blender import discovery
        discovery.forget()
    try:
        yield
    finally:
        for package, path in paths:
            package.__path__.remove(path)
        _forget()
        if blender:
            from io_alamo.blender import discovery
            discovery.forget()
