"""Export an armature and what hangs on it as an .alo model.

What the user did not change is written from the imported file's own records (found through
the source kept on the armature, and the fingerprints import left on meshes), so an unedited
import exports byte for byte. Everything else is built from Blender data.
"""

import copy
import os
import time

import bpy
import numpy as np

from ....formats.alamo import shaders
from ....formats.alamo import (Bone, Connections, Dazzle, Light, Material, Mesh, Model,
                               ObjectConnection, ParamType, Proxy, ShaderParam)
from ....formats.keep import keep_all_or_rebuild, keep_or_rebuild, same_value
from ... import progress
from ...armature import find_armature
from ...attach import child_of_bone, child_of_rest_world
from ...matrices import inverse, nearest_rotation
from ...names import from_blender
from ..props import param_value
from ...source import MODEL_KEY, from_model_of
from .. import fingerprint
from ..particle_preview.systems import is_preview
from . import plugin as plugin_data
from .ala import AlaExportOptions, armature_actions, build_animation, file_name_for
from .bake import applied_scale, bake_of, origin_note
from ..follow import REST
from .bone_follow import bone_for_proxy, bones_followed, off_bone
from .common import (AloExportOptions, ExportError, AloExportResult, Problem, Report,
                     object_export_name, on_deleted_bone, shader_value)
from .game_check import save_checked
from .rest_pose import rest_pose
from .shadow_keep import keep_shadow_topology
from .mesh import MeshContext, build_mesh
from .plugin import armature_members
from .skeleton import build_skeleton, parse_source

# the public API (README), and the names the UI and the batch converter take from here
__all__ = ["ExportError", "AloExportOptions", "AloExportResult", "Problem", "build_model",
           "export_alo", "find_armature", "gather"]

LIGHT_TYPES = {"POINT": 0, "SUN": 1, "SPOT": 2}
# the fields an export rebuilds from Blender; a source record equal in all of them is kept
LIGHT_FIELDS = ("name", "type", "color", "intensity", "far_attenuation_end",
                "far_attenuation_start", "hotspot", "falloff")
PROXY_FIELDS = ("name", "bone", "hidden", "alt_decrease_stay_hidden")
DAZZLE_FIELDS = ("name", "bone", "color", "position", "radius", "tex_x", "tex_y", "tex_size",
                 "texture", "frequency", "phase", "night_only", "hidden", "bias")
DEFAULT_SHADER = "alDefault.fx"


def export_alo(context: bpy.types.Context, filepath: str,
               options: AloExportOptions | None = None) -> AloExportResult:
    """Build the model and write it atomically to ``filepath``; with ``options.animations``
    also each action of the armature beside it (``result.animations``: the paths)."""
    options = options or AloExportOptions()
    exporter = _Exporter(context, options)
    result = exporter.build()
    anims = []
    if options.animations and result.armature is not None:
        problem = plugin_data.animation_problem(result.armature)
        if problem:
            raise ExportError([problem], [result.armature])
        t = time.perf_counter()
        taken = {}
        for action in armature_actions(result.armature):
            path = file_name_for(filepath, action)
            other = taken.setdefault(os.path.basename(path).lower(), action.name)
            if other != action.name:
                raise ExportError([f"actions {other!r} and {action.name!r} would both be "
                                   f"written to {os.path.basename(path)}: rename one"])
            # the source model was parsed once, for the model: each action reuses it
            built = build_animation(context, result.armature, action,
                                    AlaExportOptions(format=options.ala_format,
                                                     new_format=options.new_ala_format),
                                    source=exporter.source)
            anims.append((path, built.animation, action))
            result.problems += built.problems
        result.timings["animations"] = time.perf_counter() - t
    t = time.perf_counter()
    # all files or none: a failure leaves every existing file as it was
    save_checked([(result.model, filepath)] + [(anim, path) for path, anim, _ in anims],
                 [result.armature] + [action for _, _, action in anims], result.armature)
    result.animations += [path for path, _, _ in anims]
    result.timings["write"] = time.perf_counter() - t
    return result


