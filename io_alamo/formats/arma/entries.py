"""Arma's entry in the format registry: binarized (ODOL) .p3d models, read-only."""

import struct

from ..entry import Format
from . import describe
from .binary import P3dFormatError
from .reader import read_p3d

__all__ = ["FORMATS"]


def _odol_version(data):
    head = bytes(data[4:8])
    return f"ODOL v{struct.unpack('<I', head)[0]}" if len(head) == 4 else "ODOL"


FORMATS = (
    Format("p3d", "Arma", "an Arma binarized model", (".p3d",),
           lambda head: head.startswith(b"ODOL"),
           read_p3d, describe.info_lines, describe.problems, detail=_odol_version,
           import_operator="import_scene.p3d", import_label="Arma Binarized Model (.p3d)",
           error=P3dFormatError),
)
