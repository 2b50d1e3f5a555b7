"""ALOD's entry in the format registry: ``ALM\\0`` progressive meshes (.alm)."""

import struct

from ..entry import Format
from . import MAGIC, AlodFormatError, info_lines, problems, read_alod, roundtrip, write_alod

__all__ = ["FORMATS"]


def _version(data):
    head = bytes(data[4:8])
    return f"version {struct.unpack('>I', head)[0]}" if len(head) == 4 else ""


FORMATS = (
    Format("alod", "ALOD", "an ALOD model", (".alm",),
           lambda head: head.startswith(MAGIC),
           read_alod, info_lines, problems, write=write_alod,
           roundtrip=roundtrip, detail=_version,
           import_operator="import_scene.alod", import_label="ALOD Model (.alm)",
           error=AlodFormatError),
)
