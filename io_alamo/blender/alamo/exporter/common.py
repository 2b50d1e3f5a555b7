"""What every part of the export shares: its error, its findings, its limits and options, and
the Report that collects findings while a model is built. A leaf: it imports no other export
module, so alo, ala, alm, mesh, shadow, skeleton and plugin can all import it."""

import time
from dataclasses import dataclass, field

import numpy as np

from ....formats.alamo import ParamType
from ...names import IMPORT_NAME_KEY, export_name, from_blender
from ...problems import ERROR, Problem, add_warning, texts
from ...results import ExportError, Result

MAX_VERTICES = 65535
MAX_SKIN_BONES = 24
MINI_STRING_BYTES = 254     # a mini-chunk holds 255 bytes: the text and its terminator


@dataclass
class AloExportOptions:
    scope: str = "ARMATURE"          # ARMATURE, SELECTION, VISIBLE, SCENE
    apply_modifiers: bool = True
    own_bones: bool = False          # objects without a bone get a bone of their own
    animations: bool = False         # also every action of the armature, <MODEL>_<ACTION>.ala
    ala_format: int = None           # their format: 2 (Forces of Corruption) or 1 (EaW);
    new_ala_format: int = 2          # None: each as imported, new ones in new_ala_format


@dataclass
class AloExportResult(Result):
    """What an .alo export wrote (a :class:`~...results.Result`: counts, problems (warnings
    only: errors raise ExportError), timings, summary)."""
    model: object = None
    armature: object = None
    animations: list = field(default_factory=list)     # .ala files written beside the model
    reused: dict = field(default_factory=dict)     # what was written from the source as is

    def summary(self):
        c = self.counts
        text = (f"{c.get('bones', 0)} bones, {c.get('meshes', 0)} meshes, "
                f"{c.get('lights', 0)} lights, {c.get('proxies', 0)} proxies, "
                f"{c.get('dazzles', 0)} dazzles")
        return text + (f", {len(self.animations)} animations" if self.animations else "")


class Report:
    """Findings while a model is built: warnings (Problem records, one per text with every
    object it concerns) in ``problems``, errors (Problem records) in ``errors``, and the
    seconds per stage in ``timings``."""

    def __init__(self, problems=None, timings=None):
        self.problems = problems if problems is not None else []
        self.timings = timings if timings is not None else {}
        self.errors = []                 # ERROR Problem records
        self.error_objects = []          # the Blender objects they are about, to select
        self.plugin_taken = {}     # what an ALAMO plugin scene's data gave: kind -> keys
        self._tick = None

    def warn(self, text, objects=()):
        add_warning(self.problems, text, objects)

    def error(self, text, objects=(), elements_selected=False):
        self.errors.append(Problem(ERROR, text, [o.name for o in objects], elements_selected))
        self.error_objects += objects

    def tick(self, stage):
        """Add the time since the last tick to ``stage`` (the benchmark prints them)."""
        now = time.perf_counter()
        if self._tick is not None and stage:
            self.timings[stage] = self.timings.get(stage, 0.0) + now - self._tick
        self._tick = now

    def check_name(self, what, name, objects=(), mini=False):
        """Names must be cp1252 (what the game reads); strings kept in mini-chunks (proxies,
        dazzles, shader parameters) have at most 254 bytes."""
        try:
            data = name.encode("cp1252")
        except UnicodeEncodeError:
            try:
                data = name.encode("cp1252", "surrogateescape")   # bytes kept from a file
            except UnicodeEncodeError:
                self.error(f"{what} {name!r} has characters the game cannot store (names are "
                           "single-byte Windows-1252 text); rename it", objects)
                return
        if mini and len(data) > MINI_STRING_BYTES:
            self.error(f"{what} {name[:40]!r}... is {len(data)} bytes long; the format allows "
                       f"{MINI_STRING_BYTES}", objects)
        elif not data.isascii():
            self.warn(f"{what} {name!r} is not plain ASCII; the game may not show it as "
                      "Blender does", objects)

    def check_finite(self, what, values, objects=(), why=""):
        """An error when ``values`` hold NaN or infinity: the game cannot draw such a file,
        so it is never written. True when all are finite."""
        if np.all(np.isfinite(np.asarray(values, np.float64))):
            return True
        self.error(f"{what} would be written with NaN or infinite numbers{why}; nothing was "
                   "written", objects)
        return False

    def raise_errors(self):
        """Raise the ExportError of the errors found, with the warnings as details."""
        if self.errors:
            raise ExportError(texts(self.errors), self.error_objects,
                              self.errors + self.problems)


def shader_value(ptype, value):
    """A shader parameter's value as a file stores it: int, float32, '<f4' vector or text."""
    if ptype == ParamType.INT:
        return int(value)
    if ptype == ParamType.FLOAT:
        return np.float32(value)
    if ptype == ParamType.TEXTURE:
        return from_blender(str(value))
    return np.array(value, "<f4")


def object_export_name(obj):
    """:func:`export_name` of an object (mesh, light, proxy, dazzle)."""
    return export_name(obj.name, obj.alamo.name, obj.get(IMPORT_NAME_KEY))


def on_deleted_bone(obj, bone):
    """The warning (text, objects) for ``obj`` hanging on ``bone``, which the armature no longer
    has (deleted in Edit Mode): the object is written on the root bone, and the export says so."""
    return (f"{obj.type.lower()} {obj.name!r} hangs on bone {bone!r}, which is no longer in the "
            "armature: it is written on the root bone; parent it to a bone that exists", [obj])
