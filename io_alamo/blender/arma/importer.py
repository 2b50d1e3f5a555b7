"""Import a binarized Arma model (.p3d, ODOL): one object per LOD in a collection named
after the file. All-or-nothing like the .alo import: a failure removes what was made."""

import os
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ...formats import registry
from ...formats.arma import is_visual, lod_name, read_p3d
from ...formats.files import read_file_bytes
from ..names import to_blender
from ..results import Result
from ..transaction import Transaction
from .mesh import (
    add_shape_keys,
    add_vertex_groups,
    blender_matrix,
    face_materials,
    fill_mesh,
    to_blender_axes,
)

PROXY_SIZE = 0.1


@dataclass
class P3dImportOptions:
    hide_other_lods: bool = True       # show only the first visual LOD


@dataclass
class P3dImportResult(Result):
    """What a P3D import made (a :class:`~..results.Result`)."""
    collection: object = None
    objects: list = field(default_factory=list)

    def summary(self):
        c = self.counts
        return (f"ODOL v{c.get('version')}: {c.get('lods', 0)} LODs, {c.get('faces', 0):,} "
                f"faces, {c.get('materials', 0)} materials, {c.get('proxies', 0)} proxies")


def import_p3d(context: bpy.types.Context, filepath: str,
               options: P3dImportOptions | None = None) -> P3dImportResult:
    """Import the model at ``filepath`` into a new collection of the active scene."""
    options = options or P3dImportOptions()
    data = read_file_bytes(filepath)
    registry.require(data, filepath, "p3d")
    model = read_p3d(data, filename=filepath)
    with Transaction(context) as tx:
        return _Builder(context, tx, model, filepath, options).build()


def _vector(v):
    return [float(x) for x in to_blender_axes(v)[0]] if v is not None else [0.0, 0.0, 0.0]


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
        self.materials = {}

    def build(self):
        coll = self.tx.add(bpy.data.collections.new(self.name))
        self.context.scene.collection.children.link(coll)
        self.collection = self.result.collection = coll
        self._model_info(coll)
        shown = next((i for i, lod in enumerate(self.model.lods)
                      if is_visual(lod.resolution)), None)
        for i, lod in enumerate(self.model.lods):
            obj = self._lod(i, lod)
            if self.options.hide_other_lods and i != shown:
                obj.hide_set(True)
                obj.hide_render = True
                for child in obj.children:
                    child.hide_set(True)
        c = self.result.counts
        c["version"] = self.model.version
        c["lods"] = len(self.model.lods)
        c["faces"] = sum(len(lod.faces) for lod in self.model.lods)
        c["materials"] = len(self.materials)
        c["proxies"] = sum(len(lod.proxies) for lod in self.model.lods)
        self.context.view_layer.update()
        return self.result

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

    def _lod(self, index, lod):
        name = lod_name(lod.resolution)
        warn = self._warner(f"LOD {index} ({name})")
        me = self.tx.add(bpy.data.meshes.new(name))
        kept = fill_mesh(me, lod, warn)
        slots, keys = face_materials(lod, kept)
        for key in keys:
            me.materials.append(self._material(*key))
        if len(keys) > 1:
            att = me.attributes.new("material_index", "INT", "FACE")
            att.data.foreach_set("value", slots)
        obj = self.tx.add(bpy.data.objects.new(name, me))
        self.collection.objects.link(obj)
        self.result.objects.append(obj)
        obj["p3d_lod_resolution"] = float(lod.resolution)
        obj["p3d_lod_type"] = name
        obj["p3d_lod_faces"] = len(lod.faces)
        if lod.properties:
            obj["p3d_named_properties"] = {to_blender(k): to_blender(v) for k, v in lod.properties}
        add_vertex_groups(obj, lod, len(me.vertices))
        add_shape_keys(obj, lod, len(me.vertices), warn)
        for proxy in lod.proxies:
            self._proxy(obj, proxy)
        return obj

    def _warner(self, where):
        return lambda text: self.result.warn(f"{where}: {text}")

    def _material(self, texture, path, material):
        """One Blender material per (texture, .rvmat) pair, shared by every LOD."""
        key = (texture.lower(), path.lower())
        if key in self.materials:
            return self.materials[key]
        label = os.path.splitext(os.path.basename((path or texture).replace("\\", "/")))[0]
        mat = self.tx.add(bpy.data.materials.new(to_blender(label or "p3d")))
        mat["p3d_texture"] = to_blender(texture)
        mat["p3d_rvmat"] = to_blender(path)
        if material is not None:
            mat["p3d_stage_textures"] = [to_blender(s.path) for s in material.stages]
            mat["p3d_surface"] = to_blender(material.surface)
            mat["p3d_pixel_shader"] = int(material.pixel_shader)
            mat["p3d_vertex_shader"] = int(material.vertex_shader)
            diffuse = material.colors.get("diffuse")
            if diffuse is not None:
                mat.diffuse_color = [float(np.clip(c, 0.0, 1.0)) for c in diffuse]
        self.materials[key] = mat
        return mat

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
