"""Import an .alo model: skeleton, meshes, materials, lights, proxies and dazzles.

``import_alo(context, filepath, options)`` serves the File menu, drag and drop and scripts.
It is all-or-nothing: every datablock it creates is tracked and removed again if anything
fails, so a failed import leaves the file's data as it was.
"""

import os
import uuid
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ....formats.alamo import AlamoFormatError, Mesh
from ....formats.files import read_file_bytes
from ....formats.alamo.naming import format_is_b4i4, model_animation_names
from ....formats.alamo.options import AloImportOptions
from ... import compat
from ...armature import BONE_REACH
from ...matrices import inverse, nearest_rotation, rigid_inverse
from ...mesh_data import add_vertex_groups
from ...names import IMPORT_NAME_KEY, bone_name, to_blender
from ..props import BILLBOARD_ITEMS
from ...results import Result
from ...source import MODEL_KEY, SOURCE_NAME_KEY, set_source, source_text
from ...texture_lookup import TextureFinder
from ...importing import import_file, import_identified
from .. import fingerprint, follow
from ..fingerprint import FILE_COLOR
from ..corners import keys_of, store_corner_keys
from ..particle_preview import units as particle_units
from ..particle_preview import show_system, update_system
from ..particles.importer import import_particles
from ..bone_rest import remember_rest
from ..game_view import game_shown, on_hidden_bone
from ..units import LIGHT_WATTS_PER_INTENSITY
from .ala import AlaImportOptions, import_ala
from .materials import MaterialBuilder
from .mesh_arrays import MeshArrays

BILLBOARD_IDS = {value: ident for ident, _, _, value in BILLBOARD_ITEMS}
LIGHT_TYPES = {0: "POINT", 1: "SUN", 2: "SPOT"}
MAX_BONE_LENGTH = 1e5                # drawn bone length at most (models span a few thousand)


@dataclass
class AloImportResult(Result):
    """What an .alo import made (a :class:`~...results.Result`: counts, problems, summary)."""
    armature: object = None
    objects: list = field(default_factory=list)
    left_animations: dict = field(default_factory=dict)   # .ala file name: its model's file

    def summary(self):
        c = self.counts
        text = (f"{c.get('bones', 0)} bones, {c.get('meshes', 0)} meshes "
                f"({c.get('triangles', 0):,} triangles), {c.get('materials', 0)} materials, "
                f"{c.get('lights', 0)} lights, {c.get('proxies', 0)} proxies, "
                f"{c.get('dazzles', 0)} dazzles, {c.get('animations', 0)} animations")
        owners = sorted(set(self.left_animations.values()), key=str.lower)
        if owners:
            text += (f" ({len(self.left_animations)} more .ala files left for "
                     f"{', '.join(owners)})")
        return text

    def left_notes(self):
        """One line per other model of the folder: the animation files left for it."""
        by_owner = {}
        for ala, owner in self.left_animations.items():
            by_owner.setdefault(owner, []).append(ala)
        return [f"left for {owner}: {', '.join(names)}"
                for owner, names in sorted(by_owner.items(), key=lambda i: i[0].lower())]


def import_alo(context: bpy.types.Context, filepath: str,
               options: AloImportOptions | None = None, *, data: bytes | None = None,
               animations: list | None = None) -> AloImportResult:
    """Import the model at ``filepath`` into a new collection of the active scene.

    A model that is no file (one inside a game archive) comes as ``data``, its bytes, with
    ``filepath`` naming it (``...\\Models.meg:DATA\\ART\\MODELS\\X.ALO``) and ``animations``,
    [(name, bytes)], instead of the .ala files beside it; the rest is the same."""
    options = options or AloImportOptions()

    def build(tx, model, data):
        builder = _ModelBuilder(context, tx, model, data, filepath, options)
        builder.given_animations = animations
        return builder.build()
    # a particle effect, a .p3d or a PNG: what it is, and where it goes
    return import_file(context, filepath, "alo", build, data=data)


