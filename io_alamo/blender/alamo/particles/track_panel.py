"""The Alamo Particle panel's tracks: each drawn as its ramp or curve (``track_widgets``) with
what the widget cannot show said beside it, then the keys as fields; and the sprite-sheet cell
picker: the texture's image and a grid of its cells (numbered as the game numbers them, row by
row from the top left) that sets the picked key of the texture-index track."""

import math

from . import track_widgets
from .track_ops import cell_slots

MAX_GRID = 16           # cells a side the panel draws (the index field takes any other)


def draw_tracks(layout, p):
    drawn = {}
    for node, tracks, holder in track_widgets.widgets(p):
        drawn[tracks[0].name] = (node, tracks, holder)
    if p.track_widgets is None:
        layout.label(text="Ramps and curves appear after the preview's next update",
                     icon="INFO")
    for ti, t in enumerate(p.tracks):
        box = layout.box()
        row = box.row()
        row.label(text=t.name.replace("_", " ").title())
        row.prop(t, "interpolation", text="")
        row.operator("alamo.particle_key_add", text="", icon="ADD").track = ti
        if t.name in drawn:
            _draw_widget(box, *drawn[t.name])
        if t.name == "texture_index":
            draw_cells(box, p, t)
        row = box.row()
        row.prop(t, "first_key")
        row.prop(t, "last_key")
        for ki, k in enumerate(t.keys):
            row = box.row()
            row.prop(k, "time")
            row.prop(k, "value")
            op = row.operator("alamo.particle_key_remove", text="", icon="X")
            op.track, op.key = ti, ki


def _draw_widget(box, node, tracks, holder):
    if len(tracks) > 1:
        box.label(text="Colour (red, green, blue)")
    if not holder.widget_seen:
        box.label(text="More keys than a ramp holds (32): edit the keys below", icon="INFO")
        return
    if node.bl_idname == "ShaderNodeValToRGB":
        box.template_color_ramp(node, "color_ramp", expand=True)
    else:
        box.template_curve_mapping(node, "mapping")
    problem = track_widgets.widget_problem(node, tracks)
    note = track_widgets.widget_note(node, tracks)
    if problem and track_widgets.pending(node, holder):
        box.label(text="Export refuses: " + problem, icon="ERROR")
    elif note:
        box.label(text=note, icon="INFO")
    if track_widgets.pending(node, holder) and not problem:
        box.label(text="Edited: written to the keys at the next update or export",
                  icon="CHECKMARK")


def draw_cells(box, p, track):
    """The cell picker: the image, then the cells in the sheet's rows and columns."""
    cells = max(int(p.num_texture_elements), 1)
    side = max(int(math.ceil(math.sqrt(cells) - 1e-9)), 1)
    sub = box.box()
    sub.label(text=f"Sprite sheet: {cells} cells, {side} x {side}", icon="TEXTURE")
    if p.image is not None:
        sub.template_icon(icon_value=sub.icon(p.image), scale=6.0)
    slots = cell_slots(track)
    picked = p.cell_key if any(s == p.cell_key for s, _, _ in slots) else -1
    sub.label(text="The key the grid sets (click a cell to show it there):")
    row = sub.row(align=True)
    for slot, label, _ in slots:
        op = row.operator("alamo.particle_pick_cell", text=label, depress=slot == picked)
        op.slot, op.cell = slot, _cell_of(track, slot)
    if side > MAX_GRID:
        sub.label(text=f"{side} x {side} cells are too many to draw: type the index")
        return
    current = _cell_of(track, picked)
    used = {int(round(v)) for _, _, v in slots}
    grid = sub.grid_flow(row_major=True, columns=side, even_columns=True, align=True)
    for cell in range(side * side):
        if cell >= cells:
            grid.label(text="")
            continue
        op = grid.operator("alamo.particle_pick_cell", text=str(cell), depress=cell == current,
                           icon="DOT" if cell in used and cell != current else "NONE")
        op.cell, op.slot = cell, picked


def _cell_of(track, slot):
    for s, _, value in cell_slots(track):
        if s == slot:
            return max(int(round(value)), 0)
    return 0
