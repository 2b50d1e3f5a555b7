"""``io-alamo meg list|extract`` (declared in :mod:`.entries`; ``ARCHIVE:NAME`` members for
``info``/``validate``/``dump`` are read through the neutral :mod:`io_alamo.formats.content`).

Extraction keeps the archive's folders (``DATA\\ART\\X.TEC`` becomes ``OUT/DATA/ART/X.TEC``).
Before anything is written every chosen name is checked: a name that climbs out (``..``),
is absolute (``\\x``, ``C:\\x``) or holds characters no file name may hold is refused and named,
and nothing is written; an existing file is replaced only with ``--overwrite``; a folder never.
Each file is written to a temporary name beside its target and renamed.
"""

import json
import os
import re
import sys

from ...saving import write_all
from . import MegArchive, MegFormatError, member_label, name_matches, normal_name
from .pack import add_create_parser

BAD_PART = re.compile(r'[<>:"|?*\x00-\x1f]')
WINDOWS_DEVICES = {"con", "prn", "aux", "nul"} | {f"{d}{n}" for d in ("com", "lpt")
                                                     for n in range(1, 10)}


class UnsafeNameError(MegFormatError):
    """A member name that would be written outside the output folder (or cannot be a file)."""


def safe_parts(name, archive=None):
    """The folder parts a member name is written as, or :class:`UnsafeNameError`."""
    def refuse(why):
        return UnsafeNameError(f"member '{name}' {why}; nothing was extracted",
                               filename=archive)
    if re.match(r"^([A-Za-z]:|[\\/])", name):
        raise refuse("is an absolute path")
    parts = [p for p in re.split(r"[\\/]", name) if p not in ("", ".")]
    if not parts:
        raise refuse("is empty")
    for p in parts:
        if p == ".." or p.strip(". ") == "":
            raise refuse("climbs out of the output folder")
        if BAD_PART.search(p):
            raise refuse("holds a character no file name may hold")
        if p.split(".")[0].strip().lower() in WINDOWS_DEVICES:
            raise refuse("names a Windows device")
    return parts


def selected(meg, patterns):
    """The entries whose name (or file name) matches one of the patterns (all without)."""
    if not patterns:
        return list(meg.entries)
    pats = [normal_name(p) for p in patterns]
    return [e for e in meg.entries if name_matches(e.name, pats)]


def plan_extraction(meg, out, entries, overwrite):
    """[(entry, target path)], every name and target checked before anything is written."""
    root = os.path.realpath(out)
    plan, seen = [], {}
    for e in entries:
        target = os.path.join(root, *safe_parts(e.name, meg.filename))
        if os.path.commonpath([root, os.path.realpath(target)]) != root:
            raise UnsafeNameError(f"member '{e.name}' leads outside the output folder "
                                  "(through a link); nothing was extracted",
                                  filename=meg.filename)
        key = os.path.normcase(target).lower()
        if key in seen:
            continue                     # a duplicate name: the first record is the one read
        seen[key] = e
        if os.path.isdir(target):
            raise FileExistsError(f"{target}: a folder is in the way of {e.name}; "
                                  "nothing was extracted")
        parent = os.path.dirname(target)
        while len(parent) > len(root):
            if os.path.lexists(parent) and not os.path.isdir(parent):
                raise FileExistsError(f"{parent}: a file is in the way of the folder of "
                                      f"{e.name}; nothing was extracted")
            parent = os.path.dirname(parent)
        if os.path.lexists(target) and not overwrite:
            raise FileExistsError(f"{target} exists (--overwrite replaces it); "
                                  "nothing was extracted")
        plan.append((e, target))
    return plan


def write_atomic(path, data):
    """Write ``data`` to ``path`` through a temporary file beside it and a rename (its folders
    made first)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_all([(data, path)])


def extract(archive, out, patterns=(), overwrite=False, log=None):
    """Extract the members matching ``patterns`` (all without) into ``out``; returns the
    written paths."""
    meg = MegArchive(archive)
    entries = selected(meg, patterns)
    if patterns and not entries:
        raise FileNotFoundError(f"{archive}: no member matches {' '.join(patterns)}")
    plan = plan_extraction(meg, out, entries, overwrite)
    written = []
    with meg:
        for e, target in plan:
            write_atomic(target, meg.read(e))
            written.append(target)
            if log:
                log(f"{e.name} -> {target}")
    return written


def cmd_list(args):
    meg = MegArchive(args.archive)
    if args.json:
        json.dump({"archive": args.archive, "files": [
            {"name": e.name, "size": e.size, "start": e.start, "crc": e.crc,
             "record": e.record} for e in meg.entries], "problems": meg.problems},
            sys.stdout, indent=1)
        print()
    else:
        for e in sorted(meg.entries, key=lambda e: e.name):
            print(f"{e.size:>12,}  {e.name}")
        print(f"{len(meg.entries)} files, {sum(e.size for e in meg.entries):,} bytes")
    for p in meg.problems:
        print(f"{args.archive}: {p}", file=sys.stderr)
    return 1 if meg.problems else 0


def cmd_extract(args):
    log = (lambda text: print(text)) if args.verbose else None
    written = extract(args.archive, args.out, args.patterns, args.overwrite, log)
    print(f"{len(written)} files extracted to {args.out}")
    return 0


def _verbs_help(parser):
    """``io-alamo meg`` without a verb: its verbs, and exit status 2 (a usage error)."""
    parser.print_help()
    return 2


def add_parser(sub):
    """The ``meg`` verb and its ``list`` and ``extract`` verbs."""
    text = "list, extract or create game archives (.meg)"
    s = sub.add_parser("meg", help=text, description=text + ": meg VERB --help for each")
    verbs = s.add_subparsers(dest="meg_verb", metavar="VERB", title="verbs")
    s.set_defaults(run=lambda args: _verbs_help(s))
    text = "the archive's files with their sizes and offsets"
    v = verbs.add_parser("list", help=text, description=text)
    v.add_argument("archive", metavar="ARCHIVE", help="a .meg archive (Data/*.meg of a game)")
    v.add_argument("--json", action="store_true", help="print JSON instead of text")
    v.set_defaults(run=cmd_list)
    text = "extract files, keeping the archive's folders"
    v = verbs.add_parser("extract", help=text, description=text)
    v.add_argument("archive", metavar="ARCHIVE", help="a .meg archive (Data/*.meg of a game)")
    v.add_argument("out", metavar="OUT", help="output folder (made if missing)")
    v.add_argument("patterns", nargs="*", metavar="PATTERN",
                   help="names or wildcards (DATA\\ART\\MODELS\\*.ALO, *.TEC; any case); "
                        "all files without")
    v.add_argument("--overwrite", action="store_true", help="replace existing files")
    v.add_argument("-v", "--verbose", action="store_true", help="name each file written")
    v.set_defaults(run=cmd_extract)
    add_create_parser(verbs)
    return s


__all__ = ["add_parser", "extract", "member_label"]
