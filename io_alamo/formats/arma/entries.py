"""Arma's entry in the format registry: binarized (ODOL) .p3d models, read-only."""

from ..entry import Format, header_number
from . import describe
from .binary import P3dFormatError
from .options import P3dImportOptions
from .read import read_p3d

__all__ = ["FORMATS"]

FORMATS = (
    Format("p3d", "Arma", "an Arma binarized model", (".p3d",),
           lambda head: head.startswith(b"ODOL"),
           read_p3d, describe.info_lines, describe.problems,
           detail=header_number("ODOL v{}", missing="ODOL"),
           import_operator="import_scene.p3d", import_label="Arma Binarized Model (.p3d)",
           error=P3dFormatError, batch=("import", "convert"),
           import_options=P3dImportOptions),
)
