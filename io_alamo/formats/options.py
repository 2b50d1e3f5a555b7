"""Options declared once (neutral; stdlib only). An engine declares the options of its
importers and exporters as a dataclass whose fields carry, in their metadata, what every
place that offers the option needs: its label and description (the File menu operator's
property, the add-on preferences), its default (the field's), its command-line flag (the
batch converter's, forwarded to ``--jobs`` workers as it is)::

    @dataclass
    class P3dImportOptions:
        import_parts: bool = option(True, "Import Proxied Parts", "Import the .p3d files ...",
                                    flag="--no-parts", flag_help=".p3d: leave proxies ...")

The class is named by the format's registry entry (``Format.import_options`` /
``Format.export_options``); :mod:`io_alamo.blender.file_operators` makes the operator's
properties from it, :mod:`io_alamo.batch.jobs` the batch's flags and the workers' command
line, :mod:`io_alamo.blender.prefs` the preferences. A new option is one field.

A boolean's flag sets the opposite of its default (``--no-parts``: ``import_parts`` False);
an option with ``items`` (Blender enum items, identifiers as strings) takes one identifier,
a number option its value (``--texture-size 512``).
"""

from dataclasses import dataclass, field, fields, is_dataclass

__all__ = ["Option", "batch_options", "declared", "flag_values", "option", "pick",
           "worker_flags", "add_flags"]

KEY = "io_alamo.option"
# where an option is offered: the File menu operator, the batch's flags, the preferences
PLACES = ("operator", "batch", "preference")


@dataclass(frozen=True)
class Option:
    label: str
    description: str
    flag: str = ""                 # the batch's command-line flag ("" : none)
    flag_help: str = ""            # its help (default: the description)
    items: tuple = ()              # enum items ((id, label, description), ...)
    places: tuple = ("operator", "batch")
    subtype: str = ""              # a string's Blender subtype ("DIR_PATH")
    limits: tuple = ()             # a number's (min, max)


def option(default, label, description, **kw):
    """A dataclass field declaring an option (see the module's docstring)."""
    kw.setdefault("places", ("operator", "batch") if kw.get("flag") else ("operator",))
    if "items" in kw:
        kw["items"] = tuple(tuple(i) for i in kw["items"])
    return field(default=default, metadata={KEY: Option(label, description, **kw)})


def declared(cls, place=None):
    """[(name, default, Option)] of the options ``cls`` declares (offered at ``place``)."""
    if cls is None or not is_dataclass(cls):
        return []
    return [(f.name, f.default, f.metadata[KEY]) for f in fields(cls)
            if KEY in f.metadata and (place is None or place in f.metadata[KEY].places)]


def pick(cls, values):
    """The entries of ``values`` that are fields of the dataclass ``cls``."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in values.items() if k in names}


def batch_options(classes):
    """[(name, default, Option)] of the batch flags the option ``classes`` declare, each once
    (two classes may declare the same option; the same name must keep the same flag)."""
    out = {}
    for cls in classes:
        for name, default, opt in declared(cls, "batch"):
            if name in out and out[name][2].flag != opt.flag:
                raise ValueError(f"option {name!r} declared with flags {out[name][2].flag} "
                                 f"and {opt.flag}")
            out.setdefault(name, (name, default, opt))
    return list(out.values())


def _dest(opt):
    return opt.flag.lstrip("-").replace("-", "_")


def _valued(default):
    """A number option's flag takes its value (a boolean's flag is a switch)."""
    return isinstance(default, (int, float)) and not isinstance(default, bool)


def add_flags(parser, classes):
    """Add the batch flags of the option ``classes`` to an argparse ``parser``."""
    for name, default, opt in batch_options(classes):
        help_text = opt.flag_help or opt.description
        if opt.items:
            parser.add_argument(opt.flag, choices=[i[0] for i in opt.items if i[0] != default],
                                default=None, help=help_text)
        elif _valued(default):
            parser.add_argument(opt.flag, type=type(default), default=None, metavar="N",
                                help=help_text)
        else:
            parser.add_argument(opt.flag, action="store_true", help=help_text)


def flag_values(args, classes):
    """{option name: value} of the batch flags of ``classes`` as ``args`` (parsed) set them;
    an option whose flag is not given keeps its default."""
    out = {}
    for name, default, opt in batch_options(classes):
        given = getattr(args, _dest(opt), None)
        if opt.items or _valued(default):
            out[name] = default if given is None else given
        else:
            out[name] = (not default) if given else default
    return out


def worker_flags(args, classes):
    """The command-line words that give a worker process the same options as ``args``."""
    words = []
    for _, default, opt in batch_options(classes):
        given = getattr(args, _dest(opt), None)
        if (opt.items or _valued(default)) and given is not None:
            words += [opt.flag, str(given)]
        elif not opt.items and given:
            words.append(opt.flag)
    return words
