"""``io-alamo <verb>`` (or ``python -m io_alamo <verb>``): look inside, check and convert Alamo
files without Blender; ``io-alamo batch ...`` hands over to the Blender batch converter."""

import argparse
import json
import os
import sys

from . import batch, meg_cli
from .choices import ALA_FORMATS
from .formats.alamo.animation import convert_animation, read_ala
from .formats.alamo.chunks import read_chunks
from .formats.alamo.compare import chunk_path_at, first_difference
from .formats.alamo.describe import chunk_tree, format_tree, summary, without_filename
from .formats.alamo.files import encode, read_any, save
from .formats.alamo.sniff import NotAlamoError, check_alamo
from .formats.alamo.validate import validate
from .formats.errors import AlamoFormatError, FormatError
from .formats.kinds import foreign_kind


def read_input(path):
    """(bytes, ForeignKind or None) of a file the command line was given: another engine's
    format by its magic, else an Alamo file, else :class:`NotAlamoError`."""
    data = meg_cli.read_input_bytes(path)         # a file, or ARCHIVE.meg:NAME
    kind = foreign_kind(data)
    if kind is None:
        check_alamo(data, filename=path)
    return data, kind


def cmd_info(args):
    status = 0
    for path in args.files:
        try:
            data, kind = read_input(path)
            lines = kind.info(data, path) if kind else summary(read_any(data, filename=path))
        except FormatError as e:
            print(f"{path}: {without_filename(e, path)}", file=sys.stderr)
            status = 1
            continue
        print(f"{path}:")
        for line in lines:
            print("  " + line)
    return status


def cmd_dump(args):
    data, _ = read_input(args.file)
    try:
        tree = chunk_tree(read_chunks(data))
    except AlamoFormatError as e:
        raise e.with_filename(args.file)
    if args.json:
        json.dump(tree, sys.stdout, indent=1)
        print()
    else:
        print("\n".join(format_tree(tree)))
    return 0


def cmd_roundtrip(args):
    status = 0
    for path in args.files:
        try:
            data, kind = read_input(path)
            if kind and kind.roundtrip is None:
                print(f"{path}: {kind.name} files are read, not written: no round trip")
                continue
            out = kind.roundtrip(data, path) if kind else encode(read_any(data, filename=path))
        except FormatError as e:
            label = "" if isinstance(e, NotAlamoError) else "error: "
            print(f"{path}: {label}{without_filename(e, path)}")
            status = 1
            continue
        at = first_difference(data, out)
        if at is None:
            print(f"{path}: identical")
        else:
            status = 1
            print(f"{path}: differs at offset 0x{at:x} in {chunk_path_at(data, at)} "
                  f"({len(data)} bytes in, {len(out)} out)")
    return status


def cmd_validate(args):
    status = 0
    for path in args.files:
        try:
            data, kind = read_input(path)
            problems = (kind.validate(data, path) if kind
                        else validate(read_any(data, filename=path)))
        except FormatError as e:
            problems = [without_filename(e, path)]
        for p in problems:
            print(f"{path}: {p}")
        if problems:
            status = 1
        elif not args.quiet:
            print(f"{path}: ok")
    return status


def cmd_convert_ala(args):
    data, _ = read_input(args.input)
    anim = read_ala(data, filename=args.input)
    save(convert_animation(anim, args.format), args.output)
    print(f"{args.output}: format #{args.format}, {anim.num_frames} frames, "
          f"{len(anim.bones)} bones")
    return 0


def program_name():
    """How the user called us: ``io-alamo`` (the installed command) or ``python -m io_alamo``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python -m io_alamo" if name in ("__main__.py", "-m", "-c", "") else name


def build_parser(prog=None):
    p = argparse.ArgumentParser(prog=prog or program_name(),
                                description="Inspect, check and convert Alamo .alo/.ala files.")
    sub = p.add_subparsers(dest="verb", required=True)
    s = sub.add_parser("info", help="readable summary of models and animations")
    s.add_argument("files", nargs="+")
    s.set_defaults(run=cmd_info)
    s = sub.add_parser("dump", help="the chunk tree with types, sizes, offsets and mini-chunks")
    s.add_argument("file")
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s.set_defaults(run=cmd_dump)
    s = sub.add_parser("roundtrip", help="read and write back in memory; report differences")
    s.add_argument("files", nargs="+")
    s.set_defaults(run=cmd_roundtrip)
    s = sub.add_parser("validate", help="structural checks, one line per problem")
    s.add_argument("files", nargs="+")
    s.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    s.set_defaults(run=cmd_validate)
    s = sub.add_parser("convert-ala", help="convert an animation between formats #1 and #2")
    s.add_argument("input")
    s.add_argument("output")
    s.add_argument("--format", type=int, choices=sorted(ALA_FORMATS), required=True,
                   help="1 = Empire at War, 2 = Forces of Corruption")
    s.set_defaults(run=cmd_convert_ala)
    meg_cli.add_parser(sub)
    sub.add_parser("batch", add_help=False,
                   help="import, export or roundtrip many files through Blender (needs bpy): "
                        "batch {import,export,roundtrip} --help")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["batch"]:          # everything after it is the batch converter's
        return batch.main(argv[1:], prog=f"{program_name()} batch")
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        # output piped into e.g. `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except FormatError as e:
        # "x.png: not an Alamo file (...)" is a statement about the file, not a fault in it
        print(f"{'' if isinstance(e, NotAlamoError) else 'error: '}{e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
