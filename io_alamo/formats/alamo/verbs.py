"""What the format registry asks of Alamo files: the same (data, filename) functions every
format gives it (info lines, problems, round trip), and the two verbs only Alamo files have
(the chunk tree of ``dump``, the animation conversion of ``convert-ala``)."""

from ..content import open_input
from ..errors import AlamoFormatError
from ..problems import Problem, warning
from ..run_cache import read_only
from .alo_read import decode_alo
from .animation import Animation, convert_animation, decode_ala, read_ala
from .chunks import BytesLike, TrailingDataError, read_chunks
from .describe import chunk_tree, counts, summary
from ..saving import check_overwrite
from .choices import ALA_FORMATS
from .files import encode, read_any, save
from .game_rules import game_lines, is_animation
from .validate import file_problems, validate

__all__ = ["add_convert_ala_parser", "cmd_convert_ala", "convert", "dump_tree", "info_lines",
           "problems", "roundtrip"]


def info_lines(data: BytesLike, filename: str | None = None) -> list[str]:
    """A readable summary of a model, particle effect or animation, one line each."""
    return summary(read_any(data, filename=filename))


def info_json(data: BytesLike, filename: str | None = None) -> dict:
    """``info --json``'s data of a model or animation: the counts ``info`` prints."""
    return counts(read_any(data, filename=filename))


def problems(data: BytesLike, filename: str | None = None) -> list[Problem]:
    """Structural problems, then what the game's loaders would refuse (an animation checked
    against the model beside it, as the alo-viewer pairs them), each with its severity;
    [] for a good file. The chunks are parsed once for both. Bytes after the last chunk
    are a warning (the game ignores them), and the file before them is checked."""
    try:
        roots = read_chunks(data)
    except TrailingDataError as e:
        cut = problems(memoryview(data)[:e.at], filename)
        return [warning(e.message, f"offset 0x{e.at:x}")] + cut
    except AlamoFormatError as e:
        raise e.with_filename(filename)
    with read_only():       # the records only live here, to be looked at: no array copies
        try:
            obj = decode_ala(roots) if is_animation(data) else decode_alo(roots)
        except AlamoFormatError as e:
            raise e.with_filename(filename)
        found = validate(obj) + file_problems(obj, filename)
    return found + game_lines(data, filename, roots=roots)


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


def cmd_convert_ala(args):
    data, fmt = open_input(args.input, "convert-ala")
    replaced = check_overwrite([args.output], args.overwrite)
    if not str(args.output).lower().endswith(".ala"):
        raise AlamoFormatError("convert-ala writes an animation, and the game loads "
                               "animations from .ala files only: name the output .ala",
                               filename=args.output)
    anim = fmt.convert(data, args.input, args.format)
    save(anim, args.output)
    print(f"{args.output}: format #{args.format}, {anim.num_frames} frames, "
          f"{len(anim.bones)} bones" + (" (replaced the existing file)" if replaced else ""))
    return 0


def add_convert_ala_parser(sub):
    """The command line's ``convert-ala`` verb (declared in :mod:`.entries`)."""
    text = "convert an animation between formats #1 and #2 (Alamo .ala only)"
    s = sub.add_parser("convert-ala", help=text, description=text)
    s.set_defaults(run=cmd_convert_ala)
    s.add_argument("input", metavar="INPUT", help="an animation (.ala; format #1 or #2)")
    s.add_argument("output", metavar="OUTPUT", help="the animation to write (.ala)")
    s.add_argument("--format", type=int, choices=sorted(ALA_FORMATS), required=True,
                   help="1 = Empire at War, 2 = Forces of Corruption")
    s.add_argument("--overwrite", action="store_true", help="replace OUTPUT if it exists")
    return s
