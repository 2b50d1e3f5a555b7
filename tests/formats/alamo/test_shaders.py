"""The shader catalogue (io_alamo/data/shaders.json): well-formed, complete, and in agreement
with what real files say about each shader they use."""

import json
import numbers
from pathlib import Path

import pytest

from io_alamo.formats.alamo import shaders

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"

# named in the issue that asked for the catalogue, plus the whole RSkin family with counterparts
REQUIRED = (
    "MeshBumpColorize", "MeshAdditive", "MeshAlpha", "MeshGloss", "MeshShadowVolume",
    "MeshCollision", "alDefault", "Planet", "Nebula", "Skydome", "MeshShield", "Grass", "Tree",
    "RSkinBumpColorize", "RSkinAdditive", "RSkinAlpha", "RSkinGloss", "RSkinGlossColorize",
    "RSkinShadowVolume",
)
SKINNED_FORMATS = ("alD3dVertRSkin", "alD3dVertB4I4")


def _raw():
    return json.loads(shaders.CATALOGUE.read_text(encoding="utf-8"))


def _is_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _default_fits(type_, value):
    if type_ == "INT":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_ == "FLOAT":
        return _is_number(value)
    if type_ in ("FLOAT3", "FLOAT4"):
        n = 3 if type_ == "FLOAT3" else 4
        return isinstance(value, list) and len(value) == n and all(map(_is_number, value))
    if type_ == "TEXTURE":
        return isinstance(value, str)
    return False


def test_catalogue_loads_with_the_expected_schema():
    data = _raw()
    assert set(data) == {"version", "note", "shaders"}
    assert data["shaders"]
    for s in data["shaders"]:
        assert {"name", "vertex_format", "kind", "family", "description", "params",
                "source"} <= set(s), s
        assert set(s) <= {"name", "vertex_format", "kind", "family", "description", "params",
                          "source", "skinned", "blend"}, s["name"]
        assert s.get("blend", "alpha") in shaders.BLEND_MODES, s["name"]
        assert s["family"] in shaders.FAMILIES, s["name"]
        assert s["name"].endswith(".fx") and s["description"] and s["source"] and s["kind"]
    assert len(shaders.catalogue()) == len(data["shaders"])


def test_names_are_unique_ignoring_case():
    names = [s["name"].lower() for s in _raw()["shaders"]]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_every_parameter_has_a_known_type_and_a_default_of_that_shape():
    bad = []
    for spec in shaders.catalogue().values():
        seen = set()
        for p in spec.params:
            if p.type not in shaders.PARAM_TYPES or not _default_fits(p.type, p.default):
                bad.append(f"{spec.name}: {p.name} {p.type} = {p.default!r}")
            if p.name in seen:
                bad.append(f"{spec.name}: {p.name} twice")
            seen.add(p.name)
    assert not bad, "\n".join(bad)


def test_every_vertex_format_is_an_alamo_vertex_format():
    for spec in shaders.catalogue().values():
        assert spec.vertex_format.startswith("alD3dVert"), spec.name


def test_skinned_counterparts_exist_and_read_skinned_vertices():
    for spec in shaders.catalogue().values():
        if spec.skinned is None:
            continue
        other = shaders.find(spec.skinned)
        assert other is not None, f"{spec.name}: counterpart {spec.skinned} is not in the catalogue"
        assert other.vertex_format.startswith(SKINNED_FORMATS), (spec.name, other.vertex_format)
        assert not spec.vertex_format.startswith(SKINNED_FORMATS), spec.name
        assert shaders.vertex_format(spec.name, skinned=True) == other.vertex_format


def test_the_shaders_the_issue_names_are_all_there():
    missing = [n for n in REQUIRED if shaders.find(n) is None]
    assert not missing


def test_lookup_ignores_case_and_the_fx_suffix():
    assert shaders.find("meshbumpcolorize") is shaders.find("MeshBumpColorize.FX")
    assert shaders.is_shadow("RSkinShadowVolume.fx") and not shaders.is_shadow("Planet.fx")


