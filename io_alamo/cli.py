"""``python -m io_alamo <verb>``: look inside, check and convert Alamo files without Blender."""

import argparse
import json
import os
import sys

from .formats.animation import convert_animation
from .formats.chunks import read_chunks
from .formats.describe import chunk_tree, format_tree, summary
from .formats.errors import AlamoFormatError, FormatError
from .formats.files import encode, load_ala, read_file_bytes, read_any, save
from .formats.kinds import foreign_kind
from .formats.validate import validate


def first_difference(a, b):
    """Offset of the first differing byte (or the shorter length), or None if equal."""
    if a == b:
        return None
    n = min(len(a), len(b))
    lo = 0
    step = 1 << 16
    while lo < n and a[lo:lo + step] == b[lo:lo + step]:
        lo += step
    while lo < n and a[lo] == b[lo]:
        lo += 1
    return lo


def chunk_path_at(data, offset):
    """The path of the innermost chunk of ``data`` that contains ``offset``."""
    try:
        nodes = read_chunks(data)
    except AlamoFormatError:
        return "?"
    path = "(outside any chunk)"
    while nodes:
        for c in nodes:
            if c.offset <= offset < c.offset + 8 + c.size():
                path = c.path
                nodes = c.children or []
                break
        else:
            break
    return path


def cmd_info(args):
    for path in args.files:
        data = read_file_bytes(path)
        kind = foreign_kind(data)
        lines = kind.info(data, path) if kind else summary(read_any(data, filename=path))
        print(f"{path}:")
        for line in lines:
            print("  " + line)
    return 0


def cmd_dump(args):
    data = read_file_bytes(args.file)
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
            data = read_file_bytes(path)
            kind = foreign_kind(data)
            if kind and kind.roundtrip is None:
                print(f"{path}: {kind.name} files are read, not written: no round trip")
                continue
            out = kind.roundtrip(data, path) if kind else encode(read_any(data, filename=path))
        except FormatError as e:
            print(f"{path}: error: {e}")
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
            data = read_file_bytes(path)
            kind = foreign_kind(data)
            problems = (kind.validate(data, path) if kind
                        else validate(read_any(data, filename=path)))
        except FormatError as e:
            problems = [str(e)]
        for p in problems:
            print(f"{path}: {p}")
        if problems:
            status = 1
        elif not args.quiet:
            print(f"{path}: ok")
    return status


def cmd_convert_ala(args):
    anim = load_ala(args.input)
    save(convert_animation(anim, args.format), args.output)
    print(f"{args.output}: format #{args.format}, {anim.num_frames} frames, "
          f"{len(anim.bones)} bones")
    return 0


def build_parser():
    p = argparse.ArgumentParser(prog="python -m io_alamo",
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
    s.add_argument("--format", type=int, choices=(1, 2), required=True,
                   help="1 = Empire at War, 2 = Forces of Corruption")
    s.set_defaults(run=cmd_convert_ala)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        # output piped into e.g. `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except FormatError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
