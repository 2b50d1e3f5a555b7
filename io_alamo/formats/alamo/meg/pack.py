"""``io-alamo meg create ARCHIVE FOLDER [PATTERN...]``: pack a mod's loose files into a MEG v1
archive the games read (the writer is :mod:`io_alamo.formats.alamo.meg.write`).

Names are the files' paths below FOLDER, upper case with ``\\`` separators, as ``meg extract``
writes them out: ``meg extract A.meg OUT`` then ``meg create B.meg OUT`` gives the same
archive. A FOLDER that is itself called ``Data`` keeps its name in front
(``Mod/Data/Art/X.ALO`` is stored as ``DATA\\ART\\X.ALO``), as the game looks files up.
"""

import os

from . import name_matches, normal_name
from .write import write_meg

__all__ = ["add_create_parser", "create", "members_of"]


def members_of(folder, patterns=()):
    """``[(archive name, file path)]`` of the files below ``folder`` (recursively) whose name
    (or file name) matches one of ``patterns`` (any case; all files without)."""
    if not os.path.isdir(folder):
        raise NotADirectoryError(f"{folder}: not a folder (meg create packs a folder's files)")
    prefix = "DATA\\" if os.path.basename(os.path.abspath(folder)).lower() == "data" else ""
    pats = [normal_name(p) for p in patterns]
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(root, f)
            name = prefix + os.path.relpath(path, folder).replace(os.sep, "\\")
            if pats and not name_matches(name, pats):
                continue
            out.append((name, path))
    return out


def create(archive, folder, patterns=(), overwrite=False):
    """Write ``archive`` from the files of ``folder``; returns ``[(stored name, path)]``."""
    members = members_of(folder, patterns)
    if not members:
        what = f"matching {' '.join(patterns)} " if patterns else ""
        raise FileNotFoundError(f"{folder}: no files {what}to pack; nothing was written")
    if os.path.isdir(archive):
        raise IsADirectoryError(f"{archive}: is a folder; give the archive's file name")
    if os.path.lexists(archive) and not overwrite:
        raise FileExistsError(f"{archive}: exists (--overwrite replaces it); nothing was "
                              "written")
    inside = [p for _, p in members if os.path.abspath(p) == os.path.abspath(archive)]
    if inside:
        raise FileExistsError(f"{archive}: is one of the files to pack; write the archive "
                              "outside the folder")
    return write_meg(archive, members)


def cmd_create(args):
    replaced = os.path.exists(args.archive)
    written = create(args.archive, args.folder, args.patterns, args.overwrite)
    if args.verbose:
        for name, path in written:
            print(f"{path} -> {name}")
    total = sum(os.path.getsize(p) for _, p in written)
    print(f"{args.archive}: {len(written)} files, {total:,} bytes packed"
          + (" (replaced the existing archive)" if replaced else ""))
    return 0


def add_create_parser(verbs):
    """The ``meg create`` verb, beside ``list`` and ``extract``."""
    v = verbs.add_parser("create", help="pack a folder's files into a MEG v1 archive the "
                         "games read (names upper case, records in CRC order)")
    v.add_argument("archive", help="the .meg to write")
    v.add_argument("folder", help="the folder to pack (recursively); names are paths below "
                   "it; a folder called Data keeps DATA\\ in front")
    v.add_argument("patterns", nargs="*", metavar="PATTERN",
                   help="names or wildcards (ART\\MODELS\\*.ALO, *.TEC; any case); all files "
                        "without")
    v.add_argument("--overwrite", action="store_true", help="replace an existing archive")
    v.add_argument("-v", "--verbose", action="store_true", help="name each file packed")
    v.set_defaults(run=cmd_create)
    return v
