"""An emitter's tracks as drawn widgets (issue 41, part 3): a hidden node group per emitter
(``alamo_emitter.track_widgets``) holds a colour ramp for the red/green/blue tracks, one for
alpha (white stops whose alpha is the track's value, drawn over the checkerboard) and a float
curve for each of size, texture index and rotation speed. The panel draws them with
``template_color_ramp`` / ``template_curve_mapping``.

Both sides are kept in step by :func:`sync_emitter` (run before every export and preview
update, with the rest of :mod:`.sync`): each track remembers the widget's state and its keys'
state when they were last in step. A widget that changed since is written into the keys (the
keys the export writes); keys that changed since (fields, "+"/"x", the cell picker) redraw the
widget. Nothing changes while neither was touched, so an untouched emitter exports as read.

A ramp's stops are the track's keys: the first and last stop are the start and end values (a
first stop after time 0 holds its value from 0 on, as the ramp draws it: written as the start
value plus a key); the ramp's interpolation is the file's: Linear = linear, Ease = cosine
(Blender's ease is smoothstep, within 1 % of the game's cosine), Constant = step. Cardinal,
B-Spline and HSV/HSL ramps have no place in the file: the panel says so and the export refuses,
naming the emitter. Curves take their points as keys; their interpolation is the track's menu
(the curve draws linear exactly, cosine with smooth handles and step as straight lines, which
the panel says). Colours are the file's sRGB bytes, shown as the ramp shows colours."""

import bpy
import numpy as np

from ....formats.alamo.particles import sampling
from .track_ops import track_points as key_points

#: (widget node name, the tracks it holds, kind)
WIDGETS = (("colour", ("red", "green", "blue"), "RAMP"), ("alpha", ("alpha",), "RAMP"),
           ("size", ("size",), "CURVE"), ("texture_index", ("texture_index",), "CURVE"),
           ("rotation_speed", ("rotation_speed",), "CURVE"))
RAMP_STOPS = 32                 # the most stops a Blender colour ramp holds
TO_RAMP = {"LINEAR": "LINEAR", "COSINE": "EASE", "STEP": "CONSTANT"}
FROM_RAMP = {v: k for k, v in TO_RAMP.items()}
HANDLES = {"LINEAR": "VECTOR", "COSINE": "AUTO_CLAMPED", "STEP": "VECTOR"}
GROUP_PREFIX = ".Alamo tracks "
#: what a widget edit changes (their edits redraw the preview through the message bus)
WATCHED = (bpy.types.ColorRamp, bpy.types.ColorRampElement, bpy.types.CurveMapping,
           bpy.types.CurveMap, bpy.types.CurveMapPoint, bpy.types.ShaderNodeValToRGB,
           bpy.types.ShaderNodeFloatCurve)


