"""Read a binarized P3D (ODOL): ``read_p3d(data) -> P3dModel``.

Versions 40-73 (Armed Assault, Arma 2, DayZ's 53 and 54, Arma 3). Each LOD is read from the
offset the file records; where texture paths were edited after binarisation the recorded
offsets point a few bytes too far, and the reader follows the data, with a warning.
"""

import struct

import numpy as np

from .binary import P3dFormatError, Reader
from .header import (is_dayz, read_animations, read_lod_defaults, read_model_info,
                     read_model_info_dayz)
from .lod import read_lod
from .records import P3dModel
from .resolution import lod_name

MAGIC = b"ODOL"
MIN_VERSION, MAX_VERSION = 40, 73
ENCRYPTED_FROM = 75
MAX_LODS = 4096


def read_p3d(data: bytes, filename: str | None = None) -> P3dModel:
    """Every LOD of the binarized P3D in ``data`` (bytes)."""
    r = Reader(data, filename=filename)
    try:
        return _read(r)
    except P3dFormatError:
        raise
    except (ValueError, IndexError, OverflowError, struct.error, MemoryError) as e:
        raise r.error(f"unreadable data ({type(e).__name__}: {e})") from None


def _version(r):
    head = r.data[:4]
    if head != MAGIC:
        what = ("an editable (MLOD) P3D, not a binarized one" if head == b"MLOD"
                else f"not a binarized P3D (starts with {head!r}, not b'ODOL')")
        raise r.error(what, 0)
    r.pos = 4
    version = r.u32()
    r.version = version
    if version & 0xFFFFFF00 == 0x20202000:
        r.version = version & 0xFF
        raise r.error(f"the version field reads 0x{version:08x}: the file's NUL bytes were "
                      "replaced by spaces (a damaged copy)", 4)
    if version >= ENCRYPTED_FROM and len(r.data) >= 16:
        if r.data[8:16] != bytes(8):
            raise r.error("the model is encrypted; it cannot be read", 8)
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise r.error(f"version {version} is not supported (io_alamo reads ODOL versions "
                      f"{MIN_VERSION}-{MAX_VERSION})", 4)
    return version


def _read(r):
    version = _version(r)
    model = P3dModel(version, None, None, [])
    if version >= 59:
        model.app_id = r.u32()
    if version >= 58:
        model.prefix = r.asciiz()
    n = r.count("LODs", 4)
    if n > MAX_LODS:
        raise r.error(f"{n:,} LODs (at most {MAX_LODS:,} expected)")
    model.resolutions = r.floats(n)
    model.info = (read_model_info_dayz if is_dayz(version) else read_model_info)(r, n)
    if r.boolean():
        model.animations = read_animations(r)
    with r.enter("LOD table"):
        r.need(8 * n, "LOD offsets")
        starts = np.frombuffer(r.take(4 * n), "<u4").astype(np.int64)
        ends = np.frombuffer(r.take(4 * n), "<u4").astype(np.int64)
    model.defaults = read_lod_defaults(r, n)
    model.lods = _read_lods(r, model.resolutions, starts, ends)
    _check_defaults(r, model)
    model.warnings = r.warnings
    return model


def _read_lods(r, resolutions, starts, ends):
    """Each LOD in file order. ``shift`` is how far the data has moved from the recorded
    offsets (edited texture paths): later LODs are looked for that much earlier or later."""
    lods = [None] * len(resolutions)
    shift = 0
    size = len(r.data)
    for i in np.argsort(starts, kind="stable"):
        name = f"LOD {i} ({lod_name(resolutions[i])})"
        start, end = int(starts[i]) + shift, int(ends[i]) + shift
        with r.enter(name):
            if not 0 <= start < size:
                raise r.error(f"the LOD starts at 0x{int(starts[i]):x}, outside the "
                              f"{size:,}-byte file", 4)
            lod = read_lod(r, float(resolutions[i]), start, end)
        if r.pos != end:
            beyond = (f" ({end - size} bytes past the end of the file)" if end > size else "")
            r.warnings.append(f"{name}: ends at 0x{r.pos:x}, the file says 0x{end:x}{beyond}; "
                              "read as far as the data goes (texture paths edited after "
                              "binarisation?)")
            shift += r.pos - end
            lod.end = r.pos
        lods[i] = lod
    return lods


def _check_defaults(r, model):
    for i, (d, lod) in enumerate(zip(model.defaults, model.lods)):
        if d is not None and d.face_count != len(lod.faces):
            r.warnings.append(f"LOD {i} ({lod_name(lod.resolution)}): the header says "
                              f"{d.face_count:,} faces, the LOD has {len(lod.faces):,}")
