"""Alamo's entries in the format registry: .alo models, .ala animations, .meg archives (read
through the neutral content source too), and the command-line verbs only Alamo files have
(``convert-ala``, ``meg``)."""

import struct

from ..entry import CliVerb, ContentSource, Format
from ..errors import AlamoFormatError
from . import game_data, meg
from .meg import cli as meg_cli
from . import verbs as alamo_verbs
from .alo_read import read_alo
from .alo_write import write_alo
from .animation import read_ala, write_ala
from .chunk_types import ChunkType
from .compare import chunk_path_at
from .describe import format_tree
from .options import AloImportOptions, UnitExportOptions
from .sniff import ROOT_TYPES, check_alamo

__all__ = ["CLI_VERBS", "CONTENT", "FORMATS"]


def _root_type(head):
    head = bytes(head[:4])
    return struct.unpack("<I", head)[0] if len(head) == 4 else None


def _explain(data, filename=None):
    check_alamo(data, filename=filename)       # raises: no entry takes these bytes


FORMATS = (
    Format("alo", "Alamo", "an Alamo model", (".alo",),
           lambda head: _root_type(head) in ROOT_TYPES - {ChunkType.ANIMATION},
           read_alo, alamo_verbs.info_lines, alamo_verbs.problems, write=write_alo,
           roundtrip=alamo_verbs.roundtrip, dump=alamo_verbs.dump_tree, locate=chunk_path_at,
           import_operator="import_scene.alo", import_label="Alamo Model (.alo)",
           export_operator="export_scene.alo", export_label="Alamo Model (.alo)",
           error=AlamoFormatError, explain=_explain, batch=("import", "export", "roundtrip"),
           dump_lines=format_tree, info_json=alamo_verbs.info_json,
           import_options=AloImportOptions, export_options=UnitExportOptions),
    Format("ala", "Alamo", "an Alamo animation", (".ala",),
           lambda head: _root_type(head) == ChunkType.ANIMATION,
           read_ala, alamo_verbs.info_lines, alamo_verbs.problems, write=write_ala,
           roundtrip=alamo_verbs.roundtrip, dump=alamo_verbs.dump_tree,
           convert=alamo_verbs.convert, locate=chunk_path_at,
           import_operator="import_anim.alamo_ala", import_label="Alamo Animation (.ala)",
           export_operator="export_anim.alamo_ala", export_label="Alamo Animation (.ala)",
           error=AlamoFormatError, dump_lines=format_tree, info_json=alamo_verbs.info_json),
    # MEG has no magic: a guess from its header, so it comes after every format that has one
    Format("meg", "Alamo", "a Petroglyph MEG archive", (".meg",), meg.looks_like_meg,
           meg.MegArchive, meg.info_lines, meg.problems, error=meg.MegFormatError, order=90,
           refusal_hint="; its members: io-alamo meg list",
           write_hint="io-alamo meg create packs a folder into one"),
)

CLI_VERBS = (
    CliVerb("convert-ala", alamo_verbs.add_convert_ala_parser),
    CliVerb("meg", meg_cli.add_parser),
)

CONTENT = (
    ContentSource("MEG", (".meg",), meg.MegArchive, game_data.ArchiveSet, meg.member_label,
                  game_data.data_folder, game_data.data_archives, game_data.source_archives),
)
