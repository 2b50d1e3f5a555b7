"""The particle effect's registry entry (see the declaration contract): tried before the plain
.alo entry (``order=-10``), since both are .alo files of the same chunk scheme."""

import struct

from ...entry import Format
from ...errors import AlamoFormatError
from ..compare import chunk_path_at
from ..describe import format_tree
from . import describe
from ..sniff import is_particle_file
from .read import ROOT_UAW, read_particles
from .write import write_particles


def _detail(data: bytes) -> str:
    if len(data) >= 4 and struct.unpack_from("<I", data)[0] == ROOT_UAW:
        return "Universe at War"
    return ""


__all__ = ["FORMATS"]

FORMATS = (
    Format("alo-particles", "Alamo", "an Alamo particle effect", (".alo",), is_particle_file,
           read_particles, describe.info_lines, describe.problems, write=write_particles,
           roundtrip=describe.roundtrip, detail=_detail, dump=describe.dump_tree,
           dump_lines=format_tree,
           locate=chunk_path_at, info_json=describe.info_json,
           import_operator="import_scene.alo", import_label="Alamo Model (.alo)",
           export_operator="export_scene.alo", export_label="Alamo Model (.alo)",
           error=AlamoFormatError, order=-10, batch=("import", "roundtrip")),
)
