"""Lit recipes ("2x diffuse + spec" in the game): a Principled BSDF whose Base Color is the
shader's surface colour, so a Diffuse Color bake gives what the game multiplies by its light.

- colorize: ``surface = lerp(base.rgb, Colorization * base.rgb, base.a)`` (base alpha is the
  team-colour mask), times Diffuse; bump variants take the specular mask from the normal map's
  alpha, gloss variants from the GlossTexture's red;
- gloss: specular masked by the base alpha; alpha: ``rgb * Diffuse``, blended by
  ``base.a * Diffuse.a``; terrain: specular by the normal map's alpha (else the base alpha);
- Emissive glows through the texture (surface x Emissive x 2); the highlight is a Glossy BSDF added on top (the game's
  ``diffuse + spec``), coloured by Specular, its roughness from Shininess."""

from .nodes import BASE_NODE, NORMAL_NODE, PLACEHOLDER_KEY, PREFIX

WHITE = (1.0, 1.0, 1.0, 1.0)
BASE = BASE_NODE[len(PREFIX):]
NORMAL = NORMAL_NODE[len(PREFIX):]


def surface(r, bsdf, colorize, alpha=None):
    """Base Color = base texture x lerp(1, team colour, base.a) x Diffuse, multiplied as the
    game does (in sRGB numbers); Emission = the same surface x Emissive x 2 (the game adds
    Emissive to the light that multiplies the texture). Returns the base texture node or
    None."""
    if not r.base:
        r.link(r.from_game(r.rgb("Emissive", -2, -1100), x=-1, y=-1100),
               bsdf.inputs["Emission Color"])
        return None
    tex = r.texture(BASE, r.base, -6, 300)
    texel = r.to_game(tex.outputs["Color"], -5, 450)
    tint, glow = r.rgb("Diffuse", -4, 100), r.rgb("Emissive", -4, -1100)
    if colorize and not (tex.image is not None and tex.image.get(PLACEHOLDER_KEY)):
        team = r.team_colour(-4, -150)
        mask = r.mix(WHITE, team, tex.outputs["Alpha"], "MULTIPLY", x=-3, y=0)
        tint = r.mix(mask, tint, 1.0, "MULTIPLY", x=-2, y=100)
        glow = r.mix(mask, glow, 1.0, "MULTIPLY", x=-2, y=-1100)
    colour = r.mix(texel, tint, 1.0, "MULTIPLY", x=-2, y=300, name="Surface")
    r.link(r.from_game(colour, x=-1, y=300), bsdf.inputs["Base Color"])
    glow = r.mix(texel, glow, 1.0, "MULTIPLY", x=-2, y=-900, name="Glow")
    r.link(r.from_game(glow, x=-1, y=-900), bsdf.inputs["Emission Color"])
    if alpha == "alpha":
        r.link(r.math("MULTIPLY", tex.outputs["Alpha"], r.value("Diffuse Alpha", -2, -300),
                      x=-1, y=-250), bsdf.inputs["Alpha"])
    elif alpha == "clip":
        r.link(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
    return tex


def normal_map(r, bsdf):
    if not r.normal:
        return None
    tex = r.texture(NORMAL, r.normal, -6, -500, data=True)
    nmap = r.node("ShaderNodeNormalMap", "Normal Map", -1, -500)
    r.link(tex.outputs["Color"], nmap.inputs["Color"])
    r.link(nmap.outputs["Normal"], bsdf.inputs["Normal"])
    r.normal_vector = nmap.outputs["Normal"]
    return tex


def highlight(r, bsdf, mask, normal=None):
    """The game's ``diffuse + spec``: a Glossy BSDF added to the surface, coloured by
    Specular x ``mask`` (a socket, or None for no mask), its roughness from Shininess."""
    colour = r.rgb("Specular", -2, -700)
    if mask is not None:
        colour = r.mix((0.0, 0.0, 0.0, 1.0), colour, mask, "MIX", x=-1, y=-700,
                       name="Specular Mask")
    glossy = r.node("ShaderNodeBsdfAnisotropic", "Highlight", 0, -700)
    r.link(colour, glossy.inputs["Color"])
    r.link(r.value("Roughness", -2, -950), glossy.inputs["Roughness"])
    if normal is not None:
        r.link(normal, glossy.inputs["Normal"])
    add = r.node("ShaderNodeAddShader", "Diffuse + Spec", 1, -300)
    r.link(bsdf.outputs["BSDF"], add.inputs[0])
    r.link(glossy.outputs["BSDF"], add.inputs[1])
    r.output(add.outputs[0])


def gloss_red(r):
    name = r.texture_name("GlossTexture")
    if not name:
        return None
    tex = r.texture("Gloss Texture", name, -6, -250, data=True)
    sep = r.node("ShaderNodeSeparateColor", "Gloss Red", -4, -250)
    r.link(tex.outputs["Color"], sep.inputs["Color"])
    return sep.outputs[0]


def lit(r, colorize=False, spec=None, alpha=None):
    bsdf = r.principled()
    base = surface(r, bsdf, colorize, alpha)
    normal = normal_map(r, bsdf)
    mask = None
    if spec == "base" and base is not None:
        mask = base.outputs["Alpha"]
    elif spec == "normal":
        mask = normal.outputs["Alpha"] if normal is not None else \
            (base.outputs["Alpha"] if base is not None and alpha is None else None)
    elif spec == "gloss":
        mask = gloss_red(r)
    highlight(r, bsdf, mask, r.normal_vector)
    return bsdf


def bump_colorize(r):
    return lit(r, colorize=True, spec="normal")


def gloss_colorize(r):
    return lit(r, colorize=True, spec="gloss")


def gloss(r):
    return lit(r, spec="base")


def alpha(r):
    return lit(r, spec="gloss" if r.texture_name("GlossTexture") else None, alpha="alpha")


def terrain(r):
    return lit(r, spec="normal", alpha=r.blend if r.blend == "clip" else None)


def plain(r):
    return lit(r)


def hidden(r):
    """Shadow volumes, collision and debug meshes (hidden in the viewport anyway): their
    colour parameter (DebugColor, Color) as a plain surface."""
    return lit(r)
