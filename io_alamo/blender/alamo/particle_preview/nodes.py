"""How the live particles are drawn: the frame handler writes them as the points of a small
mesh object of their own (the emitter's *points object*, linked to no scene); one shared
Geometry Nodes group on the emitter object puts a 1x1 quad on each of those points (rotated
and scaled by the point's attributes) and keeps of the emitter's own mesh (the group's shape
an imported emitter shows) only its edges, which never render. One material per emitter
draws its texture's sprite element, tinted by the particle's colour, in the emitter's blend
mode. Cycles and EEVEE read the particle's attributes through the instancer, so nothing is
realised and no Python runs per particle."""

import bpy

from ... import compat

GROUP_NAME = "Alamo Particle Billboards"
GROUP_VERSION = 3
MODIFIER_NAME = "Alamo Particles"
# point attributes written by the handler (see handlers.py), read here and by the material
ROTATION = "alamo_rotation"      # FLOAT_VECTOR, XYZ Euler of the quad
SCALE = "alamo_scale"            # FLOAT_VECTOR, quad width, height, depth offset (see draw)
OFFSET = "alamo_offset"          # FLOAT_VECTOR, where the quad's centre sits from the point
COLOR = "alamo_color"            # FLOAT_COLOR, linear RGB and alpha
CELL = "alamo_cell"              # FLOAT_VECTOR, sprite element: u, v of its corner, its size
QUAD_UV = "alamo_uv"             # FLOAT2 corner attribute of the quad

# blend mode (the spec's numbers) -> how the material draws
_FAMILY = {0: "opaque", 1: "additive", 2: "alpha", 3: "modulate", 4: "additive", 5: "alpha",
           6: "modulate", 7: "alpha", 8: "modulate", 9: "modulate", 10: "alpha", 11: "alpha",
           12: "alpha", 13: "alpha"}


def family(blend_mode, heat=False):
    """'opaque', 'additive', 'alpha' or 'modulate' for the spec's blend mode (a heat
    particle is drawn as alpha, as the spec says)."""
    return "alpha" if heat else _FAMILY.get(int(blend_mode), "additive")


def _socket(tree, name, in_out, kind):
    tree.interface.new_socket(name, in_out=in_out, socket_type=kind)


def billboard_group():
    """The shared node group (made once per .blend, remade when its version changes)."""
    tree = bpy.data.node_groups.get(GROUP_NAME)
    if tree is not None and tree.get("alamo_version") == GROUP_VERSION:
        return tree
    if tree is None:
        tree = bpy.data.node_groups.new(GROUP_NAME, "GeometryNodeTree")
    tree.nodes.clear()
    tree.interface.clear()
    _socket(tree, "Geometry", "INPUT", "NodeSocketGeometry")
    _socket(tree, "Points", "INPUT", "NodeSocketObject")
    _socket(tree, "Material", "INPUT", "NodeSocketMaterial")
    _socket(tree, "Realize", "INPUT", "NodeSocketBool")
    _socket(tree, "Geometry", "OUTPUT", "NodeSocketGeometry")
    n, link = tree.nodes, tree.links.new
    given, out = n.new("NodeGroupInput"), n.new("NodeGroupOutput")
    quad = n.new("GeometryNodeMeshGrid")
    quad.inputs["Size X"].default_value = quad.inputs["Size Y"].default_value = 1.0
    quad.inputs["Vertices X"].default_value = quad.inputs["Vertices Y"].default_value = 2
    uv = n.new("GeometryNodeStoreNamedAttribute")
    uv.data_type, uv.domain = "FLOAT2", "CORNER"
    uv.inputs["Name"].default_value = QUAD_UV
    lift = n.new("GeometryNodeTransform")       # the quad sits one unit along its normal:
    lift.inputs["Translation"].default_value = (0.0, 0.0, 1.0)   # the z scale sets its depth
    link(quad.outputs["Mesh"], lift.inputs["Geometry"])
    link(lift.outputs["Geometry"], uv.inputs["Geometry"])
    link(quad.outputs["UV Map"], uv.inputs["Value"])
    points = n.new("GeometryNodeObjectInfo")
    points.transform_space = "ORIGINAL"          # the points are in the emitter's space
    link(given.outputs["Points"], points.inputs["Object"])
    place = n.new("GeometryNodeInstanceOnPoints")
    link(points.outputs["Geometry"], place.inputs["Points"])
    link(uv.outputs["Geometry"], place.inputs["Instance"])
    for name, socket in ((ROTATION, "Rotation"), (SCALE, "Scale")):
        read = n.new("GeometryNodeInputNamedAttribute")
        read.data_type = "FLOAT_VECTOR"
        read.inputs["Name"].default_value = name
        link(read.outputs["Attribute"], place.inputs[socket])
    shift = n.new("GeometryNodeTranslateInstances")
    read = n.new("GeometryNodeInputNamedAttribute")
    read.data_type = "FLOAT_VECTOR"
    read.inputs["Name"].default_value = OFFSET
    link(read.outputs["Attribute"], shift.inputs["Translation"])
    link(place.outputs["Instances"], shift.inputs["Instances"])
    paint = n.new("GeometryNodeSetMaterial")
    link(shift.outputs["Instances"], paint.inputs["Geometry"])
    link(given.outputs["Material"], paint.inputs["Material"])
    edges = n.new("GeometryNodeDeleteGeometry")       # the emitter's shape: edges only
    edges.domain, edges.mode = "FACE", "ONLY_FACE"
    link(given.outputs["Geometry"], edges.inputs["Geometry"])
    both = n.new("GeometryNodeJoinGeometry")
    link(paint.outputs["Geometry"], both.inputs["Geometry"])
    link(edges.outputs["Geometry"], both.inputs["Geometry"])
    real = n.new("GeometryNodeRealizeInstances")
    link(paint.outputs["Geometry"], real.inputs["Geometry"])
    pick = n.new("GeometryNodeSwitch")
    pick.input_type = "GEOMETRY"
    link(given.outputs["Realize"], pick.inputs["Switch"])
    link(both.outputs["Geometry"], pick.inputs["False"])
    link(real.outputs["Geometry"], pick.inputs["True"])
    link(pick.outputs["Output"], out.inputs["Geometry"])
    tree["alamo_version"] = GROUP_VERSION
    return tree


