"""Material previews that draw what the game's shaders draw: one recipe per shader family
(the shader catalogue's ``family``), built from Blender nodes that work in EEVEE and Cycles.

The recipes follow the formulas of Petroglyph's HLSL sources (see each module). Parameter
values live in named value nodes (:mod:`.values`): an edit changes node values only. The team
colour comes from the material's Colorization or, when the scene's override is on, from the
scene's team colour, read by View Layer attribute nodes (nothing is written into the file)."""

from ....formats.alamo import shaders
from .. import props
from . import glow, lit, sky, values
from .nodes import BASE_NODE, NORMAL_NODE, PLACEHOLDER_KEY, Recipe, show

RECIPES = {
    "plain": lit.plain, "gloss": lit.gloss, "bump-colorize": lit.bump_colorize,
    "gloss-colorize": lit.gloss_colorize, "alpha": lit.alpha, "terrain": lit.terrain,
    "hidden": lit.hidden, "additive": glow.additive, "shield": glow.shield,
    "nebula": glow.nebula, "heat": glow.heat, "planet": sky.planet, "skydome": sky.skydome,
}
# families drawn over what is behind them (EEVEE sorts and blends them)
BLENDED = {"alpha", "additive", "shield", "nebula", "heat"}

__all__ = [
    "BASE_NODE",
    "NORMAL_NODE",
    "PLACEHOLDER_KEY",
    "RECIPES",
    "build",
    "follow_param_edit",
    "show_images",
]


def build(mat, params, image, base=None, normal=None, shown=None):
    """(Re)build the preview nodes of ``mat`` for its shader: ``params`` are its parameters
    (ShaderParam), ``image(texture name)`` gives the image to show, ``base``/``normal`` name
    the base texture and normal map; ``shown`` (a list) receives (node name, texture name,
    data) of each image node made. Returns the family drawn."""
    family = shaders.family(mat.alamo.shader)
    r = Recipe(mat, params, image, base, normal)
    r.clear()
    RECIPES[family](r)
    r.finish()
    if shown is not None:
        shown.extend(r.shown)
    blended = family in BLENDED or (family == "plain" and r.blend in ("alpha", "additive"))
    mat.surface_render_method = "BLENDED" if blended else "DITHERED"
    if hasattr(mat, "use_transparent_shadow"):
        mat.use_transparent_shadow = blended
    values.apply(mat)
    return family


def show_images(mat, images):
    """The preview of ``mat``, a copy of a material :func:`build` made whose copy's nodes
    are kept: each image node ``(node name, image, data)`` of ``images`` shows its image,
    and the value nodes take ``mat``'s parameter values (the nodes a build of ``mat`` makes
    when its shader and the parameters that name a texture are the copied material's)."""
    nodes = mat.node_tree.nodes
    for name, image, data in images:
        show(nodes[name], image, data)
    values.apply(mat)


def follow_param_edit(param):
    """A parameter value changed (props.py calls this from the property's update): the
    preview nodes take the new values. Cheap: no node is made or removed."""
    mat = param.id_data
    if getattr(mat, "node_tree", None) is not None and \
            any(n.name.startswith("Alamo ") for n in mat.node_tree.nodes):
        values.apply(mat)


if follow_param_edit not in props.PARAM_EDIT_HOOKS:
    props.PARAM_EDIT_HOOKS.append(follow_param_edit)
