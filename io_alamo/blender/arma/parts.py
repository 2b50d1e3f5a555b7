"""Proxied parts of an Arma model (issue 35): a truck's frame and wheels are separate
``.p3d`` files its proxies name. A proxy's file is looked up as textures are (the folders
above the model, then the preference folders; the longest matching tail of its path wins) and
imported as a part: the shown (most detailed visual) LOD of that file as an Alamo mesh at the
proxy's place (its points first moved back by the file's bounding centre, as the game places
it: ``placement.uncentre``), on the proxy's bone where it has one, else on the armature; its
own proxies follow, recursively. Each file is read once and its mesh built once (four wheels
share one mesh); a file that (through its parts) names itself is not placed inside itself
again. Proxies whose file is not found stay empties and are listed in the import's report."""

import os

import bpy
from mathutils import Matrix

from ...formats.arma import proxy_marker_faces, read_p3d
from ...formats.arma.placement import place, proxy_matrix, shown_lod, uncentre
from ...formats.errors import FormatError
from ...formats.files import read_file_bytes
from ..names import IMPORT_NAME_KEY, to_blender
from .cleanup import inward_parts
from .mesh import blender_matrix, face_materials, fill_mesh

MAX_DEPTH = 8                    # parts of parts of ... (real vehicles nest two or three)
PART_FILE_KEY = "p3d_part_file"


class PartLoader:
    """The model each proxy path names, read once per file and scaled like the unit."""

    def __init__(self, finder, scale, own_path, warn):
        self.finder = finder
        self.scale = scale
        self.own = os.path.normcase(os.path.abspath(own_path))
        self.warn = warn
        self.files = {}           # proxy path (lower case) -> file path or None
        self.models = {}          # normcased file path -> model or None (unreadable)
        self.missing = {}         # proxy path (lower case) -> as written

    def file_of(self, proxy):
        key = proxy.path.strip().lower()
        if key not in self.files:
            name = proxy.path.strip()
            if not name.lower().endswith(".p3d"):
                name += ".p3d"
            found = self.finder.find(name)
            self.files[key] = found
            if found is None:
                self.missing.setdefault(key, proxy.path.strip())
        return self.files[key]

    def part_of(self, proxy):
        """The proxied model (placed at the unit's scale), or None."""
        path = self.file_of(proxy)
        if path is None:
            return None
        key = os.path.normcase(os.path.abspath(path))
        if key == self.own:
            return None
        if key not in self.models:
            try:
                model = read_p3d(read_file_bytes(path), filename=path)
            except (FormatError, OSError) as e:
                self.warn(f"proxy {proxy.path!r}: {e}")
                model = None
            if model is not None:         # the part's own origin at the proxy, as in the game
                place(uncentre(model), self.scale)
            self.models[key] = model
        return self.models[key]


class PartBuilder:
    """Builds parts into the import's collection, on its armature (see the module's note)."""

    def __init__(self, builder, loader):
        self.b = builder
        self.loader = loader
        self.meshes = {}          # normcased file path -> Blender mesh
        self.count = 0

    def add(self, proxy, lod_matrix, chain=(), suffix="", hidden=False):
        """The part of ``proxy`` (None if its file is missing or unreadable), placed at
        ``lod_matrix`` (file axes, relative to the armature) @ the proxy's transform; its
        object's name ends in ``suffix`` (``_LOD<n>``: the part of that LOD only), hidden
        with its LOD when ``hidden``."""
        model = self.loader.part_of(proxy)
        path = self.loader.file_of(proxy)
        if model is None or shown_lod(model) < 0:
            return None
        key = os.path.normcase(os.path.abspath(path))
        if key in chain or len(chain) >= MAX_DEPTH:
            return None
        matrix = lod_matrix @ proxy_matrix(proxy)
        lod = model.lods[shown_lod(model)]
        obj = self._object(key, path, lod, proxy, matrix, suffix)
        if hidden:
            obj.hide_set(True)
            obj.hide_render = True
        for inner in lod.proxies:
            self.add(inner, matrix, chain + (key,), suffix, hidden)
        return obj

    def _mesh(self, key, path, lod):
        if key in self.meshes:
            return self.meshes[key]
        b = self.b
        name = to_blender(os.path.splitext(os.path.basename(path))[0])
        me = b.tx.add(bpy.data.meshes.new(name))
        markers = proxy_marker_faces(lod)
        # wound as the main model's visual LODs are: a part of the file enclosing its volume
        # inward keeps the file's order (a door or cargo box so wound faced inward here
        # while the same file imported on its own did not)
        reverse = ~inward_parts(lod, ~markers, len(lod.vertices)) if lod.vertices is not None \
            else True
        kept, _ = fill_mesh(me, lod, b._warner(f"part {name}"), markers, reverse, drop_loose=True)
        slots, keys = face_materials(lod, kept)
        for texture, rvmat, material in keys:
            me.materials.append(b.materials.visual(texture, rvmat, material, False))
        if len(keys) > 1:
            att = me.attributes.new("material_index", "INT", "FACE")
            att.data.foreach_set("value", slots)
        self.meshes[key] = me
        return me

    def _object(self, key, path, lod, proxy, matrix, suffix=""):
        b = self.b
        me = self._mesh(key, path, lod)
        self.count += 1
        obj = b.tx.add(bpy.data.objects.new(f"{b.name}_{me.name}_{self.count:02d}{suffix}", me))
        b.collection.objects.link(obj)
        b.result.objects.append(obj)
        obj.parent = b.arm
        place_on = Matrix(blender_matrix(matrix).tolist())
        bone = _bone_of(b, proxy)
        if bone is not None:
            obj.parent_type = "BONE"
            obj.parent_bone = bone.name
            at_tail = bone.matrix_local @ Matrix.Translation((0.0, bone.length, 0.0))
            place_on = at_tail.inverted_safe() @ place_on
        obj.matrix_parent_inverse = Matrix.Identity(4)
        obj.matrix_basis = place_on
        p = obj.alamo
        p.role, p.name = "MESH", obj.name
        obj[IMPORT_NAME_KEY] = obj.name
        obj[PART_FILE_KEY] = path
        obj["p3d_proxy_path"] = to_blender(proxy.path)
        return obj


def _bone_of(builder, proxy):
    """The armature bone the proxy hangs on (its skeleton bone), or None."""
    k = int(proxy.bone_index)
    if 0 <= k < len(builder.bone_names):
        return builder.arm.data.bones.get(builder.bone_names[k])
    return None
