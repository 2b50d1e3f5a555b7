"""``io-alamo <verb>`` (or ``python -m io_alamo <verb>``): look inside, check and convert model
files of the four engines io_alamo reads (Alamo .alo/.ala, Alithia and ALOD .alm, Arma .p3d)
without Blender; ``io-alamo batch ...`` hands over to the Blender batch converter.

Every verb asks the format registry (:mod:`io_alamo.formats.registry`) what a file is; a verb
a format does not support says so in one line. Every message has one shape,
``FILE: what is wrong (where)``."""

import argparse
import json
import os
import sys

from . import __version__, batch
from .formats.alamo import meg_cli
from .formats.alamo.choices import ALA_FORMATS
from .formats import registry
from .formats.alamo.compare import chunk_path_at
from .formats.alamo.describe import format_tree
from .formats.alamo.files import save
from .formats.errors import FormatError, without_filename
from .formats.files import first_difference
from .formats.saving import SaveError

__all__ = ["build_parser", "chunk_path_at", "first_difference", "main", "program_name"]


def open_input(path, verb):
    """(bytes, Format) of a file the command line was given; a FormatError if it is in no
    format io_alamo reads (``not an Alamo file (starts with ...)``) or in one ``verb`` does
    not work on."""
    data = meg_cli.read_input_bytes(path)          # a file, or ARCHIVE.meg:NAME
    fmt = registry.recognise(data, path)
    if not fmt.supports(verb):
        raise registry.refuse_verb(data, path, verb)
    return data, fmt


def error_line(e, path):
    """``FILE: what is wrong (where)`` for any error a verb meets."""
    if isinstance(e, FormatError):
        return e.line(path)
    return f"{path}: {without_filename(e, path)}"


def problem_line(problem, path):
    """A validate problem (a string, or the text of an error) as ``FILE: problem``."""
    return f"{path}: {without_filename(problem, path)}"


def cmd_info(args):
    status, out = 0, []
    for path in args.files:
        try:
            data, fmt = open_input(path, "info")
            lines = fmt.describe(data, path)
        except FormatError as e:
            status = 1
            out.append({"file": path, "error": error_line(e, path)})
            if not args.json:
                print(error_line(e, path), file=sys.stderr)
            continue
        entry = {"file": path, "format": fmt.key, "what": fmt.what(data), "lines": lines}
        if args.json and fmt.info_json is not None:
            entry.update(fmt.info_json(data, path))
        out.append(entry)
        if not args.json:
            print(f"{path}:")
            for line in lines:
                print("  " + line)
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
    return status


def cmd_dump(args):
    data, fmt = open_input(args.file, "dump")
    tree = fmt.dump(data, args.file)
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
            data, fmt = open_input(path, "info")
            if not fmt.supports("roundtrip"):
                print(f"{path}: is {fmt.what(data)}, which io_alamo reads but does not write: "
                      "no round trip")
                continue
            out = fmt.roundtrip(data, path)
        except FormatError as e:
            print(error_line(e, path))
            status = 1
            continue
        at = first_difference(data, out)
        if at is None:
            print(f"{path}: identical")
        else:
            status = 1
            print(f"{path}: differs, {len(data)} bytes in, {len(out)} out "
                  f"({fmt.where(data, at)})")
    return status


def cmd_validate(args):
    results = []
    for path in args.files:
        try:
            data, fmt = open_input(path, "validate")
            problems = [problem_line(p, path) for p in fmt.validate(data, path)]
            results.append({"file": path, "format": fmt.key, "problems": problems})
        except FormatError as e:
            results.append({"file": path, "format": None, "problems": [error_line(e, path)],
                            "unread": True})
    for r in results:
        r["ok"] = not r["problems"]
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        print()
    else:
        for r in results:
            for line in r["problems"]:
                print(line)
            if r["ok"] and not args.quiet:
                print(f"{r['file']}: ok")
        print_validate_summary(results, args.quiet)
    return 0 if all(r["ok"] for r in results) else 1