def _input_id(tree, name):
    item = tree.interface.items_tree.get(name)      # one look-up by name (in C) ...
    if item is not None and getattr(item, "in_out", None) == "INPUT":
        return item.identifier
    return next(s.identifier for s in tree.interface.items_tree     # ... or a scan
                if getattr(s, "in_out", None) == "INPUT" and s.name == name)


def ensure_modifier(obj, material, points):
    """The emitter object's Geometry Nodes modifier drawing the particles of ``points`` (its
    points object) with ``material``."""
    tree = billboard_group()
    mod = obj.modifiers.get(MODIFIER_NAME)
    if mod is None:
        mod = obj.modifiers.new(MODIFIER_NAME, "NODES")
    if mod.node_group is not tree:
        mod.node_group = tree
    mod[_input_id(tree, "Material")] = material
    mod[_input_id(tree, "Points")] = points
    return mod


def modifier_input(obj, name):
    """The value of the particle modifier's input ``name`` on ``obj``, or None."""
    mod = obj.modifiers.get(MODIFIER_NAME)
    if mod is None or mod.node_group is None:
        return None
    try:
        return mod[_input_id(mod.node_group, name)]
    except (KeyError, StopIteration):
        return None


def points_object(obj):
    """The points object the emitter object's modifier draws, or None."""
    found = modifier_input(obj, "Points")
    return found if isinstance(found, bpy.types.Object) and found.type == "MESH" else None


def set_realize(obj, realize):
    """Realise the quads into the evaluated mesh (glTF output) or keep them instances."""
    mod = obj.modifiers.get(MODIFIER_NAME)
    if mod is not None and mod.node_group is not None:
        mod[_input_id(mod.node_group, "Realize")] = bool(realize)
        obj.update_tag()


def _attribute(n, name, kind):
    node = n.new("ShaderNodeAttribute")
    node.attribute_type, node.attribute_name = kind, name
    return node


def _mix_colour(n, link, fac, a, b, blend="MIX"):
    node = n.new("ShaderNodeMix")
    node.data_type, node.blend_type = "RGBA", blend
    for socket, value in ((0, fac), (6, a), (7, b)):
        if isinstance(value, bpy.types.NodeSocket):
            link(value, node.inputs[socket])
        elif socket == 0:
            node.inputs[socket].default_value = value
        else:
            node.inputs[socket].default_value = (*value, 1.0) if len(value) == 3 else value
    return node.outputs[2]


