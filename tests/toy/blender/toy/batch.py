"""The batch converter's step for toy files: import (with the declared options as the
batch's flags set them), save a .blend."""

import bpy

from io_alamo.formats.options import pick
from io_alamo.formats.registry import by_key

from .operators import import_toy


def run_verb(verb, path, rel, out, **options):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    cls = by_key("toy").import_options
    result = import_toy(bpy.context, str(path), cls(**pick(cls, options)))
    blend = out / rel.with_suffix(".blend")
    blend.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    return "ok", result.summary(), [blend], []


STEPS = {"toy": run_verb}