def import_effect(context, filepath, options=None, *, data=None, animations=None):
    """Import the particle effect at ``filepath`` (its objects, playing at once)."""
    data = read_file_bytes(filepath) if data is None else data
    result = import_particles(context, filepath, data, options)
    show_system(context.scene, result.system)    # playing at once (issue 34)
    return result


# what an .alo is decides which import opens it (registry.identify): the one way in
IMPORTERS = {"alo": import_alo, "alo-particles": import_effect}


def import_alamo(context, filepath, options=None, *, data=None, animations=None):
    """Import the .alo at ``filepath``, a model or a particle effect, as what it is."""
    return import_identified(context, filepath, IMPORTERS, "alo", data=data,
                             options=options or AloImportOptions(), animations=animations)


def file_name(path):
    """The file name of a path, or of a member of an archive (``\\`` separated)."""
    return path.replace("\\", "/").rpartition("/")[2]


def _translation(v):
    m = np.eye(4)
    m[:3, 3] = v
    return m


class _ModelBuilder:
    def __init__(self, context, tx, model, data, filepath, options):
        self.context = context
        self.tx = tx
        self.model = model
        self.data = data
        self.filepath = filepath
        self.options = options
        self.result = AloImportResult()
        self.name = to_blender(os.path.splitext(file_name(filepath))[0])
        self.given_animations = None
        self.worlds = (model.skeleton.world_matrices() if model.skeleton is not None
                       else np.zeros((0, 4, 4)))
        self.worlds[~np.isfinite(self.worlds)] = 0.0
        self.bone_names = []
        self.object_bones = model.object_bones()
        self.model_id = uuid.uuid4().hex

    def warn(self, text):
        self.result.warn(text)

    def build(self):
        tx = self.tx
        self.collection = tx.add(bpy.data.collections.new(self.name))
        self.context.scene.collection.children.link(self.collection)
        self._armature()
        finder = TextureFinder.for_model(self.filepath, self.options.texture_folders)
        self.materials = MaterialBuilder(tx, finder, self.warn)
        meshes = []
        for oi, obj in enumerate(self.model.objects):
            if isinstance(obj, Mesh):
                meshes.append(self._mesh(obj, oi))
            else:
                self._light(obj, oi)
        self._connections()
        effects = self._effects()
        self._mesh_visibility(meshes)
        if self.options.import_animations:
            self._animations()
        c = self.result.counts
        c["bones"] = len(self.bone_names)
        c["meshes"] = len(meshes)
        c["triangles"] = sum(len(s.indices) for m in self.model.meshes for s in m.submeshes)
        c["materials"] = self.materials.count
        c["lights"] = len(self.model.lights)
        conn = self.model.connections
        c["proxies"] = len(conn.proxies) if conn else 0
        c["dazzles"] = len(conn.dazzles) if conn else 0
        vl = self.context.view_layer
        for o in vl.objects:
            o.select_set(False)
        self.arm_obj.select_set(True)
        vl.objects.active = self.arm_obj
        vl.update()                       # world matrices valid for scripts right away
        for proxy, emitters in effects.items():
            update_system(self.context.scene, proxy, emitters)
        return self.result

    def _effects(self):
        """Show the particle effects the proxies name (found beside the model, in the mod's
        Data/Art/Models, in the archives): {proxy: {emitter index: object}}."""
        self.result.counts["effects"] = 0
        if not self.options.show_effects:
            return {}
        proxies = [o for o in self.result.objects if o.alamo.role == "PROXY"]
        roots = particle_units.show_on_unit(self.tx, self.collection, proxies, self.filepath,
                                            self.options.texture_folders, self.warn)
        for root, show in zip(roots, game_shown(roots)):  # an ALT1 effect waits for ALT1
            if not show and not on_hidden_bone(root):      # a hidden bone: shown live
                root.hide_render = True
                root.hide_set(True)
        self.result.counts["effects"] = len(roots)
        return {root: {int(c[particle_units.EMITTER_KEY]): c for c in root.children
                       if particle_units.EMITTER_KEY in c} for root in roots}

    def _animations(self):
        if self.given_animations is None:
            paths, self.result.left_animations = model_animations(self.filepath)
            items = [(path, None) for path in paths]
        else:
            items = self.given_animations
        self.result.counts["animations"] = 0
        for k, (path, data) in enumerate(items):
            first = k == 0
            try:
                # the armature keeps the file's bind pose: no animation is made active
                res = import_ala(self.context, self.arm_obj, path, AlaImportOptions(
                    set_scene_frame_rate=first, set_scene_range=first, make_active=False),
                    data=data)
            except AlamoFormatError as e:
                self.warn(f"animation not imported: {e}")
                continue
            self.tx.add(res.action)
            if source_text(res.action) is not None:
                self.tx.add(source_text(res.action))
            self.result.counts["animations"] += 1
            for w in res.warnings:
                self.warn(f"{file_name(path)}: {w}")

    def _link(self, obj):
        self.collection.objects.link(obj)
        self.result.objects.append(obj)
        obj[IMPORT_NAME_KEY] = obj.name    # renaming in Blender renames in the file
        obj[MODEL_KEY] = self.model_id     # moved to another unit, it is new there
        return obj

    # --- skeleton -------------------------------------------------------------------------

    def _armature(self):
        tx = self.tx
        arm = tx.add(bpy.data.armatures.new(self.name))
        arm.display_type = "STICK"
        arm_obj = tx.add(bpy.data.objects.new(self.name, arm))
        self._link(arm_obj)
        self.arm_obj, self.arm = arm_obj, arm
        arm_obj.alamo.role = "SKELETON"
        arm_obj.alamo.name = self.name
        tx.add(set_source(arm_obj, self.data, file_name(self.filepath)))
        arm_obj[SOURCE_NAME_KEY] = to_blender(file_name(self.filepath))
        arm_obj.show_in_front = True
        self.result.armature = arm_obj
        bones = self.model.bones
        if not bones:
            self.warn("the model has no skeleton; a root bone was added")
        lengths = self._bone_lengths()
        vl = self.context.view_layer
        vl.objects.active = arm_obj
        bpy.ops.object.mode_set(mode="EDIT")
        try:
            edit = []
            specs = bones if bones else [None]
            for i, b in enumerate(specs):
                eb = arm.edit_bones.new(bone_name(b.name) if b is not None and b.name
                                        else "Root")
                world = self.worlds[i] if b is not None else np.eye(4)
                m = np.eye(4)
                m[:3, :3] = nearest_rotation(world[:3, :3])
                m[:3, 3] = np.clip(world[:3, 3], -BONE_REACH, BONE_REACH)
                # in float32 a bone far out needs a length its tail can tell from its head
                length = max(float(lengths[i]), 1e-5 * float(np.abs(m[:3, 3]).max()))
                eb.head = (0.0, 0.0, 0.0)
                eb.tail = (0.0, length, 0.0)
                eb.matrix = Matrix(m.tolist())
                if b is not None and 0 <= b.parent < i:
                    eb.parent = edit[b.parent]
                edit.append(eb)
            self.bone_names = [eb.name for eb in edit]
        finally:
            bpy.ops.object.mode_set(mode="OBJECT")
        lost = [n for n in self.bone_names if n not in arm.bones]
        if lost:                            # Blender drops bones whose head and tail meet
            raise AlamoFormatError(f"Blender could not make bone {lost[0]!r} from the file's "
                                   "bone matrices", filename=self.filepath)
        for i, b in enumerate(bones):
            p = arm.bones[self.bone_names[i]].alamo
            p.name = to_blender(b.name)
            p.blender_name = self.bone_names[i]
            p.index = i
            p.visible = bool(b.visible)
            ident = BILLBOARD_IDS.get(int(b.billboard))
            if ident is None:
                self.warn(f"bone {b.name!r}: unknown billboard mode {b.billboard}; shown as "
                          "Disabled (the file's value is kept for export)")
                ident = "DISABLE"
            p.billboard = ident
            p.matrix = [float(x) for x in np.asarray(b.matrix, np.float64).ravel()]
            remember_rest(arm.bones[self.bone_names[i]])
            # objects on the bone sit relative to its rest, not its tail: Apply Scale on
            # the armature then keeps them in place (issue 25)
            arm.bones[self.bone_names[i]].use_relative_parent = True
        if not bones:
            self.worlds = np.eye(4)[None]

    def _bone_lengths(self):
        bones = self.model.bones
        if not bones:
            return np.array([1.0])
        heads = self.worlds[:, :3, 3]
        extent = float(np.ptp(heads, axis=0).max()) if len(heads) > 1 else 0.0
        for m in self.model.meshes:
            for s in m.submeshes:
                p = s.vertices["position"]
                if not np.isfinite(p).all():
                    p = p[np.isfinite(p).all(axis=1)]
                if len(p):      # max - min in float64 of the float32 extremes: no copy
                    extent = max(extent, float((p.max(0).astype(np.float64) - p.min(0)).max()))
        # display lengths only: a file's extreme coordinates must not make degenerate bones
        extent = min(extent, MAX_BONE_LENGTH)
        base = max(extent * 0.03, 0.01)
        # display length: the mean distance to the bone's children, else a small default
        total = np.zeros(len(bones))
        count = np.zeros(len(bones))
        for i, b in enumerate(bones):
            if 0 <= b.parent < i:
                total[b.parent] += np.linalg.norm(heads[i] - heads[b.parent])
                count[b.parent] += 1
        mean = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
        lengths = np.clip(mean, base, max(extent, base))
        return lengths

    def _bone_index(self, index, what):
        if index is None:
            self.warn(f"{what} is connected to no bone; placed at the root")
            return 0
        if not 0 <= index < len(self.bone_names):
            self.warn(f"{what} names bone {index}, which does not exist; placed at the root")
            return 0
        return index

    def _attach(self, obj, bone_index, world):
        """Parent ``obj`` to a bone so that its world matrix is ``world`` (float64 4x4)."""
        name = self.bone_names[bone_index]
        obj.parent = self.arm_obj
        obj.parent_type = "BONE"
        obj.parent_bone = name
        bone = self.arm.bones[name]
        obj.matrix_parent_inverse = Matrix.Identity(4)
        if bone.use_relative_parent:         # at rest the bone moves it nowhere
            obj.matrix_basis = Matrix(np.asarray(world, np.float64).tolist())
            follow.remember(obj)             # proxies, dazzles, lights: carried by the bone
            return
        tail = np.array(bone.matrix_local, np.float64) @ _translation((0.0, bone.length, 0.0))
        obj.matrix_basis = Matrix((inverse(tail, rigid_inverse) @ world).tolist())

    # --- meshes ---------------------------------------------------------------------------

    def _mesh(self, mesh, oi):
        subs = mesh.submeshes
        bone = self._bone_index(self.object_bones.get(oi), f"mesh {mesh.name!r}")
        skinned = [s.bone_map is not None and len(s.bone_map) > 0 for s in subs]
        model_space = any(skinned)
        arrays = MeshArrays(subs)
        if model_space:
            # skinned parts are in model space; rigid parts move there with their bone
            w = self.worlds[bone]
            for k, s in enumerate(subs):
                if not skinned[k]:
                    arrays.transform(k, w)
        name = to_blender(mesh.name)
        me = self.tx.add(bpy.data.meshes.new(name))
        corner_v, merged_of = self._fill_mesh(me, arrays, mesh)
        for s in subs:
            me.materials.append(self.materials.build(s, name, len(me.materials)))
        obj = self.tx.add(bpy.data.objects.new(name, me))
        self._link(obj)
        p = obj.alamo
        p.role, p.name, p.file_index = "MESH", name, oi
        p.hidden, p.collision = bool(mesh.hidden), bool(mesh.collision)
        weights = fingerprint.weight_arrays([], [], [], [])
        if model_space:
            obj.parent = self.arm_obj
            obj.matrix_parent_inverse = Matrix.Identity(4)
            obj.matrix_basis = Matrix.Identity(4)
            weights = self._skin(obj, subs, skinned, bone, arrays, merged_of)
            mod = obj.modifiers.new("Armature", "ARMATURE")
            mod.object = self.arm_obj
        else:
            self._attach(obj, bone, self.worlds[bone])
        parts = dict(self._parts, **weights, **fingerprint.placement_parts(obj))
        obj[fingerprint.KEY] = fingerprint.digest(parts)
        return obj

    def _fill_mesh(self, me, a, mesh):
        tris = a.triangles
        nv = len(a.position)
        bad = (tris >= nv).any(axis=1) if len(tris) else np.zeros(0, bool)
        if bad.any():
            self.warn(f"mesh {mesh.name!r}: {int(bad.sum())} triangles name vertices that do "
                      "not exist and were left out")
        degenerate = ((tris[:, 0] == tris[:, 1]) | (tris[:, 1] == tris[:, 2])
                      | (tris[:, 0] == tris[:, 2])) if len(tris) else np.zeros(0, bool)
        if (degenerate & ~bad).any():
            self.warn(f"mesh {mesh.name!r}: {int((degenerate & ~bad).sum())} triangles use a "
                      "vertex twice and were left out (Blender cannot hold them)")
        keep = ~(bad | degenerate)
        tris = tris[keep]
        mat_index = a.material_index[keep]
        corner_v = tris.ravel()
        if self.options.merge_vertices:
            merged_of, positions = a.merge_key()
            loops = merged_of[corner_v]
        else:
            merged_of, positions = None, a.position
            loops = corner_v
        n_tri = len(tris)
        # every array goes to Blender once and is kept, as set, for the fingerprint
        # (fingerprint.mesh_parts reads the same things back at export)
        parts = {"co": np.ascontiguousarray(positions, np.float32).ravel(),
                 "loops": loops.astype(np.int32), "material_index": mat_index.astype(np.int32)}
        me.vertices.add(len(positions))
        me.vertices.foreach_set("co", parts["co"])
        me.loops.add(3 * n_tri)
        compat.set_corner_vertices(me, parts["loops"])
        me.polygons.add(n_tri)
        me.polygons.foreach_set("loop_start", np.arange(0, 3 * n_tri, 3, dtype=np.int32))
        compat.set_material_indices(me, parts["material_index"])
        me.update(calc_edges=True)
        first_uv = None
        for k in a.uv_sets():
            vertex_uv = a.uv[:, k].copy()
            vertex_uv[:, 1] = 1.0 - vertex_uv[:, 1]     # DirectX v runs down, Blender's up
            uv = vertex_uv[corner_v]
            layer = compat.new_uv_layer(me, f"UV{k}", uv.ravel())
            parts[f"uv:{layer.name}"] = uv.ravel()
            first_uv = vertex_uv if first_uv is None else first_uv
        # per-vertex data stays on the vertices while they are the file's, one to one
        if merged_of is None:
            domain, pick = "POINT", slice(None)
        else:
            domain, pick = "CORNER", corner_v
        # colours a vertex format without colours still stores (not white: a stormtrooper's
        # are 1/255) are kept apart, for a rebuilt mesh to write them back (issue 31)
        name = "Color" if a.has_colors else FILE_COLOR if np.any(a.color != 1.0) else None
        if name is not None:
            parts[f"{name}:{domain}"] = np.ascontiguousarray(a.color[pick]).ravel()
            col = me.color_attributes.new(name, "FLOAT_COLOR", domain)
            col.data.foreach_set("color", parts[f"{name}:{domain}"])
        if a.has_tangents:
            for name, arr in (("alamo_tangent", a.tangent), ("alamo_binormal", a.binormal)):
                parts[f"{name}:{domain}"] = np.ascontiguousarray(arr[pick]).ravel()
                att = me.attributes.new(name, "FLOAT_VECTOR", domain)
                att.data.foreach_set("vector", parts[f"{name}:{domain}"])
        compat.shade_smooth(me)
        compat.set_custom_normals(me, a.normal[corner_v])
        if a.has_tangents:     # export keeps these tangents where nothing moved; a corner
            # holds its file vertex's position, normal and first UV: hashed per file vertex
            store_corner_keys(me, lambda: keys_of(a.position, a.normal, first_uv)[corner_v])
        self._parts = parts
        return corner_v, merged_of

    def _skin(self, obj, subs, skinned, conn_bone, a, merged_of):
        """Vertex groups named after the bones, with the file's weights."""
        verts, bones, weights = [], [], []
        for k, s in enumerate(subs):
            lo, hi = a.offsets[k], a.offsets[k + 1]
            ids = np.arange(lo, hi)
            if not skinned[k]:
                verts.append(ids)
                bones.append(np.full(len(ids), conn_bone))
                weights.append(np.ones(len(ids)))
                continue
            bmap = np.asarray(s.bone_map, np.int64)
            slots = 4 if format_is_b4i4(s.vertex_format) else 1
            bi = s.vertices["bone_indices"][:, :slots].astype(np.int64)
            bw = (s.vertices["bone_weights"][:, :slots].astype(np.float64) if slots > 1
                  else np.ones((len(ids), 1)))
            use = bw > 0
            bad = use & (bi >= len(bmap))
            if bad.any():
                self.warn(f"mesh {obj.name!r}: {int(bad.sum())} vertex weights name bones "
                          "beyond the sub-mesh's bone map and were left out")
                use &= ~bad
            skel = np.where(use, bmap[np.minimum(bi, len(bmap) - 1)], -1)
            bad = use & ((skel < 0) | (skel >= len(self.bone_names)))
            if bad.any():
                self.warn(f"mesh {obj.name!r}: its bone map names bones the skeleton does not "
                          "have; those weights were left out")
                use &= ~bad
            rows, cols = np.nonzero(use)
            verts.append(ids[rows])
            bones.append(skel[rows, cols])
            weights.append(bw[rows, cols])
        v = np.concatenate(verts) if verts else np.zeros(0, np.int64)
        b = np.concatenate(bones) if bones else np.zeros(0, np.int64)
        w = np.concatenate(weights) if weights else np.zeros(0)
        # a bone listed twice for one file vertex adds up; (vertex, bone) as one int64 key.
        # Vertices come in order, so the stable sort mostly finds runs already sorted.
        nb = max(len(self.bone_names), 1)
        keys = v * nb + b
        order = np.argsort(keys, kind="stable")
        keys, w = keys[order], w[order]
        if len(keys):
            starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
            if len(starts) != len(keys):
                keys, w = keys[starts], np.add.reduceat(w, starts)
        v, b = keys // nb, keys % nb
        w = w.astype(np.float32)
        if merged_of is not None:
            # merged vertices share position and skinning: keep one copy of each weight
            keys, first = np.unique(merged_of[v] * nb + b, return_index=True)
            v, b, w = keys // nb, keys % nb, w[first]
        v, b, w = add_vertex_groups(obj, self.bone_names, v, b, w)
        return fingerprint.weight_arrays(v, b, self.bone_names, w)

    def _mesh_visibility(self, objs):
        for obj, show in zip(objs, game_shown(objs)):
            if not show:
                obj.hide_set(True)
                obj.hide_render = True

    # --- lights, proxies, dazzles ----------------------------------------------------------

    def _light(self, light, oi):
        ltype = LIGHT_TYPES.get(int(light.type))
        if ltype is None:
            self.warn(f"light {light.name!r}: unknown type {light.type}; shown as a point light")
            ltype = "POINT"
        name = to_blender(light.name)
        data = self.tx.add(bpy.data.lights.new(name, ltype))
        data.color = [float(np.clip(c, 0.0, 1e6)) for c in light.color]
        intensity = float(light.intensity)
        data.energy = intensity if ltype == "SUN" else intensity * LIGHT_WATTS_PER_INTENSITY
        if ltype == "SPOT":
            falloff = float(light.falloff)
            data.spot_size = float(np.clip(falloff, np.radians(1.0), np.pi))
            data.spot_blend = float(np.clip(1.0 - float(light.hotspot) / falloff, 0.0, 1.0)) \
                if falloff > 0 else 0.0
        obj = self.tx.add(bpy.data.objects.new(name, data))
        self._link(obj)
        p = obj.alamo
        p.role, p.name, p.file_index = "LIGHT", name, oi
        p.intensity = intensity
        p.color = [float(c) for c in light.color]    # the file's (Blender's light clamps at 0)
        p.far_attenuation_start = float(light.far_attenuation_start)
        p.far_attenuation_end = float(light.far_attenuation_end)
        p.hotspot, p.falloff = float(light.hotspot), float(light.falloff)
        bone = self._bone_index(self.object_bones.get(oi), f"light {light.name!r}")
        self._attach(obj, bone, self.worlds[bone])

    def _connections(self):
        conn = self.model.connections
        if conn is None:
            return
        size = max(float(np.mean(self.arm.bones[0].length)) if self.bone_names else 1.0, 0.05)
        for k, proxy in enumerate(conn.proxies):
            obj = self.tx.add(bpy.data.objects.new(to_blender(proxy.name), None))
            obj.empty_display_type = "ARROWS"
            obj.empty_display_size = size
            self._link(obj)
            p = obj.alamo
            p.role, p.name, p.file_index = "PROXY", to_blender(proxy.name), k
            p.hidden = bool(proxy.hidden)
            p.alt_decrease_stay_hidden = bool(proxy.alt_decrease_stay_hidden)
            bone = self._bone_index(proxy.bone, f"proxy {proxy.name!r}")
            self._attach(obj, bone, self.worlds[bone])
        for k, d in enumerate(conn.dazzles):
            obj = self.tx.add(bpy.data.objects.new(to_blender(d.name), None))
            obj.empty_display_type = "SPHERE"
            self._link(obj)
            p = obj.alamo
            p.role, p.name, p.file_index = "DAZZLE", to_blender(d.name), k
            p.hidden = bool(d.hidden)
            p.night_only = bool(d.night_only)
            if d.color is not None:
                p.color = [float(c) for c in d.color]          # as the file has it
                obj.color = (*[float(np.clip(c, 0.0, 1e6)) for c in d.color], 1.0)
            for name in ("radius", "frequency", "phase"):
                if getattr(d, name) is not None:
                    setattr(p, name, float(getattr(d, name)))
            p.bias = float(d.bias) if d.bias is not None else 1.0
            p.texture = to_blender(d.texture or "")
            for name in ("tex_x", "tex_y", "tex_size"):
                if getattr(d, name) is not None:
                    setattr(p, name, int(min(getattr(d, name), 2**31 - 1)))
            obj.empty_display_size = max(p.radius, 1e-3)
            bone = self._bone_index(d.bone, f"dazzle {d.name!r}")
            offset = np.zeros(3) if d.position is None else np.asarray(d.position, np.float64)
            self._attach(obj, bone, self.worlds[bone] @ _translation(offset))
            # while it stays where import put it, export writes the file's own position
            obj[fingerprint.KEY] = fingerprint.digest(fingerprint.placement_parts(obj))


def model_animations(model_path):
    """(paths of the model's ``<MODEL>_*.ala`` files, {file name: the other model's file} for
    those left to a model of the same folder whose longer name prefixes them); see
    :func:`naming.model_animation_names`."""
    folder = os.path.dirname(os.path.abspath(model_path))
    try:
        names = os.listdir(folder)
    except OSError:
        return [], {}
    mine, left = model_animation_names(os.path.basename(model_path), names)
    return [os.path.join(folder, n) for n in mine], left
