"""The "Check Before Export" panel: run the export's checks, list the problems, select what
one is about. The checks themselves are in :mod:`..checks`."""

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, IntProperty, StringProperty

from ....formats.alamo.choices import SCOPE_ITEMS
from ..checks import select_problem, store_problems, validate
from ..exporter.alo import AloExportOptions
from ...tool_targets import set_mode
from .shared import SidebarPanel, register_factory, wrapped


class AlamoProblemObject(bpy.types.PropertyGroup):
    """The name of an object a problem is about (in the built-in ``name``)."""


class AlamoProblem(bpy.types.PropertyGroup):
    level: EnumProperty(name="Level", items=[
        ("ERROR", "Error", "Stops the export"),
        ("WARNING", "Warning", "The export works, but check this")])
    text: StringProperty(name="Problem")
    elements_selected: BoolProperty(name="Elements Selected")
    objects: CollectionProperty(type=AlamoProblemObject)


def _problem_clicked(wm, context):
    if 0 <= wm.alamo_problem_index < len(wm.alamo_problems):
        select_problem(context, wm.alamo_problems[wm.alamo_problem_index])


class ALAMO_OT_validate(bpy.types.Operator):
    """Run the export's checks without writing a file and list what would stop the export
    or should be looked at"""
    bl_idname = "alamo.validate"
    bl_label = "Validate"
    bl_options = {"REGISTER"}

    scope: EnumProperty(name="Check", items=SCOPE_ITEMS, default="ARMATURE")

    def execute(self, context):
        obj = context.object
        if obj is not None and obj.mode not in ("OBJECT", "POSE"):
            set_mode(context, obj, "OBJECT")      # edits of Edit Mode reach the mesh data
        problems = validate(context, AloExportOptions(scope=self.scope))
        wm = context.window_manager
        store_problems(wm, problems)
        self.report({"WARNING" if problems else "INFO"}, wm.alamo_validation)
        return {"FINISHED"}


class ALAMO_OT_select_problem(bpy.types.Operator):
    """Select what this problem is about (a mesh whose vertices are at fault opens in Edit
    Mode with them selected)"""
    bl_idname = "alamo.select_problem"
    bl_label = "Select Problem Objects"
    bl_options = {"REGISTER", "UNDO"}

    index: IntProperty(name="Index", min=0, options={"HIDDEN"})

    def execute(self, context):
        wm = context.window_manager
        if not 0 <= self.index < len(wm.alamo_problems):
            return {"CANCELLED"}
        problem = wm.alamo_problems[self.index]
        if not select_problem(context, problem, show_elements=True):
            self.report({"INFO"}, "this problem is about no object of the view layer")
            return {"CANCELLED"}
        return {"FINISHED"}


class ALAMO_UL_problems(bpy.types.UIList):
    """The findings of the last validation; clicking one selects its objects."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0):
        row = layout.row(align=True)
        row.label(text=item.text, icon="ERROR" if item.level == "ERROR" else "INFO")
        if len(item.objects):
            op = row.operator(ALAMO_OT_select_problem.bl_idname, text="",
                              icon="RESTRICT_SELECT_OFF", emboss=False)
            op.index = index


class VIEW3D_PT_alamo_validate(SidebarPanel, bpy.types.Panel):
    bl_label = "Check Before Export"
    bl_order = 4

    def draw(self, context):
        layout = self.layout
        wm = context.window_manager
        layout.operator(ALAMO_OT_validate.bl_idname, icon="CHECKMARK")
        if not wm.alamo_validation:
            return
        if not len(wm.alamo_problems):
            layout.label(text=wm.alamo_validation, icon="CHECKMARK")
            return
        layout.label(text=wm.alamo_validation)
        layout.template_list("ALAMO_UL_problems", "", wm, "alamo_problems", wm,
                             "alamo_problem_index", item_dyntip_propname="text", rows=3)
        if 0 <= wm.alamo_problem_index < len(wm.alamo_problems):
            p = wm.alamo_problems[wm.alamo_problem_index]
            wrapped(layout.box(), context, p.text, "ERROR" if p.level == "ERROR" else "INFO")


# The session's validation results and list position (not saved with the file).
WINDOW_MANAGER_PROPERTIES = (
    ("alamo_problems", CollectionProperty(type=AlamoProblem)),
    ("alamo_problem_index", IntProperty(default=-1, update=_problem_clicked)),
    ("alamo_validation", StringProperty()),
)

CLASSES = (AlamoProblemObject, AlamoProblem, ALAMO_OT_validate, ALAMO_OT_select_problem,
           ALAMO_UL_problems, VIEW3D_PT_alamo_validate)
register, unregister = register_factory(CLASSES, window_manager=WINDOW_MANAGER_PROPERTIES)
