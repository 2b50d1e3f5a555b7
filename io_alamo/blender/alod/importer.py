"""Import an ALOD ``ALM\\0`` progressive mesh: an armature from its bones, the full-detail
skinned mesh, lower levels of detail made by applying its collapses, materials with the
embedded textures, and one action from its frames.

``import_alod(context, path, options)`` is all-or-nothing (the .alo import's transaction).
The file's bytes stay with the armature (key ``alod_source``), so every record, collapses
included, survives in the .blend exactly as read.
"""

import os
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...formats.alod import collapse_vertex_maps, lod_stops, lod_triangles
from ...formats.alod.options import AlodImportOptions
from ...formats.alod.records import bone_order, matrix_row_problems
from .. import compat
from ..alamo.hub import default_visibility
from ..armature import BONE_REACH
from ..matrices import continuous_quaternions, decompose, inverse, nearest_rotation
from ..names import to_blender
from ..results import Result
from ..scene_settings import set_scene_frame_rate
from ..source import set_source
from ..importing import import_file
from .mesh import build_materials, mesh_object, tangent_images, texture_images

SOURCE_KEY = "alod_source"
SOURCE_NAME_KEY = "alod_source_file"
MIN_BONE_LENGTH = 1e-3


@dataclass
class AlodImportResult(Result):
    """What an ALOD import made (a :class:`~..results.Result`)."""
    armature: object = None
    objects: list = field(default_factory=list)

    def summary(self):
        c = self.counts
        return (f"{c.get('bones', 0)} bones, {c.get('triangles', 0):,} triangles, "
                f"{c.get('lods', 0)} lower levels of detail, {c.get('materials', 0)} materials, "
                f"{c.get('textures', 0)} textures, {c.get('frames', 0)} frames")


def import_alod(context: bpy.types.Context, filepath: str,
                options: AlodImportOptions | None = None) -> AlodImportResult:
    """Import the ALOD mesh at ``filepath`` into a new collection of the active scene."""
    options = options or AlodImportOptions()
    return import_file(context, filepath, "alod",      # an Alithia .alm: where it goes
                       lambda tx, alod, data: _AlodBuilder(context, tx, alod, data, filepath,
                                                           options).build())


def _finite(a):
    a = np.array(a, np.float64)
    a[~np.isfinite(a)] = 0.0
    return a


