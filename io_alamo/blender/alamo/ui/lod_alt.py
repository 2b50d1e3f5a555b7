"""The LOD and damage (ALT) panel and the operator that shows one level as the game does."""

import bpy
from bpy.props import BoolProperty, IntProperty

from ..lod_alt import lod_alt_objects, show_lod_alt, shown_lod_alt
from .shared import SidebarPanel, register_factory


class ALAMO_OT_lod_alt_show(bpy.types.Operator):
    """Show one level of detail (LOD) and one damage level (ALT) of the model, as the game
    would, in the viewport and in renders"""
    bl_idname = "alamo.lod_alt_show"
    bl_label = "Show LOD and ALT"
    bl_options = {"REGISTER", "UNDO"}

    lod: IntProperty(name="LOD", default=-1, min=-1, options={"SKIP_SAVE"},
                     description="Level of detail to show (higher is more detailed); -1 keeps "
                                 "the one shown")
    alt: IntProperty(name="ALT", default=-1, min=-1, options={"SKIP_SAVE"},
                     description="Damage level to show (0 is undamaged); -1 keeps the one "
                                 "shown")
    show_all: BoolProperty(name="Show All", options={"SKIP_SAVE"},
                           description="Show every LOD and ALT at once, with hidden, "
                                       "collision and shadow meshes, for editing")

    def execute(self, context):
        entries = lod_alt_objects(context)
        if not entries:
            self.report({"INFO"}, "no mesh or proxy name has _LOD or _ALT in it, and the "
                        "game draws every mesh")
            return {"CANCELLED"}
        lod, alt = show_lod_alt(entries, self.lod, self.alt, self.show_all)
        self.report({"INFO"}, "Showing every LOD and ALT" if self.show_all else
                    f"Showing LOD {lod}, ALT {alt}")
        return {"FINISHED"}


class VIEW3D_PT_alamo_lod_alt(SidebarPanel, bpy.types.Panel):
    bl_label = "LOD and Damage (ALT)"
    bl_order = 2

    def draw(self, context):
        layout = self.layout
        entries = lod_alt_objects(context)
        if not entries:
            layout.label(text="No _LOD, _ALT, hidden or shadow meshes")
            return
        lods = sorted({l for _, l, _ in entries if l is not None})
        alts = sorted({a for _, _, a in entries if a is not None})
        now_lod, now_alt = shown_lod_alt(entries)
        every = all(not o.hide_get() for o, _, _ in entries)
        for label, levels, now, prop in (("LOD", lods, now_lod, "lod"),
                                         ("ALT", alts, now_alt, "alt")):
            if not levels:
                continue
            row = layout.row(align=True)
            row.label(text=label)
            for level in levels:
                op = row.operator(ALAMO_OT_lod_alt_show.bl_idname, text=str(level),
                                  depress=not every and level == now)
                setattr(op, prop, level)
        op = layout.operator(ALAMO_OT_lod_alt_show.bl_idname, text="Show All",
                             icon="HIDE_OFF", depress=every)
        op.show_all = not every             # pressed again: back to what the game shows


CLASSES = (ALAMO_OT_lod_alt_show, VIEW3D_PT_alamo_lod_alt)
register, unregister = register_factory(CLASSES)
