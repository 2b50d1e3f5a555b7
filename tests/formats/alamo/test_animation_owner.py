"""Blender-free rules behind "Blender shows what the game shows": which model an animation
belongs to, and which shaders treat texture alpha as transparency."""

from io_alamo.formats.alamo import shaders
from io_alamo.formats.alamo.naming import animation_owner, model_animation_names

FOLDER = ["A.alo", "A_Blue.alo", "A_IDLE_00.ala", "A_Blue_IDLE_00.ala", "a_blue_walk_00.ALA",
          "B_IDLE_00.ala", "A.ala", "A_Blue.txt"]


def test_the_longest_model_name_that_prefixes_an_animation_owns_it():
    models = ["A.alo", "A_Blue.alo"]
    assert animation_owner("A_IDLE_00.ala", models) == "A.alo"
    assert animation_owner("A_Blue_IDLE_00.ala", models) == "A_Blue.alo"
    assert animation_owner("a_BLUE_idle_00.ALA", models) == "A_Blue.alo"     # any case
    assert animation_owner("A_Bluebird_00.ala", models) == "A.alo"           # whole names only
    assert animation_owner("B_IDLE_00.ala", models) is None
    assert animation_owner("A.ala", models) is None                          # no underscore


def test_a_models_animations_and_those_left_for_other_models():
    assert model_animation_names("A.alo", FOLDER) == (
        ["A_IDLE_00.ala"],
        {"A_Blue_IDLE_00.ala": "A_Blue.alo", "a_blue_walk_00.ALA": "A_Blue.alo"})
    assert model_animation_names("A_Blue.alo", FOLDER) == (
        ["A_Blue_IDLE_00.ala", "a_blue_walk_00.ALA"], {})
    # the model named in another case than the folder lists it (case-insensitive systems)
    assert model_animation_names("a_blue.ALO", FOLDER)[0] == [
        "A_Blue_IDLE_00.ala", "a_blue_walk_00.ALA"]
    # without A_Blue.alo in the folder, A takes every A_* animation
    alone = [n for n in FOLDER if n != "A_Blue.alo"]
    assert model_animation_names("A.alo", alone) == (
        ["A_Blue_IDLE_00.ala", "a_blue_walk_00.ALA", "A_IDLE_00.ala"], {})


def test_only_blending_shaders_use_texture_alpha_as_transparency():
    assert shaders.blend_mode("MeshAlpha.fx") == "alpha"
    assert shaders.blend_mode("rskinalphagloss") == "alpha"
    assert shaders.blend_mode("MeshAdditive.fx") == "additive"
    assert shaders.blend_mode("Tree.fx") == "clip"
    for opaque in ("MeshBumpColorize.fx", "RSkinGloss.fx", "alDefault.fx", "MeshBumpLight.fx"):
        assert shaders.blend_mode(opaque) is None
    assert shaders.blend_mode("MyModAlphaGlow.fx") == "alpha"    # unknown: judged by its name
    assert shaders.blend_mode("") is None
    # every alpha- or additive-named catalogue shader says so
    for spec in shaders.catalogue().values():
        lower = spec.name.lower()
        if "alpha" in lower or "additive" in lower:
            assert spec.blend in ("alpha", "additive"), spec.name