def srgb_to_linear(c):
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c):
    c = np.maximum(np.asarray(c, np.float64), 0.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def _interp_index(track):
    return track.bl_rna.properties["interpolation"].enum_items[track.interpolation].value


def track_points(track):
    """(times, values) of the whole track, start and end included, float64."""
    times, values = key_points(track)
    return (np.concatenate(([0.0], times, [1.0])),
            np.concatenate(([track.first_key], values, [track.last_key])))


def keys_state(tracks) -> str:
    """The tracks' keys as text (cheap: it runs on every preview update)."""
    return repr([(t.interpolation, t.first_key, t.last_key,
                  [(k.time, k.value) for k in t.keys]) for t in tracks])


def _shared_points(tracks):
    """(times, values (n, len(tracks))) of the tracks on their common times: the union of
    their key times, each track sampled on its own curve there (exact where they share)."""
    pts = [track_points(t) for t in tracks]
    if all(len(p[0]) == len(pts[0][0]) and np.array_equal(p[0], pts[0][0]) for p in pts):
        return pts[0][0], np.stack([p[1] for p in pts], axis=1)
    times = np.unique(np.concatenate([p[0] for p in pts]))
    cols = []
    for t, (ts, vs) in zip(tracks, pts):
        order = np.argsort(ts, kind="stable")
        cols.append(sampling.Curve(ts[order], vs[order], _interp_index(t))(times))
    return times, np.stack(cols, axis=1)


# --- the widgets ------------------------------------------------------------------------------

def _ramp_read(ramp):
    els = ramp.elements
    pos = np.zeros(len(els), np.float32)
    col = np.zeros(len(els) * 4, np.float32)
    els.foreach_get("position", pos)
    els.foreach_get("color", col)
    return pos, col.reshape(-1, 4)


def _curve_read(mapping):
    pts = mapping.curves[0].points
    loc = np.zeros(len(pts) * 2, np.float32)
    pts.foreach_get("location", loc)
    loc = loc.reshape(-1, 2)
    loc = loc[np.argsort(loc[:, 0], kind="stable")]
    return loc[:, 0], loc[:, 1]


def widget_state(node) -> str:
    """What the widget shows, as text (the handle types, which are not written, left out;
    cheap: it runs on every preview update)."""
    if node.bl_idname == "ShaderNodeValToRGB":
        r = node.color_ramp
        return repr((r.interpolation, r.color_mode, r.hue_interpolation,
                     [(e.position, e.color[:]) for e in r.elements]))
    return repr([p.location[:] for p in node.mapping.curves[0].points])


def _fill_ramp(ramp, times, rgba):
    els = ramp.elements
    while len(els) > 1:
        els.remove(els[len(els) - 1])
    els[0].position = float(times[0])
    els[0].color = tuple(rgba[0])
    for t, c in zip(times[1:], rgba[1:]):
        els.new(float(t)).color = tuple(c)


def _fill_curve(mapping, times, values, interpolation):
    lo, hi = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    hi = hi + max(0.25 * (hi - lo), 1.0)
    mapping.use_clip = True
    mapping.clip_min_x, mapping.clip_max_x = 0.0, 1.0
    mapping.clip_min_y, mapping.clip_max_y = lo, hi
    pts = mapping.curves[0].points
    while len(pts) > 2:
        pts.remove(pts[1])
    pts[0].location = (float(times[0]), float(values[0]))
    pts[1].location = (float(times[-1]), float(values[-1]))
    for t, v in zip(times[1:-1], values[1:-1]):
        pts.new(float(t), float(v))
    for p in pts:
        p.handle_type = HANDLES[interpolation]
    mapping.update()
    mapping.reset_view()


def draw_widget(node, tracks):
    """Show ``tracks``' keys on ``node``'s ramp or curve."""
    times, values = _shared_points(tracks)
    if node.bl_idname == "ShaderNodeValToRGB":
        ramp = node.color_ramp
        ramp.color_mode = "RGB"
        ramp.interpolation = TO_RAMP[tracks[0].interpolation]
        if len(tracks) == 1:                    # alpha: white with the track as alpha
            rgba = np.ones((len(times), 4))
            rgba[:, 3] = values[:, 0] / 255.0
        else:
            rgba = np.ones((len(times), 4))
            rgba[:, :3] = srgb_to_linear(values / 255.0)
        _fill_ramp(ramp, times, rgba)
    else:
        _fill_curve(node.mapping, times, values[:, 0], tracks[0].interpolation)


def _to_track_points(times, values):
    """Widget stops as the file's points: a first stop after 0 (a last before 1) holds its
    value from 0 (to 1), as the widgets draw it."""
    times, values = np.asarray(times, np.float64), np.asarray(values, np.float64)
    if len(times) == 0:
        return np.array([0.0, 1.0]), np.zeros((2,) + values.shape[1:])
    if times[0] > 0.0:
        times, values = np.concatenate(([0.0], times)), np.concatenate((values[:1], values))
    if times[-1] < 1.0:
        times, values = np.concatenate((times, [1.0])), np.concatenate((values, values[-1:]))
    return np.clip(times, 0.0, 1.0), values


def _set_track(track, times, values, interpolation=None):
    track.first_key, track.last_key = float(values[0]), float(values[-1])
    n = len(times) - 2
    while len(track.keys) > n:
        track.keys.remove(len(track.keys) - 1)
    while len(track.keys) < n:
        track.keys.add()
    if n:
        track.keys.foreach_set("time", np.asarray(times[1:-1], np.float32))
        track.keys.foreach_set("value", np.asarray(values[1:-1], np.float32))
    if interpolation is not None and track.interpolation != interpolation:
        track.interpolation = interpolation


def write_widget(node, tracks):
    """Write what ``node`` shows into ``tracks``' keys (the keys the export writes)."""
    if node.bl_idname == "ShaderNodeValToRGB":
        ramp = node.color_ramp
        pos, col = _ramp_read(ramp)
        if len(tracks) == 1:
            vals = col[:, 3:4].astype(np.float64) * 255.0
        else:
            vals = linear_to_srgb(col[:, :3]) * 255.0
        times, vals = _to_track_points(pos, np.clip(np.rint(vals), 0, 255))
        for i, t in enumerate(tracks):
            _set_track(t, times, vals[:, i], FROM_RAMP[ramp.interpolation])
    else:
        x, y = _curve_read(node.mapping)
        times, vals = _to_track_points(x, y)
        _set_track(tracks[0], times, vals)


def widget_problem(node, tracks) -> str:
    """Why the widget cannot be written into the file ('' when it can)."""
    if node.bl_idname != "ShaderNodeValToRGB":
        return ""
    ramp = node.color_ramp
    if ramp.interpolation not in FROM_RAMP:
        return (f"its {node.name} ramp's {ramp.interpolation.replace('_', '-').title()} "
                f"interpolation has no place in the file (Linear, Ease = cosine, Constant = step)")
    if ramp.color_mode != "RGB":
        return f"its {node.name} ramp blends in {ramp.color_mode}; the game blends in RGB"
    return ""


def widget_note(node, tracks) -> str:
    """What the panel says about how the widget draws the file's interpolation."""
    kinds = {t.interpolation for t in tracks}
    if len(kinds) > 1:
        return ("red, green and blue interpolate differently: the ramp draws the red's; an "
                "edit writes the ramp's to all three")
    kind = tracks[0].interpolation
    if node.bl_idname == "ShaderNodeValToRGB":
        return "cosine drawn as Ease (within 1 %)" if kind == "COSINE" else ""
    if any(p.handle_type != HANDLES[kind] for p in node.mapping.curves[0].points):
        return (f"handle types are not written: the file interpolates {kind.lower()} (set "
                f"with the menu)")
    if kind == "STEP":
        return "the file steps from key to key; the curve draws straight lines between them"
    if kind == "COSINE":
        return "the file eases (cosine) between keys; the curve draws smooth handles"
    return ""


# --- keeping both sides in step -----------------------------------------------------------------

def _new_group(obj):
    ng = bpy.data.node_groups.new(GROUP_PREFIX + obj.name, "ShaderNodeTree")
    for i, (name, _, kind) in enumerate(WIDGETS):
        node = ng.nodes.new("ShaderNodeValToRGB" if kind == "RAMP" else "ShaderNodeFloatCurve")
        node.name = node.label = name
        node.location = (0.0, -300.0 * i)
    return ng


def _holds(tracks, kind) -> bool:
    return kind != "RAMP" or len(_shared_points(tracks)[0]) <= RAMP_STOPS


def widgets(p):
    """[(node, tracks, holder)] of the widgets of the emitter ``p`` (``obj.alamo_emitter``)
    that exist (holder: the track keeping the widget's remembered states)."""
    ng = p.track_widgets
    by_name = {t.name: t for t in p.tracks}
    out = []
    for name, names, _ in WIDGETS:
        node = ng.nodes.get(name) if ng is not None else None
        if node is not None and all(n in by_name for n in names):
            out.append((node, [by_name[n] for n in names], Seen(ng, name)))
    return out


class Seen:
    """A widget's and its tracks' states when last in step, kept on the hidden node group
    (saved with the .blend; not among the emitter's fields, whose every change rebuilds the
    preview's model)."""

    __slots__ = ("group", "name")

    def __init__(self, group, name):
        self.group, self.name = group, name

    def _get(self, what):
        return self.group.get(f"{self.name} {what}", "")

    def _set(self, what, value):
        if self._get(what) != value:
            self.group[f"{self.name} {what}"] = value

    widget_seen = property(lambda self: self._get("widget"),
                           lambda self, v: self._set("widget", v))
    keys_seen = property(lambda self: self._get("keys"), lambda self, v: self._set("keys", v))


def sync_emitter(obj, taken=None):
    """Bring ``obj``'s widgets and track keys in step (see the module docstring). ``taken``:
    the node groups other emitters use (a copy made by Shift+D gets a group of its own)."""
    p = obj.alamo_emitter
    names = {t.name for t in p.tracks}
    if not all(n in names for _, ns, _ in WIDGETS for n in ns):
        return
    ng = p.track_widgets
    if ng is None:
        p.track_widgets = ng = _new_group(obj)
    elif taken is not None and ng in taken:
        p.track_widgets = ng = ng.copy()
    if taken is not None:
        taken.add(ng)
    for node, tracks, holder in widgets(p):
        ws, ks = widget_state(node), keys_state(tracks)
        if ws == holder.widget_seen and ks == holder.keys_seen:
            continue                                            # in step: nothing to do
        if holder.widget_seen and ws != holder.widget_seen:          # the widget was edited
            if widget_problem(node, tracks):
                continue                                 # the panel and the export say so
            write_widget(node, tracks)
        elif ks != holder.keys_seen or not holder.widget_seen:
            if not _holds(tracks, "RAMP" if node.bl_idname == "ShaderNodeValToRGB" else ""):
                holder.widget_seen, holder.keys_seen = "", ks
                continue
            draw_widget(node, tracks)
        holder.widget_seen, holder.keys_seen = widget_state(node), keys_state(tracks)


def made(obj):
    """``obj``'s node group of widgets, made (at import) and showing its tracks."""
    sync_emitter(obj)
    return obj.alamo_emitter.track_widgets


def pending(node, holder) -> bool:
    """Whether the widget was edited since the keys were last in step with it."""
    return bool(holder.widget_seen) and widget_state(node) != holder.widget_seen


def refusal(obj) -> str:
    """Why the export refuses ``obj``'s widgets ('' when it does not)."""
    for node, tracks, holder in widgets(obj.alamo_emitter):
        if pending(node, holder):
            problem = widget_problem(node, tracks)
            if problem:
                return f"emitter {obj.name!r}: {problem}"
    return ""
