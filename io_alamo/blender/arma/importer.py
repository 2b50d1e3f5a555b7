"""Import a binarized Arma model (.p3d, ODOL): one object per LOD in a collection named
after the file, mapped onto Alamo's conventions (see :mod:`.lods`): visual LODs, the
collision mesh and the shadow volume hang on an armature named after the model (the
skeleton's bones, weights as vertex groups and an Armature modifier) with Alamo materials and
textures, so File > Export > Alamo Model with its defaults writes a unit; the other LODs stay
in the collection, off the armature. All-or-nothing like the .alo import: a failure removes
what was made."""

import os
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ...formats.arma import is_shadow, lod_name, proxy_marker_faces
from ...formats.arma.geometry import signed_volume
from ...formats.arma.options import P3dImportOptions
from ...formats.arma.placement import (lowest_point, place, shown_lod,
                                       visible_points)
from ..names import IMPORT_NAME_KEY, to_blender
from ..results import Result
from ..importing import import_file
from .lods import COLLISION, SHADOW, VISUAL, lod_roles
from .cleanup import inward_parts
from .materials import ArmaMaterials
from .mesh import (NORMALS_TURNED_KEY, add_shape_keys, add_vertex_groups, blender_matrix,
                   face_materials, file_points, fill_mesh, to_blender_axes)
from .parts import PartBuilder, PartLoader
from .skeleton import build_armature, skin
from .textures import ArmaTextureFinder, search_roots

PROXY_SIZE = 0.1


@dataclass
class P3dImportResult(Result):
    """What a P3D import made (a :class:`~..results.Result`)."""
    collection: object = None
    objects: list = field(default_factory=list)

    def summary(self):
        c = self.counts
        return (f"ODOL v{c.get('version')}: {c.get('lods', 0)} LODs, {c.get('faces', 0):,} "
                f"faces, {c.get('materials', 0)} materials, {c.get('proxies', 0)} proxies "
                f"({c.get('parts', 0)} parts imported, {c.get('proxies_missing', 0)} files "
                "not found), "
                f"{c.get('bones', 0)} bones, {c.get('textures_found', 0)} of "
                f"{c.get('textures', 0)} textures found")


def import_p3d(context: bpy.types.Context, filepath: str,
               options: P3dImportOptions | None = None) -> P3dImportResult:
    """Import the model at ``filepath`` into a new collection of the active scene."""
    options = options or P3dImportOptions()
    return import_file(context, filepath, "p3d",
                       lambda tx, model, _: _Builder(context, tx, model, filepath,
                                                     options).build())


def _stand(model, options, loader):
    """Scale ``model`` (in place) and lift it so its lowest visible point, parts included,
    is at height 0; returns the lift (Blender units)."""
    place(model, options.scale)
    if not options.on_ground:
        return 0.0
    low = lowest_point(model, loader.part_of if options.import_parts else lambda p: None)
    if low is None or not np.isfinite(low) or low == 0.0:
        return 0.0
    place(model, 1.0, -low)
    return -low


def _vector(v):
    return [float(x) for x in to_blender_axes(v)[0]] if v is not None else [0.0, 0.0, 0.0]


def _by_detail(model, roles):
    """The LODs to place bones by: visual ones, most detailed first, then the others."""
    visual = sorted((i for i, r in enumerate(roles) if r.role == VISUAL),
                    key=lambda i: -roles[i].level)
    rest = [i for i in range(len(roles)) if i not in visual]
    return [model.lods[i] for i in visual + rest]


def _size(model):
    """The model's size from the points its faces use (stray points do not count)."""
    pts = [visible_points(lod) for lod in model.lods]
    pts = [p for p in pts if len(p)]
    if not pts:
        return 1.0
    return float(np.ptp(np.concatenate(pts), axis=0).max())


