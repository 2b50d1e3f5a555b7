"""The viewer's particle loader and simulation in the tests (``particle_check``, built beside
``alo_check`` by tests/alo_viewer.py's copy of ``../shared/tools/alo-viewer-check``): run it on
a particle file, read its per-emitter lines. None when it cannot be built (tests skip)."""

import re
import subprocess

import alo_viewer

_LINE = re.compile(r"t=(?P<t>[\d.]+) emitter=(?P<e>\d+) instances=\d+ live=(?P<live>\d+) "
                   r"spawned=\d+ mean=\S+ min=(?P<min>\S+) max=(?P<max>\S+) size_mean=(?P<size>\S+)")


def exe():
    """Path of ``particle_check`` (built on first use), or None."""
    if alo_viewer.viewer() is None:
        return None
    path = alo_viewer.BUILD / "particle_check"
    if not path.exists() or not alo_viewer._fresh(path):
        subprocess.run(["make", "-C", str(alo_viewer.BUILD), "particle_check"],
                       capture_output=True, text=True)
    return str(path) if path.exists() else None


def _vec(text):
    return None if text == "-" else tuple(float(v) for v in text.split(","))


def run(path, times):
    """(ok, first line, {(time, emitter): (live, min, max, size_mean)})."""
    out = subprocess.run([exe(), "--times", ",".join(str(t) for t in times), str(path)],
                         capture_output=True, text=True, timeout=300).stdout
    lines = out.splitlines()
    rows = {}
    for m in map(_LINE.search, lines):
        if m:
            rows[(float(m["t"]), int(m["e"]))] = (int(m["live"]), _vec(m["min"]),
                                                  _vec(m["max"]), m["size"])
    return bool(lines) and lines[0].startswith("OK "), (lines[0] if lines else out), rows
