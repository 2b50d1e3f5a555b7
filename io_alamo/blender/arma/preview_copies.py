"""Material previews made once per layout: a model's sections share a few shaders, and a
preview's nodes depend only on the shader, on which of its parameters name a texture and on
whether those textures are placeholders. The first material of a layout is built node by
node; a copy of it is kept (``Material.copy`` copies its node tree at C speed), and each
later material of the layout starts as a copy of that, given its own fields, images and
values. The result is the material a build would make: the same nodes, links, values and
images (checked on the bench trucks and corpus-odol models, node by node)."""

import bpy

from ..alamo.hub import (PARAM_EDIT_HOOKS, PLACEHOLDER_KEY, find_image, param_value,
                         refresh_preview, show_images)

TEMPLATE_NAME = "p3d preview layout"
NEW_DIFFUSE = (0.8, 0.8, 0.8, 1.0)        # a new material's viewport colour


class PreviewCopies:
    """Materials with previews, copied from the first of each layout (one per import)."""

    def __init__(self, tx, folders):
        self.tx = tx
        self.folders = folders
        self.templates = {}          # layout -> (template material, image slots, signature)

    def build(self, mat, shown=None):
        """``mat``'s preview built node by node; images it makes go with the import."""
        before = {img.as_pointer() for img in bpy.data.images}
        refresh_preview(mat, self.folders, shown)
        self._track(before)

    def made(self, name, layout, setup):
        """A new material ``name`` that ``setup(mat)`` gives its shader and fields, with its
        preview: copied from the template of ``layout`` when there is one that fits."""
        hit = self.templates.get(layout)
        if hit is not None:
            mat = self._copied(name, hit, setup)
            if mat is not None:
                return mat
        mat = self.tx.add(bpy.data.materials.new(name))
        setup(mat)
        shown = []
        self.build(mat, shown)
        if layout not in self.templates:
            kept = _slots(mat, shown)
            if kept is not None:
                tmpl = self.tx.add(mat.copy())
                tmpl.name = TEMPLATE_NAME
                self.templates[layout] = (tmpl,) + kept
        return mat

    def done(self):
        """Remove the templates (the import is complete)."""
        alive = [t for t, _, _ in self.templates.values() if t.name]
        if alive:
            bpy.data.batch_remove(alive)
        self.templates.clear()

    def _copied(self, name, hit, setup):
        tmpl, slots, signature = hit
        mat = self.tx.add(tmpl.copy())
        for key in list(mat.keys()):             # the Alamo settings and the Arma fields
            del mat[key]
        mat.diffuse_color = NEW_DIFFUSE
        mat.name = name
        hooks = PARAM_EDIT_HOOKS[:]
        PARAM_EDIT_HOOKS.clear()                 # the values are applied once, at the end
        try:
            setup(mat)
        finally:
            PARAM_EDIT_HOOKS[:] = hooks
        values = _texture_params(mat)
        before = {img.as_pointer() for img in bpy.data.images}
        images = [(node, find_image(values[param], self.folders), data)
                  for node, param, data in slots]
        self._track(before)
        if _signature(mat, [img for _, img, _ in images]) != signature:
            bpy.data.materials.remove(mat)
            return None
        show_images(mat, images)
        return mat

    def _track(self, before):
        for img in bpy.data.images:
            if img.as_pointer() not in before:
                self.tx.add(img)


def _texture_params(mat):
    """{lower-case parameter name: texture name} of the parameters that name a texture (the
    last of a name, as the recipes read them)."""
    return {p.name.lower(): param_value(p) for p in mat.alamo.params if p.type == "TEXTURE"}


def _signature(mat, images):
    """What a preview's nodes depend on besides the shader's family: the parameters (which
    name a texture) and whether each image shown is missing or a placeholder."""
    params = tuple((p.name.lower(), p.type,
                    bool(param_value(p)) if p.type == "TEXTURE" else None)
                   for p in mat.alamo.params)
    return (mat.alamo.shader, params,
            tuple((img is None, bool(img is not None and img.get(PLACEHOLDER_KEY)))
                  for img in images))


def _slots(mat, shown):
    """The image nodes of a built preview as (node name, parameter, data), and its
    signature; None when a copy could differ from a build: a texture named by two
    parameters, or a Base Color the values would set (no texture drawn on it)."""
    tree = mat.node_tree
    bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None or not bsdf.inputs["Base Color"].is_linked or tree.animation_data:
        return None
    values = _texture_params(mat)
    slots = []
    for node, texture, data in shown:
        params = [k for k, v in values.items() if v == texture]
        if len(params) != 1:
            return None
        slots.append((node, params[0], data))
    return slots, _signature(mat, [tree.nodes[node].image for node, _, _ in shown])
