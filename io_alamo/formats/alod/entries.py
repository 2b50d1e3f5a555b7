"""ALOD's entry in the format registry: ``ALM\\0`` progressive meshes (.alm)."""

from ..entry import Format, header_number
from . import MAGIC, AlodFormatError, info_lines, problems, read_alod, roundtrip, write_alod
from .options import AlodImportOptions

__all__ = ["FORMATS"]

FORMATS = (
    Format("alod", "ALOD", "an ALOD model", (".alm",),
           lambda head: head.startswith(MAGIC),
           read_alod, info_lines, problems, write=write_alod,
           roundtrip=roundtrip, detail=header_number("version {}", order=">"),
           import_operator="import_scene.alod", import_label="ALOD Model (.alm)",
           error=AlodFormatError, batch=("import", "convert"),
           import_options=AlodImportOptions),
)
