"""PNG files written from 8-bit pixels (io_alamo.formats.png, issue 44): a valid file (chunk
lengths and CRCs, header) whose pixels read back as the given bytes exactly. Blender's own
PNG reader reads them in tests/blender/test_gltf_images.py."""

import struct
import zlib

import numpy as np
import pytest

from io_alamo.formats.png import encode_png


def chunks(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, out = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == \
            zlib.crc32(kind + body)
        out.append((kind, body))
        pos += 12 + n
    assert pos == len(data)
    return out


def decoded(data):
    """(colour type, pixels (h, w, channels)) of a PNG whose rows are all filtered "Up"."""
    found = chunks(data)
    assert [k for k, _ in found] == [b"IHDR", b"IDAT", b"IEND"]
    w, h, depth, ctype, compression, filtering, interlace = struct.unpack(">IIBBBBB", found[0][1])
    assert (depth, compression, filtering, interlace) == (8, 0, 0, 0)
    c = {0: 1, 4: 2, 2: 3, 6: 4}[ctype]
    raw = np.frombuffer(zlib.decompress(found[1][1]), np.uint8).reshape(h, w * c + 1)
    assert (raw[:, 0] == 2).all()
    return ctype, np.cumsum(raw[:, 1:], axis=0, dtype=np.uint8).reshape(h, w, c)


@pytest.fixture(params=["compiled", "pure"])
def compressor(request, monkeypatch):
    """libdeflate (imagecodecs) and zlib: each writes the pixels exactly."""
    if request.param == "pure":
        monkeypatch.setenv("IO_ALAMO_PURE", "1")
    else:
        monkeypatch.delenv("IO_ALAMO_PURE", raising=False)
        from io_alamo.formats import png
        if png._codecs is None:
            pytest.skip("imagecodecs (libdeflate) is not installed: zlib only")
    return request.param


def test_the_compressors_differ_and_agree(compressor):
    y, x = np.mgrid[0:64, 0:64]
    px = np.stack([x * 3, y * 2, x ^ y], -1).astype(np.uint8)
    data = encode_png(px)
    assert np.array_equal(decoded(data)[1], px)
    import os
    os.environ["IO_ALAMO_PURE"] = "" if compressor == "pure" else "1"   # the other one
    try:
        other = encode_png(px)
    finally:
        os.environ["IO_ALAMO_PURE"] = "1" if compressor == "pure" else ""
    assert np.array_equal(decoded(other)[1], px)
    from io_alamo.formats import png
    assert (other != data) == (png._codecs is not None)


@pytest.mark.parametrize("channels,ctype", [(1, 0), (2, 4), (3, 2), (4, 6)])
def test_pixels_read_back_exactly(channels, ctype, compressor):
    rng = np.random.default_rng(channels)
    px = rng.integers(0, 256, (37, 53, channels), dtype=np.uint8)
    px[5] = 0
    px[6] = 255                                  # differences that wrap around 256
    kind, back = decoded(encode_png(px))
    assert kind == ctype and np.array_equal(back, px)


def test_a_real_decoder_reads_the_same_pixels():
    imagecodecs = pytest.importorskip("imagecodecs")
    y, x = np.mgrid[0:64, 0:96]
    px = np.stack([x * 2, y * 3, (x ^ y) & 255, 255 - x], -1).astype(np.uint8)
    assert np.array_equal(imagecodecs.png_decode(encode_png(px)), px)
    assert np.array_equal(imagecodecs.png_decode(encode_png(px[..., :3])), px[..., :3])


def test_smooth_pictures_compress():
    y, x = np.mgrid[0:256, 0:256]
    px = np.stack([x, y, (x + y) // 2], -1).astype(np.uint8)
    assert len(encode_png(px)) < px.size // 20


@pytest.mark.parametrize("bad", [np.zeros((4, 4, 3), np.float32), np.zeros((4, 4, 5), np.uint8),
                                 np.zeros((0, 4, 3), np.uint8), np.zeros(4, np.uint8)])
def test_what_is_not_8_bit_pixels_is_refused(bad):
    with pytest.raises(ValueError, match="PNG pixels"):
        encode_png(bad)


def test_extra_chunks_follow_the_header_and_leave_the_pixels():
    px = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    data = encode_png(px, extra=[(b"ioAs", b"\0\0\0\7")])
    found = chunks(data)
    assert [k for k, _ in found] == [b"IHDR", b"ioAs", b"IDAT", b"IEND"]
    assert found[1][1] == b"\0\0\0\7"
    plain = encode_png(px)
    assert np.array_equal(decoded(plain)[1], px)
    assert data.replace(data[33:33 + 16], b"") == plain


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_the_shape_of_a_file_encode_png_writes(channels):
    from io_alamo.formats.png import plain_shape
    data = encode_png(np.zeros((5, 7, channels), np.uint8))
    assert plain_shape(data[:33]) == (5, 7, channels)


@pytest.mark.parametrize("spoil", [(24, 16), (25, 3), (28, 1), (16, 0), (0, 0x88)])
def test_other_pngs_have_no_plain_shape(spoil):
    from io_alamo.formats.png import plain_shape
    at, value = spoil           # 16 bits, a palette, interlaced, 0 wide, not a PNG
    data = bytearray(encode_png(np.zeros((5, 7, 3), np.uint8)))
    data[at] = value
    if at == 16:
        data[16:20] = bytes(4)
    assert plain_shape(bytes(data[:33])) is None
    assert plain_shape(b"\x89PNG") is None
