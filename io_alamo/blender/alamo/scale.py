"""Scale a unit in place (Alamo > Scale Model): the rest skeleton, every object on the
armature (meshes, lights, proxies, dazzles) and the location keys of every action of the
armature, by one factor about the armature's origin; the armature object's scale ends at 1.

Meshes change in their vertex positions only: topology, UVs, normals, tangent frames and
vertex order stay, so the export rebuilds them with the file's own tangent frames.
"""

import math

import bpy
import numpy as np
from mathutils import Matrix

from .. import compat
from ..attach import attached_objects, child_of
from .corners import KEY_ATTRIBUTE, corner_keys
from .exporter.ala import armature_actions
from .exporter.bake import applied_scale
from .fingerprint import bone_of_path
from .bone_rest import REST_KEY, remember_rest, rest_unedited


class ScaleError(ValueError):
    """The unit cannot be scaled; the text says why."""


def members(context, arm):
    """The objects that move with ``arm``: its descendants and what hangs on it by a Child
    Of constraint or an Armature modifier, parents before children."""
    out, todo = [], list(arm.children)
    while todo:
        obj = todo.pop(0)
        out.append(obj)
        todo += list(obj.children)
    out += [o for o in attached_objects(context.scene.objects, arm) if o not in out]
    return out


def scale_model(context, arm, factor):
    """Scale the unit of armature object ``arm`` by ``factor``; returns a one-line summary.
    An object scale the armature had (uniform) is folded in and set to 1."""
    if arm is None or arm.type != "ARMATURE":
        raise ScaleError("select an armature (or an object on one) to scale its unit")
    own = np.array(arm.scale, np.float64)
    if not np.allclose(own, own[0], rtol=1e-6):
        raise ScaleError(f"armature {arm.name!r} has a non-uniform object scale "
                         f"{tuple(round(float(x), 4) for x in own)}: apply it first "
                         "(Object > Apply > Scale), or export it as it is")
    k = float(factor) * float(own[0])
    if not math.isfinite(k) or k <= 0.0:
        raise ScaleError(f"the factor must be a positive number, not {factor!r}")
    rest_pose = arm.data.pose_position
    arm.data.pose_position = "REST"           # placements read and written at rest
    context.view_layer.update()               # (world matrices of the rest, not of a pose)
    try:
        return _scale(context, arm, k)
    finally:
        arm.data.pose_position = rest_pose
        context.view_layer.update()


def _scale(context, arm, k):
    # location keys an earlier Apply Scale left at the old size catch up now (the rests
    # are remembered anew below, so the export no longer finds that factor)
    keys = k * applied_scale(arm)
    objs = members(context, arm)
    arm_world = np.array(arm.matrix_world, np.float64)
    placed = {o.name: np.linalg.inv(arm_world) @ np.array(o.matrix_world, np.float64)
              for o in objs}
    arm.scale = (1.0, 1.0, 1.0)
    context.view_layer.update()
    _scale_bones(context, arm, k, keys)
    context.view_layer.update()
    new_world = np.array(arm.matrix_world, np.float64)
    meshes = set()
    for obj in objs:
        m = placed[obj.name].copy()
        m[:3, 3] *= k
        _place(obj, arm, new_world @ m)
        context.view_layer.update()
        if obj.type == "MESH" and obj.data.name not in meshes:
            meshes.add(obj.data.name)
            _scale_mesh(obj.data, k)
        _scale_sizes(obj, k)
    actions = _scale_actions(arm, keys)
    return (f"{arm.name}: scaled by {k:g}: {len(arm.data.bones)} bones, {len(objs)} objects, "
            f"{actions} actions")


def _scale_bones(context, arm, k, since_import):
    """Every bone's rest position times ``k`` (its rotation kept). Imported bones whose
    rest was as import made it (or scaled by Apply Scale since: ``since_import`` is then
    the whole factor) keep their file matrix in step, so the export still writes them as
    the file's bones; edited ones stay edited."""
    as_file = {b.name for b in arm.data.bones
               if b.get(REST_KEY) is not None and (rest_unedited(b) or since_import != k)}
    active, mode = context.view_layer.objects.active, arm.mode
    context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        for eb in arm.data.edit_bones:
            m = np.array(eb.matrix, np.float64)
            length = eb.length * k
            m[:3, 3] *= k
            eb.matrix = Matrix(m.tolist())
            eb.length = length
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
        context.view_layer.objects.active = active
        if mode != "OBJECT" and active == arm:
            bpy.ops.object.mode_set(mode=mode)
    for bone in arm.data.bones:
        p = bone.alamo
        if bone.name in as_file:
            matrix = np.array(p.matrix, np.float64).reshape(3, 4)
            matrix[:, 3] *= since_import
            p.matrix = [float(x) for x in matrix.ravel()]
            remember_rest(bone)      # not Apply Scale: its keys are scaled too


def _place(obj, arm, world):
    """Put ``obj`` at ``world``; a Child Of constraint on the armature is accounted for."""
    con = child_of(obj, arm)
    if con is None:
        obj.matrix_world = Matrix(world.tolist())
        return
    bone = arm.data.bones[con.subtarget]
    through = (np.array(arm.matrix_world, np.float64) @ np.array(bone.matrix_local, np.float64)
               @ np.array(con.inverse_matrix, np.float64))
    obj.matrix_basis = Matrix((np.linalg.inv(through) @ world).tolist())


def _scale_mesh(me, k):
    """Vertex positions (and shape keys) times ``k``; corners whose tangent frame import
    kept still count as unchanged."""
    att = me.attributes.get(KEY_ATTRIBUTE)
    kept = None
    if att is not None and att.domain == "CORNER" and att.data_type == "INT":
        stored = np.empty(len(me.loops), np.int32)
        att.data.foreach_get("value", stored)
        kept = stored == corner_keys(me)
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    me.vertices.foreach_set("co", (co.astype(np.float64) * k).astype(np.float32))
    if me.shape_keys is not None:
        for key in me.shape_keys.key_blocks:
            a = np.empty(len(key.data) * 3, np.float32)
            key.data.foreach_get("co", a)
            key.data.foreach_set("co", (a.astype(np.float64) * k).astype(np.float32))
    me.update()
    if kept is not None:
        now = corner_keys(me)
        att.data.foreach_set("value", np.where(kept, now, np.where(stored == now, now ^ 1,
                                                                   stored)))


def _scale_sizes(obj, k):
    p = obj.alamo
    if obj.type == "EMPTY":
        obj.empty_display_size *= k
        if p.role == "DAZZLE":
            p.radius *= k
    elif obj.type == "LIGHT" and p.role == "LIGHT":
        p.far_attenuation_start *= k
        p.far_attenuation_end *= k


def _scale_actions(arm, k):
    """Location keys (values and handles) of every action of the armature times ``k``."""
    names = {b.name for b in arm.data.bones}
    actions = armature_actions(arm)
    for action in actions:
        for fc in compat.action_fcurves(action):
            name, prop = bone_of_path(fc.data_path)
            if prop != "location" or name not in names:
                continue
            kp = fc.keyframe_points
            for attr in ("co", "handle_left", "handle_right"):
                a = np.empty(2 * len(kp), np.float32)
                kp.foreach_get(attr, a)
                a[1::2] *= k
                kp.foreach_set(attr, a)
            fc.update()
    return len(actions)
