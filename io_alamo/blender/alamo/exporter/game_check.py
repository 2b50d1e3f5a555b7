"""Every Blender write of .alo and .ala files goes through the game's loader rules
(:mod:`io_alamo.formats.alamo.game_rules`): a file the game would refuse is not written, and
the error names the file, the place in it and the Blender objects at fault."""

import re

import bpy

from ....formats.alamo.files import save_all
from ....formats.alamo.game_rules import GameRefusedError
from ...source import get_source
from .common import ExportError

_NAMED = re.compile(r"(?:mesh|light|proxy|dazzle|bone) '([^']*)'")


def save_checked(items, sources=(), armature=None):
    """``save_all(items)``; a file byte for byte one of the ``sources`` (datablocks whose
    imported bytes are kept: the armature, the actions) may be written back as it was."""
    keep = [get_source(s) for s in sources if s is not None]
    try:
        save_all(items, keep=[bytes(k) for k in keep if k is not None])
    except GameRefusedError as e:
        objects = [armature] if armature is not None else []
        texts = []
        for path, r in e.refusals:
            texts.append(f"the game would refuse {path}: {r.message} (at {r.path or 'the start'}"
                         f", rule '{r.rule}'); nothing was written")
            for name in _NAMED.findall(r.message):
                objects += [o for o in bpy.data.objects if name in (o.name, o.alamo.name)
                            and o not in objects]
        raise ExportError(texts, objects) from None
