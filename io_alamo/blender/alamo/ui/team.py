"""The scene-wide team colour of the material previews (Alamo sidebar): every colorize
material (MeshBumpColorize, ...) shows this colour where its base texture's alpha masks the
team colour, instead of its own Colorization. Preview only: nothing is written into a file."""

import bpy
from bpy.props import EnumProperty

from .shared import SidebarPanel, register_factory

# a few factions' colours (sRGB, as the shader gets them)
PRESETS = {
    "Empire": (0.75, 0.08, 0.06),
    "Rebellion": (0.12, 0.32, 0.85),
    "Zann Consortium": (0.85, 0.62, 0.08),
    "Pirates": (0.25, 0.6, 0.18),
    "Hutts": (0.55, 0.3, 0.65),
    "Neutral": (0.6, 0.6, 0.6),
}


class ALAMO_OT_team_preset(bpy.types.Operator):
    """Show colorize materials in this faction's colour"""
    bl_idname = "alamo.team_preset"
    bl_label = "Team Colour Preset"
    bl_options = {"REGISTER", "UNDO"}

    preset: EnumProperty(name="Faction", items=[(k, k, f"{k} team colour") for k in PRESETS])

    def execute(self, context):
        team = context.scene.alamo_team
        team.color = PRESETS[self.preset]
        team.override = True
        return {"FINISHED"}


class VIEW3D_PT_alamo_team(SidebarPanel, bpy.types.Panel):
    bl_label = "Team Colour"
    bl_options = {"DEFAULT_CLOSED"}
    bl_order = 20

    def draw_header(self, context):
        self.layout.prop(context.scene.alamo_team, "override", text="")

    def draw(self, context):
        team = context.scene.alamo_team
        col = self.layout.column()
        col.active = team.override
        col.prop(team, "color", text="")
        grid = col.grid_flow(columns=2, align=True)
        for name in PRESETS:
            grid.operator(ALAMO_OT_team_preset.bl_idname, text=name).preset = name
        self.layout.label(text="Off: each material's own Colorization", icon="INFO")


CLASSES = (ALAMO_OT_team_preset, VIEW3D_PT_alamo_team)
register, unregister = register_factory(CLASSES)
