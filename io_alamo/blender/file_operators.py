"""What the File-menu operators of every format share: several files per import and drops
that import at once, one way of reporting results and errors, and registration with menu
entries. Each format's operators module keeps only its options and its calls."""

import os

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       IntProperty, StringProperty)
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..formats.errors import FormatError
from ..formats.options import declared
from .progress import advance, expect
from .results import ExportError


class FileListImport(ImportHelper):
    """Several files at once (multi-selection, or a drop of several files), and drops that
    import at once instead of opening the file browser."""

    files: CollectionProperty(type=bpy.types.OperatorFileListElement,
                              options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})

    def paths(self):
        if self.files and self.directory:
            return [os.path.join(self.directory, f.name) for f in self.files if f.name]
        return [self.filepath]

    def invoke(self, context, event):
        if self.files or (self.filepath and os.path.isfile(self.filepath)):
            return self.execute(context)          # drag and drop: import right away
        return ImportHelper.invoke(self, context, event)


class ViewportDrop:
    """File handlers: files dropped onto the 3D viewport are imported."""

    @classmethod
    def poll_drop(cls, context):
        return context.area is not None and context.area.type == "VIEW_3D"


def _file_filter(fmt):
    ext = fmt.extensions[0]
    return {"filename_ext": ext,
            "__annotations__": {"filter_glob": StringProperty(default="*" + ext,
                                                              options={"HIDDEN"})}}


def declared_property(default, opt):
    """The Blender property of a declared option (:mod:`io_alamo.formats.options`)."""
    common = {"name": opt.label, "description": opt.description}
    if opt.items:
        return EnumProperty(items=[tuple(i) for i in opt.items], default=default, **common)
    if isinstance(default, bool):
        return BoolProperty(default=default, **common)
    if opt.limits:
        common.update(min=opt.limits[0], max=opt.limits[1])
    if isinstance(default, int):
        return IntProperty(default=default, **common)
    if isinstance(default, float):
        return FloatProperty(default=default, **common)
    return StringProperty(default=default, subtype=opt.subtype or "NONE", **common)


def declared_properties(cls, place="operator"):
    """{name: Blender property} of the options the dataclass ``cls`` declares for ``place``."""
    return {name: declared_property(default, opt) for name, default, opt in declared(cls, place)}


class DeclaredOptions:
    """``declared_options(**more)``: the format's options dataclass filled from the operator's
    properties made from it (and ``more``, the values no property holds)."""

    options_class = None

    def declared_options(self, **more):
        values = {name: getattr(self, name) for name, _, _ in declared(self.options_class,
                                                                        "operator")}
        return self.options_class(**values, **more)


def _with_options(cls):
    return {"options_class": cls, "__annotations__": declared_properties(cls)}


def options_base(cls):
    """The base of an operator (not a File menu entry's) offering the options ``cls``
    declares, as :class:`DeclaredOptions`."""
    return type(f"{cls.__name__}_Operator", (DeclaredOptions,), _with_options(cls))


def import_base(fmt):
    """The base of a format's File > Import operator (with ``bpy.types.Operator``): the
    operator's name from the format's registry entry, its file filter, the properties of its
    declared options (``fmt.import_options``; ``self.declared_options()`` fills the
    dataclass), several files at once and drops (:class:`FileListImport`), undo and
    presets."""
    filters, options = _file_filter(fmt), _with_options(fmt.import_options)
    options["__annotations__"].update(filters.pop("__annotations__"))
    return type(f"{fmt.key.upper()}_Import", (FileListImport, DeclaredOptions),
                {"bl_idname": fmt.import_operator, "bl_options": {"REGISTER", "UNDO", "PRESET"},
                 **filters, **options})


def export_base(fmt, operator=None):
    """The base of a format's File > Export operator: its name from the registry entry (or
    ``operator``), its file filter, the properties of its declared options
    (``fmt.export_options``), presets."""
    filters, options = _file_filter(fmt), _with_options(fmt.export_options)
    options["__annotations__"].update(filters.pop("__annotations__"))
    return type(f"{fmt.key.upper()}_Export", (ExportHelper, DeclaredOptions),
                {"bl_idname": operator or fmt.export_operator,
                 "bl_options": {"REGISTER", "PRESET"}, **filters, **options})


def drop_handler(name, label, fmt):
    """The file handler of a format's File > Import entry: its files dropped onto the 3D
    viewport are imported with it (``fmt``: the format's registry entry)."""
    return type(name, (ViewportDrop, bpy.types.FileHandler),
                {"bl_idname": name, "bl_label": label,
                 "bl_import_operator": fmt.import_operator,
                 "bl_file_extensions": ";".join(fmt.extensions)})


def menu_entries(*entries):
    """A File > Import or Export menu function drawing ``(operator class, text)`` entries."""
    def draw(self, context):
        for cls, text in entries:
            self.layout.operator(cls.bl_idname, text=text)
    return draw


def leave_edit_modes(context, allowed=("OBJECT",)):
    """Back to Object Mode unless the active object is in one of the ``allowed`` modes."""
    if context.object is not None and context.object.mode not in allowed:
        bpy.ops.object.mode_set(mode="OBJECT")


def import_each(op, paths, import_one, more_lines=None):
    """Import every path with ``import_one(path, done)`` (``done``: how many imported before);
    a file that fails is reported and the others go on. Reports each result's warnings and
    summary (and ``more_lines(result)``); FINISHED when at least one file imported."""
    done = 0
    expect(len(paths))
    for path in paths:
        advance()
        try:
            result = import_one(path, done)
        except FormatError as e:
            op.report({"ERROR"}, str(e))
            continue
        except OSError as e:
            op.report({"ERROR"}, f"{path}: {e}")
            continue
        done += 1
        name = os.path.basename(path)
        for w in result.warnings:
            op.report({"WARNING"}, f"{name}: {w}")
        op.report({"INFO"}, f"{name}: {result.summary()}")
        for line in more_lines(result) if more_lines else ():
            op.report({"INFO"}, f"{name}: {line}")
    return {"FINISHED"} if done else {"CANCELLED"}


def export_reported(op, context, export, summary=None):
    """Run ``export()`` for an export operator: its errors reported (and the objects they are
    about selected), else its warnings and ``summary(result)`` (default ``result.summary()``)."""
    try:
        result = export()
    except ExportError as e:
        if e.objects:
            for o in context.view_layer.objects:
                o.select_set(o in e.objects)
        for p in e.problems:
            op.report({"ERROR"}, p)
        return {"CANCELLED"}
    except (FormatError, OSError) as e:
        op.report({"ERROR"}, str(e))
        return {"CANCELLED"}
    for w in result.warnings:
        op.report({"WARNING"}, w)
    text = summary(result) if summary else result.summary()
    op.report({"INFO"}, f"{os.path.basename(op.filepath)}: {text}")
    return {"FINISHED"}


def menu_registration(classes, import_menu=None, export_menu=None):
    """register() and unregister() of an operators module: its classes and its File > Import
    and File > Export menu entries, undone in reverse (Blender 4.2/4.5 crash at exit if
    anything stays registered)."""
    register_classes, unregister_classes = bpy.utils.register_classes_factory(classes)
    menus = [(bpy.types.TOPBAR_MT_file_import, import_menu),
             (bpy.types.TOPBAR_MT_file_export, export_menu)]
    menus = [(menu, draw) for menu, draw in menus if draw is not None]

    def register():
        register_classes()
        for menu, draw in menus:
            menu.append(draw)

    def unregister():
        for menu, draw in reversed(menus):
            menu.remove(draw)
        unregister_classes()

    return register, unregister
