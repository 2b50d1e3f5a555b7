"""The animation encoder: error bounds, constants, both formats, conversion."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from io_alamo.formats.alamo import (AlamoFormatError, AnimationData, convert_animation,
                                    decode_animation, encode_animation, read_ala, write_ala)
from io_alamo.formats.alamo.ala_codec import quantize_range


def random_data(rng, bones, frames, const_bones=()):
    t = rng.uniform(-50, 50, (bones, frames, 3)).astype(np.float32)
    t *= rng.uniform(0.001, 10, (bones, 1, 3)).astype(np.float32)
    q = rng.normal(size=(bones, frames, 4))
    q /= np.linalg.norm(q, axis=2, keepdims=True)
    s = rng.uniform(0.5, 2, (bones, frames, 3)).astype(np.float32)
    for b in const_bones:
        t[b] = t[b, 0]
        q[b] = q[b, 0]
        s[b] = 1
    vis = rng.random((bones, frames)) > 0.3
    step = rng.random((bones, frames)) > 0.8
    return AnimationData(
        fps=30.0, names=[f"B{i}" for i in range(bones)], indices=np.arange(1, bones + 1),
        translation=t, rotation=q.astype(np.float32), scale=s, visible=vis, step=step,
        has_visibility=np.ones(bones, bool), has_step=np.arange(bones) % 2 == 0)


def assert_within_half_step(orig, dec):
    for name in ("translation", "scale"):
        a = getattr(orig, name).astype(np.float64)
        b = getattr(dec, name).astype(np.float64)
        step = (a.max(axis=1) - a.min(axis=1)) / 65535
        # half a step, plus float32 rounding of the decoded value itself
        bound = step / 2 * (1 + 1e-6) + np.abs(a).max(axis=1) * 2.0 ** -23
        assert np.all(np.abs(a - b).max(axis=1) <= bound), name
    assert np.abs(orig.rotation - dec.rotation).max() <= 0.5 / 32767 + 1e-7


@pytest.mark.parametrize("fmt", [1, 2])
def test_encoder_error_within_half_step_random(fmt):
    rng = np.random.default_rng(fmt)
    data = random_data(rng, bones=12, frames=57, const_bones=(3, 7))
    anim = read_ala(write_ala(encode_animation(data, fmt)))
    assert anim.format == fmt
    dec = decode_animation(anim)
    assert_within_half_step(data, dec)
    assert np.array_equal(dec.visible, data.visible)
    if fmt == 1:
        assert np.array_equal(dec.step[data.has_step], data.step[data.has_step])
    else:       # format #2 holds no step bits: no real FoC file has a 0x1008 chunk
        assert not any(b.step is not None for b in anim.bones)
    assert not dec.step[~data.has_step].any()
    assert list(dec.indices) == list(data.indices) and dec.names == data.names


@pytest.mark.parametrize("fmt", [1, 2])
def test_constant_channels_are_stored_as_constants(fmt):
    data = random_data(np.random.default_rng(5), bones=4, frames=20, const_bones=(1, 2))
    anim = encode_animation(data, fmt)
    for i, b in enumerate(anim.bones):
        const = i in (1, 2)
        assert (b.translation is None) == const
        assert (b.rotation is None) == const
    assert all(b.scale is None for b in (anim.bones[1], anim.bones[2]))
    assert anim.bones[0].scale is not None
    out = read_ala(write_ala(anim))
    if fmt == 1:   # no per-frame chunks for constant bones
        assert out.bones[1].translation is None and out.bones[1].default_rotation is not None
    else:          # index -1 in the header
        assert out.bones[1].translation_index == -1 and out.bones[1].rotation_index == -1
        assert out.translation_frame_size == 3 * 2 and out.rotation_frame_size == 4 * 2
    assert_within_half_step(data, decode_animation(out))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e4, 1e4, width=32), min_size=1, max_size=40),
       st.floats(1e-3, 1e3))
def test_quantize_range_bound_property(values, spread):
    v = np.array(values, np.float32)[:, None] * np.float32(spread)
    off, step, q, const = quantize_range(v)
    dec = off.astype(np.float64) + q.astype(np.float64) * step.astype(np.float64)
    span = float(v.max() - v.min())
    assert const == (span == 0)
    assert np.all(np.abs(dec - v) <= span / 65535 / 2 * (1 + 1e-6) + np.abs(v).max() * 2.0 ** -24)


def test_conversion_between_formats_is_lossless_for_motion():
    data = random_data(np.random.default_rng(9), bones=6, frames=33, const_bones=(0,))
    data.has_step[:] = False
    a1 = encode_animation(data, 1)
    a2 = read_ala(write_ala(convert_animation(a1, 2)))
    back = read_ala(write_ala(convert_animation(a2, 1)))
    assert write_ala(back) == write_ala(a1)
    d1, d2 = decode_animation(a1), decode_animation(a2)
    for name in ("translation", "rotation", "scale", "visible", "step"):
        assert np.array_equal(getattr(d1, name), getattr(d2, name))


def test_conversion_to_format_2_drops_step_bits():
    """No format #2 game file has a 0x1008 chunk (the older plugin's reader fails on one):
    converting keeps every track but the step bits."""
    data = random_data(np.random.default_rng(4), bones=5, frames=20, const_bones=(1,))
    a1 = encode_animation(data, 1)
    assert any(b.step is not None for b in a1.bones)
    raw = write_ala(convert_animation(a1, 2))
    assert b"\x08\x10\x00\x00" not in raw
    a2 = read_ala(raw)
    assert all(b.step is None for b in a2.bones)
    d1, d2 = decode_animation(a1), decode_animation(a2)
    for name in ("translation", "rotation", "scale", "visible"):
        assert np.array_equal(getattr(d1, name), getattr(d2, name))
    assert a1.bones[0].step is not None and convert_animation(a1, 1).bones[0].step is not None


def test_encoder_refuses_nan():
    data = random_data(np.random.default_rng(1), bones=1, frames=3)
    data.translation[0, 1, 2] = np.nan
    with pytest.raises(AlamoFormatError, match="NaN"):
        encode_animation(data)


def test_format2_keeps_unusual_offsets_and_frame_sizes_as_read():
    data = random_data(np.random.default_rng(2), bones=3, frames=4)
    anim = encode_animation(data, 2)
    # bones laid out in reverse, with a gap of one value before the first
    for k, b in enumerate(anim.bones):
        b.translation_index = 1 + 3 * (2 - k)
    anim.translation_frame_size = 11
    out = read_ala(write_ala(anim))
    assert [b.translation_index for b in out.bones] == [7, 4, 1]
    assert out.translation_frame_size == 11
    assert write_ala(out) == write_ala(anim)
    # overlapping offsets are not kept: fresh ones are assigned
    anim.bones[1].translation_index = anim.bones[0].translation_index
    out = read_ala(write_ala(anim))
    assert [b.translation_index for b in out.bones] == [0, 3, 6]
    assert_within_half_step(data, decode_animation(out))


def test_frame_count_is_bounded_but_long_animations_work():
    from io_alamo.formats.alamo.animation import MAX_FRAMES
    data = random_data(np.random.default_rng(3), bones=2, frames=10_000)
    anim = read_ala(write_ala(encode_animation(data, 2)))
    assert anim.num_frames == 10_000
    assert_within_half_step(data, decode_animation(anim))
    # a constant-only animation claiming more frames than the cap: no per-frame data bounds
    # its size, so the reader refuses it rather than let decoding allocate gigabytes
    const = random_data(np.random.default_rng(4), bones=1, frames=2, const_bones=(0,))
    const.has_visibility[:] = False
    const.has_step[:] = False
    big = encode_animation(const, 2)
    big.num_frames = MAX_FRAMES + 1
    with pytest.raises(AlamoFormatError, match="frames"):
        read_ala(write_ala(big))
