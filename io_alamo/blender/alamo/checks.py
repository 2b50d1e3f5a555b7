"""The export's checks run without writing a file (the "Check Before Export" panel): the
problems found, kept on the window manager for the session, and selecting what one is
about."""

import bpy

from ...formats.alamo import AlamoFormatError
from ..tool_targets import set_mode
from .exporter.alo import ExportError, AloExportOptions, Problem, build_model


def validate(context, options=None):
    """The export's checks, without writing anything: Problem records, errors first; none
    when the model is ready to export."""
    try:
        result = build_model(context, options or AloExportOptions())
    except ExportError as e:
        return sorted(e.details, key=lambda p: p.level != "ERROR")
    except AlamoFormatError as e:
        return [Problem("ERROR", str(e))]
    return list(result.problems)


def store_problems(wm, problems):
    """Keep ``problems`` on the window manager (the panel's list) with a one-line count."""
    wm.alamo_problems.clear()
    for p in problems:
        item = wm.alamo_problems.add()
        item.level = p.level
        item.text = p.text
        item.elements_selected = p.elements_selected
        for name in p.objects:
            item.objects.add().name = name
    errors = sum(p.level == "ERROR" for p in problems)
    warnings = len(problems) - errors
    wm.alamo_validation = (f"{errors} error{'s' * (errors != 1)}, "
                           f"{warnings} warning{'s' * (warnings != 1)}" if problems
                           else "No problems: ready to export")
    wm.alamo_problem_index = -1


def select_problem(context, problem, show_elements=False):
    """Select the objects a problem is about and make the first one active; with
    ``show_elements``, open a mesh in Edit Mode when the faulty vertices were selected."""
    vl = context.view_layer
    objs = [vl.objects.get(o.name) for o in problem.objects]
    objs = [o for o in objs if o is not None]
    if not objs:
        return []
    set_mode(context, context.object, "OBJECT")
    for o in context.selected_objects:
        o.select_set(False)
    for o in objs:
        o.select_set(True)
    vl.objects.active = objs[0]
    if show_elements and objs[0].type == "MESH" and problem.elements_selected:
        bpy.ops.object.mode_set(mode="EDIT")
        context.tool_settings.mesh_select_mode = (True, False, False)
    return objs
