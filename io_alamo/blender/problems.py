"""One finding of an import or an export, as data: the UI lists them, selects their objects
and, where the export selected the faulty vertices, opens the mesh to show them."""

from dataclasses import dataclass, field

ERROR = "ERROR"          # stops the export
WARNING = "WARNING"      # the file is written; check this


@dataclass(slots=True)
class Problem:
    """``level`` ERROR or WARNING; ``text`` the message; ``objects`` the names of the objects
    it is about; ``elements_selected``: the faulty vertices were selected on the (first)
    object's mesh, for the user to see in Edit Mode."""
    level: str
    text: str
    objects: list = field(default_factory=list)
    elements_selected: bool = False


def texts(problems, level=None):
    """The messages of ``problems`` (of one ``level`` only, if given), in order."""
    return [p.text for p in problems if level is None or p.level == level]


def add_warning(problems, text, objects=()):
    """A WARNING once per text, with every object (by name) it concerns."""
    names = [o.name for o in objects]
    for p in problems:
        if p.text == text:
            p.objects += [n for n in names if n not in p.objects]
            return
    problems.append(Problem(WARNING, text, names))
