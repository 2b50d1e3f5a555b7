"""Export a mesh object as an Alithia ALM1 model: one frame per shape key (the basis first),
or the evaluated mesh at 20 frames per second over the scene's range. Triangulated, vertices
split where UVs or normals differ, in Blender's vertex order. An unedited import is written
from the imported file's own bytes (kept on the object, checked with a fingerprint), so it
comes back byte for byte; an edited one keeps the file's flags and trailing bytes.
"""

import math
from dataclasses import dataclass

import bpy
import numpy as np

from ...formats.alithia.alm1 import (ENGINE_MAX_INDEX, ENGINE_MAX_VERTICES, FRAMES_PER_SECOND,
                                     Alm1FormatError, new_model, read_alm1, write_alm1)
from ...formats.alithia.options import Alm1ExportOptions
from ...formats.saving import write_all
from .. import compat
from ..mesh_data import distinct_loops, triangles
from ..results import ExportError, Result
from ..source import get_source
from . import morph
from .exporter_texture import texture_item

FRAME_SOURCES = ("SHAPE_KEYS", "SCENE")
TEMP_NAME = "io_alamo alm normals"


@dataclass
class Alm1ExportResult(Result):
    """What an ALM1 export wrote (a :class:`~..results.Result`)."""
    object: object = None
    reused: bool = False          # written from the imported file's bytes, as they were

    def summary(self):
        c = self.counts
        return (f"{c.get('vertices', 0):,} vertices, {c.get('triangles', 0):,} triangles, "
                f"{c.get('frames', 0)} frames" + (" (unchanged)" if self.reused else ""))


@dataclass
class _Frames:
    """What one export reads from Blender: positions per frame and vertex, normals per frame
    and corner, UVs per corner, each corner's vertex and the triangles' corners."""
    positions: np.ndarray
    normals: list
    uv: np.ndarray
    corner_vertex: np.ndarray
    triangles: np.ndarray


def export_alm1(context: bpy.types.Context, path: str,
                options: Alm1ExportOptions | None = None) -> Alm1ExportResult:
    """Write the active (or only) mesh object to ``path`` atomically."""
    options = options or Alm1ExportOptions()
    if options.frames not in FRAME_SOURCES:
        raise ValueError(f"frames must be one of {FRAME_SOURCES}")
    obj = find_mesh(context)
    result = Alm1ExportResult(object=obj)
    items = [(build_alm(context, obj, options, result), path)]
    texture = texture_item(obj, path, result.warnings) if options.write_texture else None
    if texture is not None:
        items.append(texture)
        result.counts["texture"] = texture[1]
    write_all(items)
    return result


def find_mesh(context):
    """The active object if it is a mesh, else the one selected (or only) mesh object."""
    active = context.active_object
    if active is not None and active.type == "MESH":
        return active
    for pool in (context.selected_objects or [], context.scene.objects):
        meshes = [o for o in pool if o.type == "MESH"]
        if len(meshes) == 1:
            return meshes[0]
    raise ExportError(["an .alm holds one mesh: select the mesh object to export"])


def build_alm(context, obj, options, result):
    """The file's bytes for ``obj``."""
    # .blend files from before issue 32 hold the bytes under Alamo's key
    data = get_source(obj, morph.SOURCE_KEY) or get_source(obj)
    source = _read_source(data)
    if options.frames == "SHAPE_KEYS" and source is not None and morph.unchanged(obj):
        result.reused = True
        result.counts = {"vertices": source.vertex_count, "triangles": source.face_count,
                         "frames": source.frame_count}
        return bytes(data)
    if options.frames == "SHAPE_KEYS":
        frames = _shape_key_frames(context, obj.data)
    else:
        frames = _scene_frames(context, obj)
    model = _model(obj, frames, result)
    if source is not None:
        model.flags, model.trailing = source.flags, source.trailing
    return write_alm1(model)


def _read_source(data):
    if data is None:
        return None
    try:
        return read_alm1(bytes(data))
    except Alm1FormatError:
        return None


def _shape_key_frames(context, me):
    """One frame per shape key: its positions and Blender's normals for it (the basis: the
    mesh's own, custom, normals)."""
    count = len(me.shape_keys.key_blocks) if me.shape_keys else 1
    normals = [morph.corner_normals(me)] + _key_normals(context, me, count)
    tri_loops, _ = triangles(me)
    return _Frames(morph.key_positions(me), normals, morph.uv_corners(me),
                   compat.corner_vertices(me), tri_loops)


