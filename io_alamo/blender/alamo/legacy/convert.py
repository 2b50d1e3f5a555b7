"""Convert a scene made with the older ALAMO plugin in place into io_alamo's own properties,
so it can be edited in the Alamo panels: bones (names, visibility, billboard, the ``Root``
bone put back), proxies as proxy empties on their bones, meshes (role, hidden, collision),
materials (shader and catalogue parameters) and actions (frame range).

The plugin's own ID properties stay where they are (the file still opens with the plugin);
an armature is marked converted so neither this nor the export reads them twice. Meshes keep
their Child Of constraints: the export understands them.
"""

from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ... import compat
from ...attach import attached_objects, owner_armature
from ...names import IMPORT_NAME_KEY
from ..props import BILLBOARD_ITEMS
from ..add import add_at_bone
from . import plugin

HIDDEN_KEYS_SUFFIX = '"].proxyIsHiddenAnimation'
VISIBLE_KEYS_SUFFIX = '"].alamo.visible'
VALUE_FIELDS = {"INT": "int_value", "FLOAT": "float_value", "FLOAT3": "float3_value",
                "FLOAT4": "float4_value", "TEXTURE": "texture"}


@dataclass(slots=True)
class ConversionReport:
    """What was converted (counts by kind) and what could not be (one line each)."""
    mapped: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)

    def count(self, what, n=1):
        self.mapped[what] = self.mapped.get(what, 0) + n

    def summary(self):
        if not self.mapped:
            return "nothing made with the ALAMO plugin was found"
        return "converted from the ALAMO plugin: " + ", ".join(
            f"{n} {what}" for what, n in self.mapped.items())


def scene_has_plugin_data(scene):
    """Anything in the scene the conversion would change (cheap enough for a panel poll)."""
    for obj in scene.objects:
        if obj.type == "ARMATURE" and plugin.is_plugin_armature(obj):
            return True
        if obj.type == "MESH" and plugin.has_plugin_data(obj):
            return True
    return any(plugin.is_plugin_action(a) for a in bpy.data.actions)


def convert_scene(context):
    """Convert everything of the active scene the plugin made; returns a ConversionReport."""
    report = ConversionReport()
    scene = context.scene
    meshes = [o for o in scene.objects if o.type == "MESH"]
    loose = [o for o in meshes if owner_armature(o) is None and plugin.has_plugin_data(o)]
    converted = []
    for arm in [o for o in scene.objects if o.type == "ARMATURE"]:
        if plugin.is_plugin_armature(arm):
            convert_armature(context, arm, report)
            converted.append(arm)
    _hang_on_root(loose, converted, report)
    for obj in meshes:
        if plugin.is_plugin_object(obj) or (obj.alamo.role == "NONE" and _attached(obj, scene)):
            convert_object(obj, report)
    for mat in {s.material for o in meshes for s in o.material_slots if s.material}:
        if plugin.is_plugin_material(mat):
            convert_material(mat, report)
    for action in bpy.data.actions:
        if plugin.is_plugin_action(action):
            convert_action(action, scene, report)
            convert_proxy_keys(action, report)
    if report.mapped:
        report.problems.append(plugin.PLUGIN_LOSSES)
    return report


def _hang_on_root(loose, armatures, report):
    """Meshes of the plugin on no armature were on the ``Root`` bone it dropped: they become
    children of the armature (keeping their place), so its export takes them."""
    if not loose:
        return
    if len(armatures) != 1:
        report.problems.append(f"{len(loose)} meshes with the plugin's data hang on no "
                               "armature; parent them to their armature to export them with it")
        return
    arm = armatures[0]
    for obj in loose:
        world = obj.matrix_world.copy()
        obj.parent = arm
        obj.matrix_world = world
    report.count("meshes put on the Root bone", len(loose))


def _attached(obj, scene):
    return any(obj in attached_objects([obj], arm) for arm in scene.objects
               if arm.type == "ARMATURE" and arm.get(plugin.CONVERTED_KEY))


# --- armature ---------------------------------------------------------------------------------

def convert_armature(context, arm, report):
    bones = plugin.read_bones(arm)
    order = [b.blender_name for b in bones]
    if plugin.root_missing(bones):
        root = _add_root(context, arm, report)
        if root is not None:
            bones.insert(0, plugin.PluginBone(root, plugin.ROOT, True, 0))
            report.count("Root bones restored")
    renamed = 0
    for k, b in enumerate(bones):
        p = arm.data.bones[b.blender_name].alamo
        p.name, p.blender_name, p.index = b.file_name, b.blender_name, k
        p.visible = b.visible
        p.billboard = _billboard_id(b.billboard)
        renamed += b.file_name != b.blender_name
    report.count("bones", len(order))
    if renamed:
        report.count("duplicate bone names restored", renamed)
    _proxies(context, arm, bones, report)
    arm.alamo.role = "SKELETON"
    arm.alamo.name = arm.name[:-3] if arm.name.endswith("Rig") else arm.name
    arm[plugin.CONVERTED_KEY] = 1
    report.count("armatures")


def _billboard_id(value):
    return next((ident for ident, _, _, v in BILLBOARD_ITEMS if v == value), "DISABLE")


