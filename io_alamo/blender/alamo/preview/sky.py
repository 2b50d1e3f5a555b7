"""Planet and Skydome: a base texture under scrolling clouds.

- Planet: ``surface = base + Atmosphere * pow(1 - N.V, AtmospherePower) * 2 * Atmosphere.a``
  (the rim glows in the atmosphere's colour), specular masked by the normal map's alpha, then
  ``lerp(lit, cloud, cloud.a)`` with the clouds scrolling at CloudScrollRate in u;
- Skydome: ``lerp(base, cloud, cloud.a)``, clouds scrolling at CloudScrollRate;
- both glow by ``surface * Emissive * 2`` (Emissive is added to the light)."""

from .lit import BASE, highlight, normal_map

CLOUD = "Cloud Texture"


def _clouds(r, colour, y=-250):
    """``lerp(colour, cloud, cloud.a)`` with the CloudTexture (scrolled), or ``colour``."""
    name = r.texture_name("CloudTexture")
    if not name:
        return colour
    scale = "CloudScale" if "cloudscale" in r.params else None
    uv = r.uv("Cloud Scroll", "CloudScrollRate", -7, y, scale)
    uv.node["alamo_scroll_scaled"] = scale is not None    # Skydome: (uv + t * rate) * scale
    tex = r.texture(CLOUD, name, -6, y, uv=uv)
    return r.mix(colour, tex.outputs["Color"], tex.outputs["Alpha"], "MIX", x=-1, y=150,
                 name="Clouds")


def planet(r):
    bsdf = r.principled()
    colour = (1.0, 1.0, 1.0, 1.0)
    if r.base:
        colour = r.texture(BASE, r.base, -6, 300).outputs["Color"]
    facing = r.node("ShaderNodeLayerWeight", "Facing", -5, 0)
    rim = r.math("POWER", facing.outputs["Facing"], r.value("Atmosphere Power", -5, -150),
                 x=-4, y=0)
    rim = r.math("MULTIPLY", rim, r.value("Atmosphere Strength", -4, -150), x=-3, y=0)
    glow = r.mix((0.0, 0.0, 0.0, 1.0), r.rgb("Atmosphere", -3, -150), rim, "MIX", x=-2, y=0)
    colour = r.mix(colour, glow, 1.0, "ADD", x=-2, y=300)
    surface = _clouds(r, colour)
    r.link(surface, bsdf.inputs["Base Color"])
    _glow(r, bsdf, surface)
    normal = normal_map(r, bsdf)
    highlight(r, bsdf, normal.outputs["Alpha"] if normal is not None else None,
              r.normal_vector)
    return bsdf


def skydome(r):
    bsdf = r.principled()
    colour = (1.0, 1.0, 1.0, 1.0)
    if r.base:
        colour = r.texture(BASE, r.base, -6, 300).outputs["Color"]
    surface = _clouds(r, colour)
    r.link(surface, bsdf.inputs["Base Color"])
    _glow(r, bsdf, surface)
    return bsdf


def _glow(r, bsdf, surface):
    """Emissive x 2 lights the surface colour (the game adds it to the light)."""
    glow = r.from_game(r.rgb("Emissive", -3, -1100), x=-2, y=-1100)
    r.link(r.mix(surface, glow, 1.0, "MULTIPLY", x=-1, y=-1100, name="Glow"),
           bsdf.inputs["Emission Color"])
