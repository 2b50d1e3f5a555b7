"""What every import and export returns: one :class:`Result` type with the findings as data.

``problems`` holds :class:`~.problems.Problem` records (level, text, the objects they are about,
whether the faulty elements were selected), so that a UI selects what a warning is about
instead of searching its text; ``counts`` what was made or written; ``timings`` seconds per
stage; ``summary()`` one line for the operator's report. Each import and export keeps a thin
subclass (``AloImportResult``, ``AloExportResult``, ``AlaImportResult``, ...) that adds only
the objects it hands back (the armature, the action, the collection) and its summary line.

``result.warnings`` is the warnings' texts, in order. It stays a list one may append to
(``result.warnings.append(text)`` records a WARNING Problem), as the older results had.
"""

from dataclasses import dataclass, field

from .problems import ERROR, WARNING, Problem, texts

__all__ = ["ExportError", "Result", "WarningTexts"]


class WarningTexts(list):
    """The texts of a result's warnings; appending to it records a WARNING :class:`Problem`
    on the result (so that code written for the plain string lists keeps working)."""

    def __init__(self, result):
        super().__init__(texts(result.problems, WARNING))
        self._result = result

    def append(self, text):
        super().append(text)
        self._result.problems.append(Problem(WARNING, str(text)))

    def extend(self, more):
        for text in list(more):
            self.append(text)

    def __iadd__(self, more):
        self.extend(more)
        return self


@dataclass
class Result:
    """The outcome of one import or export (see the module docstring)."""
    counts: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)      # Problem records, in order
    timings: dict = field(default_factory=dict)       # seconds per stage

    @property
    def warnings(self) -> list:
        """The warnings' texts, in order (appending records a warning)."""
        return WarningTexts(self)

    @warnings.setter
    def warnings(self, values):
        if isinstance(values, WarningTexts) and values._result is self:
            return                        # ``result.warnings += [...]`` appended already
        self.problems[:] = [p for p in self.problems if p.level != WARNING]
        self.warnings.extend(values)

    def warn(self, text: str, objects=()) -> None:
        """Record a warning about ``objects`` (Blender objects; kept by name)."""
        self.problems.append(Problem(WARNING, text, [o.name for o in objects]))

    def summary(self) -> str:
        """One line for the operator's report: what was made or written."""
        return ", ".join(f"{n:,} {name}" for name, n in self.counts.items()) or "done"


class ExportError(Exception):
    """The scene cannot be written. ``details``: Problem records (the errors, then any
    warnings found before); ``problems``: the errors' texts; ``objects``: the Blender objects
    to select."""

    def __init__(self, problems, objects=(), details=(), elements_selected=False):
        self.objects = list(objects)
        names = [o.name for o in self.objects]
        self.details = list(details) or [Problem(ERROR, t, names, elements_selected)
                                         for t in problems]
        super().__init__("; ".join(self.problems))

    @property
    def problems(self):
        return texts(self.details, ERROR)
