"""Alithia's entry in the format registry: ALM1 .alm models, read and written."""

from ..entry import Format
from . import alm1
from .options import Alm1ExportOptions, Alm1ImportOptions

__all__ = ["FORMATS"]

FORMATS = (
    Format("alm1", "Alithia", "an Alithia ALM1 model", (".alm",),
           lambda head: head.startswith(alm1.MAGIC),
           alm1.read_alm1, alm1.info_lines, alm1.problems, write=alm1.write_alm1,
           roundtrip=alm1.roundtrip,
           import_operator="import_scene.alm1", import_label="Alithia Model (.alm)",
           export_operator="export_scene.alm1", export_label="Alithia Model (.alm)",
           error=alm1.Alm1FormatError, batch=("import", "convert"),
           import_options=Alm1ImportOptions, export_options=Alm1ExportOptions),
)
