# the package and tests/ are on sys.path by pytest's ``pythonpath`` (pyproject.toml)


def pytest_report_header(config):
    import importlib.util
    if importlib.util.find_spec("bpy") is None:
        return ("tests/blender not collected: bpy is not installed in this Python "
                "(scripts/test.sh runs them in .venvs/bpy*)")
    return "bpy wheel installed: tests/blender run in real headless Blender"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "game_refuses: the test writes .alo/.ala files the game's loaders refuse on "
                   "purpose (broken input); the alo-viewer check of written files skips it")


def pytest_terminal_summary(terminalreporter):
    import alo_viewer
    if alo_viewer.RUNS["calls"] or "path" in alo_viewer._state:
        terminalreporter.write_line(alo_viewer.summary_line())
