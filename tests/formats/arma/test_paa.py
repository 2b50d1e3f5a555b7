"""PAA texture decoding (Arma): spec-built files against a per-pixel reference decoder."""

import random

import numpy as np
import pytest
from paa_build import ARGB4444, ARGB8888, DXT1, DXT5, build_paa, random_blocks, reference_dxt

from io_alamo.formats.arma import PaaFormatError, read_paa


@pytest.mark.parametrize("kind,three,compress", [(DXT1, False, False), (DXT1, True, True),
                                                 (DXT5, False, False), (DXT5, False, True)],
                         ids=["dxt1", "dxt1-3colour-lzo", "dxt5", "dxt5-lzo"])
def test_dxt_matches_the_reference(kind, three, compress):
    w, h = 24, 16
    raw = random_blocks(kind, (w // 4) * (h // 4), seed=kind, three_colour=three)
    tex = read_paa(build_paa(kind, w, h, raw, compress))
    assert (tex.width, tex.height, tex.kind) == (w, h, kind)
    assert np.array_equal(tex.rgba, reference_dxt(raw, w, h, kind))
    if kind == DXT1 and three:
        assert (tex.rgba[:, :, 3] == 0).any()                  # the transparent index
    assert tex.tags["AVGC"] == b"\xff\x80\x40\x20"


def test_sizes_not_a_multiple_of_four():
    raw = random_blocks(DXT1, 4, seed=3)
    tex = read_paa(build_paa(DXT1, 6, 5, raw))
    assert tex.rgba.shape == (5, 6, 4)
    assert np.array_equal(tex.rgba, reference_dxt(raw, 6, 5, DXT1))


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
    with pytest.raises(PaaFormatError, match="x.paa, offset"):
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

