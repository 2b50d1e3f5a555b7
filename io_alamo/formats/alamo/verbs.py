"""What the format registry asks of Alamo files: the same (data, filename) functions every
format gives it (info lines, problems, round trip), and the two verbs only Alamo files have
(the chunk tree of ``dump``, the animation conversion of ``convert-ala``)."""

from ..errors import AlamoFormatError
from .animation import Animation, convert_animation, read_ala
from .chunks import BytesLike, read_chunks
from .describe import chunk_tree, summary
from .files import encode, read_any
from .game_rules import game_lines
from .validate import validate

__all__ = ["convert", "dump_tree", "info_lines", "problems", "roundtrip"]


def info_lines(data: BytesLike, filename: str | None = None) -> list[str]:
    """A readable summary of a model, particle effect or animation, one line each."""
    return summary(read_any(data, filename=filename))


def problems(data: BytesLike, filename: str | None = None) -> list[str]:
    """Structural problems, one line each, then what the game's loaders would refuse (an
    animation checked against the model beside it, as the alo-viewer pairs them); [] for a
    good file."""
    return validate(read_any(data, filename=filename)) + game_lines(data, filename)


def roundtrip(data: BytesLike, filename: str | None = None) -> bytes:
    """The file read and written back in memory."""
    return encode(read_any(data, filename=filename))


def dump_tree(data: BytesLike, filename: str | None = None) -> list[dict]:
    """The chunk tree as plain dicts (types, sizes, offsets, decoded mini-chunks)."""
    try:
        return chunk_tree(read_chunks(data))
    except AlamoFormatError as e:
        raise e.with_filename(filename)


def convert(data: BytesLike, filename: str | None, fmt: int) -> Animation:
    """The animation in ``data`` converted to format ``fmt`` (1 or 2)."""
    return convert_animation(read_ala(data, filename=filename), fmt)