class _Builder:
    def __init__(self, context, tx, model, filepath, options):
        self.context = context
        self.tx = tx
        self.model = model
        self.options = options
        self.result = P3dImportResult()
        for text in model.warnings:
            self.result.warn(text)
        self.name = to_blender(os.path.splitext(os.path.basename(filepath))[0])
        folders = list(options.texture_folders)
        finder = ArmaTextureFinder(search_roots(filepath, folders))
        self.materials = ArmaMaterials(tx, finder, folders, self.result.warn)
        self.loader = PartLoader(finder, options.scale, filepath, self.result.warn)
        self.parts = PartBuilder(self, self.loader)
        self.lift = _stand(model, options, self.loader)

    def build(self):
        coll = self.tx.add(bpy.data.collections.new(self.name))
        self.context.scene.collection.children.link(coll)
        self.collection = self.result.collection = coll
        self._model_info(coll)
        roles = lod_roles(self.name, self.model.lods)
        self.arm, self.bone_names = build_armature(
            self.context, self.tx, coll, self.name, self.model,
            _by_detail(self.model, roles), _size(self.model))
        self.result.armature = self.arm
        self.result.objects.append(self.arm)
        self.markers = 0
        shown = max((r.level for r in roles if r.role == VISUAL), default=None)
        self.shown_index = shown_lod(self.model)
        self.lods_with_proxies = sum(1 for lod, r in zip(self.model.lods, roles)
                                     if r.role == VISUAL and lod.proxies)
        for i, lod in enumerate(self.model.lods):
            obj = self._lod(i, lod, roles[i])
            if self.options.hide_other_lods and not (roles[i].role == VISUAL
                                                     and roles[i].level == shown):
                obj.hide_set(True)
                obj.hide_render = True
                for child in obj.children:
                    child.hide_set(True)
        self.materials.previews.done()
        self._counts(roles)
        view_layer = self.context.view_layer
        for obj in view_layer.objects:
            obj.select_set(False)
        self.arm.select_set(True)
        view_layer.objects.active = self.arm
        view_layer.update()
        return self.result

    def _counts(self, roles):
        c = self.result.counts
        c["version"] = self.model.version
        c["lods"] = len(self.model.lods)
        c["faces"] = sum(len(lod.faces) for lod in self.model.lods)
        c["materials"] = len(self.materials.cache)
        c["proxies"] = sum(len(lod.proxies) for lod in self.model.lods)
        c["proxy_markers"] = self.markers
        c["bones"] = len(self.bone_names)
        c["parts"] = self.parts.count
        c["normals_turned"] = sum(int(o.data.get(NORMALS_TURNED_KEY, 0))
                                  for o in self.result.objects if o.type == "MESH")
        c["proxies_missing"] = len(self.loader.missing)
        if self.loader.missing:
            names = sorted(self.loader.missing.values())
            self.result.warn(f"{len(names)} proxied model(s) not found (left as empties): "
                             + ", ".join(names))
        c["exported_lods"] = sum(r.exported for r in roles)
        images = self.materials.images
        c["textures"] = len(images)
        c["textures_found"] = sum(img is not None for img in images.values())
        stages = self.materials.stages
        c["stage_textures"] = len(stages)
        c["stage_textures_found"] = sum(img is not None for img in stages.values())
        missing = sorted(path for path, img in stages.items()       # base ones warned already
                         if img is None and path not in images)
        if missing:
            self.result.warn(f"{len(missing)} .rvmat stage texture(s) not found (they are kept "
                             f"on the materials as paths): {', '.join(missing[:3])}"
                             + (", ..." if len(missing) > 3 else ""))

    def _model_info(self, coll):
        """Model-wide facts as custom properties of the collection."""
        m = self.model
        info = m.info
        coll["p3d_version"] = m.version
        if m.prefix:
            coll["p3d_prefix"] = to_blender(m.prefix)
        coll["p3d_bounding_box_min"] = _vector(info.bbox_min)
        coll["p3d_bounding_box_max"] = _vector(info.bbox_max)
        coll["p3d_centre_of_gravity"] = _vector(info.center_of_mass)
        coll["p3d_bounding_centre"] = _vector(info.bounding_center)
        coll["p3d_mass"] = float(info.mass)
        coll["p3d_import_scale"] = float(self.options.scale)     # Blender units per metre
        coll["p3d_import_lift"] = float(self.lift)               # raised by, Blender units
        coll["p3d_armor"] = float(info.armor)
        coll["p3d_map_type"] = int(info.map_type)
        coll["p3d_class"] = to_blender(info.class_name)
        coll["p3d_damage"] = to_blender(info.damage)
        coll["p3d_lod_types"] = {name: (lod_name(m.resolutions[k]) if k < len(m.resolutions)
                                    else "none")
                             for name, k in info.lod_indices.items()}
        coll["p3d_lod_resolutions"] = [float(x) for x in m.resolutions]
        sk = info.skeleton
        coll["p3d_skeleton"] = to_blender(sk.name)
        coll["p3d_skeleton_bones"] = [to_blender(b) for b, _ in sk.bones]
        coll["p3d_skeleton_parents"] = [to_blender(p) for _, p in sk.bones]
        if m.animations is not None:
            coll["p3d_animation_classes"] = [to_blender(a.name) for a in m.animations.classes]

    def _lod(self, index, lod, role):
        warn = self._warner(f"LOD {index} ({lod_name(lod.resolution)})")
        me = self.tx.add(bpy.data.meshes.new(role.name))
        markers = proxy_marker_faces(lod)
        self.markers += int(markers.sum())
        # a shadow LOD must enclose its volume facing out; some files wind theirs inward
        reverse = not (is_shadow(lod.resolution) and signed_volume(lod, ~markers) < 0)
        if role.role in (VISUAL, COLLISION) and lod.faces is not None:
            # and so must each part: one wound inward keeps the file's order (see cleanup)
            reverse = ~inward_parts(lod, ~markers, len(lod.vertices))
        # a visual LOD leaves out the points no face uses (stray points, the markers' own)
        kept, held = fill_mesh(me, lod, warn, markers, reverse, drop_loose=role.role == VISUAL)
        obj = self.tx.add(bpy.data.objects.new(role.name, me))
        self.collection.objects.link(obj)
        self.result.objects.append(obj)
        obj["p3d_lod_resolution"] = float(lod.resolution)
        obj["p3d_lod_type"] = lod_name(lod.resolution)
        obj["p3d_lod_faces"] = len(lod.faces)
        obj["p3d_proxy_markers"] = int(markers.sum())
        if lod.properties:
            obj["p3d_named_properties"] = {to_blender(k): to_blender(v) for k, v in lod.properties}
        # skinned: the exported LODs that carry bone weights, but the collision mesh, which
        # Alamo never skins (it hangs on the root)
        skinned = skin(obj, lod, self.bone_names, held) and role.role in (VISUAL, SHADOW)
        if role.exported:
            self._on_armature(obj, role, skinned)
        self._materials(me, lod, kept, role, skinned)
        n = len(file_points(lod))
        add_vertex_groups(obj, lod, n, held)
        add_shape_keys(obj, lod, n, warn, held)
        for proxy in lod.proxies:
            part = None
            if self.options.import_parts and index == self.shown_index:
                part = self.parts.add(proxy, np.eye(4), suffix=self.part_suffix(role))
            elif self.options.import_parts and role.role == VISUAL:   # a lower LOD's, hidden
                part = self.parts.add(proxy, np.eye(4), suffix=self.part_suffix(role),
                                      hidden=self.options.hide_other_lods)
            else:
                self.loader.file_of(proxy)                  # listed when missing
            if part is None:
                self._proxy(obj, proxy)
        return obj

    def part_suffix(self, role):
        """``_LOD<n>`` for the parts of a visual LOD when more than one visual LOD has proxies
        (each LOD draws its own parts in the game), else nothing (drawn at every LOD)."""
        return f"_LOD{role.level}" if self.lods_with_proxies > 1 else ""

    def _on_armature(self, obj, role, skinned):
        """An exported LOD hangs on the armature (skinned: with an Armature modifier)."""
        obj.parent = self.arm
        if skinned:
            mod = obj.modifiers.new("Armature", "ARMATURE")
            mod.object = self.arm
        p = obj.alamo
        p.role, p.name = "MESH", obj.name
        obj[IMPORT_NAME_KEY] = obj.name
        if role.role == COLLISION:
            p.collision = p.hidden = True

    def _materials(self, me, lod, kept, role, skinned):
        if role.role in (COLLISION, SHADOW):
            if len(me.polygons):
                me.materials.append(self.materials.special(role.role, self.name, skinned))
            return
        slots, keys = face_materials(lod, kept)
        for texture, rvmat, material in keys:
            me.materials.append(self.materials.visual(texture, rvmat, material, skinned))
        if len(keys) > 1:
            att = me.attributes.new("material_index", "INT", "FACE")
            att.data.foreach_set("value", slots)

    def _warner(self, where):
        return lambda text: self.result.warn(f"{where}: {text}")

    def _proxy(self, parent, proxy):
        label = os.path.basename(proxy.path.replace("\\", "/")) or "proxy"
        obj = self.tx.add(bpy.data.objects.new(to_blender(f"{label}.{proxy.sequence_id}"), None))
        obj.empty_display_type = "ARROWS"
        obj.empty_display_size = PROXY_SIZE
        self.collection.objects.link(obj)
        self.result.objects.append(obj)
        obj.parent = parent
        obj.matrix_parent_inverse = Matrix.Identity(4)
        m = blender_matrix(proxy.matrix)
        m[~np.isfinite(m)] = 0.0
        obj.matrix_basis = Matrix(m.tolist())
        obj["p3d_proxy_path"] = to_blender(proxy.path)
        obj["p3d_proxy_index"] = int(proxy.sequence_id)
        obj["p3d_proxy_selection"] = int(proxy.selection_index)
        obj["p3d_proxy_bone"] = int(proxy.bone_index)