def _descendants(obj):
    out = []
    for child in obj.children:
        out.append(child)
        out += _descendants(child)
    return out


def gather(context, options):
    """(armature or None, exported objects) for the chosen scope."""
    scope = options.scope
    if scope == "SELECTION":
        objs = list(context.selected_objects)
    elif scope == "VISIBLE":
        objs = [o for o in context.view_layer.objects if o.visible_get()]
    elif scope == "SCENE":
        objs = list(context.scene.objects)
    else:
        arm = find_armature(context)
        if arm is None:
            objs = list(context.selected_objects) or list(context.scene.objects)
        else:
            objs = [arm] + _descendants(arm)
            objs += [o for o in armature_members(context.scene.objects, arm) if o not in objs]
    objs = [o for o in objs if not is_preview(o)]     # particle previews are never the model's
    arms = [o for o in objs if o.type == "ARMATURE"]
    arm = arms[0] if arms else find_armature(context, objs)
    if len(arms) > 1:
        raise ExportError([f"{len(arms)} armatures to export; an .alo has one skeleton: "
                           "export them one at a time"], arms)
    return arm, [o for o in objs if o.type != "ARMATURE"]


def build_model(context: bpy.types.Context, options: AloExportOptions) -> AloExportResult:
    """The Model record of the scene (nothing written); ExportError if it cannot be."""
    return _Exporter(context, options).build()


