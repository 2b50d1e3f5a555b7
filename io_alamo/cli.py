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

from . import __version__, batch, cli_validate
from .inputs import expand, nothing_found_line
from .formats import registry
from .formats.content import open_input, split_member
from .formats.errors import FormatError, without_filename
from .formats.problems import as_problem
from .formats.files import first_difference
from .formats.saving import SaveError

__all__ = ["build_parser", "first_difference", "main", "open_input", "program_name"]


def verb_files(items, verb):
    """The files of ``items`` (files, folders walked recursively for the types ``verb``
    reads, wildcards, ``ARCHIVE.meg:NAME`` members) as strings, and the count of items that
    gave none (each said on stderr)."""
    suffixes = {ext for f in registry.FORMATS if f.supports(verb) for ext in f.extensions}
    found, empty = expand(items, suffixes, keep=lambda t: split_member(t) is not None)
    for item in empty:
        print(nothing_found_line(item, suffixes), file=sys.stderr)
    return [str(f.path) for f in found], len(empty)


def plural(n, word, words=None):
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def error_line(e, path):
    """``FILE: what is wrong (where)`` for any error a verb meets."""
    if isinstance(e, FormatError):
        return e.line(path)
    return f"{path}: {without_filename(e, path)}"


def os_error_line(e, path=None):
    """An OSError as ``FILE: what is wrong``: ``x.alo: No such file or directory``; errors
    made with a whole message (which names its file) as they are."""
    if e.filename:
        return f"{e.filename}: {e.strerror or e}"
    if path is None or str(e).startswith(str(path)):
        return str(e)
    return f"{path}: {e}"


def cmd_info(args):
    files, missing = verb_files(args.files, "info")
    status, out = int(bool(missing)), []
    silent = args.json or not sys.stdout.isatty()     # else the lines show the progress
    for k, path in enumerate(files):
        if silent and (k % cli_validate.CHUNK == 0 or k == len(files) - 1):
            cli_validate.progress(k + 1, len(files), verb="info")
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
    else:
        bad = sum("error" in r for r in out)
        print(f"info: {plural(len(out), 'file')}" + (f", {bad:,} not read" if bad else ""))
    return status


def cmd_dump(args):
    data, fmt = open_input(args.file, "dump")
    tree = fmt.dump(data, args.file)
    if args.json:
        json.dump(tree, sys.stdout, indent=1)
        print()
    else:
        print("\n".join(fmt.dump_lines(tree) if fmt.dump_lines else map(str, tree)))
    return 0


def roundtrip_one(path):
    """(outcome, line) of one file: identical, differs, not written, not read."""
    try:
        data, fmt = open_input(path, "info")
        if not fmt.supports("roundtrip"):
            hint = f" ({fmt.write_hint})" if fmt.write_hint else ""
            return "not written", (f"{path}: is {fmt.what(data)}, which io_alamo reads but "
                                   f"does not write: no round trip{hint}")
        out = fmt.roundtrip(data, path)
    except (FormatError, OSError) as e:
        return "not read", (error_line(e, path) if isinstance(e, FormatError)
                            else os_error_line(e, path))
    at = first_difference(data, out)
    line = f"{path}: identical" if at is None else (
        f"{path}: differs, {len(data)} bytes in, {len(out)} out ({fmt.where(data, at)})")
    return ("identical" if at is None else "differs"), line + _worth_saying(data, fmt, path)


def _worth_saying(data, fmt, path):
    """What validate warns of in a file that round-trips (NaN values, ...): one more line
    each, as validate prints them; a lossless copy of a broken file is still broken."""
    try:
        found = [as_problem(p) for p in fmt.validate(data, path)]
    except (FormatError, OSError):
        return ""
    lines = [f"\n{path}: {p.severity}: {p}" for p in found if p.severity != "note"]
    return "".join(lines)


def cmd_roundtrip(args):
    # folders give every file io_alamo reads: those it does not write are said so, as when
    # named one by one (a folder of .p3d: "not written", not "nothing found")
    files, missing = verb_files(args.files, "info")
    counts = {}
    for path in files:
        outcome, line = roundtrip_one(path)
        counts[outcome] = counts.get(outcome, 0) + 1
        print(line)
    parts = [f"{n:,} {k}" for k, n in counts.items()]
    print(f"roundtrip: {plural(len(files), 'file')}" + (": " + ", ".join(parts) if parts else ""))
    return 1 if missing or counts.get("differs") or counts.get("not read") else 0


def cmd_validate(args):
    files, missing = verb_files(args.files, "validate")
    results = cli_validate.check_files(files, jobs=args.jobs)
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        print()
    else:
        cli_validate.print_results(results, quiet=args.quiet)
    return 1 if missing else cli_validate.exit_status(results, strict=args.strict)


def program_name():
    """How the user called us: ``io-alamo`` (the installed command) or ``python -m io_alamo``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python -m io_alamo" if name in ("__main__.py", "-m", "-c", "") else name


FILES_HELP = ("files, folders (searched recursively for the files this verb reads) or "
              "wildcards (*.alo, Models/**/*.ALO; any case)")


VALIDATE_OPTIONS = (
    (("-q", "--quiet"), {"action": "store_true",
                         "help": "print only the problems, then the summary line"}),
    (("--json",), {"action": "store_true", "help": "print JSON instead of text: per file its "
                   'problems, each {"severity", "message", "where"}'}),
    (("--strict",), {"action": "store_true", "help": "exit status 1 for warnings too (by "
                     "default only errors: what the game refuses or what would crash it)"}),
    (("-j", "--jobs"), {"type": int, "default": 1, "metavar": "N", "help": "check the files "
                        "in N processes (big folders; 0 = one per core)"}),
)


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown after each option; the examples kept as written."""


class _EngineVerbs:
    """The subparsers an engine's CLI verb is added to: with the command line's formatter."""

    def __init__(self, sub):
        self._sub = sub

    def add_parser(self, name, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        return self._sub.add_parser(name, **kwargs)


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
    s.add_argument("files", nargs="+", metavar="FILE", help=FILES_HELP)
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s = verb("dump", "the chunk tree with types, sizes, hex offsets and mini-chunks "
             "(Alamo .alo/.ala only)", cmd_dump)
    s.add_argument("file", metavar="FILE", help="an Alamo .alo or .ala file (or ARCHIVE.meg:NAME)")
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s = verb("roundtrip", "read and write back in memory; report the first difference "
             "(formats io_alamo writes)", cmd_roundtrip)
    s.add_argument("files", nargs="+", metavar="FILE", help=FILES_HELP)
    s = verb("validate", "what the game's loaders say of each file, one line per problem "
             "(FILE: error|warning|note: where: what), then a summary line (every format). "
             "error: the game refuses the file or would crash; warning: it loads but looks or "
             "behaves wrong; note: harmless", cmd_validate)
    s.add_argument("files", nargs="+", metavar="FILE", help=FILES_HELP)
    for flags, more in VALIDATE_OPTIONS:
        s.add_argument(*flags, **more)
    for cli_verb in registry.CLI_VERBS:      # the verbs an engine adds (convert-ala, meg)
        cli_verb.add_parser(_EngineVerbs(sub))
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
        print(os_error_line(e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
