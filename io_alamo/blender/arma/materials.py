"""Alamo materials for the sections of a binarized P3D.

Visual LODs get ``MeshGloss.fx`` (``MeshAlpha.fx`` when the texture has transparency: an
``_ca`` texture or one whose pixels are not all opaque), ``RSkinGloss.fx``/``RSkinAlpha.fx``
on skinned meshes, with ``BaseTexture`` naming the texture as the game looks it up
(``name_co.dds``) and the preview showing the decoded image; specular colour and power come
from the .rvmat when the file holds one. The collision mesh gets ``MeshCollision.fx``, the
shadow volume ``MeshShadowVolume.fx`` (``RSkinShadowVolume.fx`` skinned). The Arma paths stay
on the material as ``texture``, ``rvmat`` and ``stage_textures``.
"""

import os
import re

import bpy
import numpy as np

from ..alamo.hub import (NO_TEAM_COLOUR_KEY, PLACEHOLDER_COLOR, find_param, refresh_preview,
                         switch_shader)
from ..names import to_blender
from .lods import COLLISION, SHADOW
from .preview_copies import PreviewCopies
from .textures import game_texture_name, has_alpha, image_for, procedural_colour

SHADERS = {  # (role, alpha, skinned) -> shader
    ("VISUAL", False, False): "MeshGloss.fx", ("VISUAL", True, False): "MeshAlpha.fx",
    ("VISUAL", False, True): "RSkinGloss.fx", ("VISUAL", True, True): "RSkinAlpha.fx",
    (COLLISION, False, False): "MeshCollision.fx", (COLLISION, False, True): "MeshCollision.fx",
    (SHADOW, False, False): "MeshShadowVolume.fx", (SHADOW, False, True): "RSkinShadowVolume.fx",
}
# an opaque section whose .rvmat has a normal map (name_nohq.paa, _no, _nopx): a bump shader
BUMP_SHADERS = {False: "MeshBumpColorize.fx", True: "RSkinBumpColorize.fx"}
NORMAL_MAP = re.compile(r"_no(hq|px)?\.pa[ac]$", re.IGNORECASE)