def _params_agree(file_params, spec_params):
    """The file lists the catalogue's parameters in the catalogue's order. A texture the
    material left empty may be missing (the 3ds Max exporter writes only assigned textures);
    nothing else may be missing or extra."""
    i = 0
    for name, type_ in file_params:
        while i < len(spec_params) and spec_params[i] != (name, type_):
            if spec_params[i][1] != "TEXTURE":
                return False
            i += 1
        if i == len(spec_params):
            return False
        i += 1
    return all(t == "TEXTURE" for _, t in spec_params[i:])


def test_every_shader_in_the_real_files_matches_the_catalogue():
    if not CORPUS.is_dir():
        pytest.skip(f"no shared corpus at {CORPUS}: real-file check skipped")
    from io_alamo.formats.alamo import load

    problems, checked = [], 0
    for path in sorted(p for p in CORPUS.iterdir() if p.suffix.lower() == ".alo"):
        model = load(str(path))
        if getattr(model, "kind", None) == "particle":
            continue
        for mesh in model.meshes:
            for k, sub in enumerate(mesh.submeshes):
                where = f"{path.name} {mesh.name}[{k}] {sub.material.shader}"
                spec = shaders.find(sub.material.shader)
                if spec is None:
                    problems.append(f"{where}: not in the catalogue")
                    continue
                checked += 1
                if sub.vertex_format != spec.vertex_format:
                    problems.append(f"{where}: file {sub.vertex_format}, "
                                    f"catalogue {spec.vertex_format}")
                got = [(p.name, p.type.name) for p in sub.material.params]
                want = [(p.name, p.type) for p in spec.params]
                if not _params_agree(got, want):
                    problems.append(f"{where}: file {got}, catalogue {want}")
    assert checked, "no model sub-meshes in the corpus"
    assert not problems, "\n".join(problems)


def test_params_agree_allows_only_missing_textures():
    want = [("Emissive", "FLOAT4"), ("BaseTexture", "TEXTURE"), ("GlossTexture", "TEXTURE")]
    assert _params_agree(want, want)
    assert _params_agree(want[:2], want)
    assert _params_agree([want[0], want[2]], want)
    assert not _params_agree(want[1:], want)                        # a value went missing
    assert not _params_agree([want[1], want[0]], want)              # order differs
    assert not _params_agree(want + [("Extra", "FLOAT")], want)     # extra parameter
    assert not _params_agree([("Emissive", "FLOAT3")] + want[1:], want)


def test_each_shader_says_which_preview_family_draws_it():
    """The families follow the game's shader sources: colorize shaders by their specular
    mask, the glowing ones added, the blending ones blended; a mod's own .fx by its name."""
    fam = {s.name: s.family for s in shaders.catalogue().values()}
    assert fam["MeshBumpColorize.fx"] == fam["RSkinBumpColorize.fx"] == "bump-colorize"
    assert fam["MeshGlossColorize.fx"] == fam["RSkinGlossColorize.fx"] == "gloss-colorize"
    assert fam["MeshGloss.fx"] == fam["RSkinGloss.fx"] == "gloss"
    assert {fam[n] for n in ("MeshAdditive.fx", "RSkinAdditive.fx", "MeshAdditiveVColor.fx")} \
        == {"additive"}
    assert fam["MeshAlpha.fx"] == fam["RSkinAlpha.fx"] == "alpha"
    assert fam["MeshShadowVolume.fx"] == fam["MeshCollision.fx"] == "hidden"
    assert set(fam.values()) == set(shaders.FAMILIES)
    for s in shaders.catalogue().values():       # the blending families blend
        if s.family in ("alpha", "additive"):
            assert s.blend == s.family, s.name
    assert shaders.family("MyMod_RSkinGlossColorize.fx") == "gloss-colorize"
    assert shaders.family("MyMod_Glow_Additive") == "additive"
    assert shaders.family("") == "plain"
