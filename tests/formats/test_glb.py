""".glb files as the batch rewrites them after Blender's glTF exporter (io_alamo.formats.glb,
issue 44): read and written back unchanged, and buffer views given new bytes in the
exporter's layout (each view at a four-byte boundary, zeros between) with every other
view's bytes where its accessors find them."""

import copy

import pytest

from io_alamo.formats.glb import read_glb, replace_views, write_glb


def laid_out(parts):
    """(document, buffer) with a view per part, as the exporter lays them out."""
    doc = {"asset": {"version": "2.0"}, "bufferViews": [], "buffers": [{"byteLength": 0}]}
    binary = b""
    for part in parts:
        doc["bufferViews"].append({"buffer": 0, "byteLength": len(part),
                                   "byteOffset": len(binary)})
        binary += part + b"\0" * (-len(part) % 4)
    doc["buffers"][0]["byteLength"] = len(binary)
    return doc, binary


def views(doc, binary):
    return [binary[v["byteOffset"]:v["byteOffset"] + v["byteLength"]]
            for v in doc["bufferViews"]]


PARTS = [b"positions!!!", b"\x89PNG one", b"indices", b"\x89PNG two, longer"]


def test_written_back_unchanged():
    doc, binary = laid_out(PARTS)
    data = write_glb(doc, binary)
    assert len(data) % 4 == 0
    again, back = read_glb(data)
    assert again == doc and back == binary
    assert write_glb(again, back) == data


@pytest.mark.parametrize("new", [{1: b"\x89PNG the real picture, 37 bytes long"},
                                 {1: b"x", 3: b"\x89PNG y" * 50}, {0: b""}, {}])
def test_replaced_views_hold_their_bytes_and_the_others_theirs(new):
    doc, binary = laid_out(PARTS)
    out = replace_views(doc, binary, new)
    want = [new.get(k, p) for k, p in enumerate(PARTS)]
    assert views(doc, out) == want
    # the layout the exporter makes of those bytes, to the byte
    assert (doc, out) == laid_out(want)


def test_nothing_replaced_is_the_same_buffer():
    doc, binary = laid_out(PARTS)
    before = copy.deepcopy(doc)
    assert replace_views(doc, binary, {}) == binary and doc == before


@pytest.mark.parametrize("spoil", ["overlap", "unaligned", "data between", "other buffer",
                                   "data after"])
def test_a_layout_the_exporter_does_not_make_is_refused_unchanged(spoil):
    doc, binary = laid_out(PARTS)
    if spoil == "overlap":
        doc["bufferViews"][2]["byteOffset"] -= 4
    elif spoil == "unaligned":
        doc["bufferViews"][2]["byteOffset"] += 1
    elif spoil == "data between":
        view = doc["bufferViews"][2]                # 7 bytes, then a zero of padding
        k = view["byteOffset"] + view["byteLength"]
        binary = binary[:k] + b"\1" + binary[k + 1:]
    elif spoil == "other buffer":
        doc["bufferViews"][3]["buffer"] = 1
    else:
        binary += b"\0\0\0\0extra"
    before = copy.deepcopy(doc)
    with pytest.raises(ValueError, match="buffer view|after the last"):
        replace_views(doc, binary, {1: b"new"})
    assert doc == before


@pytest.mark.parametrize("data", [b"", b"glTF", b"GLTF" + bytes(30),
                                  b"glTF\2\0\0\0\x40\0\0\0\xff\0\0\0JSON{}"])
def test_what_is_not_a_glb_is_refused(data):
    with pytest.raises(ValueError, match="not a glb"):
        read_glb(data)