class _Exporter:
    def __init__(self, context, options):
        self.context = context
        self.options = options
        self.result = AloExportResult()
        self.report = Report(self.result.problems, self.result.timings)
        self.warn = self.report.warn
        self.check_name = self.report.check_name
        self._weights = {}          # object name -> its mesh's weights, read once
        self._obj = None            # the mesh being built (what material warnings are about)
        self.plugin = plugin_data.PluginScene()   # the ALAMO plugin's data, read up front
        self._src_worlds = None     # the source file's bone world matrices, when asked

    def read_weights(self, obj, me):
        """(vertex, group, weight) arrays of ``me``; an object's own mesh is read once."""
        if me is not obj.data:
            return fingerprint.read_weights(me)
        if obj.name not in self._weights:
            self._weights[obj.name] = fingerprint.read_weights(me, obj)
        return self._weights[obj.name]

    def build(self):
        with rest_pose(self.context):            # whatever frame Blender shows
            return self._build()

    def _build(self):
        clock = time.perf_counter()
        timings = self.result.timings

        def lap(stage):
            nonlocal clock
            now = time.perf_counter()
            timings[stage] = timings.get(stage, 0.0) + now - clock
            clock = now

        self.context.view_layer.update()      # world matrices of objects a script just moved
        arm, objs = gather(self.context, self.options)
        self.arm = arm
        self.plugin = plugin_data.read_scene(arm, objs)
        self.source = parse_source(arm)
        # the object's rotation and scale are baked into what is written; its location is
        # the model's origin
        self.bake = bake_of(arm)
        self.arm_world = self.bake.origin
        moved = origin_note(self.bake, arm.name) if arm else None
        if moved:
            self.warn(moved, [arm])
        keys_scale = applied_scale(arm)
        if keys_scale != 1.0 and armature_actions(arm):
            self.warn(f"armature {arm.name!r} was scaled by {keys_scale:.4g} since import "
                      "(Apply Scale) and its actions' location keys were not: its animations "
                      f"are written with them scaled by {keys_scale:.4g} (Alamo > Scale Model "
                      "scales the keys in Blender too; Blender's Apply Scale also moves objects "
                      "on bones by the pose shown at the time: apply it at rest, Armature > "
                      "Pose Position: Rest, or use Scale Model)", [arm])
        lap("gather")
        built = build_skeleton(arm, self.source, self.report)
        plugin_data.apply_skeleton(self.plugin, built, self.report)
        self.skeleton, self.bone_index, self.worlds = built.skeleton, built.bone_index, \
            built.worlds
        # bones keep their place by name, not by number: a bone deleted or added moves the
        # indices of others, which the file's data kept as it is must follow (issue 39)
        self.source_of, self.export_of = built.source_index, built.export_of_source()
        meshes = [o for o in objs if o.type == "MESH"]
        lights = [o for o in objs if o.type == "LIGHT"]
        empties = [o for o in objs if o.type == "EMPTY"]
        for o in objs:
            if o.type not in ("MESH", "LIGHT", "EMPTY", "CAMERA"):
                self.warn(f"{o.type.lower()} {o.name!r} is not written: only meshes, lights, "
                          "proxies and dazzles are (Object > Convert > Mesh to include it)",
                          [o])
        for o in meshes:
            for m in o.modifiers:
                if m.type == "ARMATURE" and m.object is not None and m.object != self.arm \
                        and m.show_viewport:
                    self.warn(f"mesh {o.name!r} is deformed by armature {m.object.name!r}, "
                              "which is not exported: it is written as a rigid mesh, as it is "
                              "at rest (move its vertex groups and Armature modifier to "
                              f"{arm.name if arm else 'this armature'!r} to skin it here)", [o])
        self._extra_bones(meshes + lights + empties)
        lap("skeleton")
        model_objects, conns = self._objects(meshes, lights)
        lap("meshes")
        proxies = self._proxies([o for o in empties if o.alamo.role == "PROXY"])
        proxies += plugin_data.proxies(self.plugin, self.arm, self.bone_index, self.report)
        dazzles = self._dazzles([o for o in empties if o.alamo.role == "DAZZLE"])
        lap("proxies, dazzles")
        self.report.raise_errors()
        src = self.source
        conn = copy.copy(src.connections) if src and src.connections else Connections()
        conn.objects = keep_all_or_rebuild(src.connections.objects if src and src.connections
                                           else None, list(conns), ("object", "bone"))
        conn.proxies = proxies
        conn.dazzles = dazzles
        model = Model(self.skeleton, model_objects, conn, layout=src.layout if src else None)
        self.result.model = model
        self.result.armature = self.arm
        self.result.counts = {"bones": len(self.skeleton.bones),
                              "meshes": sum(isinstance(o, Mesh) for o in model_objects),
                              "lights": sum(isinstance(o, Light) for o in model_objects),
                              "proxies": len(proxies), "dazzles": len(dazzles)}
        plugin_data.finish_report(self.context.scene, self.arm, self.options.scope, objs,
                                  self.result.counts, self.report)
        return self.result

    # --- bones of their own, placement ----------------------------------------------------

    def _extra_bones(self, objs):
        """With ``own_bones``, objects not on a bone get a bone of their own."""
        self.own_bone = {}
        if not self.options.own_bones:
            return
        # a copy: the skeleton may be the source model's, which the animations reuse
        self.skeleton = copy.copy(self.skeleton)
        self.skeleton.bones = list(self.skeleton.bones)
        for obj in objs:
            if child_of_bone(obj, self.arm) is not None:
                continue
            if obj.parent is None or (obj.parent_type != "BONE" and obj.alamo.role != "MESH"):
                world = self.to_model(obj)
                m = np.eye(4)
                m[:3, :3] = nearest_rotation(world[:3, :3])
                m[:3, 3] = world[:3, 3]
                self.skeleton.bones.append(Bone(obj.name, 0, m[:3, :].astype("<f4")))
                self.worlds.append(m)
                self.own_bone[obj.name] = len(self.skeleton.bones) - 1

    def to_model(self, obj):
        """The object's world matrix in the model's (armature's) space."""
        world = child_of_rest_world(obj, self.arm)
        if world is None:
            world = _relative_child_rest_world(obj, self.arm)
        if world is None:
            world = np.array(obj.matrix_world, np.float64)
        return np.linalg.inv(self.arm_world) @ world

    def connection_bone(self, obj, source_bone=None):
        if obj.name in self.own_bone:
            return self.own_bone[obj.name]
        hung_on = child_of_bone(obj, self.arm)
        if hung_on is None and obj.parent == self.arm and obj.parent_type == "BONE":
            hung_on = obj.parent_bone
        if hung_on is not None:
            if hung_on not in self.bone_index:          # its bone was deleted: said
                self.warn(*on_deleted_bone(obj, hung_on))
            return self.bone_index.get(hung_on, 0)
        if source_bone is not None and 0 <= source_bone < len(self.export_of):
            return max(int(self.export_of[source_bone]), 0)
        return 0

    # --- meshes and lights ------------------------------------------------------------------

    def bone_as_file(self, bone):
        """Whether export bone ``bone`` sits where the file has it: only then is an object's
        data relative to it, as the file stores it, still where Blender shows the object
        (objects on a bone with Relative Parent stay put when the bone is moved in Edit
        Mode)."""
        s = self.source_of[bone] if bone < len(self.source_of) else -1
        if self.source is None or not 0 <= s < len(self.source.bones):
            return False
        if self._src_worlds is None:
            with np.errstate(all="ignore"):
                self._src_worlds = self.source.skeleton.world_matrices()
        a, b = self.worlds[bone], self._src_worlds[s]
        return bool(np.array_equal(a, b, equal_nan=True)
                    or np.allclose(a, b, rtol=1e-6, atol=1e-6))

    def file_index(self, obj):
        """The object's index in the armature's file; -1 for an object that is new to it
        (also one moved over from another imported unit: kitbashing)."""
        return obj.alamo.file_index if from_model_of(obj, self.arm) else -1

    def _ordered(self, objs):
        src_n = len(self.source.objects) if self.source else 0
        old = sorted((o for o in objs if 0 <= self.file_index(o) < src_n),
                     key=self.file_index)
        used, keep = set(), []
        for o in old:
            if self.file_index(o) not in used:
                used.add(self.file_index(o))
                keep.append(o)
        # new objects after the file's own: those of other files in the order of their
        # files, then by name
        rest = sorted((o for o in objs if o not in keep),
                      key=lambda o: (from_model_of(o, self.arm), o.get(MODEL_KEY, ""),
                                     max(o.alamo.file_index, -1), o.name))
        return keep + rest

    def _objects(self, meshes, lights):
        records, conns = [], []
        progress.expect(len(meshes) + len(lights))
        for obj in self._ordered(meshes + lights):
            progress.advance()
            src_obj, src_bone = self._source_object(obj)
            bone = self.connection_bone(obj, src_bone)
            if obj.type == "MESH":
                record = self._mesh(obj, bone, src_obj)
            else:
                record = self._light(obj, src_obj)
            if record is None:
                continue
            if src_obj is None or src_bone is not None or bone != 0:
                conns.append(ObjectConnection(len(records), bone))
            # else the file left it unconnected (import hung it on bone 0), and it still is
            records.append(record)
        return records, conns

    def _source_object(self, obj):
        src, i = self.source, self.file_index(obj)
        if src is None or not 0 <= i < len(src.objects):
            return None, None
        return src.objects[i], src.object_bone(i)

    def _mesh(self, obj, bone, src):
        name = from_blender(object_export_name(obj))
        self.check_name("mesh", name, [obj])
        self._obj = obj
        p = obj.alamo
        kept = bones_followed(src, self.export_of) if isinstance(src, Mesh) else None
        if kept is not None and obj.get(fingerprint.KEY) and self.bake.identity \
                and (_skinned(src) or self.bone_as_file(bone)) and not self._touched(obj):
            rec = src = kept
            materials = [self._material(slot.material, s.material)
                         for slot, s in zip(obj.material_slots, src.submeshes)]
            if (name != src.name or int(p.hidden) != src.hidden
                    or int(p.collision) != src.collision
                    or any(m is not s.material for m, s in zip(materials, src.submeshes))):
                rec = copy.copy(src)
                rec.name, rec.hidden, rec.collision = name, int(p.hidden), int(p.collision)
                rec.submeshes = [s if m is s.material else _with_material(s, m)
                                 for s, m in zip(src.submeshes, materials)]
            self.result.reused[obj.name] = rec is src
            return rec
        try:
            mesh = build_mesh(self._mesh_context(), obj, bone, name)
        except ExportError as e:
            for p in e.details:
                self.report.error(f"mesh {obj.name!r}: {p.text}", [obj], p.elements_selected)
            return None
        for sub in mesh.submeshes:
            v = sub.vertices
            floats = [v[f] for f in v.dtype.names if v.dtype[f].base.kind == "f"]
            if not all(self.report.check_finite(f"mesh {obj.name!r}", a, [obj])
                       for a in floats):
                return None
        if isinstance(src, Mesh):
            mesh = keep_shadow_topology(mesh, src)
        return plugin_data.apply_mesh_flags(self.plugin, obj, mesh, self.report)

    def _mesh_context(self):
        return MeshContext(self.context.evaluated_depsgraph_get(), self.options.apply_modifiers,
                           self.arm, self.bone_index, self.worlds, self.to_model,
                           self._material, self.read_weights, self.report)

    def _touched(self, obj):
        subs = self._source_object(obj)[0].submeshes
        if len(obj.material_slots) != len(subs):
            return True
        for slot, sub in zip(obj.material_slots, subs):
            if _wanted_format(slot.material, sub) != sub.vertex_format:
                return True            # a shader switch that needs other vertex data
        weights = self.read_weights(obj, obj.data) if len(obj.vertex_groups) else None
        parts = fingerprint.mesh_parts(obj.data, obj, weights)
        return fingerprint.digest(parts) != obj[fingerprint.KEY]

    def _material(self, mat, src=None):
        """A Material record from the Blender material's Alamo properties."""
        shader = from_blender(mat.alamo.shader) if mat is not None else ""
        user = [self._obj] if self._obj is not None else []
        from_plugin = (plugin_data.material_record(self.plugin, mat, self.report, user)
                       if not shader else None)
        if from_plugin is not None:
            return from_plugin
        if not shader:
            if src is not None and mat is not None and not mat.alamo.params:
                return src
            self.warn(f"material {mat.name if mat else '(empty slot)'!r} has no Alamo shader; "
                      f"{DEFAULT_SHADER} is used", user)
            return Material(DEFAULT_SHADER, [])
        self.check_name(f"material {mat.name!r}: shader", shader, user)
        params = []
        for bp in mat.alamo.params:
            pname, texture = from_blender(bp.name), from_blender(bp.texture)
            self.check_name(f"material {mat.name!r}: parameter", pname, user, mini=True)
            if bp.type == "TEXTURE":
                self.check_name(f"material {mat.name!r}: texture", texture, user, mini=True)
            ptype = ParamType[bp.type]
            params.append(ShaderParam(pname, ptype, shader_value(ptype, param_value(bp))))
        if src is not None and src.shader == shader and len(src.params) == len(params) \
                and all(_same_param(a, b) for a, b in zip(src.params, params)):
            return src
        if src is not None:
            # keep layouts of parameters that did not change
            for i, prm in enumerate(params):
                if i < len(src.params) and _same_param(src.params[i], prm):
                    params[i] = src.params[i]
        return Material(shader, params, src.layout if src else None)

    def _light(self, obj, src):
        data = obj.data
        p = obj.alamo
        ltype = LIGHT_TYPES.get(data.type, 0)
        intensity = p.intensity if p.role == "LIGHT" else data.energy / 100.0
        if data.type == "SPOT" and p.role != "LIGHT":
            falloff = data.spot_size
            hotspot = falloff * (1.0 - data.spot_blend)
        else:
            falloff, hotspot = p.falloff, p.hotspot
        name = from_blender(object_export_name(obj))
        self.check_name("light", name, [obj])
        color = np.array(data.color, "<f4")
        if p.role == "LIGHT" and np.array_equal(color, np.clip(np.array(p.color, "<f4"), 0, 1e6)):
            color = np.array(p.color, "<f4")       # the file's colour, where Blender clamped it
        rec = Light(name, ltype, color, np.float32(intensity),
                    np.float32(p.far_attenuation_end), np.float32(p.far_attenuation_start),
                    np.float32(hotspot), np.float32(falloff))
        if keep_or_rebuild(src, rec, LIGHT_FIELDS, Light) is src:
            return src
        if isinstance(src, Light):
            rec.layout = src.layout
        self.report.check_finite(f"light {obj.name!r}", [*rec.color, rec.intensity,
                                 rec.far_attenuation_end, rec.far_attenuation_start,
                                 rec.hotspot, rec.falloff], [obj])
        return rec

    # --- proxies and dazzles ----------------------------------------------------------------

    def _src_list(self, kind):
        if self.source is None or self.source.connections is None:
            return []
        return getattr(self.source.connections, kind)

    def _with_sources(self, objs, kind, records):
        """(object, its bone, its name in the file, the file's record of it or None) for
        each of ``objs``, the file's own first and in its order (``records``: the source's
        list, "proxies" or "dazzles"; ``kind``: what a bad name is called)."""
        src = self._src_list(records)
        for obj in self._ordered_by_index(objs, len(src)):
            bone = self.connection_bone(obj)
            name = from_blender(object_export_name(obj))
            self.check_name(kind, name, [obj], mini=True)
            i = self.file_index(obj)
            yield obj, bone, name, src[i] if 0 <= i < len(src) else None

    def _proxies(self, objs):
        out = []
        for obj, bone, name, s in self._with_sources(objs, "proxy", "proxies"):
            bone = self._proxy_bone(obj, bone, name)
            p = obj.alamo
            hidden = int(p.hidden)
            alt = int(p.alt_decrease_stay_hidden)
            if s is not None:
                # optional minis the file left out stay out while they would say 0
                if s.hidden is None and not hidden:
                    hidden = None
                if s.alt_decrease_stay_hidden is None and not alt:
                    alt = None
            out.append(keep_or_rebuild(s, Proxy(name, bone, hidden, alt, s.layout if s else None),
                                       PROXY_FIELDS))
        return out

    def _proxy_bone(self, obj, bone, name):
        """The game puts a proxy at its bone: an empty moved off it gets a bone of its own
        there, under its bone (which stays as it is, as do the animations)."""
        if _placed_as_imported(obj, self.bake) or obj.name in self.own_bone:
            return bone
        world = self.to_model(obj)
        if not off_bone(world, self.worlds[bone]):
            return bone
        if REST not in obj:          # not placed at its bone by import or Add: said, not moved
            far = float(np.linalg.norm(world[:3, 3] - self.worlds[bone][:3, 3]))
            if far > 1e-4 * max(1.0, float(np.abs(world[:3, 3]).max())):
                self.warn(f"proxy {obj.name!r} is {far:.4g} units from bone "
                          f"{self.skeleton.bones[bone].name!r}, where the game puts it: "
                          "move the empty onto the bone (or the bone to it), or use Add > Alamo > "
                          "Alamo Proxy on the bone", [obj])
            return bone
        self.skeleton, new = bone_for_proxy(self.skeleton, self.worlds, world, bone, name)
        self.warn(f"proxy {obj.name!r} was moved off bone "
                  f"{self.skeleton.bones[bone].name!r}: written on a new bone "
                  f"{self.skeleton.bones[new].name!r} under it, where the empty is", [obj])
        return new

    def _ordered_by_index(self, objs, n):
        old = sorted((o for o in objs if 0 <= self.file_index(o) < n), key=self.file_index)
        return old + sorted((o for o in objs if o not in old),
                            key=lambda o: (from_model_of(o, self.arm), o.get(MODEL_KEY, ""),
                                           max(o.alamo.file_index, -1), o.name))

    def _dazzles(self, objs):
        out = []
        for obj, bone, name, s in self._with_sources(objs, "dazzle", "dazzles"):
            p = obj.alamo
            local = inverse(self.worlds[bone]) @ self.to_model(obj)
            texture = from_blender(p.texture)
            self.check_name("dazzle texture", texture, [obj], mini=True)
            rec = Dazzle(name, bone, np.array(p.color, "<f4"), local[:3, 3].astype("<f4"),
                         np.float32(p.radius * self.bake.factor), p.tex_x, p.tex_y,
                         p.tex_size, texture,
                         np.float32(p.frequency), np.float32(p.phase), int(p.night_only),
                         int(p.hidden), np.float32(p.bias))
            if s is not None:
                if s.bias is None and p.bias == 1.0:
                    rec.bias = None
                rec.nested, rec.layout = s.nested, s.layout
                if s.position is not None and (
                        np.allclose(s.position, rec.position, atol=1e-5)
                        or (self.source_of[bone] == s.bone and self.bone_as_file(bone)
                            and _placed_as_imported(obj, self.bake))):
                    rec.position = s.position
                rec = keep_or_rebuild(s, rec, DAZZLE_FIELDS)
            if rec is not s:
                self.report.check_finite(
                    f"dazzle {obj.name!r}", [*rec.position, *rec.color, rec.radius,
                                             rec.frequency, rec.phase], [obj],
                    f" (its position relative to bone {self.skeleton.bones[bone].name!r}, "
                    "whose matrix cannot be inverted or is not finite)"
                    if not np.all(np.isfinite(local)) else "")
            out.append(rec)
        return out