def print_validate_summary(results, quiet):
    """``validated 3 files: 1 not read, 1 with 2 problems, 1 ok`` (nothing when none was
    read: their one-line errors say it all)."""
    read = [r for r in results if not r.get("unread")]
    if quiet or not read:
        return
    unread = len(results) - len(read)
    bad = [r for r in read if r["problems"]]
    parts = [f"{unread} not read"] if unread else []
    if bad:
        n = sum(len(r["problems"]) for r in bad)
        parts.append(f"{len(bad)} with {n} problem{'s' if n != 1 else ''}")
    parts.append(f"{len(read) - len(bad)} ok")
    print(f"validated {len(results)} file{'s' if len(results) != 1 else ''}: "
          + ", ".join(parts))


def cmd_convert_ala(args):
    data, fmt = open_input(args.input, "convert-ala")
    anim = fmt.convert(data, args.input, args.format)
    save(anim, args.output)
    print(f"{args.output}: format #{args.format}, {anim.num_frames} frames, "
          f"{len(anim.bones)} bones")
    return 0


def program_name():
    """How the user called us: ``io-alamo`` (the installed command) or ``python -m io_alamo``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python -m io_alamo" if name in ("__main__.py", "-m", "-c", "") else name


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown after each option; the examples kept as written."""


EXAMPLES = """\
examples:
  {prog} info EI_VADER.ALO An_225_3.p3d        a summary of each file
  {prog} info --json *.alm                     the same as JSON
  {prog} validate -q Data/Art/Models/*.alo     only the problems, then a summary line
  {prog} roundtrip *.alo *.ala                 read and write back; report differences
  {prog} dump EI_VADER.ALO                     the chunk tree (Alamo files only)
  {prog} convert-ala IDLE.ALA IDLE_EAW.ALA --format 1
  {prog} batch import Models/ --out out/ --preview   (needs Blender's bpy)

Formats: {formats}.
Every message reads FILE: what is wrong (where); offsets are in hex."""


def build_parser(prog=None):
    prog = prog or program_name()
    formats = "; ".join(f"{f.what()} ({'/'.join(f.extensions)})" for f in registry.FORMATS)
    p = argparse.ArgumentParser(
        prog=prog, formatter_class=_HelpFormatter,
        description="Inspect, check and convert the models io_alamo reads: Alamo .alo/.ala, "
                    "Alithia and ALOD .alm, Arma binarized .p3d.",
        epilog=EXAMPLES.format(prog=prog, formats=formats))
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(name, helptext, run):
        s = sub.add_parser(name, help=helptext, description=helptext,
                           formatter_class=_HelpFormatter)
        s.set_defaults(run=run)
        return s

    s = verb("info", "readable summary of each file (every format)", cmd_info)
    s.add_argument("files", nargs="+", metavar="FILE")
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s = verb("dump", "the chunk tree with types, sizes, hex offsets and mini-chunks "
             "(Alamo .alo/.ala only)", cmd_dump)
    s.add_argument("file", metavar="FILE")
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s = verb("roundtrip", "read and write back in memory; report the first difference "
             "(formats io_alamo writes)", cmd_roundtrip)
    s.add_argument("files", nargs="+", metavar="FILE")
    s = verb("validate", "structural checks, one line per problem, then a summary line "
             "(every format)", cmd_validate)
    s.add_argument("files", nargs="+", metavar="FILE")
    s.add_argument("-q", "--quiet", action="store_true",
                   help="print only problems (no 'ok' lines, no summary)")
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s = verb("convert-ala", "convert an animation between formats #1 and #2 (Alamo .ala only)",
             cmd_convert_ala)
    s.add_argument("input", metavar="INPUT")
    s.add_argument("output", metavar="OUTPUT")
    s.add_argument("--format", type=int, choices=sorted(ALA_FORMATS), required=True,
                   help="1 = Empire at War, 2 = Forces of Corruption")
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
        print(e.line(), file=sys.stderr)
        return 1
    except SaveError as e:
        print(e, file=sys.stderr)             # FILE: cannot be written: why
        return 1
    except OSError as e:
        where = f"{e.filename}: " if e.filename else "error: "
        print(f"{where}{e.strerror or e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