def _multiply(n, link, a, b):
    node = n.new("ShaderNodeMath")
    node.operation = "MULTIPLY"
    link(a, node.inputs[0])
    link(b, node.inputs[1])
    return node.outputs[0]


def _sprite(n, link, image):
    """(colour, alpha) of the particle's sprite element: the image's cell, or a soft round
    spot when the texture was not found."""
    cell = _attribute(n, CELL, "INSTANCER")
    uv = _attribute(n, QUAD_UV, "GEOMETRY")
    if image is None:
        centred = n.new("ShaderNodeVectorMath")
        centred.operation = "MULTIPLY_ADD"
        link(uv.outputs["Vector"], centred.inputs[0])
        centred.inputs[1].default_value = (2.0, 2.0, 0.0)
        centred.inputs[2].default_value = (-1.0, -1.0, 0.0)
        spot = n.new("ShaderNodeTexGradient")
        spot.gradient_type = "SPHERICAL"
        link(centred.outputs[0], spot.inputs["Vector"])
        return (1.0, 1.0, 1.0), spot.outputs["Fac"]
    parts = n.new("ShaderNodeSeparateXYZ")
    link(cell.outputs["Vector"], parts.inputs[0])
    scaled = n.new("ShaderNodeVectorMath")
    scaled.operation = "MULTIPLY_ADD"
    link(uv.outputs["Vector"], scaled.inputs[0])
    size = n.new("ShaderNodeCombineXYZ")
    link(parts.outputs["Z"], size.inputs["X"])
    link(parts.outputs["Z"], size.inputs["Y"])
    link(size.outputs[0], scaled.inputs[1])
    link(cell.outputs["Vector"], scaled.inputs[2])
    tex = n.new("ShaderNodeTexImage")
    tex.image = image
    tex.extension = "CLIP"
    link(scaled.outputs[0], tex.inputs["Vector"])
    return tex.outputs["Color"], tex.outputs["Alpha"]


def build_material(mat, blend_mode, image=None, heat=False):
    """(Re)build ``mat`` to draw particles: sprite x particle colour, in the blend mode's way
    (additive: light added; alpha: over what is behind; modulate: what is behind
    multiplied; opaque: unlit)."""
    tree = compat.ensure_node_tree(mat)
    n, link = tree.nodes, tree.links.new
    n.clear()
    out = n.new("ShaderNodeOutputMaterial")
    tint = _attribute(n, COLOR, "INSTANCER")
    colour, alpha = _sprite(n, link, image)
    rgb = _mix_colour(n, link, 1.0, colour, tint.outputs["Color"], "MULTIPLY")
    if isinstance(alpha, bpy.types.NodeSocket):
        alpha = _multiply(n, link, alpha, tint.outputs["Alpha"])
    else:
        alpha = tint.outputs["Alpha"]
    kind = family(blend_mode, heat)
    see_through = n.new("ShaderNodeBsdfTransparent")
    glow = n.new("ShaderNodeEmission")
    if kind == "additive":
        lit = _mix_colour(n, link, 1.0, rgb, alpha, "MULTIPLY")
        link(lit, glow.inputs["Color"])
        both = n.new("ShaderNodeAddShader")
        link(see_through.outputs[0], both.inputs[0])
        link(glow.outputs[0], both.inputs[1])
        surface = both.outputs[0]
    elif kind == "modulate":
        link(_mix_colour(n, link, alpha, (1.0, 1.0, 1.0), rgb), see_through.inputs["Color"])
        surface = see_through.outputs[0]
    elif kind == "alpha":
        link(rgb, glow.inputs["Color"])
        over = n.new("ShaderNodeMixShader")
        link(alpha, over.inputs["Fac"])
        link(see_through.outputs[0], over.inputs[1])
        link(glow.outputs[0], over.inputs[2])
        surface = over.outputs[0]
    else:
        link(rgb, glow.inputs["Color"])
        surface = glow.outputs[0]
    link(surface, out.inputs["Surface"])
    mat.surface_render_method = "DITHERED" if kind == "opaque" else "BLENDED"
    if hasattr(mat, "use_transparent_shadow"):
        mat.use_transparent_shadow = True
    mat["alamo_particle_blend"] = kind
    return mat
