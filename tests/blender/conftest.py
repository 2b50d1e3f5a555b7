"""Real headless Blender (the PyPI ``bpy`` wheel). Skipped where bpy is not installed;
scripts/test.sh runs this folder once per supported Blender version."""

import pytest

from io_alamo.scratch import blender_user_resources
blender_user_resources("io_alamo-blender-")
try:
    import bpy  # noqa: F401  (imported once per process)
except ImportError:
    bpy = None


if bpy is None:
    # Without bpy these modules cannot even be imported: do not collect them at all.
    collect_ignore_glob = ["test_*.py", "*/test_*.py", "scene.py"]



@pytest.fixture(scope="session")
def addon():
    import io_alamo
    io_alamo.register()
    yield io_alamo
    io_alamo.unregister()     # Blender 4.2/4.5 crash at exit if classes stay registered


@pytest.fixture
def blender(addon):
    """A fresh empty scene with the add-on registered."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy


@pytest.fixture(autouse=True)
def game_loads_what_was_written(request):
    """After each test, every .alo and .ala it wrote under its tmp_path goes through the
    game's loaders (the alo-viewer's, built by tests/alo_viewer.py): a file they refuse fails
    the test. Tests that write broken files on purpose are marked ``game_refuses``."""
    if "tmp_path" not in request.fixturenames or request.node.get_closest_marker("game_refuses"):
        yield
        return
    tmp = request.getfixturevalue("tmp_path")
    yield
    import alo_viewer
    written = [p for p in sorted(tmp.rglob("*")) if p.is_file()
               and p.suffix.lower() in (".alo", ".ala")]
    if not written or alo_viewer.viewer() is None:
        return
    written = [p for p in written if _written_by_io_alamo(p)]
    models = [p for p in written if p.suffix.lower() == ".alo"] + _scene_models(tmp)
    refused = alo_viewer.refused_written(written, models) + _particles_refused(written)
    assert not refused, "the game's loaders refuse files the test wrote:\n" + "\n".join(refused)


def _particles_refused(written):
    """particle_check's FAIL lines for the particle effects among ``written``, but for those
    the viewer refuses only for the particle editors' chunks (the game skips them; a file
    that had them keeps them)."""
    import alo_viewer
    from io_alamo.formats.alamo.particles.game_rules import particle_refusal
    effects = [p for p in written if p.suffix.lower() == ".alo" and alo_viewer.is_particle(p)]
    if not effects or alo_viewer.particle_viewer() is None:
        return []
    out = []
    for path, (ok, line) in alo_viewer.check_particles(effects).items():
        refusal, found = particle_refusal(open(path, "rb").read())
        editors = any(p.message.startswith("the particle editors' ") for p in found)
        if not ok and (refusal is not None or not editors):
            out.append(line)
    return out


# The project's spec fixtures that hold what the game refuses on purpose (tests/fixtures):
# a format #2 scale block (0x100b), dazzle mini-chunks straight in 0x604, unknown chunks.
GAME_REFUSED_FIXTURES = {"fixture_ala_v2_scale", "fixture_alo_dazzles_direct",
                         "fixture_alo_unknown_chunks"}


def _written_by_io_alamo(path):
    """False for test input: files io_alamo cannot read (broken on purpose; every file it
    writes reads back) and the spec fixtures that hold what the game refuses."""
    from io_alamo.formats.alamo import AlamoFormatError, read_any
    if path.stem in GAME_REFUSED_FIXTURES:
        return False
    try:
        read_any(path.read_bytes())
    except (AlamoFormatError, OSError, MemoryError, RecursionError):
        return False
    return True


def _scene_models(tmp):
    """The models the scene's armatures were imported from, as files (for animations that
    the test wrote without their model beside them)."""
    from io_alamo.blender.source import get_source
    out = []
    folder = tmp / ".scene-models"
    for k, obj in enumerate(o for o in bpy.data.objects if o.type == "ARMATURE"):
        data = get_source(obj)
        if data is None:
            continue
        folder.mkdir(exist_ok=True)
        path = folder / f"model{k}.alo"
        path.write_bytes(bytes(data))
        out.append(path)
    return out
