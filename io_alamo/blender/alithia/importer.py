"""Import the Alithia engine's ``ALM1`` models (``.alm``; ALOD's ``ALM\\0`` files share the
extension and have their own importer and File > Import entry: given one, the import says so).

An ALM1 model becomes one mesh object, one Blender vertex per file vertex in file order, with
one shape key per frame (the first the basis) keyed as steps at 20 frames per second, the
frame-0 UVs and normals, and the sibling ``<name>.bmp`` as its texture. Like the Alamo import
it is all-or-nothing (the same rollback transaction).
"""

import os
from dataclasses import dataclass

import bpy
import numpy as np

from ...formats.alithia.alm1 import FRAMES_PER_SECOND, Alm1FormatError
from ...formats.alithia.options import Alm1ImportOptions
from .. import compat
from ..alamo.hub import MaterialBuilder, principled_node
from ..names import to_blender
from ..results import Result
from ..source import set_source
from ..texture_lookup import TextureFinder
from ..importing import import_file
from . import morph

MAX_FRAMES = 10_000           # shape keys Blender can still handle at a usable speed
TEXTURE_NODE = "Alithia Texture"


@dataclass
class Alm1ImportResult(Result):
    """What an ALM1 import made (a :class:`~..results.Result`)."""
    object: object = None

    def summary(self):
        c = self.counts
        return (f"{c.get('vertices', 0):,} vertices, {c.get('triangles', 0):,} triangles, "
                f"{c.get('frames', 0)} frames")


def import_alm1(context: bpy.types.Context, path: str,
                options: Alm1ImportOptions | None = None) -> Alm1ImportResult:
    """Import the Alithia model at ``path`` (File > Import > Alithia Model) as a mesh object in
    the active collection. Another format's file (an ALOD ``.alm``, a ``.p3d``) is refused
    with the File > Import entry that opens it."""
    options = options or Alm1ImportOptions()
    return import_file(context, path, "alm1",
                       lambda tx, model, data: _build(context, tx, model, data, path, options),
                       check=lambda model: _check(model, path))


def _check(model, path):
    if model.vertex_count == 0:
        raise Alm1FormatError("the model has no vertices: nothing to import", offset=8,
                              path="header/vertex count", filename=path)
    if model.frame_count > MAX_FRAMES:
        raise Alm1FormatError(f"{model.frame_count:,} frames: more shape keys than Blender "
                              f"handles (at most {MAX_FRAMES:,} are imported)", offset=16,
                              path="header/frame count", filename=path)


def _build(context, tx, model, data, path, options):
    result = Alm1ImportResult()
    name = to_blender(os.path.splitext(os.path.basename(path))[0])
    me = tx.add(bpy.data.meshes.new(name))
    tris = _fill_mesh(me, model, result.warn)
    obj = tx.add(bpy.data.objects.new(name, me))
    (context.collection or context.scene.collection).objects.link(obj)
    me.materials.append(_material(tx, name, path, result.warn))
    blocks = morph.add_frame_keys(obj, morph.file_to_blender(_finite(model.positions)))
    if len(blocks) > 1:
        action = tx.add(bpy.data.actions.new(f"{name} frames"))
        morph.key_steps(action, me.shape_keys, blocks, _frame_times(context.scene, model,
                                                                    options))
    tx.add(set_source(obj, data, os.path.basename(path), key=morph.SOURCE_KEY))
    morph.remember(obj)
    vl = context.view_layer
    for o in vl.objects:
        o.select_set(False)
    obj.select_set(True)
    vl.objects.active = obj
    result.object = obj
    result.counts = {"vertices": model.vertex_count, "triangles": len(tris),
                     "frames": model.frame_count}
    return result


def _finite(a):
    a = np.array(a, np.float32)
    a[~np.isfinite(a)] = 0.0
    return a


def _fill_mesh(me, model, warn):
    """Vertices (frame 0), triangles, UVs and custom normals; returns the triangles kept."""
    tris = model.faces.astype(np.int32)
    repeated = (tris[:, 0] == tris[:, 1]) | (tris[:, 1] == tris[:, 2]) | \
        (tris[:, 0] == tris[:, 2])
    if repeated.any():
        warn(f"{int(repeated.sum())} triangles use a vertex twice and were left "
                        "out (Blender cannot hold them; an unedited export keeps them)")
        tris = tris[~repeated]
    corner = tris.ravel()
    nt = len(tris)
    me.vertices.add(model.vertex_count)
    me.vertices.foreach_set("co", morph.file_to_blender(_finite(model.positions[0])).ravel())
    me.loops.add(3 * nt)
    me.loops.foreach_set("vertex_index", corner)
    me.polygons.add(nt)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * nt, 3, dtype=np.int32))
    me.update(calc_edges=True)
    uv = _finite(model.uvs[0][corner])
    uv[:, 1] = 1.0 - uv[:, 1]                    # the file's v runs down, Blender's up
    me.uv_layers.new(name="UVMap", do_init=False).data.foreach_set("uv", uv.ravel())
    moving = model.uvs.view(np.uint32) != model.uvs[:1].view(np.uint32)
    if moving.any():
        warn("the UVs change between frames; Blender keeps frame 0's (an "
                        "unedited export keeps them all)")
    me.polygons.foreach_set("use_smooth", np.ones(nt, bool))
    compat.set_custom_normals(me, morph.file_to_blender(_finite(model.normals[0][corner])))
    return tris


def _frame_times(scene, model, options):
    """Scene frame of each file frame: at 20 fps one per frame (the scene is set to 20 fps),
    else spread at the scene's own rate."""
    start = scene.frame_start
    if options.set_frame_rate:
        scene.render.fps, scene.render.fps_base = FRAMES_PER_SECOND, 1.0
    step = scene.render.fps / scene.render.fps_base / FRAMES_PER_SECOND
    scene.frame_end = max(start, start + int(np.ceil(model.frame_count * step - 1e-6)) - 1)
    return start + np.arange(model.frame_count) * step


def _material(tx, name, path, warn):
    """A material showing the sibling ``<name>.bmp`` (the engine's texture), when present."""
    mat = tx.add(bpy.data.materials.new(name))
    folder = os.path.dirname(os.path.abspath(path))
    texture = os.path.splitext(os.path.basename(path))[0] + ".bmp"
    finder = TextureFinder([folder])
    if finder.find(texture) is None:
        return mat
    tree = compat.ensure_node_tree(mat)
    bsdf = principled_node(tree)
    node = tree.nodes.new("ShaderNodeTexImage")
    node.name = node.label = TEXTURE_NODE
    node.location = (bsdf.location.x - 400, bsdf.location.y)
    tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
    node.image = MaterialBuilder(tx, finder, warn).image(texture)
    return mat
