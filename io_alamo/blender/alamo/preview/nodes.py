"""Node building blocks of the preview recipes: every node a recipe makes is named
``Alamo ...`` so a rebuild finds and replaces exactly those (the base texture and normal map
nodes are kept and reused; nodes a user added are left alone)."""

import bpy

from ....formats.alamo import shaders
from ....formats.alamo.model import ParamType
from ... import compat

PREFIX = "Alamo "
BASE_NODE = "Alamo Base Texture"
NORMAL_NODE = "Alamo Normal Texture"
KEPT = (BASE_NODE, NORMAL_NODE)
# the scene-wide team colour (props.AlamoTeam on Scene.alamo_team), read by each colorize
# material through View Layer attributes: no Python runs when it changes, and a file opened
# without the add-on shows the material's own Colorization
TEAM_OVERRIDE_ATTRIBUTE = "alamo_team.override"
TEAM_COLOUR_ATTRIBUTE = "alamo_team.color"
COLUMN = 220
# on the magenta image shown for a texture that was not found: it stays magenta (no team
# colour on it), so a missing texture is never mistaken for a team-coloured part
PLACEHOLDER_KEY = "alamo_placeholder"
# the sRGB curve's power branch at 0: (0.055 / 1.055) ** 2.4
TOE = (0.055 / 1.055) ** 2.4


