"""Real files: every corpus file reads and writes back byte for byte."""

import numpy as np
import pytest
from corpus import corpus_params

from io_alamo.formats.alamo import (Model, ParticleEffect, convert_animation, decode_animation,
                                    read_ala, read_any, write_ala)
from io_alamo.formats.alamo.files import encode
from io_alamo.formats.alamo.validate import validate


@pytest.mark.parametrize("path", corpus_params(".alo", ".ala"))
def test_corpus_roundtrip_is_identical(path):
    data = path.read_bytes()
    obj = read_any(data, filename=path.name)
    assert encode(obj) == data


@pytest.mark.parametrize("path", corpus_params(".alo"))
def test_corpus_models_decode_every_part(path):
    obj = read_any(path.read_bytes())
    if isinstance(obj, ParticleEffect):
        assert obj.root_type in (0x900, 0x1500)
        return
    assert isinstance(obj, Model)
    assert obj.bones and obj.bones[0].parent == -1
    assert validate(obj) == []
    for mesh in obj.meshes:
        for sub in mesh.submeshes:
            assert len(sub.vertices) and sub.indices.max() < len(sub.vertices)
            assert sub.material.shader
            if sub.collision_tree is not None:
                assert mesh.collision


@pytest.mark.parametrize("path", corpus_params(".ala"))
def test_corpus_animation_format_conversion_keeps_motion(path):
    anim = read_ala(path.read_bytes())
    other = read_ala(write_ala(convert_animation(anim, 3 - anim.format)))
    assert other.format == 3 - anim.format
    a, b = decode_animation(anim), decode_animation(other)
    for name in ("translation", "rotation", "scale", "visible"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    if other.format == 1:
        assert np.array_equal(a.step, b.step)
    else:                  # format #2 holds no step bits (no real FoC file has 0x1008)
        assert all(bone.step is None for bone in other.bones)
    back = convert_animation(other, anim.format)
    if anim.format == 1 and all(bone.step is None for bone in anim.bones):
        # format #1 -> #2 -> #1 carries everything but step bits
        assert write_ala(back) == path.read_bytes()
