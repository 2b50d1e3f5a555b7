"""PAA texture decoding (Arma): spec-built files against a per-pixel reference decoder."""

import random

import numpy as np
import pytest
from paa_build import ARGB4444, ARGB8888, DXT1, DXT5, build_paa, random_blocks, reference_dxt

from io_alamo.formats.arma import PaaFormatError, compiled, paa, read_paa


@pytest.fixture(autouse=True, params=["pure", "imagecodecs"])
def decoders(request, monkeypatch):
    """Every test runs with the pure decoders and with the compiled ones (issue 35)."""
    if request.param == "imagecodecs" and compiled._codecs is None:
        pytest.skip("imagecodecs is not installed")
    monkeypatch.setattr(compiled, "ENABLED", request.param == "imagecodecs")
    return request.param


def same_pixels(got, want, decoders):
    """Exact for the pure decoder; bcdec rounds DXT's in-between colours the other way at
    most one step."""
    if decoders == "pure":
        return np.array_equal(got, want)
    return got.shape == want.shape and np.abs(got.astype(int) - want).max() <= 1


@pytest.mark.parametrize("kind,three,compress", [(DXT1, False, False), (DXT1, True, True),
                                                 (DXT5, False, False), (DXT5, False, True)],
                         ids=["dxt1", "dxt1-3colour-lzo", "dxt5", "dxt5-lzo"])