class _AlodBuilder:
    def __init__(self, context, tx, alod, data, filepath, options):
        self.context, self.tx, self.alod = context, tx, alod
        self.data, self.filepath, self.options = data, filepath, options
        self.result = AlodImportResult()
        self.name = to_blender(os.path.splitext(os.path.basename(filepath))[0])
        self.rest = _finite(alod.world_matrices())
        for text in matrix_row_problems(alod):
            self.result.warn(text)

    def warn(self, text):
        self.result.warn(text)

    def _link(self, obj):
        self.collection.objects.link(obj)
        self.result.objects.append(obj)
        return obj

    def build(self):
        self.collection = self.tx.add(bpy.data.collections.new(self.name))
        self.context.scene.collection.children.link(self.collection)
        self._armature()
        alod, tx = self.alod, self.tx
        textures = texture_images(tx, alod, self.name, self.warn)
        tangents = tangent_images(tx, alod, self.name)
        self.materials = build_materials(tx, alod, self.name, textures, tangents, self.rest)
        meshes = self._meshes()
        if len(alod.frames):
            self._action()
        c = self.result.counts
        c.update(bones=len(alod.bones), triangles=len(alod.triangles),
                 materials=len(self.materials), textures=len(textures),
                 lods=len(meshes) - 1, frames=len(alod.frames))
        vl = self.context.view_layer
        for o in vl.objects:
            o.select_set(False)
        self.arm_obj.select_set(True)
        vl.objects.active = self.arm_obj
        vl.update()
        return self.result

    # --- skeleton ---------------------------------------------------------------------------

    def _armature(self):
        tx, alod = self.tx, self.alod
        arm = tx.add(bpy.data.armatures.new(self.name))
        arm.display_type = "STICK"
        obj = self.arm_obj = tx.add(bpy.data.objects.new(self.name, arm))
        self._link(obj)
        obj.show_in_front = True
        obj.alamo.role, obj.alamo.name = "SKELETON", self.name
        tx.add(set_source(obj, self.data, os.path.basename(self.filepath), key=SOURCE_KEY))
        obj[SOURCE_NAME_KEY] = to_blender(os.path.basename(self.filepath))
        obj["alod_version"] = alod.version
        self.result.armature = obj
        parents = alod.bones["parent"].astype(np.int64)
        tails = self._tails()
        self.context.view_layer.objects.active = obj
        bpy.ops.object.mode_set(mode="EDIT")
        try:
            edit = [self._edit_bone(arm, i, tails[i]) for i in range(len(parents))]
            for i, p in enumerate(parents):
                if p >= 0:
                    edit[i].parent = edit[p]
            self.bone_names = [eb.name for eb in edit]
        finally:
            bpy.ops.object.mode_set(mode="OBJECT")
        lost = [n for n in self.bone_names if n not in arm.bones]
        if lost:
            raise ValueError(f"Blender could not make bone {lost[0]!r} from the file's matrices")
        for i, n in enumerate(self.bone_names):
            p = arm.bones[n].alamo
            p.name, p.blender_name, p.index = n, n, i
        self.blender_rest = np.array([np.array(arm.bones[n].matrix_local, np.float64)
                                      for n in self.bone_names]).reshape(-1, 4, 4)

    def _tails(self):
        """Each bone's tail offset from its head in object space: the file's tail (v10,
        bone-local) moved by the rest matrix, else along the bone's Y axis, as long as the
        mean distance to its children (or a tenth of the model's size)."""
        rest, alod = self.rest, self.alod
        n = len(rest)
        heads = rest[:, :3, 3]
        if "tail" in alod.bones.dtype.names:
            out = np.einsum("bij,bj->bi", rest[:, :3, :3], _finite(alod.bones["tail"]))
        else:
            out = np.zeros((n, 3))
        pts = _finite(alod.positions.transformed(self.rest))[:, :3] if len(alod.positions) \
            else heads
        every = np.vstack([pts, heads])
        size = float(np.ptp(every, axis=0).max()) if len(every) else 1.0
        total, count = np.zeros(n), np.zeros(n)
        parents = alod.bones["parent"].astype(np.int64)
        child = parents >= 0
        np.add.at(total, parents[child], np.linalg.norm(heads[child] - heads[parents[child]],
                                                          axis=1))
        np.add.at(count, parents[child], 1)
        length = np.where(count > 0, total / np.maximum(count, 1), 0.1 * size)
        length = np.maximum(length, max(MIN_BONE_LENGTH, 1e-5 * float(np.abs(heads).max(
            initial=0.0))))
        short = np.linalg.norm(out, axis=1) < length * 1e-3
        y_axes = np.array([nearest_rotation(r[:3, :3])[:, 1] for r in rest]).reshape(-1, 3)
        out[short] = y_axes[short] * length[short, None]
        return out

    def _edit_bone(self, arm, i, tail):
        eb = arm.edit_bones.new(f"Bone_{i}")
        world = self.rest[i]
        rot = nearest_rotation(world[:3, :3])
        head = np.clip(world[:3, 3], -BONE_REACH, BONE_REACH)
        eb.head = head.tolist()
        eb.tail = (head + tail).tolist()
        eb.align_roll(rot[:, 2].tolist())       # the file's Z axis, as near as the tail allows
        return eb

    # --- meshes -----------------------------------------------------------------------------

    def _meshes(self):
        alod = self.alod
        points = _finite(alod.positions.transformed(self.rest))[:, :3]
        full = np.asarray(alod.triangles["vertices"], np.int64)
        pos = np.asarray(alod.vertices.position, np.int64)[full]
        ok = (pos[:, 0] != pos[:, 1]) & (pos[:, 1] != pos[:, 2]) & (pos[:, 0] != pos[:, 2])
        if not ok.all():
            self.warn(f"{int((~ok).sum())} triangles use a position twice and were left out "
                      "(Blender cannot hold them)")
        levels = [((full[ok], np.flatnonzero(ok)), 0, 0.0)]
        if self.options.levels_of_detail and len(alod.collapses):
            stops = lod_stops(alod.collapses.errors(), self.options.lod_fractions)
            maps = collapse_vertex_maps(alod, [k for k, _ in stops])
            for (k, threshold), vmap in zip(stops, maps):
                tris = lod_triangles(alod, vmap)
                if len(tris[0]):
                    levels.append((tris, k, threshold))
        base = f"{self.name}_Mesh"
        objs = []
        for j, (tris, applied, threshold) in enumerate(levels):
            name = base if len(levels) == 1 else f"{base}_LOD{len(levels) - 1 - j}"
            obj = mesh_object(self.tx, alod, name, tris, points, self.materials,
                              self.bone_names, self.arm_obj, self.warn)
            self._link(obj)
            obj["alod_collapses_applied"] = int(applied)
            obj["alod_error_threshold"] = float(threshold)
            objs.append(obj)
        for obj, shown in zip(objs, default_visibility([o.name for o in objs])):
            if not shown:
                obj.hide_set(True)
                obj.hide_render = True
        return objs

    # --- animation --------------------------------------------------------------------------

    def _action(self):
        alod, arm_obj = self.alod, self.arm_obj
        scene = self.context.scene
        poses = self._pose_bases()                        # (frames, bones, 4, 4)
        t, q, s = decompose(poses)
        q = np.swapaxes(continuous_quaternions(np.swapaxes(q, 0, 1)), 0, 1)
        action = self.tx.add(bpy.data.actions.new(self.name))
        action.use_fake_user = True
        nf = len(alod.frames)
        start = scene.frame_start
        keys = start + np.arange(nf, dtype=np.float64)
        linear = np.full(nf, compat.INTERPOLATION["LINEAR"])
        writer = compat.ActionWriter(action, arm_obj)
        for i, name in enumerate(self.bone_names):
            pb = arm_obj.pose.bones[name]
            pb.rotation_mode = "QUATERNION"
            path = pb.path_from_id()
            for prop, values in (("location", t), ("rotation_quaternion", q), ("scale", s)):
                for k in range(values.shape[-1]):
                    fc = writer.fcurve(f"{path}.{prop}", k, name)
                    compat.set_keys(fc, keys, values[:, i, k], linear)
        writer.assign()
        action.alamo.frames = nf
        action.alamo.fps = alod.rate()
        action.use_frame_range = True
        action.frame_range = (start, start + max(nf - 1, 1))
        if self.options.set_frame_rate:
            for w in set_scene_frame_rate(scene, alod.rate()):
                self.warn(w)
            scene.frame_end = start + max(nf - 1, 0)

    def _pose_bases(self):
        """Pose-bone matrix_basis per frame: each frame's matrices replace the rest ones, so a
        bone's deformation is frame_world @ inverse(rest_world); in Blender's terms the pose
        matrix is that times the Blender rest, made relative to the parent's pose."""
        alod = self.alod
        parents = alod.bones["parent"].astype(np.int64)
        local = _finite(alod.frame_matrices())
        world = np.empty_like(local)
        for i in bone_order(parents):
            p = parents[i]
            world[:, i] = local[:, i] if p < 0 else world[:, p] @ local[:, i]
        rest_b = self.blender_rest
        pose = world @ inverse(self.rest)[None] @ rest_b[None]
        basis = np.empty_like(pose)
        for i, p in enumerate(parents):
            if p < 0:
                basis[:, i] = inverse(rest_b[i]) @ pose[:, i]
            else:
                basis[:, i] = inverse(rest_b[i]) @ rest_b[p] @ inverse(pose[:, p]) @ pose[:, i]
        return basis