def _skinned(mesh):
    return any(s.bone_map is not None and len(s.bone_map) for s in mesh.submeshes)


def _placed_as_imported(obj, bake):
    """Whether an empty is where import put it on its bone (its placement fingerprint),
    with nothing baked: then its position in the file is the file's own, also where
    Blender's float32 matrices cannot hold it (a degenerate bone)."""
    stored = obj.get(fingerprint.KEY)
    return bool(stored) and bake.identity and stored == fingerprint.digest(
        fingerprint.placement_parts(obj, fingerprint.bone_import_names(obj)))


def _relative_child_rest_world(obj, arm):
    """World matrix (float64) of an object on a bone with Relative Parent (as import makes
    them) with the armature at rest, where the bone moves it nowhere; None otherwise. Exact,
    where Blender's float32 matrix_world carries the noise of pose @ rest^-1."""
    if arm is None or obj.parent != arm or obj.parent_type != "BONE":
        return None
    bone = arm.data.bones.get(obj.parent_bone)
    if bone is None or not bone.use_relative_parent:
        return None
    with np.errstate(invalid="ignore", over="ignore"):     # a file's NaN is checked later
        return (np.array(arm.matrix_world, np.float64)
                @ np.array(obj.matrix_parent_inverse, np.float64)
                @ np.array(obj.matrix_basis, np.float64))


def _wanted_format(mat, sub):
    """The vertex format a sub-mesh should have with this material: the material's own (set
    by import, cleared by a shader switch), else the catalogue's for its shader, else the
    sub-mesh's as it is (unknown shaders)."""
    if mat is None:
        return sub.vertex_format
    if mat.alamo.vertex_format:
        return from_blender(mat.alamo.vertex_format)
    skinned = sub.bone_map is not None and len(sub.bone_map) > 0
    return shaders.vertex_format(mat.alamo.shader, skinned) or sub.vertex_format


def _with_material(sub, material):
    s = copy.copy(sub)
    s.material = material
    return s


def _same_param(a, b):
    return a.name == b.name and a.type == b.type and same_value(a.value, b.value)
