"""Binary glTF (.glb) files as the batch rewrites them after Blender's glTF exporter: the
JSON document and the binary buffer, read and written back, and buffer views given new
bytes. The layout is the exporter's: each view at a four-byte boundary, followed by zero
bytes up to the next, in the order of their offsets."""

import json
import struct

__all__ = ["read_glb", "replace_views", "write_glb"]


def read_glb(data):
    """(document, binary buffer bytes) of a .glb's bytes; ValueError when they are not one."""
    if len(data) < 20:
        raise ValueError(f"not a glb: {len(data)} bytes")
    magic, _, _ = struct.unpack_from("<4sII", data)
    if magic != b"glTF":
        raise ValueError("not a glb")
    length, kind = struct.unpack_from("<I4s", data, 12)
    if kind != b"JSON" or 20 + length > len(data):
        raise ValueError(f"not a glb: its JSON chunk ({kind!r}, {length} bytes) at offset 12")
    doc = json.loads(data[20:20 + length])
    binary = b""
    at = 20 + length
    if at + 8 <= len(data):
        blen, _ = struct.unpack_from("<I4s", data, at)
        binary = data[at + 8:at + 8 + blen]
    return doc, binary


def write_glb(doc, binary):
    """The .glb bytes of ``doc`` and its binary buffer (the exporter's padding: spaces
    after the JSON, zeros after the buffer)."""
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    pad = b"\0" * (-len(binary) % 4)
    size = len(binary) + len(pad)
    total = 12 + 8 + len(text) + (8 + size if binary else 0)
    out = [struct.pack("<4sII", b"glTF", 2, total), struct.pack("<I4s", len(text), b"JSON"),
           text]
    if binary:
        out += [struct.pack("<I4s", size, b"BIN\0"), binary, pad]
    return b"".join(out)


def replace_views(doc, binary, new):
    """The binary buffer with the views ``new`` names ({view index: bytes}) holding those
    bytes, laid out as the exporter lays views out; ``doc``'s views (offsets, lengths) and
    buffer length are updated to match. The views must already be laid out so (in buffer
    0, each from the four-byte boundary after the one before, zeros between): ValueError
    otherwise, with ``doc`` unchanged."""
    views = doc.get("bufferViews", [])
    order = sorted(range(len(views)), key=lambda k: views[k].get("byteOffset", 0))
    parts, size, end, placed = [], 0, 0, []
    for k in order:
        view = views[k]
        start, length = view.get("byteOffset", 0), view["byteLength"]
        if view.get("buffer", 0) != 0 or start != end + (-end % 4) or \
                start + length > len(binary) or any(binary[end:start]):
            raise ValueError(f"buffer view {k} (offset {start}, {length} bytes) is not laid "
                             "out as the glTF exporter lays views out")
        data = new.get(k)
        data = binary[start:start + length] if data is None else bytes(data)
        pad = -size % 4
        parts += [b"\0" * pad, data]
        placed.append((k, size + pad, len(data)))
        size += pad + len(data)
        end = start + length
    if any(binary[end:]) or len(binary) - end > 3:
        raise ValueError(f"{len(binary) - end} bytes after the last buffer view are not "
                         "its padding")
    parts.append(b"\0" * (-size % 4))
    size += -size % 4
    for k, offset, length in placed:
        views[k]["byteOffset"] = offset
        views[k]["byteLength"] = length
    if doc.get("buffers"):
        doc["buffers"][0]["byteLength"] = size
    return b"".join(parts)
