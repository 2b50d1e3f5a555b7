"""The batch converter's step for toy files: import, save a .blend."""

import bpy

from .operators import import_toy


def run_verb(verb, path, rel, out, **_):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import_toy(bpy.context, str(path))
    blend = out / rel.with_suffix(".blend")
    blend.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), check_existing=False)
    return "ok", "a toy", [blend], []


STEPS = {"toy": run_verb}