def _key_normals(context, me, count):
    """Blender's automatic normals of each shape key after the basis, the same on every
    version (``normals_split_get`` returns a Python list, 20 s for 40 keys of 65,000
    vertices, and on 4.2 bends the custom normals along): a throwaway copy of the mesh
    without custom normals shows one key at a time."""
    if count < 2:
        return []
    temp_me = me.copy()
    temp = None
    try:
        if compat.HAS_CUSTOM_NORMAL_ATTRIBUTE:
            att = temp_me.attributes.get("custom_normal")
            if att is not None:
                temp_me.attributes.remove(att)
        else:
            temp_me.normals_split_custom_set(np.zeros((len(temp_me.loops), 3), np.float32))
        temp = bpy.data.objects.new(TEMP_NAME, temp_me)
        context.scene.collection.objects.link(temp)
        temp.show_only_shape_key = True
        out = []
        for k in range(1, count):
            temp.active_shape_key_index = k
            depsgraph = context.evaluated_depsgraph_get()
            depsgraph.update()
            evaluated = temp.evaluated_get(depsgraph)
            out.append(morph.corner_normals(evaluated.to_mesh()))
            evaluated.to_mesh_clear()
        return out
    finally:
        if temp is not None:
            bpy.data.objects.remove(temp)
        bpy.data.meshes.remove(temp_me)          # its shape keys go with it


def _scene_frames(context, obj):
    """The evaluated mesh (modifiers, shape keys, armatures: all of it) at 20 frames per
    second over the scene's frame range."""
    scene = context.scene
    step = scene.render.fps / scene.render.fps_base / FRAMES_PER_SECOND
    count = int(math.floor((scene.frame_end - scene.frame_start) / step + 1e-6)) + 1
    was = (scene.frame_current, scene.frame_subframe)
    positions, normals, first = [], [], None
    try:
        for k in range(max(count, 1)):
            t = scene.frame_start + k * step
            scene.frame_set(int(math.floor(t)), subframe=t - math.floor(t))
            evaluated = obj.evaluated_get(context.evaluated_depsgraph_get())
            me = evaluated.to_mesh()
            try:
                corners = compat.corner_vertices(me)
                if first is None:
                    first = _Frames(None, None, morph.uv_corners(me), corners, triangles(me)[0])
                elif len(me.vertices) != positions[0].shape[0] or \
                        not np.array_equal(corners, first.corner_vertex):
                    raise ExportError([f"mesh {obj.name!r}: its faces change at frame {t:g}; "
                                       "every frame of an .alm has the same vertices and "
                                       "faces"], [obj])
                co = np.empty(len(me.vertices) * 3, np.float32)
                me.vertices.foreach_get("co", co)
                positions.append(co.reshape(-1, 3))
                normals.append(morph.corner_normals(me))
            finally:
                evaluated.to_mesh_clear()
    finally:
        scene.frame_set(was[0], subframe=was[1])
    first.positions, first.normals = np.stack(positions), normals
    return first


def _model(obj, f, result):
    """Split vertices where a corner's UV or any frame's normal differs; keep Blender's
    vertex order (an unedited import thereby keeps the file's)."""
    if len(f.triangles) == 0:
        raise ExportError([f"mesh {obj.name!r} has no faces to write"], [obj])
    uv = f.uv
    if uv is None:
        result.warn(f"mesh {obj.name!r} has no UV map; u and v are written as 0", [obj])
        uv = np.zeros((len(f.corner_vertex), 2), np.float32)
    words = [f.corner_vertex.astype(np.uint32), *np.ascontiguousarray(uv.T).view(np.uint32)]
    for n in f.normals:
        words += list(np.ascontiguousarray(n.T).view(np.uint32))
    number, first = distinct_loops(words)
    order = np.lexsort((first, f.corner_vertex[first]))     # by vertex, then first use
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first = first[order]
    if len(first) > ENGINE_MAX_VERTICES:
        raise ExportError([f"mesh {obj.name!r} needs {len(first):,} vertices once split "
                           f"where UVs or normals differ; the Alithia engine reads face "
                           f"indices as signed 16-bit, so a model it loads has at most "
                           f"{ENGINE_MAX_VERTICES:,} (indices 0 to {ENGINE_MAX_INDEX:,})"],
                          [obj])
    loose = len(f.positions[0]) - len(np.unique(f.corner_vertex))
    if loose:
        result.warnings.append(f"mesh {obj.name!r}: {loose} vertices in no face are not "
                               "written")
    vertex = f.corner_vertex[first]
    out_uv = uv[first].astype(np.float32)
    out_uv[:, 1] = 1.0 - out_uv[:, 1]
    frames = len(f.positions)
    model = new_model(morph.blender_to_file(f.positions[:, vertex]),
                      morph.blender_to_file(np.stack([n[first] for n in f.normals])),
                      np.broadcast_to(out_uv, (frames,) + out_uv.shape),
                      rank[number][f.triangles].reshape(-1, 3))
    result.counts = {"vertices": len(first), "triangles": model.face_count, "frames": frames}
    return model
