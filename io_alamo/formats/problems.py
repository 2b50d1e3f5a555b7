"""One problem ``validate`` finds in a file, with its severity (neutral; stdlib only).

* ``error``: a game loader refuses the file, or it would crash the game;
* ``warning``: the game loads it, but something will look or behave wrong (a particle system
  named unlike its file, a texture the game cannot find, NaN values, a model named ``.ala``);
* ``note``: worth knowing, harmless to the game.

A :class:`Problem` is also the string of its line (``where: message``), so code that treats
problems as text keeps working; everything that decides reads ``severity``, ``message`` and
``where``. A format whose ``validate`` gives plain strings gets them as errors
(:func:`as_problem`).
"""

SEVERITIES = ("error", "warning", "note")

__all__ = ["Problem", "SEVERITIES", "as_problem", "counts", "error", "note", "warning"]


class Problem(str):
    """``where: message`` as a string, with ``severity``, ``message`` and ``where``."""

    __slots__ = ("severity", "message", "where")

    def __new__(cls, severity, message, where=""):
        if severity not in SEVERITIES:
            raise ValueError(f"severity {severity!r} is not one of {SEVERITIES}")
        self = super().__new__(cls, f"{where}: {message}" if where else message)
        self.severity, self.message, self.where = severity, message, where
        return self

    def as_dict(self) -> dict:
        return {"severity": self.severity, "message": self.message, "where": self.where}

    def __reduce__(self):            # pickled across --jobs worker processes
        return Problem, (self.severity, self.message, self.where)


def error(message, where=""):
    return Problem("error", message, where)


def warning(message, where=""):
    return Problem("warning", message, where)


def note(message, where=""):
    return Problem("note", message, where)


def as_problem(item, severity="error") -> Problem:
    """``item`` as a Problem: itself, or a plain string as one of ``severity``."""
    return item if isinstance(item, Problem) else Problem(severity, str(item))


def counts(problems) -> dict:
    """``{"error": n, "warning": n, "note": n}`` of ``problems``."""
    out = dict.fromkeys(SEVERITIES, 0)
    for p in problems:
        out[as_problem(p).severity] += 1
    return out
