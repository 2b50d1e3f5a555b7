"""Recipes that add light: ``texel * colour`` blended ONE/ONE in the game. In Blender an
Emission added to a fully Transparent BSDF: black is invisible, nothing behind is hidden, and
an Emit bake gives ``texel * colour``
(the Transparent BSDF lets 99.9% through: Cycles bakes nothing of a wholly transparent
surface). UVScrollRate scrolls the texture with the frame."""

from .lit import BASE, WHITE

# what passes through: all but a thousandth (invisible), as Cycles bakes nothing of a surface
# that is wholly transparent, so an Emit bake would lose the glow
CLEAR = (0.999, 0.999, 0.999, 1.0)


def _glow(r, colour):
    """Transparent + Emission(``colour``) into the output."""
    emission = r.node("ShaderNodeEmission", "Emission", 0, 200)
    emission.inputs["Strength"].default_value = 1.0
    r.link(colour, emission.inputs["Color"])
    clear = r.node("ShaderNodeBsdfTransparent", "Transparent", 0, -50)
    clear.inputs["Color"].default_value = CLEAR
    add = r.node("ShaderNodeAddShader", "Add", 1, 100)
    r.link(clear.outputs[0], add.inputs[0])
    r.link(emission.outputs[0], add.inputs[1])
    r.output(add.outputs[0])


def _scrolled_base(r, rate, scale=None, name=BASE, texture=None, y=300):
    uv = r.uv(f"{name} Scroll", rate, -7, y, scale) if rate.lower() in r.params else None
    return r.texture(name, texture or r.base, -6, y, uv=uv)


def additive(r):
    colour = r.rgb("Color", -3, 0) if "color" in r.params else WHITE
    if r.base:
        tex = _scrolled_base(r, "UVScrollRate")
        colour = r.tinted(tex.outputs["Color"], colour, x=-1, y=200)
    elif colour is not WHITE:
        colour = r.from_game(colour, x=-1, y=200)
    if "vcolor" in r.shader.lower():
        vc = r.node("ShaderNodeVertexColor", "Vertex Colour", -3, -200)
        colour = r.mix(colour, vc.outputs["Color"], 1.0, "MULTIPLY", x=-1, y=100)
    _glow(r, colour)


def nebula(r):
    """Additive, tinted by the vertex colour, scrolling three times UVScrollRate."""
    colour = WHITE
    if r.base:
        tex = _scrolled_base(r, "UVScrollRate")
        colour = tex.outputs["Color"]
    vc = r.node("ShaderNodeVertexColor", "Vertex Colour", -3, -200)
    _glow(r, r.mix(colour, vc.outputs["Color"], 1.0, "MULTIPLY", x=-1, y=100))


def shield(r):
    """``base * wave * Color``, brighter where the surface faces the viewer
    (``saturate(N.V + EdgeBrightness)``); each texture with its own scale and scroll."""
    colour = r.rgb("Color", -3, 0)
    if r.base:
        tex = _scrolled_base(r, "BaseUVScrollRate", "BaseUVScale")
        colour = r.tinted(tex.outputs["Color"], colour, x=-1, y=200)
    else:
        colour = r.from_game(colour, x=-1, y=200)
    wave = r.texture_name("WaveTexture")
    if wave:
        tex = _scrolled_base(r, "WaveUVScrollRate", "WaveUVScale", "Wave Texture", wave, -300)
        colour = r.mix(colour, tex.outputs["Color"], 1.0, "MULTIPLY", x=-1, y=100)
    facing = r.node("ShaderNodeLayerWeight", "Facing", -3, -600)
    front = r.math("SUBTRACT", 1.0, facing.outputs["Facing"], x=-2, y=-600)
    edge = r.math("ADD", front, r.value("Edge Brightness", -3, -750), x=-1, y=-600)
    edge.node.use_clamp = True
    _glow(r, _scaled(r, colour, edge))


def _scaled(r, colour, factor):
    """``colour * factor`` (factor a float socket)."""
    return r.mix((0.0, 0.0, 0.0, 1.0), colour, factor, "MIX", x=0, y=400)


def heat(r):
    """Heat haze only bends what is behind it: nothing to draw."""
    clear = r.node("ShaderNodeBsdfTransparent", "Transparent", 0, 0)
    r.output(clear.outputs[0])