def _add_root(context, arm, report):
    """Add an identity ``Root`` bone and hang the parentless bones on it; returns its
    Blender name, or None when the armature cannot be edited (not in the view layer)."""
    vl = context.view_layer
    if arm.name not in vl.objects:
        report.problems.append(f"armature {arm.name!r} is not in the view layer: its 'Root' "
                               "bone was not restored (the export adds it)")
        return None
    active, hidden, hide_viewport = vl.objects.active, arm.hide_get(), arm.hide_viewport
    arm.hide_viewport = False
    arm.hide_set(False)
    vl.objects.active = arm
    length = max(max((b.length for b in arm.data.bones), default=1.0), 1e-3)
    try:
        bpy.ops.object.mode_set(mode="EDIT")
        edit = arm.data.edit_bones
        root = edit.new(plugin.ROOT)
        root.head, root.tail = (0.0, 0.0, 0.0), (0.0, length, 0.0)
        root.matrix = Matrix.Identity(4)
        for eb in edit:
            if eb.parent is None and eb != root:
                eb.parent = root
        name = root.name
    except RuntimeError as e:
        report.problems.append(f"armature {arm.name!r}: 'Root' bone not restored ({e}); the "
                               "export adds it")
        return None
    finally:
        if arm.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        vl.objects.active = active
        arm.hide_set(hidden)
        arm.hide_viewport = hide_viewport
    return name


def _proxies(context, arm, bones, report):
    k = 0
    for b in bones:
        if b.proxy is None:
            continue
        obj = add_at_bone(context, arm, b.blender_name, "PROXY", b.proxy.name)
        p = obj.alamo
        p.name, p.file_index = b.proxy.name, k
        p.hidden, p.alt_decrease_stay_hidden = b.proxy.hidden, b.proxy.alt_decrease_stay_hidden
        obj[IMPORT_NAME_KEY] = obj.name      # renaming in Blender renames in the file
        k += 1
    if k:
        report.count("proxies", k)


# --- meshes, materials, actions ---------------------------------------------------------------

def convert_object(obj, report):
    p = obj.alamo
    # the file's name: without the '.001' Blender gave duplicates (written while the
    # object keeps its Blender name)
    p.role, p.name = "MESH", plugin.object_file_name(obj.name, bpy.data.objects)
    obj[IMPORT_NAME_KEY] = obj.name
    p.hidden, p.collision = plugin.object_flags(obj)
    report.count("meshes")


def convert_material(mat, report):
    m = plugin.read_material(mat)
    props = mat.alamo
    props.params.clear()
    for param in m.params:
        item = props.params.add()
        item.name, item.type = param.name, param.type
        setattr(item, VALUE_FIELDS[param.type], param.value)
    props.shader = m.shader
    report.count("materials")
    report.count("shader parameters", len(m.params) - len(m.defaulted))
    if m.defaulted:
        report.count("parameters at catalogue defaults", len(m.defaulted))
    report.problems += m.problems


def convert_action(action, scene, report):
    end = plugin.end_frame(action)
    start = int(round(action.frame_range[0]))
    if end < start:
        report.problems.append(f"action {action.name!r}: AnimationEndFrame {end} is before its "
                               f"first frame {start}; its keyed range is kept")
        return
    action.alamo.frames = end - start + 1
    action.alamo.fps = scene.render.fps / scene.render.fps_base
    action.use_frame_range = True
    action.frame_range = (start, max(end, start + 1))
    report.count("actions")


def convert_proxy_keys(action, report):
    """The plugin keyed a proxy's visibility as ``proxyIsHiddenAnimation`` on the pose bone;
    io_alamo keys the bone's Alamo Visible (the .ala visibility track), the opposite."""
    fcurves = compat.action_fcurves(action)
    have = {fc.data_path for fc in fcurves}
    done = 0
    for fc in fcurves:
        if not fc.data_path.endswith(HIDDEN_KEYS_SUFFIX):
            continue
        path = fc.data_path[:-len(HIDDEN_KEYS_SUFFIX)] + VISIBLE_KEYS_SUFFIX
        if path in have or not len(fc.keyframe_points):
            continue
        n = len(fc.keyframe_points)
        co = np.empty(2 * n, np.float32)
        fc.keyframe_points.foreach_get("co", co)
        visible = _fcurve_beside(action, fc, path)
        constant = compat.INTERPOLATION["CONSTANT"]
        compat.set_keys(visible, co[0::2], 1.0 - (co[1::2] > 0.5), np.full(n, constant))
        done += 1
    if done:
        report.count("animated proxy visibilities", done)


def _fcurve_beside(action, fc, data_path):
    """A new F-curve in the same action (and slot, and group) as ``fc``."""
    group = fc.group
    if not compat.HAS_SLOTTED_ACTIONS:
        return action.fcurves.new(data_path, index=0, action_group=group.name if group else "")
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                if any(f == fc for f in bag.fcurves):
                    new = bag.fcurves.new(data_path, index=0)
                    new.group = group
                    return new
    raise RuntimeError(f"F-curve {fc.data_path!r} not found in action {action.name!r}")