def test_dxt_matches_the_reference(kind, three, compress, decoders):
    w, h = 24, 16
    raw = random_blocks(kind, (w // 4) * (h // 4), seed=kind, three_colour=three)
    tex = read_paa(build_paa(kind, w, h, raw, compress))
    assert (tex.width, tex.height, tex.kind) == (w, h, kind)
    assert same_pixels(tex.rgba, reference_dxt(raw, w, h, kind), decoders)
    if kind == DXT1 and three:
        assert (tex.rgba[:, :, 3] == 0).any()                  # the transparent index
    assert tex.tags["AVGC"] == b"\xff\x80\x40\x20"


def test_sizes_not_a_multiple_of_four(decoders):
    raw = random_blocks(DXT1, 4, seed=3)
    tex = read_paa(build_paa(DXT1, 6, 5, raw))
    assert tex.rgba.shape == (5, 6, 4)
    assert same_pixels(tex.rgba, reference_dxt(raw, 6, 5, DXT1), decoders)


@pytest.mark.parametrize("compress", [False, True], ids=["raw", "lzss"])
def test_argb4444_and_8888(compress):
    rng = np.random.default_rng(1)
    v = rng.integers(0, 1 << 16, (8, 8), dtype=np.uint16)
    v[:4] = 0x8F0F                                           # runs, so LZSS has matches
    tex = read_paa(build_paa(ARGB4444, 8, 8, v.astype("<u2").tobytes(), compress))
    a, r, g, b = (v >> 12) & 15, (v >> 8) & 15, (v >> 4) & 15, v & 15
    assert np.array_equal(tex.rgba, np.stack([r, g, b, a], -1).astype(np.uint8) * 17)
    bgra = rng.integers(0, 256, (4, 8, 4), dtype=np.uint8)
    tex = read_paa(build_paa(ARGB8888, 8, 4, bgra.tobytes(), compress))
    assert np.array_equal(tex.rgba, bgra[:, :, [2, 1, 0, 3]])


def test_bad_files_give_one_error():
    good = build_paa(DXT5, 16, 16, random_blocks(DXT5, 16), compress=True)
    with pytest.raises(PaaFormatError, match="texture type 0x1234"):
        read_paa(b"\x34\x12" + good[2:], filename="x.paa")
    with pytest.raises(PaaFormatError, match=r"x.paa: .*\(offset"):
        read_paa(good[:40], filename="x.paa")
    rng = random.Random(7)
    for _ in range(300):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[:rng.randrange(len(data))]
        try:
            tex = read_paa(bytes(data))
            assert tex.rgba.shape == (tex.height, tex.width, 4)
        except PaaFormatError:
            pass


def _mip_chain_paa(kind, compress, side=64):
    """A PAA of ``side`` pixels and every level below it down to 8 (random blocks each)."""
    levels = [(s, s // 2, random_blocks(kind, (s // 4) * (s // 8), seed=s))
              for s in (side, side // 2, side // 4, side // 8)]
    return build_paa(kind, *levels[0], compress, more=levels[1:]), levels


@pytest.mark.parametrize("kind,compress", [(DXT1, True), (DXT5, False)], ids=["dxt1-lzo", "dxt5"])
def test_max_side_gives_the_largest_mipmap_within_it(kind, compress, decoders):
    data, levels = _mip_chain_paa(kind, compress)
    for max_side, level in ((64, 0), (63, 1), (32, 1), (20, 2), (16, 2), (8, 3), (9000, 0)):
        w, h, raw = levels[level]
        tex = read_paa(data, max_side=max_side)
        assert (tex.level, tex.width, tex.height) == (level, w, h)
        assert same_pixels(tex.rgba, reference_dxt(raw, w, h, kind), decoders)
        assert read_paa(data, max_side=max_side, decode=False).blocks == raw
    tex = read_paa(data, max_side=4)                      # none that small: the largest one
    assert (tex.level, tex.width) == (0, 64)
    assert read_paa(data).level == 0 and read_paa(data).width == 64


def test_max_side_on_a_plain_type_with_lzss_levels():
    rng = np.random.default_rng(2)
    big, small = (rng.integers(0, 1 << 16, (n, n), dtype=np.uint16) for n in (16, 8))
    small[:3] = 0x8F0F
    data = build_paa(ARGB4444, 16, 16, big.astype("<u2").tobytes(), True,
                     more=[(8, 8, small.astype("<u2").tobytes())])
    tex = read_paa(data, max_side=8)
    a, r, g, b = (small >> 12) & 15, (small >> 8) & 15, (small >> 4) & 15, small & 15
    assert tex.level == 1 and np.array_equal(tex.rgba, np.stack([r, g, b, a], -1) * 17)


def test_max_side_never_reads_past_the_file_or_a_level_not_smaller():
    data, levels = _mip_chain_paa(DXT1, False)
    cut = data[:len(data) - 4 - len(levels[3][2]) // 2]    # the last level runs past the end
    assert read_paa(cut, max_side=8).level == 0
    assert read_paa(cut, max_side=16).level == 2
    head = len(data) - 4 - sum(7 + len(raw) for _, _, raw in levels)
    grown = bytearray(data)            # the second level says it is as big as the first
    at = head + 7 + len(levels[0][2])
    grown[at:at + 2] = (64).to_bytes(2, "little")
    assert read_paa(bytes(grown), max_side=16).level == 0
    bad = bytearray(data)              # a chosen level's blocks short of its size
    at = head + 7 + len(levels[0][2]) + 7 + len(levels[1][2])
    bad[at + 4:at + 7] = (10).to_bytes(3, "little")
    with pytest.raises(PaaFormatError, match="mipmap 2 holds 10 bytes"):
        read_paa(bytes(bad), max_side=16, filename="x.paa")



def _alpha_cases():
    """DXT1/DXT5 block sets, opaque or not, some only by one pixel."""
    rng = np.random.default_rng(7)
    cases = []
    for kind in (DXT1, DXT5):
        for k in range(40):
            raw = np.frombuffer(random_blocks(kind, 24, seed=k, three_colour=k % 2 == 0),
                                np.uint8).reshape(24, -1).copy()
            if kind == DXT1:
                if k % 4 == 0:                             # three-colour, index 3 unused
                    raw[:, 4:8] &= 0x55
                elif k % 4 == 2:                           # ... but one pixel's
                    raw[:, 4:8] &= 0x55
                    raw[rng.integers(24), 4 + rng.integers(4)] |= 3 << (2 * rng.integers(4))
            else:
                raw[:, 0] = rng.choice([253, 254, 255, 252], 24, p=[.3, .3, .39, .01])
                raw[:, 1] = rng.choice([253, 255, 0], 24, p=[.5, .49, .01])
                if k % 3 == 0:                             # six-alpha blocks, no index 6
                    raw[:, 0] = raw[:, 1] = 255
                    bits = rng.integers(0, 6, (24, 16)).astype(np.uint64)
                    if k % 2:
                        bits[rng.integers(24), rng.integers(16)] = 6      # one pixel at 0
                    v = (bits << (3 * np.arange(16, dtype=np.uint64))).sum(axis=1)
                    raw[:, 2:8] = v.astype("<u8").view(np.uint8).reshape(24, 8)[:, :6]
            cases.append((kind, raw.tobytes()))
    return cases


def test_has_alpha_agrees_with_the_pixels_and_skips_decoding_opaque_blocks(decoders):
    told = 0
    for kind, raw in _alpha_cases():
        data = build_paa(kind, 24, 16, raw)
        want = bool((read_paa(data).rgba[:, :, 3] < 253).any())
        tex = read_paa(data, decode=False)
        assert tex.rgba is None and tex.blocks == raw
        assert paa.has_alpha(tex) == want
        told += tex.rgba is None                     # opaque told from the blocks
    assert told >= 20
    assert not paa.has_alpha(read_paa(build_paa(DXT1, 24, 16, random_blocks(DXT1, 24)),
                                      decode=False))            # four-colour: opaque
