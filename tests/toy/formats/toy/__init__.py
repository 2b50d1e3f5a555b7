"""A toy engine's format layer: ``TOY1`` then a count and that many little-endian floats."""

import struct
from dataclasses import dataclass

from io_alamo.formats.errors import FormatError
from io_alamo.formats.options import option

MAGIC = b"TOY1"


class ToyFormatError(FormatError):
    """What the toy reader raises."""


@dataclass
class ToyImportOptions:
    """The toy import's one option, declared once: File > Import's property, the batch's
    flag and the workers' command line come from it."""
    mirror: bool = option(False, "Mirror", "Negate the values (x = -value)",
                          flag="--toy-mirror", flag_help=".toy: negate the values")


def read_toy(data, filename=None):
    if len(data) < 8 or not bytes(data[:4]) == MAGIC:
        raise ToyFormatError("not a toy file", offset=0, filename=filename)
    count = struct.unpack("<I", bytes(data[4:8]))[0]
    if 8 + 4 * count != len(data):
        raise ToyFormatError(f"{count} values do not fit", offset=4, filename=filename)
    return list(struct.unpack(f"<{count}f", bytes(data[8:])))


def write_toy(values):
    return MAGIC + struct.pack(f"<I{len(values)}f", len(values), *values)


def info_lines(data, filename=None):
    return [f"a toy with {len(read_toy(data, filename))} values"]


def problems(data, filename=None):
    read_toy(data, filename)
    return []


def roundtrip(data, filename=None):
    return write_toy(read_toy(data, filename))