class Recipe:
    """One material's node tree while a recipe builds it: named nodes, links, and the
    textures its parameters name (``image(name)`` resolves a texture name to an image)."""

    def __init__(self, mat, params, image, base=None, normal=None):
        self.mat = mat
        self.shader = mat.alamo.shader or ""
        self.blend = shaders.blend_mode(self.shader)
        self.tree = compat.ensure_node_tree(mat)
        self.nodes = self.tree.nodes
        self.params = {p.name.lower(): p for p in params}
        self.base, self.normal = base, normal     # texture names of the base and normal map
        self.normal_vector = None                 # the normal map's output, once made
        self._image = image
        self.used = set()
        self.shown = []             # (node name, texture name, data) of each image node

    # --- the tree ------------------------------------------------------------------------
    def clear(self):
        """Remove the nodes (and drivers) of an earlier recipe; keep the texture nodes, and
        unlink them so the new recipe wires them its own way."""
        ad = self.tree.animation_data
        if ad is not None:
            for fc in list(ad.drivers):
                if fc.data_path.startswith(f'nodes["{PREFIX}'):
                    ad.drivers.remove(fc)
        for node in list(self.nodes):
            if node.name.startswith(PREFIX) and node.name not in KEPT:
                self.nodes.remove(node)
        for name in KEPT:
            node = self.nodes.get(name)
            if node is not None:
                for out in node.outputs:
                    for link in list(out.links):
                        if link.to_node.type == "NORMAL_MAP" and \
                                not link.to_node.name.startswith(PREFIX):
                            self.nodes.remove(link.to_node)     # made by an older version
                        else:
                            self.tree.links.remove(link)

    def finish(self):
        """Remove the kept texture nodes the new recipe did not use."""
        for name in KEPT:
            node = self.nodes.get(name)
            if node is not None and name not in self.used:
                self.nodes.remove(node)

    def output(self, socket):
        out = next((n for n in self.nodes if n.type == "OUTPUT_MATERIAL"), None) or \
            self.nodes.new("ShaderNodeOutputMaterial")
        self.link(socket, out.inputs["Surface"])
        return out

    def principled(self):
        """The material's Principled BSDF (reused, or added), reset to a plain surface and
        connected to the output. Its own specular is off: the game's highlight is added on
        top (lit.highlight), so a Diffuse Color bake gives exactly the Base Color."""
        bsdf = next((n for n in self.nodes if n.type == "BSDF_PRINCIPLED"), None)
        if bsdf is None:
            bsdf = self.nodes.new("ShaderNodeBsdfPrincipled")
        for name, value in (("Alpha", 1.0), ("Emission Strength", 1.0),
                            ("Emission Color", (0.0, 0.0, 0.0, 1.0)), ("Metallic", 0.0),
                            ("Roughness", 0.5), ("Specular IOR Level", 0.0)):
            sock = bsdf.inputs[name]
            for link in list(sock.links):
                self.tree.links.remove(link)
            sock.default_value = value
        self.output(bsdf.outputs["BSDF"])
        return bsdf

    def node(self, kind, name, x, y=0.0, label=None):
        node = self.nodes.new(kind)
        node.name = PREFIX + name
        node.label = label or name
        _place(node, x, y)
        return node

    def link(self, a, b):
        """Connect output ``a`` to input ``b``; a plain value becomes ``b``'s value."""
        self._set(b, a)

    # --- values --------------------------------------------------------------------------
    def rgb(self, name, x, y=0.0):
        """An RGB node the parameter values fill in (:mod:`.values`)."""
        return self.node("ShaderNodeRGB", name, x, y).outputs[0]

    def value(self, name, x, y=0.0):
        return self.node("ShaderNodeValue", name, x, y).outputs[0]

    def mix(self, a, b, fac=1.0, blend="MULTIPLY", x=0, y=0.0, name=None):
        """Colour mix ``blend(a, b)`` by ``fac`` (MULTIPLY: ``lerp(a, a*b, fac)``)."""
        node = self.node("ShaderNodeMix", name or f"Mix {len(self.nodes)}", x, y, label=blend)
        node.data_type = "RGBA"
        node.blend_type = blend
        self._set(_sock(node.inputs, "Factor_Float", 0), fac)
        self._set(_sock(node.inputs, "A_Color", 6), a)
        self._set(_sock(node.inputs, "B_Color", 7), b)
        return _sock(node.outputs, "Result_Color", 2)

    def math(self, op, a, b=0.0, x=0, y=0.0):
        node = self.node("ShaderNodeMath", f"Math {len(self.nodes)}", x, y, label=op)
        node.operation = op
        self._set(node.inputs[0], a)
        self._set(node.inputs[1], b)
        return node.outputs[0]

    def vector_math(self, op, a, b, c=None, x=0, y=0.0):
        node = self.node("ShaderNodeVectorMath", f"Vector {len(self.nodes)}", x, y, label=op)
        node.operation = op
        for sock, value in zip(node.inputs, (a, b, c)):
            if value is not None:
                self._set(sock, value)
        return node.outputs[0]

    def power(self, colour, exponent, x=0, y=0.0):
        node = self.node("ShaderNodeGamma", f"Power {len(self.nodes)}", x, y, label="Power")
        self._set(node.inputs["Color"], colour)
        node.inputs["Gamma"].default_value = exponent
        return node.outputs[0]

    def to_game(self, colour, x=0, y=0.0):
        """Blender's linear colour to the sRGB numbers the game's shader multiplies: the sRGB
        curve ``1.055 * c ** (1 / 2.4) - 0.055``, its foot moved so 0 stays 0 (the curve's
        linear toe below 0.0031 is left out: at most 1/255 off, only where a dark texel is
        multiplied by a colour other than white)."""
        lifted = self.vector_math("MULTIPLY_ADD", colour, (1 - TOE,) * 3, (TOE,) * 3, x=x, y=y)
        encoded = self.vector_math("MULTIPLY_ADD", self.power(lifted, 1 / 2.4, x + 0.25, y),
                                   (1.055,) * 3, (-0.055,) * 3, x=x + 0.5, y=y)
        return self.vector_math("MAXIMUM", encoded, (0.0,) * 3, x=x + 0.75, y=y)

    def from_game(self, colour, x=0, y=0.0):
        """sRGB numbers back to linear colour (the inverse of :meth:`to_game`)."""
        shifted = self.vector_math("MULTIPLY_ADD", colour, (1 / 1.055,) * 3,
                                   (0.055 / 1.055,) * 3, x=x, y=y)
        lin = self.power(shifted, 2.4, x + 0.25, y)
        return self.vector_math("MULTIPLY_ADD", lin, (1 / (1 - TOE),) * 3,
                                (-TOE / (1 - TOE),) * 3, x=x + 0.5, y=y)

    def tinted(self, texel, tint, x=0, y=0.0, name=None):
        """``texel * tint`` as the game computes it: the texel (a linear image colour) in
        sRGB numbers times ``tint`` (sRGB numbers), made linear again. Exact where a
        product of linear colours is not (dark and mid colours)."""
        raw = self.mix(self.to_game(texel, x - 2, y), tint, 1.0, "MULTIPLY", x=x - 0.5, y=y,
                       name=name)
        return self.from_game(raw, x, y)

    def _set(self, sock, value):
        if isinstance(value, bpy.types.NodeSocket):
            self.tree.links.new(value, sock)
        elif not _holds(sock.default_value, value):
            sock.default_value = value

    def team_colour(self, x, y=0.0):
        """The colour the engine puts in ``Colorization``: the material's own, or the
        scene-wide team colour when its override is on."""
        own = self.rgb("Colorization", x - 1, y)
        override = self.node("ShaderNodeAttribute", "Team Override", x - 1, y - 200)
        override.attribute_type = "VIEW_LAYER"
        override.attribute_name = TEAM_OVERRIDE_ATTRIBUTE
        colour = self.node("ShaderNodeAttribute", "Team Colour", x - 1, y - 380)
        colour.attribute_type = "VIEW_LAYER"
        colour.attribute_name = TEAM_COLOUR_ATTRIBUTE
        return self.mix(own, colour.outputs["Color"], override.outputs["Fac"], "MIX", x, y,
                        name="Team")

    # --- textures ------------------------------------------------------------------------
    def texture_name(self, *names):
        """The texture the first of the parameters ``names`` that has one names, or None."""
        for n in names:
            p = self.params.get(n.lower())
            if p is not None and p.type == ParamType.TEXTURE and p.value:
                return p.value
        return None

    def texture(self, name, texture, x, y=0.0, uv=None, data=False):
        """An image node showing ``texture`` (a texture name): the kept base/normal nodes or
        a recipe node ``Alamo <name>``. Alpha is read as data (channel-packed)."""
        node_name = PREFIX + name
        node = self.nodes.get(node_name)
        if node is None:
            node = self.node("ShaderNodeTexImage", name, x, y)
        _place(node, x, y)
        self.used.add(node_name)
        self.shown.append((node_name, texture, data))
        show(node, self._image(texture), data)
        if uv is not None:
            self.link(uv, node.inputs["Vector"])
        return node

    def uv(self, name, rate_param, x, y=0.0, scale_param=None):
        """UV coordinates scrolled with the frame: a Mapping node whose location a driver moves
        by ``rate * seconds`` (values.py writes the rate into the driver); ``scale_param``
        scales them."""
        coords = self.node("ShaderNodeUVMap", f"{name} Map", x - 1, y)
        mapping = self.node("ShaderNodeMapping", name, x, y, label=rate_param)
        mapping["alamo_rate"] = rate_param
        if scale_param:
            mapping["alamo_scale"] = scale_param
        self.link(coords.outputs["UV"], mapping.inputs["Vector"])
        path = f'nodes["{mapping.name}"].inputs[1].default_value'
        for axis in (0, 1):
            fc = self.tree.driver_add(path, axis)
            fc.driver.type = "SCRIPTED"
            fc.driver.expression = "0.0"
        return mapping.outputs["Vector"]


def show(node, image, data):
    """Image node ``node`` shows ``image``; alpha is read as data (channel-packed), and
    ``data`` images (normal maps...) are Non-Color."""
    if node.image != image:
        node.image = image
    if image is not None and image.source in ("FILE", "TILED") and data \
            and image.colorspace_settings.name != "Non-Color":
        image.colorspace_settings.name = "Non-Color"
    if image is not None and not data and image.alpha_mode != "CHANNEL_PACKED":
        image.alpha_mode = "CHANNEL_PACKED"          # (setting it reloads the image)


def _holds(old, value):
    """Whether a socket's value already is ``value`` exactly (writing a socket's or a node's
    location costs far more than reading it: each write tags the trees for an update)."""
    try:
        return tuple(old) == tuple(value)
    except TypeError:
        return old == value


def _place(node, x, y):
    loc = (x * COLUMN, y)
    if tuple(node.location) != loc:
        node.location = loc


def _sock(sockets, identifier, index):
    for s in sockets:
        if s.identifier == identifier:
            return s
    return sockets[index]
