"""Export an armature and what hangs on it as an .alo model.

What the user did not change is written from the imported file's own records (found through
the source kept on the armature, and the fingerprints import left on meshes), so an unedited
import exports byte for byte. Everything else is built from Blender data.
"""

import copy
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ...formats import (
    AlamoFormatError, Bone, Connections, Dazzle, Light, Material, Mesh, Model,
    ObjectConnection, ParamType, Proxy, ShaderParam, Skeleton, read_alo,
)
from ...formats.files import save_all
from .. import fingerprint, progress
from ..attach import child_of_bone, child_of_rest_world
from ..matrices import inverse, nearest_rotation
from ..rest import rest_unedited
from .bone_zero import ROOT_NAME, arm_transform_warning, plan_bone_zero
from ..names import from_blender
from ..source import get_source
from ..props import BILLBOARD_ITEMS
from . import plugin as plugin_data
from .plugin import armature_members

MAX_VERTICES = 65535
MAX_SKIN_BONES = 24
BILLBOARD_VALUES = {ident: value for ident, _, _, value in BILLBOARD_ITEMS}
LIGHT_TYPES = {"POINT": 0, "SUN": 1, "SPOT": 2}
DEFAULT_SHADER = "alDefault.fx"


class ExportError(Exception):
    """The scene cannot be written; ``problems`` lists why, ``objects`` what to select,
    ``details`` the same as Problem records (errors and warnings, with their objects)."""

    def __init__(self, problems, objects=(), details=()):
        self.problems = problems
        self.objects = list(objects)
        self.details = list(details)
        super().__init__("; ".join(problems))


@dataclass
class Problem:
    """One finding of the checks before writing: ``level`` ERROR (stops the export) or
    WARNING; ``objects`` the names of the objects it is about."""
    level: str
    text: str
    objects: list = field(default_factory=list)


MINI_STRING_BYTES = 254     # a mini-chunk holds 255 bytes: the text and its terminator


@dataclass
class ExportOptions:
    scope: str = "ARMATURE"          # ARMATURE, SELECTION, VISIBLE, SCENE
    apply_modifiers: bool = True
    own_bones: bool = False          # objects without a bone get a bone of their own
    animations: bool = False         # also every action of the armature, <MODEL>_<ACTION>.ala
    ala_format: int = None           # their format: 2 (Forces of Corruption) or 1 (EaW);
    new_ala_format: int = 2          # None: each as imported, new ones in new_ala_format


@dataclass
class ExportResult:
    model: object = None
    armature: object = None
    animations: list = field(default_factory=list)     # .ala files written beside the model
    problems: list = field(default_factory=list)      # Problem records (warnings only)
    reused: dict = field(default_factory=dict)     # what was written from the source as is
    counts: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)   # seconds per stage

    @property
    def warnings(self):
        return [p.text for p in self.problems]


def export_alo(context, filepath, options=None):
    """Build the model and write it atomically to ``filepath``; with ``options.animations``
    also each action of the armature beside it (``result.animations``: the paths)."""
    options = options or ExportOptions()
    result = build_model(context, options)
    anims = []
    if options.animations and result.armature is not None:
        problem = plugin_data.animation_problem(result.armature)
        if problem:
            raise ExportError([problem], [result.armature])
        from .ala import AnimationExportOptions, armature_actions, build_animation, file_name_for
        t = time.perf_counter()
        taken = {}
        for action in armature_actions(result.armature):
            path = file_name_for(filepath, action)
            other = taken.setdefault(os.path.basename(path).lower(), action.name)
            if other != action.name:
                raise ExportError([f"actions {other!r} and {action.name!r} would both be "
                                   f"written to {os.path.basename(path)}: rename one"])
            built = build_animation(context, result.armature, action,
                                    AnimationExportOptions(format=options.ala_format,
                                                           new_format=options.new_ala_format))
            anims.append((path, built.animation))
        result.timings["animations"] = time.perf_counter() - t
    t = time.perf_counter()
    # all files or none: a failure leaves every existing file as it was
    save_all([(result.model, filepath)] + [(anim, path) for path, anim in anims])
    result.animations += [path for path, _ in anims]
    result.timings["write"] = time.perf_counter() - t
    return result


