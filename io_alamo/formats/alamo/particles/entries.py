"""The particle effect's registry entry (see the declaration contract): tried before the plain
.alo entry (``order=-10``), since both are .alo files of the same chunk scheme."""

import struct

from ...errors import AlamoFormatError
from ..compare import chunk_path_at
from . import describe
from .read import ROOT, ROOT_UAW, read_particles
from .write import write_particles


def _is_particles(head: bytes) -> bool:
    return len(head) >= 4 and struct.unpack_from("<I", head)[0] in (ROOT, ROOT_UAW)


def _detail(data: bytes) -> str:
    if len(data) >= 4 and struct.unpack_from("<I", data)[0] == ROOT_UAW:
        return "Universe at War"
    return ""


def make_formats(Format):
    """The entries, built with the registry's ``Format`` (passed in while the registry still
    defines it; the contract moves it to ``formats/entry.py``)."""
    return (
        Format("alo-particles", "Alamo", "an Alamo particle effect", (".alo",), _is_particles,
               read_particles, describe.info_lines, describe.problems, write=write_particles,
               roundtrip=describe.roundtrip, detail=_detail, dump=describe.dump_tree,
               locate=chunk_path_at, info_json=describe.info_json,
               import_operator="import_scene.alo", import_label="Alamo Model (.alo)",
               export_operator="export_scene.alo", export_label="Alamo Model (.alo)",
               error=AlamoFormatError, order=-10),
    )
