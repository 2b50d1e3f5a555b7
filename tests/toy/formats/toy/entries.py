"""The toy engine's one entry: all a new format declares to be known everywhere."""

from io_alamo.formats.entry import Format

from . import (MAGIC, ToyFormatError, ToyImportOptions, info_lines, problems, read_toy,
               roundtrip, write_toy)

FORMATS = (
    Format("toy", "Toy", "a toy model", (".toy",), lambda head: head.startswith(MAGIC),
           read_toy, info_lines, problems, write=write_toy, roundtrip=roundtrip,
           import_operator="import_scene.toy", import_label="Toy Model (.toy)",
           error=ToyFormatError, batch=("import",), import_options=ToyImportOptions),
)
