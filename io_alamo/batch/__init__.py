"""Headless batch conversion with Blender.

    python -m io_alamo.batch VERB ...          (a Python with the bpy wheel)
    blender -b -c alamo VERB ...               (the extension enabled)

Verbs:
    import FILES_OR_DIRS --out DIR [--glb | --glb-all] [--preview] [--textures DIR ...]
        each .alo (with its <MODEL>_*.ala animations) to a .blend; optionally a .glb through
        Blender's glTF exporter (what the game shows; --glb-all: every mesh) and a small PNG
        render (Cycles on the CPU). Textures are looked up as the add-on does (beside the
        model, the mod's Data/Art/Textures found from the model and from each input folder,
        the add-on's folders) and in --textures (folders, game Data folders or .meg files),
        then in the archives of the Data folders found from the model
    export FILES_OR_DIRS --out DIR
        each .blend back to .alo, and its armature's actions to .ala
    roundtrip FILES_OR_DIRS
        import and export each model (and its animations) and report which come back
        byte-identical

Directories are walked recursively. One line per file with its time and its warnings
counted (``--verbose``: each warning, and Blender's own output, which is hidden otherwise);
on a terminal a progress line with the count, rate and time left; a failure is reported and
the run goes on; a summary at the end; exit status 1 if any file failed (or, for roundtrip,
differs). ``--jobs N`` runs the files in N worker processes. The engines' own options
(``VERB --help`` lists them) are flags made from their declarations (io_alamo.formats.options).
"""

import sys

from .jobs import NEEDS_BPY, build_parser
from ..scratch import blender_user_resources


def main(argv=None, prog="python -m io_alamo.batch"):
    """Check the arguments (help and usage errors need no bpy) and that this Python has bpy,
    then hand over to io_alamo.blender.batch."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:                   # no verb: the verbs, and exit status 2 (a usage error)
        build_parser(prog).print_help()
        return 2
    build_parser(prog).parse_args(argv)
    blender_user_resources("alamo-batch-")        # removed when the run ends
    try:
        # bpy-optional: without Blender's module this says so instead of a traceback
        import bpy  # noqa: F401
    except ImportError:
        print(NEEDS_BPY.format(prog=prog, version=sys.version.split()[0], verb=argv[0]),
              file=sys.stderr)
        return 2
    # bpy-optional: the Blender half (and the add-on's register) only once bpy is there
    from .. import register, unregister
    from ..blender import batch
    return batch.main(argv, prog, register, unregister)


if __name__ == "__main__":
    sys.exit(main())
