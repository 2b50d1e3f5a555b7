"""The compiled LZO decoder (imagecodecs' lzokay) against the pure one: same bytes, same
number of input bytes used, though P3D streams carry no compressed length; corrupt streams
still fail with the pure decoder's error and offset (issue 35)."""

import numpy as np
import pytest
from p3d_compress import lzo_compress

from io_alamo.formats.arma import compiled, lzo

pytestmark = pytest.mark.skipif(compiled._codecs is None, reason="imagecodecs is not installed")


@pytest.fixture(autouse=True)
def enabled(monkeypatch):
    monkeypatch.setattr(compiled, "ENABLED", True)


def sample(seed, n=5000):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 4, n, dtype=np.uint8)           # few values: many matches
    data[::97] = 0x11                                      # and end-marker look-alikes
    data[1::97] = 0
    data[2::97] = 0
    return data.tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_same_bytes_and_length_as_the_pure_decoder_with_data_after_the_stream(seed):
    raw = sample(seed)
    stream = lzo_compress(raw)
    src = b"\x11\x00\x00head" + stream + b"\x11\x00\x00" + bytes(range(40)) * 3
    got = compiled.lzo_decompress(src, 7, len(raw))
    assert got == lzo.decompress(src, 7, len(raw)) == (raw, len(stream))


def test_a_corrupt_stream_fails_with_the_pure_decoders_error():
    raw = sample(9)
    stream = bytearray(lzo_compress(raw))
    stream[len(stream) // 2:] = b"\xff" * (len(stream) - len(stream) // 2)
    with pytest.raises(lzo.LzoError) as caught:
        compiled.lzo_decompress(bytes(stream), 0, len(raw))
    with pytest.raises(lzo.LzoError) as pure:
        lzo.decompress(bytes(stream), 0, len(raw))
    assert (str(caught.value), caught.value.offset) == (str(pure.value), pure.value.offset)


def test_a_stream_that_expands_short_of_the_size_fails():
    raw = sample(3)
    stream = lzo_compress(raw)
    with pytest.raises(lzo.LzoError, match="expands to"):
        compiled.lzo_decompress(stream, 0, len(raw) + 10)


def test_the_pure_decoders_when_disabled(monkeypatch):
    monkeypatch.setattr(compiled, "ENABLED", False)
    calls = []
    monkeypatch.setattr(lzo, "decompress", lambda *a: calls.append(a) or (b"", 0))
    compiled.lzo_decompress(b"xyz", 0, 3)
    assert calls and "pure" in compiled.describe()


@pytest.mark.parametrize("kind", ["DXT1", "DXT5"])
def test_bcn_decode_is_the_reference_within_one_step(kind):
    from paa_build import DXT1, DXT5, random_blocks, reference_dxt
    code = DXT1 if kind == "DXT1" else DXT5
    w, h = 64, 36
    raw = random_blocks(code, (w // 4) * (h // 4), seed=5)
    got = compiled.bcn_decode(raw, w, h, kind)
    assert got is not None and got.shape == (h, w, 4)
    assert np.abs(got.astype(int) - reference_dxt(raw, w, h, code)).max() <= 1