def find_armature(context, objects=None):
    for obj in [context.active_object] + list(context.selected_objects or []):
        while obj is not None:
            if obj.type == "ARMATURE":
                return obj
            obj = obj.parent
    arms = [o for o in (objects or context.scene.objects) if o.type == "ARMATURE"]
    return arms[0] if len(arms) == 1 else None


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
    arms = [o for o in objs if o.type == "ARMATURE"]
    arm = arms[0] if arms else find_armature(context, objs)
    if len(arms) > 1:
        raise ExportError([f"{len(arms)} armatures to export; an .alo has one skeleton: "
                           "export them one at a time"], arms)
    return arm, [o for o in objs if o.type != "ARMATURE"]


def _source(arm):
    data = get_source(arm)
    if data is None:
        return None
    try:
        model = read_alo(bytes(data))
    except AlamoFormatError:
        return None
    return model if model.kind == "model" else None


def build_model(context, options):
    return _Exporter(context, options).build()


class _Exporter:
    def __init__(self, context, options):
        self.context = context
        self.options = options
        self.result = ExportResult()
        self.problems = []          # errors: (text, objects)
        self._weights = {}          # object name -> its mesh's weights, read once

    def read_weights(self, obj, me):
        """(vertex, group, weight) arrays of ``me``; an object's own mesh is read once."""
        if me is not obj.data:
            return fingerprint.read_weights(me)
        if obj.name not in self._weights:
            self._weights[obj.name] = fingerprint.read_weights(me, obj)
        return self._weights[obj.name]

    def tick(self, stage):
        """Add the time since the last tick to ``stage`` (the benchmark prints them)."""
        now = time.perf_counter()
        last = getattr(self, "_tick", None)
        if last is not None and stage:
            t = self.result.timings
            t[stage] = t.get(stage, 0.0) + now - last
        self._tick = now

    def warn(self, text, objects=()):
        names = [o.name for o in objects]
        for p in self.result.problems:
            if p.text == text:               # once per text, with every object it concerns
                p.objects += [n for n in names if n not in p.objects]
                return
        self.result.problems.append(Problem("WARNING", text, names))

    def error(self, text, objects=()):
        self.problems.append((text, list(objects)))

    def check_name(self, what, name, objects=(), mini=False):
        """Names must be cp1252 (what the game reads); strings kept in mini-chunks (proxies,
        dazzles, shader parameters) have at most 254 bytes."""
        try:
            data = name.encode("cp1252")
        except UnicodeEncodeError:
            try:
                data = name.encode("cp1252", "surrogateescape")   # bytes kept from a file
            except UnicodeEncodeError:
                self.error(f"{what} {name!r} has characters the game cannot store (names are "
                           "single-byte Windows-1252 text); rename it", objects)
                return
        if mini and len(data) > MINI_STRING_BYTES:
            self.error(f"{what} {name[:40]!r}... is {len(data)} bytes long; the format allows "
                       f"{MINI_STRING_BYTES}", objects)
        elif not data.isascii():
            self.warn(f"{what} {name!r} is not plain ASCII; the game may not show it as "
                      "Blender does", objects)

    def build(self):
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
        self.source = _source(arm)
        self.arm_world = np.array(arm.matrix_world, np.float64) if arm else np.eye(4)
        moved = arm_transform_warning(self.arm_world, arm.name) if arm else None
        if moved:
            self.warn(moved, [arm])
        lap("gather")
        self._skeleton()
        plugin_data.apply_skeleton(self)
        meshes = [o for o in objs if o.type == "MESH"]
        lights = [o for o in objs if o.type == "LIGHT"]
        empties = [o for o in objs if o.type == "EMPTY"]
        for o in objs:
            if o.type not in ("MESH", "LIGHT", "EMPTY", "CAMERA"):
                self.warn(f"{o.type.lower()} {o.name!r} is not written: only meshes, lights, "
                          "proxies and dazzles are (Object > Convert > Mesh to include it)",
                          [o])
        self._extra_bones(meshes + lights + empties)
        lap("skeleton")
        model_objects, conns = self._objects(meshes, lights)
        lap("meshes")
        proxies = self._proxies([o for o in empties if o.alamo.role == "PROXY"])
        proxies += plugin_data.proxies(self)
        dazzles = self._dazzles([o for o in empties if o.alamo.role == "DAZZLE"])
        lap("proxies, dazzles")
        if self.problems:
            objs = [o for _, os_ in self.problems for o in os_]
            details = [Problem("ERROR", t, [o.name for o in os_]) for t, os_ in self.problems]
            raise ExportError([t for t, _ in self.problems], objs,
                              details + self.result.problems)
        src = self.source
        conn = copy.copy(src.connections) if src and src.connections else Connections()
        new_objects = [c for c in conns]
        if src and src.connections and self._same_connections(src.connections.objects, conns):
            new_objects = src.connections.objects
        conn.objects = new_objects
        conn.proxies = proxies
        conn.dazzles = dazzles
        model = Model(self.skeleton, model_objects, conn, layout=src.layout if src else None)
        self.result.model = model
        self.result.armature = self.arm
        self.result.counts = {"bones": len(self.skeleton.bones),
                              "meshes": sum(isinstance(o, Mesh) for o in model_objects),
                              "lights": sum(isinstance(o, Light) for o in model_objects),
                              "proxies": len(proxies), "dazzles": len(dazzles)}
        plugin_data.finish_report(self, objs, self.result.counts)
        return self.result

    # --- skeleton ---------------------------------------------------------------------------

    def _export_name(self, blender_name, file_name, import_name):
        """The file name of a bone or object: the original, unless renamed in Blender."""
        if file_name and blender_name == import_name:
            return from_blender(file_name)
        return from_blender(blender_name)

    def _skeleton(self):
        arm, src = self.arm, self.source
        self.bone_index = {}            # Blender bone name -> export index
        if arm is None:
            self.skeleton = Skeleton([Bone("Root", -1, np.eye(3, 4, dtype="<f4"))])
            self.worlds = [np.eye(4)]
            self.root_added = True
            self.warn("no armature: a root bone was added")
            return
        bones = list(arm.data.bones)
        n_src = len(src.bones) if src else 0
        old = sorted((b for b in bones if 0 <= b.alamo.index < max(n_src, 1 << 30)
                      and b.alamo.blender_name),
                     key=lambda b: b.alamo.index)
        seen = {b.name for b in old}
        new = [b for b in bones if b.name not in seen]       # hierarchy order, parents first
        order = self._parents_first(old + new)
        zero = plan_bone_zero(order, src is not None)
        self.root_added = zero.added
        first = int(zero.added)
        for k, b in enumerate(order):
            self.bone_index[b.name] = k + first
        out, worlds = ([Bone(ROOT_NAME, -1, np.eye(3, 4, dtype="<f4"))], [np.eye(4)]) \
            if zero.added else ([], [])
        self.as_file = [False] * first       # bones written with the file's own matrix
        for k, b in enumerate(order):
            parent = self.bone_index[b.parent.name] if b.parent else first - 1
            p = b.alamo
            name = self._export_name(b.name, p.name, p.blender_name)
            self.check_name("bone", name, [arm])
            if b.name == zero.own:
                matrix = np.eye(3, 4, dtype="<f4")
                self.as_file.append(False)
            else:
                matrix = self._bone_matrix(b, p, parent, worlds)
            visible = int(p.visible)
            billboard = BILLBOARD_VALUES.get(p.billboard, 0)
            record = None
            if src and 0 <= p.index < n_src and p.blender_name:
                s = src.bones[p.index]
                if s.billboard not in BILLBOARD_VALUES.values() and p.billboard == "DISABLE":
                    billboard = s.billboard          # a value Blender's enum cannot show
                same = (s.name == name and s.parent == parent and s.visible == visible
                        and s.billboard == billboard and np.array_equal(s.matrix, matrix))
                if same:
                    record = s
                else:
                    record = Bone(name, parent, matrix, visible, billboard, s.chunk_type, s.layout)
            if record is None:
                record = Bone(name, parent, matrix, visible, billboard)
            out.append(record)
            w = np.eye(4)
            w[:3, :] = np.asarray(record.matrix, np.float64)
            worlds.append(worlds[parent] @ w if parent >= 0 else w)
        if src and len(out) == len(src.bones) and all(a is b for a, b in zip(out, src.bones)):
            self.skeleton = src.skeleton
        else:
            self.skeleton = Skeleton(out, layout=src.skeleton.layout
                                     if src and src.skeleton else None)
        self.worlds = worlds

    @staticmethod
    def _parents_first(bones):
        placed, out = set(), []
        pending = list(bones)
        while pending:
            rest = []
            for b in pending:
                if b.parent is None or b.parent.name in placed:
                    out.append(b)
                    placed.add(b.name)
                else:
                    rest.append(b)
            if len(rest) == len(pending):        # cannot happen in a valid armature
                out += rest
                break
            pending = rest
        return out

    def _bone_matrix(self, bone, props, parent, worlds):
        """The file's matrix when the Blender rest still matches it, else from Blender."""
        rest = np.array(bone.matrix_local, np.float64)
        stored = np.array(props.matrix, np.float32).reshape(3, 4)
        keep = props.blender_name and np.any(stored) and rest_unedited(bone)
        if keep and (parent < 0 or self.as_file[parent]):
            self.as_file.append(True)         # exactly as imported, near Blender's roll
            return stored                     # singularity too
        self.as_file.append(False)
        if props.blender_name and np.any(stored):
            local = np.eye(4)
            local[:3, :] = stored
            world = worlds[parent] @ local if parent >= 0 else local
            scale = max(1.0, float(np.abs(world[:3, 3]).max()))
            if (np.allclose(rest[:3, 3], world[:3, 3], atol=1e-4 * scale)
                    and np.allclose(rest[:3, :3], nearest_rotation(world[:3, :3]), atol=1e-4)):
                return stored
        # relative to the parent as exported (its file matrix may carry a scale)
        local = inverse(worlds[parent]) @ rest if parent >= 0 else rest
        return local[:3, :].astype("<f4")

    def _extra_bones(self, objs):
        """With ``own_bones``, objects not on a bone get a bone of their own."""
        self.own_bone = {}
        if not self.options.own_bones:
            return
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
            world = np.array(obj.matrix_world, np.float64)
        return np.linalg.inv(self.arm_world) @ world

    def connection_bone(self, obj, source_bone=None):
        if obj.name in self.own_bone:
            return self.own_bone[obj.name]
        hung_on = child_of_bone(obj, self.arm)
        if hung_on is not None:
            return self.bone_index.get(hung_on, 0)
        if obj.parent is not None and obj.parent == self.arm and obj.parent_type == "BONE":
            return self.bone_index.get(obj.parent_bone, 0)
        if source_bone is not None and 0 <= source_bone < len(self.skeleton.bones):
            return source_bone
        return 0

    # --- meshes and lights ------------------------------------------------------------------

    def _ordered(self, objs):
        src_n = len(self.source.objects) if self.source else 0
        old = sorted((o for o in objs if 0 <= o.alamo.file_index < src_n),
                     key=lambda o: o.alamo.file_index)
        used, keep = set(), []
        for o in old:
            if o.alamo.file_index not in used:
                used.add(o.alamo.file_index)
                keep.append(o)
        rest = sorted((o for o in objs if o not in keep), key=lambda o: o.name)
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
        src, i = self.source, obj.alamo.file_index
        if src is None or not 0 <= i < len(src.objects):
            return None, None
        return src.objects[i], src.object_bone(i)

    def _same_connections(self, old, new):
        return len(old) == len(new) and all(
            a.object == b.object and a.bone == b.bone for a, b in zip(old, new))

    def _mesh(self, obj, bone, src):
        name = self._export_name(obj.name, obj.alamo.name, obj.get("alamo_import_name"))
        self.check_name("mesh", name, [obj])
        self._obj = obj
        p = obj.alamo
        if isinstance(src, Mesh) and obj.get(fingerprint.KEY) and not self._touched(obj):
            rec = src
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
        from .mesh import build_mesh
        try:
            mesh = build_mesh(self, obj, bone, name)
        except ExportError as e:
            for text in e.problems:
                self.error(f"mesh {obj.name!r}: {text}", [obj])
            return None
        return plugin_data.apply_mesh_flags(self, obj, mesh)

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
        from_plugin = plugin_data.material_record(self, mat) if not shader else None
        if from_plugin is not None:
            return from_plugin
        if not shader:
            if src is not None and mat is not None and not mat.alamo.params:
                return src
            user = [self._obj] if getattr(self, "_obj", None) is not None else []
            self.warn(f"material {mat.name if mat else '(empty slot)'!r} has no Alamo shader; "
                      f"{DEFAULT_SHADER} is used", user)
            return Material(DEFAULT_SHADER, [])
        user = [self._obj] if getattr(self, "_obj", None) is not None else []
        self.check_name(f"material {mat.name!r}: shader", shader, user)
        params = []
        for bp in mat.alamo.params:
            pname, texture = from_blender(bp.name), from_blender(bp.texture)
            self.check_name(f"material {mat.name!r}: parameter", pname, user, mini=True)
            if bp.type == "TEXTURE":
                self.check_name(f"material {mat.name!r}: texture", texture, user, mini=True)
            ptype = ParamType[bp.type]
            if ptype == ParamType.INT:
                value = int(bp.int_value)
            elif ptype == ParamType.FLOAT:
                value = np.float32(bp.float_value)
            elif ptype == ParamType.FLOAT3:
                value = np.array(bp.float3_value, "<f4")
            elif ptype == ParamType.FLOAT4:
                value = np.array(bp.float4_value, "<f4")
            else:
                value = texture
            params.append(ShaderParam(pname, ptype, value))
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
        name = self._export_name(obj.name, p.name, obj.get("alamo_import_name"))
        self.check_name("light", name, [obj])
        rec = Light(name, ltype, np.array(data.color, "<f4"), np.float32(intensity),
                    np.float32(p.far_attenuation_end), np.float32(p.far_attenuation_start),
                    np.float32(hotspot), np.float32(falloff))
        if isinstance(src, Light) and _same_fields(src, rec, ("name", "type", "color", "intensity",
                                                              "far_attenuation_end",
                                                              "far_attenuation_start",
                                                              "hotspot", "falloff")):
            return src
        if isinstance(src, Light):
            rec.layout = src.layout
        return rec

    # --- proxies and dazzles ----------------------------------------------------------------

    def _src_list(self, kind):
        if self.source is None or self.source.connections is None:
            return []
        return getattr(self.source.connections, kind)

    def _proxies(self, objs):
        src = self._src_list("proxies")
        out = []
        for obj in self._ordered_by_index(objs, len(src)):
            p = obj.alamo
            bone = self.connection_bone(obj)
            name = self._export_name(obj.name, p.name, obj.get("alamo_import_name"))
            self.check_name("proxy", name, [obj], mini=True)
            s = src[p.file_index] if 0 <= p.file_index < len(src) else None
            hidden = int(p.hidden)
            alt = int(p.alt_decrease_stay_hidden)
            if s is not None:
                # optional minis the file left out stay out while they would say 0
                if s.hidden is None and not hidden:
                    hidden = None
                if s.alt_decrease_stay_hidden is None and not alt:
                    alt = None
                if (s.name, s.bone, s.hidden, s.alt_decrease_stay_hidden) == (name, bone, hidden,
                                                                              alt):
                    out.append(s)
                    continue
            out.append(Proxy(name, bone, hidden, alt, s.layout if s else None))
        return out

    def _ordered_by_index(self, objs, n):
        old = sorted((o for o in objs if 0 <= o.alamo.file_index < n),
                     key=lambda o: o.alamo.file_index)
        return old + sorted((o for o in objs if o not in old), key=lambda o: o.name)

    def _dazzles(self, objs):
        src = self._src_list("dazzles")
        out = []
        for obj in self._ordered_by_index(objs, len(src)):
            p = obj.alamo
            bone = self.connection_bone(obj)
            local = inverse(self.worlds[bone]) @ self.to_model(obj)
            s = src[p.file_index] if 0 <= p.file_index < len(src) else None
            name = self._export_name(obj.name, p.name, obj.get("alamo_import_name"))
            self.check_name("dazzle", name, [obj], mini=True)
            texture = from_blender(p.texture)
            self.check_name("dazzle texture", texture, [obj], mini=True)
            rec = Dazzle(name, bone, np.array(p.color, "<f4"), local[:3, 3].astype("<f4"),
                         np.float32(p.radius), p.tex_x, p.tex_y, p.tex_size, texture,
                         np.float32(p.frequency), np.float32(p.phase), int(p.night_only),
                         int(p.hidden), np.float32(p.bias))
            if s is not None:
                if s.bias is None and p.bias == 1.0:
                    rec.bias = None
                rec.nested, rec.layout = s.nested, s.layout
                if s.position is not None and np.allclose(s.position, rec.position, atol=1e-5):
                    rec.position = s.position
                if _same_fields(s, rec, ("name", "bone", "color", "position", "radius", "tex_x",
                                         "tex_y", "tex_size", "texture", "frequency", "phase",
                                         "night_only", "hidden", "bias")):
                    rec = s
            out.append(rec)
        return out


def _wanted_format(mat, sub):
    """The vertex format a sub-mesh should have with this material: the material's own (set
    by import, cleared by a shader switch), else the catalogue's for its shader, else the
    sub-mesh's as it is (unknown shaders)."""
    from ... import shaders
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


def _same_value(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return np.array_equal(np.asarray(a, np.float64), np.asarray(b, np.float64))


def _same_param(a, b):
    return a.name == b.name and a.type == b.type and _same_value(a.value, b.value)


def _same_fields(a, b, names):
    return all(_same_value(getattr(a, n), getattr(b, n)) for n in names)