class ArmaMaterials:
    """Makes (once per texture, .rvmat, role and skinning) the Blender materials of a model."""

    def __init__(self, tx, finder, folders, warn):
        self.tx = tx
        self.finder = finder
        self.folders = folders
        self.warn = warn
        self.cache = {}
        self.images = {}             # Arma texture path (lower case) -> image or None
        self.stages = {}             # the same for the .rvmat stage textures
        self.previews = PreviewCopies(tx, folders)

    def image(self, path):
        """The image of an Arma texture path (None when not found: then a magenta
        placeholder named as the game texture stands in, as for .alo imports)."""
        key = path.lower()
        if key not in self.images:
            before = {img.as_pointer() for img in bpy.data.images}
            img = image_for(path, self.finder, self.warn)
            self.images[key] = img
            if img is None and game_texture_name(path):
                img = bpy.data.images.new(game_texture_name(path), 16, 16)
                img.generated_color = PLACEHOLDER_COLOR
            if img is not None and img.as_pointer() not in before:
                self.tx.add(img)
        return self.images[key]

    def special(self, role, model_name, skinned):
        """The one material of the collision mesh or the shadow volume."""
        key = (role, skinned)
        if key not in self.cache:
            label = "Collision" if role == COLLISION else "Shadow"
            mat = self.tx.add(bpy.data.materials.new(f"{model_name}_{label}"))
            switch_shader(mat, SHADERS[(role, False, skinned)])
            self._preview(mat)
            self.cache[key] = mat
        return self.cache[key]

    def visual(self, texture, rvmat, material, skinned):
        """The material of a section of a visual LOD."""
        key = (texture.lower(), rvmat.lower(), skinned)
        if key in self.cache:
            return self.cache[key]
        label = os.path.splitext(os.path.basename((rvmat or texture).replace("\\", "/")))[0]
        # an untextured section is drawn in its material's colour: a colour texture
        shown = texture or colour_texture(material)
        img = self.image(shown)
        alpha = game_texture_name(shown).lower().endswith("_ca.dds") or has_alpha(img)
        normal = None if alpha else self.normal_map(material)

        def setup(mat):
            switch_shader(mat, BUMP_SHADERS[skinned] if normal else
                          SHADERS[("VISUAL", alpha, skinned)])
            find_param(mat.alamo, "BaseTexture").texture = to_blender(game_texture_name(shown))
            if normal:
                find_param(mat.alamo, "NormalTexture").texture = \
                    to_blender(game_texture_name(normal))
                if img is not None:
                    # the bump shaders take base alpha as the team colour mask: an opaque
                    # Arma texture is written with none (alpha 0) rather than tinted all over
                    img[NO_TEAM_COLOUR_KEY] = True
            _arma_fields(mat, texture, rvmat, material)

        mat = self.previews.made(to_blender(label or "p3d"),
                                 (alpha, normal is not None, skinned, img is None), setup)
        self._stage_nodes(mat, material)
        self.cache[key] = mat
        return mat

    def normal_map(self, material):
        """The .rvmat's normal map stage texture path if its file is found, else None."""
        for stage in material.stages if material is not None else ():
            if stage.path and NORMAL_MAP.search(stage.path.strip()) \
                    and self.stage_image(stage.path) is not None:
                return stage.path
        return None

    def stage_image(self, path):
        """The image of a .rvmat stage texture (normal, specular maps...), or None when not
        found (no placeholder, no warning of its own: the importer sums them up)."""
        key = path.lower()
        if key not in self.stages:
            known = self.images.get(key)
            if known is None:
                before = {img.as_pointer() for img in bpy.data.images}
                known = image_for(path, self.finder, lambda text: None)
                if known is not None and known.as_pointer() not in before:
                    self.tx.add(known)
            self.stages[key] = known
        return self.stages[key]

    def _stage_nodes(self, mat, material):
        """Image nodes (not connected; the Alamo shader has no slot for them) showing the
        .rvmat's stage textures that are files."""
        if material is None:
            return
        tree = mat.node_tree
        k = 0
        for stage in material.stages:
            if not stage.path or procedural_colour(stage.path) is not None \
                    or stage.path.lstrip().startswith("#"):
                continue
            img = self.stage_image(stage.path)
            if img is None:
                continue
            node = tree.nodes.new("ShaderNodeTexImage")
            node.name = node.label = f"Arma Stage {stage.stage_id}"
            node.location = (-1200, -300 * k)
            node.image = img
            k += 1

    def _preview(self, mat):
        self.previews.build(mat)

def colour_texture(material):
    """The procedural texture of an untextured section: the .rvmat's diffuse colour, else
    grey."""
    diffuse = material.colors.get("diffuse") if material is not None else None
    rgba = [0.5, 0.5, 0.5, 1.0] if diffuse is None else [float(c) for c in diffuse]
    rgba = [float(np.clip(c, 0.0, 1.0)) if np.isfinite(c) else 0.5 for c in rgba[:4]]
    return "#(argb,8,8,3)color({:.3f},{:.3f},{:.3f},{:.3f})".format(*rgba)


def _arma_fields(mat, texture, rvmat, material):
    mat["p3d_texture"] = to_blender(texture)
    mat["p3d_rvmat"] = to_blender(rvmat)
    if material is None:
        return
    mat["p3d_stage_textures"] = [to_blender(s.path) for s in material.stages]
    mat["p3d_surface"] = to_blender(material.surface)
    mat["p3d_pixel_shader"] = int(material.pixel_shader)
    mat["p3d_vertex_shader"] = int(material.vertex_shader)
    diffuse = material.colors.get("diffuse")
    if diffuse is not None:
        mat.diffuse_color = [float(np.clip(c, 0.0, 1.0)) for c in diffuse]
    specular = material.colors.get("specular")
    if specular is not None:
        p = find_param(mat.alamo, "Specular")
        if p is not None:
            p.float4_value = [float(np.clip(c, 0.0, 1.0)) for c in specular[:3]] + [0.0]
    power = float(material.specular_power)
    p = find_param(mat.alamo, "Shininess")
    if p is not None and np.isfinite(power) and power > 0:
        p.float_value = min(power, 256.0)
