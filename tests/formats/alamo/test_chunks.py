"""The chunk layer: walking by size, writing with computed sizes, mini-chunks, errors."""

import struct

import pytest

from io_alamo.formats.alamo import (AlamoFormatError, Chunk, Mini, read_chunks, read_minis,
                                    write_chunks)
from io_alamo.formats.alamo.chunks import write_minis
from io_alamo.formats.alamo.layout import Layout, arrange


def raw(ctype, body, container=False):
    return struct.pack("<II", ctype, len(body) | (0x80000000 if container else 0)) + body


def test_reads_nested_chunks_with_offsets_and_paths():
    data = raw(0x400, raw(0x401, b"abc\0") + raw(0x10000, raw(0x10007, b"") , True)
               + raw(0x10000, raw(0x10004, b"xy"), True), True)
    (mesh,) = read_chunks(data)
    assert mesh.is_container and mesh.offset == 0
    name, sub0, sub1 = mesh.children
    assert bytes(name.data) == b"abc\0" and name.offset == 8
    assert sub1.path == "0x400/0x10000[1]"
    assert sub1.children[0].path == "0x400/0x10000[1]/0x10004"
    assert write_chunks([mesh]) == data


def test_writer_computes_sizes_and_container_bit():
    tree = [Chunk(0x200, children=[Chunk(0x201, data=b"\1\2\3"), Chunk(0x202, children=[])])]
    out = write_chunks(tree)
    assert out == raw(0x200, raw(0x201, b"\1\2\3") + raw(0x202, b"", True), True)


def test_empty_chunks_and_several_roots_survive():
    data = raw(1, b"") + raw(2, b"", True) + raw(3, b"z")
    chunks = read_chunks(data)
    assert [c.type for c in chunks] == [1, 2, 3]
    assert chunks[0].data.nbytes == 0 and chunks[1].children == []
    assert write_chunks(chunks) == data


@pytest.mark.parametrize("data, where", [
    (raw(5, b"abcd")[:-1], 0),                                 # truncated body
    (struct.pack("<II", 5, 0x7FFFFFF0) + b"x" * 8, 0),         # 2 GB size
    (raw(5, b"") + b"\1\2\3", 8),                              # stray bytes
    (raw(0x400, b"\1\2\3", True), 8),                          # child header cut off
])
def test_bad_sizes_raise_one_error_type_with_offset(data, where):
    with pytest.raises(AlamoFormatError) as e:
        read_chunks(data)
    assert e.value.offset is not None


def test_child_overrunning_parent_names_child_path():
    inner = struct.pack("<II", 0x401, 50) + b"x" * 4
    data = raw(0x400, inner, True)
    with pytest.raises(AlamoFormatError) as e:
        read_chunks(data)
    assert e.value.path == "0x400/0x401" and e.value.offset == 8
    assert "0x400/0x401" in str(e.value) and "offset 0x8" in str(e.value)


def test_deep_nesting_is_refused_not_recursed():
    data = b""
    for _ in range(10_000):
        data = raw(1, data, True)
    with pytest.raises(AlamoFormatError, match="nested deeper"):
        read_chunks(data)


def test_minis_fill_their_chunk():
    body = bytes([1, 4]) + b"\1\0\0\0" + bytes([9, 0])
    (c,) = read_chunks(raw(0x601, body))
    minis = read_minis(c)
    assert [(m.type, bytes(m.data)) for m in minis] == [(1, b"\1\0\0\0"), (9, b"")]
    assert write_minis(minis) == body
    (bad,) = read_chunks(raw(0x601, bytes([1, 9]) + b"\0\0"))
    with pytest.raises(AlamoFormatError, match="runs past"):
        read_minis(bad)


def test_read_chunks_are_what_the_constructor_makes():
    """read_chunks builds its Chunks without calling __init__: every slot set as it sets it
    (and ``parsed`` empty), every path 0xTYPE with [k] for the k-th repeat of a type."""
    file = raw(0x400, raw(0x401, b"ab") + raw(0x10000, raw(0x10004, b""), True)
               + raw(0x401, b"") + raw(0xABCDEF12, b"c") + raw(0x401, b"d"), True)
    (top,) = read_chunks(file)
    got = []

    def walk(cs):
        for c in cs:
            made = Chunk(c.type, c.data, c.children, c.offset, c.path, c.budget)
            assert all(getattr(c, k) is getattr(made, k) for k in Chunk.__slots__)
            got.append((c.path, c.offset, None if c.data is None else bytes(c.data)))
            walk(c.children or ())
    walk([top])
    assert got == [("0x400", 0, None), ("0x400/0x401", 8, b"ab"),
                   ("0x400/0x10000", 18, None), ("0x400/0x10000/0x10004", 26, b""),
                   ("0x400/0x401[1]", 34, b""), ("0x400/0xabcdef12", 42, b"c"),
                   ("0x400/0x401[2]", 51, b"d")]


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_minis_have_their_file_offsets_and_bytes_bodies(kind):
    """Each mini's data is bytes and its offset is where its body starts in the file, for a
    chunk read from a file (offset known) and one built in memory (no offset), whatever
    bytes-like object the chunk holds; a cut header and an overrun name their offsets."""
    body = bytes([1, 4]) + b"\1\0\0\0" + bytes([9, 0]) + bytes([0xFF, 2]) + b"ab"
    file = raw(0x400, raw(0x401, b"xyz") + raw(0x601, body), container=True)
    (outer,) = read_chunks(kind(file))
    c = outer.children[1]
    assert c.offset == 8 + 11 and c.path == "0x400/0x601"
    minis = read_minis(c)
    assert [(m.type, m.data, m.offset) for m in minis] == [
        (1, b"\1\0\0\0", 19 + 10), (9, b"", 19 + 16), (0xFF, b"ab", 19 + 18)]
    assert all(type(m.data) is bytes for m in minis)
    made = [Mini(m.type, m.data, m.offset) for m in minis]     # read_minis skips __init__
    assert all(getattr(m, k) is getattr(n, k) for m, n in zip(minis, made) for k in Mini.__slots__)
    loose = Chunk(0x601, data=kind(body))
    assert [(m.type, m.data, m.offset) for m in read_minis(loose)] == [
        (1, b"\1\0\0\0", None), (9, b"", None), (0xFF, b"ab", None)]
    for cut, at, what in ((body + b"\7", 12, "header cut off"),
                          (body + b"\7\1", 12, "0x7 size 1 runs past")):
        (bad,) = read_chunks(kind(raw(0x601, cut)))
        with pytest.raises(AlamoFormatError, match=what) as e:
            read_minis(bad)
        assert e.value.offset == 8 + at and e.value.path == "0x601"


def test_mini_data_over_255_bytes_is_refused():
    with pytest.raises(AlamoFormatError, match="255"):
        write_minis([Mini(1, b"x" * 256)])


def test_arrange_keeps_unknown_items_and_inserts_new_keys_in_canonical_place():
    unknown = Chunk(0x7777, data=b"?")
    layout = Layout(order=["name", unknown, "info", ("sub", 0)])
    slots = {"name": "N", "info": "I", ("sub", 0): "S0", ("sub", 1): "S1", "extra": "E"}
    order = ["name", "info", "extra", ("sub", 0), ("sub", 1)]
    assert arrange(slots, order, layout) == ["N", unknown, "I", "E", "S0", "S1"]
    assert arrange({"name": "N"}, order, layout) == ["N", unknown]
    assert arrange(slots, order, None) == ["N", "I", "E", "S0", "S1"]
