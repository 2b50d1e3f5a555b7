"""Writes MEG v1 archives for tests, laid out as the games' own (FORMAT-NOTES.md "MEG v1"):
names upper case and sorted, records sorted by CRC-32 of the name, data in record order."""

import struct
import zlib


def build_meg(files, *, upper=True, sort=True, crc=None, record_index=None):
    """``files``: [(name, bytes)] (or a dict). ``crc``/``record_index``: {name: value} to
    store instead of the right ones (corrupt archives)."""
    items = list(files.items()) if isinstance(files, dict) else list(files)
    items = [((n.upper() if upper else n), d) for n, d in items]
    names = sorted({n for n, _ in items}) if sort else [n for n, _ in items]
    crcs = [zlib.crc32(n.upper().encode("latin-1")) for n, _ in items]
    order = sorted(range(len(items)), key=lambda k: crcs[k]) if sort else list(range(len(items)))
    head = struct.pack("<II", len(names), len(items))
    head += b"".join(struct.pack("<H", len(n)) + n.encode("latin-1") for n in names)
    start = len(head) + 20 * len(items)
    records, blobs = b"", []
    for pos, k in enumerate(order):
        name, data = items[k]
        c = (crc or {}).get(name, crcs[k])
        i = (record_index or {}).get(name, pos)
        records += struct.pack("<5I", c, i, len(data), start, names.index(name))
        blobs.append(data)
        start += len(data)
    return head + records + b"".join(blobs)


def write_meg(path, files, **kw):
    data = build_meg(files, **kw)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
