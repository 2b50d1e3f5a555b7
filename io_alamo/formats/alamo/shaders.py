"""The shader catalogue (``io_alamo/data/shaders.json``): the one place that knows shader
names, their parameters (types, defaults) and vertex formats. Blender-free."""

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CATALOGUE = Path(__file__).with_name("data") / "shaders.json"
PARAM_TYPES = ("INT", "FLOAT", "FLOAT3", "FLOAT4", "TEXTURE")
BLEND_MODES = ("alpha", "additive", "clip")
# the preview recipes (io_alamo/blender/alamo/preview): which one draws a shader is its
# catalogue entry's "family"
FAMILIES = ("plain", "gloss", "bump-colorize", "gloss-colorize", "alpha", "additive", "shield",
            "nebula", "planet", "skydome", "terrain", "heat", "hidden")


@dataclass(frozen=True)
class ShaderParamSpec:
    name: str
    type: str
    default: object


@dataclass(frozen=True)
class ShaderSpec:
    name: str
    vertex_format: str
    kind: str                 # mesh, skin, shadow, collision, ...
    description: str
    params: tuple
    skinned: str = None       # the counterpart for skinned meshes
    blend: str = None         # alpha, additive, clip (alpha-tested); None: opaque
    family: str = "plain"     # the preview recipe that draws it (FAMILIES)


def _key(name):
    name = name.strip().lower()
    return name if name.endswith(".fx") else name + ".fx"


@lru_cache(maxsize=1)
def catalogue():
    """{lower-case name: ShaderSpec}, loaded once."""
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    out = {}
    for s in data["shaders"]:
        params = tuple(ShaderParamSpec(p["name"], p["type"], p["default"]) for p in s["params"])
        for p in params:
            if p.type not in PARAM_TYPES:
                raise ValueError(f"shader catalogue: {s['name']}: unknown type {p.type}")
        if s.get("blend") not in BLEND_MODES + (None,):
            raise ValueError(f"shader catalogue: {s['name']}: unknown blend {s['blend']}")
        if s.get("family", "plain") not in FAMILIES:
            raise ValueError(f"shader catalogue: {s['name']}: unknown family {s['family']}")
        out[_key(s["name"])] = ShaderSpec(s["name"], s["vertex_format"], s.get("kind", "mesh"),
                                          s.get("description", ""), params, s.get("skinned"),
                                          s.get("blend"), s.get("family", "plain"))
    return out


def find(name):
    """The catalogue entry for a shader name (case-insensitive, .fx optional), or None."""
    return catalogue().get(_key(name)) if name else None


def names():
    return sorted((s.name for s in catalogue().values()), key=str.lower)


def is_shadow(name):
    spec = find(name)
    if spec is not None:
        return spec.kind == "shadow"
    return "shadowvolume" in (name or "").lower()


def blend_mode(name):
    """How the shader uses texture alpha: 'alpha', 'additive', 'clip', or None for opaque
    shaders, whose alpha is data (gloss, team-colour masks). Unknown shaders are judged by
    their name."""
    spec = find(name)
    if spec is not None:
        return spec.blend
    lower = (name or "").lower()
    return next((mode for mode in BLEND_MODES if mode in lower), None)


def family(name):
    """The preview recipe that draws the shader (see FAMILIES). Shaders the catalogue does not
    know (a mod's own .fx) are judged by their name, as the game's own names follow the
    families."""
    spec = find(name)
    if spec is not None:
        return spec.family
    lower = (name or "").lower()
    for word, fam in (("colorize", "bump-colorize"), ("additive", "additive"),
                      ("alpha", "alpha"), ("shadow", "hidden"), ("collision", "hidden"),
                      ("gloss", "gloss"), ("shield", "shield"), ("planet", "planet")):
        if word in lower:
            return "gloss-colorize" if fam == "bump-colorize" and "gloss" in lower else fam
    return "plain"


def vertex_format(name, skinned=False):
    """The vertex format a new sub-mesh with this shader gets (None for unknown shaders)."""
    spec = find(name)
    if spec is None:
        return None
    if skinned and spec.skinned and find(spec.skinned):
        return find(spec.skinned).vertex_format
    return spec.vertex_format
