"""Fuzz every Alamo reader with mutated files; save what breaks as a regression fixture.

Seeds are files made by our own code (the spec-built fixtures of ``tests/specbuild.py`` and
the ``io_alamo.formats.alamo.sample`` tank and its animation) and, when ``../shared/corpus`` (or
``--corpus DIR``) exists, real files. Each input is a seed with one to four mutations, byte
level (bit flips, truncation, interesting bytes, spliced runs) and structure aware (chunk
and mini-chunk sizes and counts set to extremes, chunks duplicated, removed, reordered or
moved, strings without terminators, cp1252 and undefined bytes in names, NaN and infinity
in floats). Every input goes through every reader: ``read_alo``, ``read_ala``, ``read_any``,
the chunk dump, validation, the summary, the collision-tree checker, ``decode_animation``,
``decode_bone``, both animation formats, writing back and reading what was written, and the command line
(``info``, ``dump``, ``validate``, ``roundtrip``, ``convert-ala``). With ``--blender`` (run by
a Python with the bpy wheel) the inputs are imported into Blender instead, and each model
that imports is exported again.

What may come out is AlamoFormatError (one line, naming the file), nothing else; each
reader (and each command) must finish an input in under a second, and an input may
allocate at most ``max(128 MB, 50 x its size)`` at the peak of any reader.

    python scripts/fuzz.py --minutes N [--seed S] [--corpus DIR] [--cli-every N]
    python scripts/fuzz.py --replay FILE...      (saved inputs or corpus notes)
    .venvs/bpy45/bin/python scripts/fuzz.py --blender --minutes N   (imports into Blender)

A failing input mutated from a generated seed is saved to ``tests/fixtures/fuzz/`` (the
test suite replays that folder). One mutated from a real file is never stored: game art
does not go into the repository. A note is saved instead, naming the corpus file, its
sha256 and the recipe (random seed and mutations) that turns it into the failing input.
"""

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import random
import signal
import struct
import sys
import tempfile
import time
import traceback
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT), str(ROOT / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import numpy as np  # noqa: E402
import specbuild  # noqa: E402

from io_alamo import cli  # noqa: E402
from io_alamo.formats.alamo import (AlamoFormatError, Animation, Model, check_collision_tree,
                                    convert_animation, decode_animation, decode_bone, read_ala,
                                    read_alo, read_any, read_chunks, write_ala)  # noqa: E402
from io_alamo.formats.alamo.describe import chunk_tree, format_tree, summary  # noqa: E402
from io_alamo.formats.alamo.files import encode  # noqa: E402
from io_alamo.formats.alamo.validate import validate  # noqa: E402

FIXTURE_DIR = ROOT / "tests" / "fixtures" / "fuzz"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
TIME_LIMIT = 1.0           # seconds per reader (and per command) for one input
HANG_LIMIT = 60.0          # an input still running after this is stopped and reported
# Decoding may legitimately grow a file: vertices become float arrays, an animation's
# quantised tracks become float32 per bone and frame, the collision checker holds float64
# triangle boxes; every chunk and mini-chunk becomes a Python object of a few hundred bytes.
# 50 x the input covers that with room. Small files get a floor of 128 MB: what a few bytes
# can claim is capped, not proportional (an animation's bones x frames by the decoder's
# budget, about 42 MB of arrays; the dump of a file at the 100,000-chunk cap, about 80 MB of
# dicts and text).
MEMORY_FLOOR = 128 << 20
MEMORY_FACTOR = 50
FILENAME = "fuzz-input"
PICK_SALT = 1 << 48        # the seed file is picked with its own random stream

CONTAINER_BIT = 0x80000000
SIZE_MASK = 0x7FFFFFFF
_HEADER = struct.Struct("<II")
# Data chunks known to hold mini-chunks (0x0 is a dazzle's child chunk).
MINI_CHUNKS = {0x0, 0x601, 0x602, 0x603, 0x604, 0x1201, 0x1001, 0x1003,
               0x10102, 0x10103, 0x10104, 0x10105, 0x10106}
# Counts and indices worth setting to extremes: chunk type -> offsets of uint32 fields.
COUNT_FIELDS = {0x201: (0,), 0x402: (0, 28, 32, 36), 0x10001: (0, 4), 0x205: (0,),
                0x206: (0, 8), 0x1302: (0,)}
EXTREME_U32 = (0, 1, 2, 0x7F, 0xFF, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE,
               0xFFFFFFFF, 65535 * 144, 100_000, 100_001, 1 << 20)
EXTREME_U16 = (0, 1, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF)
EXTREME_U8 = (0, 1, 0x7F, 0x80, 0xFE, 0xFF)
EXTREME_F32 = (math.nan, math.inf, -math.inf, 3.4e38, -3.4e38, 1e-45, -0.0, 65535.0)
TEXT_BYTES = (b"A", b"\x81", b"\x8d", b"\xfc", b"\xff", b"\\", b"/", b":", b"..\\", b"%s")
BIG_GROWTH = 1 << 20       # many copies of a chunk only while they add at most this much


# --- where the mutations' choices come from ------------------------------------------------

class RandomDraw:
    """Choices from ``random.Random``: fast, and replayable from one integer seed."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)

    def choice(self, seq):
        return seq[self.int(0, len(seq) - 1)]


class HypothesisDraw(RandomDraw):
    """Choices from hypothesis ``data.draw``: the test suite's runs shrink to small inputs."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def int(self, lo, hi):
        return self.data.draw(self.st.integers(lo, hi))


# --- a lenient chunk tree, for mutating (not a reader) --------------------------------------

class Node:
    __slots__ = ("type", "kids", "data")

    def __init__(self, type, kids=None, data=None):
        self.type, self.kids, self.data = type, kids, data


def parse_tree(data, start=0, end=None, depth=0):
    """Chunks of ``data`` as Nodes, or None where the bytes are not a clean chunk tree."""
    end = len(data) if end is None else end
    nodes, pos = [], start
    while pos < end:
        if end - pos < 8 or depth > 60:
            return None
        ctype, raw = _HEADER.unpack_from(data, pos)
        size = raw & SIZE_MASK
        if size > end - pos - 8:
            return None
        body = pos + 8
        if raw & CONTAINER_BIT:
            kids = parse_tree(data, body, body + size, depth + 1)
            if kids is None:
                return None
            nodes.append(Node(ctype, kids=kids))
        else:
            nodes.append(Node(ctype, data=bytes(data[body:body + size])))
        pos = body + size
    return nodes


def write_tree(nodes):
    out = bytearray()
    for n in nodes:
        body = n.data if n.kids is None else write_tree(n.kids)
        flag = 0 if n.kids is None else CONTAINER_BIT
        out += _HEADER.pack(n.type, len(body) | flag) + body
    return bytes(out)


def all_nodes(nodes):
    """(node, its sibling list, index) depth first."""
    for i, n in enumerate(nodes):
        yield n, nodes, i
        if n.kids is not None:
            yield from all_nodes(n.kids)


def chunk_headers(data, start=0, end=None, depth=0):
    """Offsets of every chunk header a walk by sizes reaches (stops where sizes break)."""
    end = len(data) if end is None else end
    out, pos = [], start
    while end - pos >= 8 and depth < 60:
        ctype, raw = _HEADER.unpack_from(data, pos)
        size = raw & SIZE_MASK
        if size > end - pos - 8:
            break
        out.append((pos, ctype, raw))
        if raw & CONTAINER_BIT:
            out += chunk_headers(data, pos + 8, pos + 8 + size, depth + 1)
        pos += 8 + size
    return out


def split_minis(data):
    """[(type, bytes)] when ``data`` is exactly a run of mini-chunks, else None."""
    out, pos = [], 0
    while pos < len(data):
        if len(data) - pos < 2 or data[pos + 1] > len(data) - pos - 2:
            return None
        out.append([data[pos], bytearray(data[pos + 2:pos + 2 + data[pos + 1]])])
        pos += 2 + data[pos + 1]
    return out


def join_minis(minis, sizes=None):
    out = bytearray()
    for k, (mtype, body) in enumerate(minis):
        size = len(body) if sizes is None or sizes[k] is None else sizes[k]
        out += bytes((mtype, size & 0xFF)) + body
    return bytes(out)


# --- mutations ------------------------------------------------------------------------------
# Each takes (bytearray or bytes, draw) and returns (new bytes, description) or None when it
# does not apply to these bytes (then another one is tried).

def _pick_offset(data, draw, width=1, align=1):
    n = (len(data) - width) // align
    return None if n < 0 else draw.int(0, n) * align


def m_bit_flip(data, draw):
    if not data:
        return None
    i = draw.int(0, len(data) - 1)
    bit = draw.int(0, 7)
    out = bytearray(data)
    out[i] ^= 1 << bit
    return bytes(out), f"flip bit {bit} of byte {i}"


def m_interesting_byte(data, draw):
    if not data:
        return None
    i = draw.int(0, len(data) - 1)
    v = draw.choice(EXTREME_U8)
    out = bytearray(data)
    out[i] = v
    return bytes(out), f"byte {i} = {v:#x}"


def m_truncate(data, draw):
    if not data:
        return None
    heads = chunk_headers(data)
    if heads and draw.int(0, 1):
        off, ctype, raw = draw.choice(heads)
        cut = off + draw.choice((0, 1, 4, 7, 8, 9, 8 + (raw & SIZE_MASK) - 1))
        cut = min(max(cut, 0), len(data) - 1)
        return bytes(data[:cut]), f"truncate to {cut} bytes (in chunk 0x{ctype:x} at {off})"
    cut = draw.int(0, len(data) - 1)
    return bytes(data[:cut]), f"truncate to {cut} bytes"


def m_splice(data, draw):
    if not data:
        return None
    i = draw.int(0, len(data))
    j = draw.int(0, len(data) - 1)
    n = draw.int(1, 64)
    return bytes(data[:i]) + bytes(data[j:j + n]) + bytes(data[i:]), \
        f"insert {n} bytes from {j} at {i}"


def m_chunk_size(data, draw):
    heads = chunk_headers(data)
    if not heads:
        return None
    off, ctype, raw = draw.choice(heads)
    size = raw & SIZE_MASK
    flag = raw & CONTAINER_BIT
    new = draw.choice((0, 1, size - 1, size + 1, size - 8, size + 8, SIZE_MASK, 0x7FFFFFF0,
                       size ^ CONTAINER_BIT, 0xFFFFFFFF, CONTAINER_BIT, len(data)))
    new = (new if new > SIZE_MASK else (new & SIZE_MASK) | flag) & 0xFFFFFFFF
    out = bytearray(data)
    struct.pack_into("<I", out, off + 4, new)
    return bytes(out), f"chunk 0x{ctype:x} at {off}: size field {raw:#x} -> {new:#x}"


def m_chunk_type(data, draw):
    heads = chunk_headers(data)
    if not heads:
        return None
    off, ctype, raw = draw.choice(heads)
    others = sorted({t for _, t, _ in heads} | {0, 0xFFFFFFFF})
    new = draw.choice(others)
    out = bytearray(data)
    struct.pack_into("<I", out, off, new)
    return bytes(out), f"chunk 0x{ctype:x} at {off}: type -> 0x{new:x}"


def _tree_op(fn):
    """A mutation on the parsed chunk tree; sizes of every parent are recomputed."""
    def run(data, draw):
        tree = parse_tree(data)
        if not tree:
            return None
        nodes = list(all_nodes(tree))
        done = fn(tree, nodes, draw)
        if done is None:
            return None
        return write_tree(tree), done
    run.__name__ = fn.__name__
    return run


@_tree_op
def m_duplicate_chunk(tree, nodes, draw):
    node, sibs, i = draw.choice(nodes)
    copies = draw.choice((1, 1, 2, 50))
    if copies * _size(node) > BIG_GROWTH:
        copies = 1
    for _ in range(copies):
        sibs.insert(i + 1, _copy(node))
    return f"duplicate chunk 0x{node.type:x} {copies} time(s)"


@_tree_op
def m_remove_chunk(tree, nodes, draw):
    node, sibs, i = draw.choice(nodes)
    del sibs[i]
    return f"remove chunk 0x{node.type:x}"


@_tree_op
def m_swap_chunks(tree, nodes, draw):
    node, sibs, i = draw.choice(nodes)
    if len(sibs) < 2:
        return None
    j = draw.int(0, len(sibs) - 1)
    sibs[i], sibs[j] = sibs[j], sibs[i]
    return f"swap chunks {i} and {j} (0x{sibs[j].type:x}, 0x{sibs[i].type:x})"


@_tree_op
def m_move_chunk(tree, nodes, draw):
    node, sibs, i = draw.choice(nodes)
    targets = [n for n, _, _ in nodes if n.kids is not None and n is not node]
    dest = draw.choice(targets).kids if targets and draw.int(0, 3) else tree
    if _contains(node, dest):
        return None
    del sibs[i]
    dest.insert(draw.int(0, len(dest)), node)
    return f"move chunk 0x{node.type:x} to another parent"


@_tree_op
def m_transplant_chunk(tree, nodes, draw):
    """A chunk from another seed: real-looking data in the wrong place."""
    donor = draw.choice(_donor_chunks())
    node, sibs, i = draw.choice(nodes)
    sibs.insert(i + draw.int(0, 1), _copy(donor))
    return f"insert chunk 0x{donor.type:x} from another file"


@_tree_op
def m_container_flip(tree, nodes, draw):
    node, sibs, i = draw.choice(nodes)
    if node.kids is not None:
        sibs[i] = Node(node.type, data=write_tree(node.kids))
        return f"chunk 0x{node.type:x}: children become raw data"
    kids = parse_tree(node.data)
    if kids is None:
        return None
    sibs[i] = Node(node.type, kids=kids)
    return f"chunk 0x{node.type:x}: raw data read as children"


@_tree_op
def m_body_length(tree, nodes, draw):
    data_nodes = [n for n, _, _ in nodes if n.kids is None]
    if not data_nodes:
        return None
    node = draw.choice(data_nodes)
    how = draw.int(0, 3)
    if how == 0 and node.data:
        cut = draw.int(0, len(node.data) - 1)
        node.data = node.data[:cut]
        return f"chunk 0x{node.type:x}: body cut to {cut} bytes"
    if how == 1:
        n = draw.choice((1, 2, 3, 4, 6, 8, 16, 144, 255, 256))
        node.data = node.data + bytes((draw.int(0, 255),)) * n
        return f"chunk 0x{node.type:x}: body grown by {n} bytes"
    if how == 2:
        node.data = b""
        return f"chunk 0x{node.type:x}: body emptied"
    times = draw.choice((2, 3, 100))
    if times * len(node.data) > BIG_GROWTH:
        times = 2
    node.data = node.data * times
    return f"chunk 0x{node.type:x}: body repeated {times} times"


@_tree_op
def m_field_extreme(tree, nodes, draw):
    """A count, index or float field of a data chunk set to an extreme value."""
    data_nodes = [n for n, _, _ in nodes if n.kids is None and n.data]
    if not data_nodes:
        return None
    node = draw.choice(data_nodes)
    body = bytearray(node.data)
    fields = COUNT_FIELDS.get(node.type, ())
    kind = draw.int(0, 3)
    if kind == 0 and fields and max(fields) + 4 <= len(body):
        at = draw.choice(fields)
        value = draw.choice(EXTREME_U32)
        struct.pack_into("<I", body, at, value)
    elif kind <= 1 and len(body) >= 4:
        at = _pick_offset(body, draw, 4, 4 if draw.int(0, 3) else 1)
        value = draw.choice(EXTREME_U32)
        struct.pack_into("<I", body, at, value)
    elif kind == 2 and len(body) >= 2:
        at = _pick_offset(body, draw, 2, 2)
        value = draw.choice(EXTREME_U16)
        struct.pack_into("<H", body, at, value)
    elif len(body) >= 4:
        at = _pick_offset(body, draw, 4, 4)
        value = draw.choice(EXTREME_F32)
        struct.pack_into("<f", body, at, value)
    else:
        return None
    node.data = bytes(body)
    return f"chunk 0x{node.type:x}: field at {at} = {value!r}"


@_tree_op
def m_mini(tree, nodes, draw):
    """Mini-chunk sizes, counts, order and strings."""
    cands = []
    for n, _, _ in nodes:
        if n.kids is None and n.data:
            minis = split_minis(n.data)
            if minis and (n.type in MINI_CHUNKS or draw.int(0, 7) == 0):
                cands.append((n, minis))
    if not cands:
        return None
    node, minis = draw.choice(cands)
    k = draw.int(0, len(minis) - 1)
    mtype, body = minis[k]
    how = draw.int(0, 7)
    sizes = None
    if how == 0:                                     # size byte wrong (sizes no longer fit)
        sizes = [None] * len(minis)
        sizes[k] = draw.choice((0, 1, 255, len(body) + 1, max(len(body) - 1, 0)))
        what = f"size {len(body)} -> {sizes[k]}"
    elif how == 1:
        del minis[k]
        what = "removed"
    elif how == 2:
        minis.insert(k, [mtype, bytearray(body)])
        what = "duplicated"
    elif how == 3:
        j = draw.int(0, len(minis) - 1)
        minis[k], minis[j] = minis[j], minis[k]
        what = f"swapped with mini {j}"
    elif how == 4:                                   # a string without its terminator
        if b"\0" not in body:
            return None
        minis[k][1] = body.replace(b"\0", b"A")
        what = "zero bytes replaced by 'A'"
    elif how == 5:                                   # longest strings, odd bytes in them
        fill = draw.choice(TEXT_BYTES)
        text = (fill * 255)[:draw.choice((253, 254, 255))]
        minis[k][1] = bytearray(text[:254] + b"\0" if len(text) == 255 and draw.int(0, 1)
                                else text)
        what = f"body {len(minis[k][1])} bytes of {fill!r}"
    elif how == 6 and len(body) in (2, 4):           # integers to extremes
        value = draw.choice(EXTREME_U32 if len(body) == 4 else EXTREME_U16)
        minis[k][1] = bytearray(struct.pack("<I" if len(body) == 4 else "<H", value))
        what = f"value {value:#x}"
    else:                                            # wrong width
        minis[k][1] = body + b"\x01" if draw.int(0, 1) else body[:-1]
        what = f"body {len(body)} -> {len(minis[k][1])} bytes"
    node.data = join_minis(minis, sizes)
    return f"chunk 0x{node.type:x} mini 0x{mtype:x} (#{k}): {what}"


@_tree_op
def m_string_chunk(tree, nodes, draw):
    """A zero-terminated name chunk without its terminator, at its limits, or non-ASCII."""
    cands = [n for n, _, _ in nodes if n.kids is None and n.data and n.data.endswith(b"\0")
             and n.type in (0x203, 0x401, 0x10101, 0x10002, 0x1301)]
    if not cands:
        return None
    node = draw.choice(cands)
    how = draw.int(0, 3)
    if how == 0:
        node.data = node.data.replace(b"\0", b"A")
        return f"chunk 0x{node.type:x}: string without terminator"
    fill = draw.choice(TEXT_BYTES)
    n = draw.choice((1, 63, 64, 254, 255, 256, 4000))
    node.data = (fill * n)[:n] + (b"\0" if how < 3 else b"\0\xff\xff")
    return f"chunk 0x{node.type:x}: {n}-byte string of {fill!r}"


BYTE_MUTATIONS = (m_bit_flip, m_interesting_byte, m_truncate, m_splice)
CHUNK_MUTATIONS = (m_chunk_size, m_chunk_type, m_duplicate_chunk, m_remove_chunk,
                   m_swap_chunks, m_move_chunk, m_transplant_chunk, m_container_flip,
                   m_body_length, m_field_extreme, m_mini, m_string_chunk)
# structure-aware mutations twice as likely as byte-level ones
MUTATIONS = BYTE_MUTATIONS + CHUNK_MUTATIONS + CHUNK_MUTATIONS


def _copy(node):
    if node.kids is None:
        return Node(node.type, data=node.data)
    return Node(node.type, kids=[_copy(k) for k in node.kids])


def _contains(node, nodes):
    return node.kids is not None and (node.kids is nodes or any(
        _contains(k, nodes) for k in node.kids))


_DONORS = []


def _donor_chunks():
    if not _DONORS:
        for seed in generated_seeds():
            tree = parse_tree(seed.data) or []
            _DONORS.extend(n for n, _, _ in all_nodes(tree) if _size(n) < 4096)
    return _DONORS


def _size(node):
    return len(node.data) if node.kids is None else sum(8 + _size(k) for k in node.kids)


def mutate(data, draw, max_steps=4):
    """``data`` with one to ``max_steps`` mutations; returns (bytes, descriptions)."""
    steps = []
    for _ in range(draw.int(1, max_steps)):
        for _attempt in range(8):
            op = draw.choice(MUTATIONS)
            done = op(data, draw)
            if done is not None:
                data = done[0]
                steps.append(f"{op.__name__[2:]}: {done[1]}")
                break
        if not data:
            break
    return bytes(data), steps


# --- seeds ----------------------------------------------------------------------------------

@dataclass
class Seed:
    name: str
    data: bytes
    origin: str              # "generated" (may be stored in the repository) or "corpus"

    @property
    def suffix(self):
        return ".ala" if self.data[:4] == b"\0\x10\0\0" else ".alo"


_GENERATED = []


def generated_seeds():
    """Files our own code makes: the spec-built fixtures and the sample tank."""
    if _GENERATED:
        return _GENERATED
    from io_alamo.formats.alamo import write_alo
    from io_alamo.formats.alamo.sample import sample_animation, sample_model
    for name, fixture in specbuild.ALL_FIXTURES.items():
        _GENERATED.append(Seed(name, fixture()[0], "generated"))
    model = sample_model()
    anim = sample_animation(model, frames=12)
    _GENERATED.append(Seed("sample_model", write_alo(model), "generated"))
    _GENERATED.append(Seed("sample_animation_v2", write_ala(anim), "generated"))
    _GENERATED.append(Seed("sample_animation_v1", write_ala(convert_animation(anim, 1)),
                           "generated"))
    return _GENERATED


def corpus_seeds(folder, max_bytes=None):
    folder = Path(folder)
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in (".alo", ".ala") and (max_bytes is None
                                                     or p.stat().st_size <= max_bytes):
            out.append(Seed(p.name, p.read_bytes(), "corpus"))
    return out


# --- running the readers ----------------------------------------------------------------------

class Hang(BaseException):
    """Raised by the watchdog alarm inside an input that runs far too long."""


@contextlib.contextmanager
def watchdog(seconds):
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def fire(signum, frame):
        raise Hang(f"still running after {seconds:g} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def check_steps(data, steps, error_type, filename, time_limit=TIME_LIMIT):
    """Run each ``(name, fn)`` of ``steps`` on one input, as the readers' twins' fuzzers do
    (fuzz_alm1.py, fuzz_particles.py): only ``error_type`` may come out, in one line naming
    ``filename``; each step within ``time_limit`` and ``max(MEMORY_FLOOR, MEMORY_FACTOR x the
    input)`` bytes. Returns (problems found, {name: what the step returned})."""
    found, outputs = [], {}
    budget = max(MEMORY_FLOOR, MEMORY_FACTOR * len(data))
    for name, fn in steps:
        tracemalloc.start()
        t = time.process_time()   # CPU time: a loaded machine must not make a failure
        try:
            with watchdog(time_limit * 10):
                outputs[name] = fn()
        except error_type as e:
            if "\n" in str(e) or filename not in str(e):
                found.append(f"{name}: unclear error {str(e)!r}")
        except BaseException as e:  # noqa: BLE001 - anything else is what we look for
            found.append(f"{name}: {type(e).__name__}: {e}"[:300])
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        cpu = time.process_time() - t
        if cpu > time_limit:
            found.append(f"{name}: slow ({cpu:.2f} s of CPU)")
        if peak > budget:
            found.append(f"{name}: allocated {peak:,} bytes for a {len(data):,}-byte input")
    return found, outputs


def _where(exc):
    """Where in our code an exception came from: the innermost frame of io_alamo (or of the
    traceback, when none is ours)."""
    tb = traceback.extract_tb(exc.__traceback__)
    if not tb:
        return ""
    ours = [f for f in tb if "io_alamo" in f.filename and "site-packages" not in f.filename]
    f = (ours or tb)[-1]
    return f" at {os.path.relpath(f.filename, ROOT)}:{f.lineno}"


class _Checker:
    """Runs one step; collects anything but a clean AlamoFormatError as a problem, and
    steps slower than the time limit."""

    def __init__(self, time_limit=None):
        self.problems = []
        self.readable = False
        self.time_limit = time_limit
        self.slowest = (0.0, "")

    def step(self, name, fn, *args, expect_error=True):
        start = time.perf_counter()
        # The limit is on CPU time: a loaded machine slows the wall clock, not a reader's work.
        cpu_start = time.process_time()
        try:
            return True, fn(*args)
        except AlamoFormatError as e:
            text = str(e)
            if not expect_error:
                self.problems.append(f"{name}: AlamoFormatError where none may come: {text}")
            elif "\n" in text:
                self.problems.append(f"{name}: error message is not one line: {text!r}")
            elif e.filename is None and FILENAME in args:
                self.problems.append(f"{name}: error does not name the file: {text}")
            return False, e
        except (Hang, KeyboardInterrupt):
            raise
        except BaseException as e:  # the point of fuzzing: anything else is a bug
            self.problems.append(f"{name}: {type(e).__name__}: {e}"[:400] + _where(e))
            return False, e
        finally:
            seconds = time.perf_counter() - start
            cpu = time.process_time() - cpu_start
            if seconds > self.slowest[0]:
                self.slowest = (seconds, name)
            if self.time_limit is not None and cpu > self.time_limit:
                self.problems.append(f"slow: {name} took {cpu:.2f} s of CPU")


def _dump(data, as_json):
    tree = chunk_tree(read_chunks(data))
    return json.dumps(tree) if as_json else "\n".join(format_tree(tree))


def run_readers(data, check):
    """Every reader of the format layer on ``data``. Results are dropped between steps, so
    the peak memory is that of the hungriest step (with the file's records loaded)."""
    check.step("read_chunks", read_chunks, data)
    check.step("dump", _dump, data, False)
    check.step("dump --json", _dump, data, True)
    check.step("read_alo", read_alo, data, FILENAME)
    check.step("read_ala", read_ala, data, FILENAME)
    ok, obj = check.step("read_any", read_any, data, FILENAME)
    check.readable = ok
    if not ok:
        return
    check.step("validate", validate, obj, expect_error=False)
    check.step("summary", summary, obj, expect_error=False)
    if isinstance(obj, Model):
        for mesh in obj.meshes:
            for sub in mesh.submeshes:
                if sub.collision_tree is not None:
                    for rounded in (True, False):
                        check.step("check_collision_tree", _check_tree, sub, rounded,
                                   expect_error=False)
    if isinstance(obj, Animation):
        check.step("decode_animation", decode_animation, obj)
        check.step("decode_bone", _decode_bones, obj, expect_error=False)
        for fmt in (1, 2):
            check.step(f"convert to format #{fmt}", _convert, obj, fmt, check)
    ok, out = check.step("write back", encode, obj)
    if ok:
        if out != data:
            check.problems.append("write back: not byte-identical to what was read")
        check.step("read what was written", read_any, out, expect_error=False)


def _decode_bones(anim):
    return [decode_bone(b, int(anim.num_frames), full=False) for b in anim.bones]


def _convert(anim, fmt, check):
    out = write_ala(convert_animation(anim, fmt))
    check.step(f"read what format #{fmt} wrote", read_ala, out, expect_error=False)


def _check_tree(sub, rounded):
    found = check_collision_tree(sub.collision_tree, sub.vertices["position"], sub.indices,
                                 rounded_boxes=rounded)
    if any("checker could not finish" in p for p in found):
        raise RuntimeError(next(p for p in found if "checker could not finish" in p))
    return found


CLI_VERBS = (("info",), ("dump",), ("dump", "--json"), ("validate",), ("roundtrip",),
             ("convert-ala", "--format", "1"), ("convert-ala", "--format", "2"))


def run_cli(data, check, folder):
    """``python -m io_alamo VERB`` in this process: status 0 or 1, at most one line on
    stderr, never a traceback, no file written but the chosen output, under the time
    limit per verb."""
    src = os.path.join(folder, FILENAME)
    with open(src, "wb") as f:
        f.write(data)
    out_path = os.path.join(folder, "converted.ala")
    for verb in CLI_VERBS:
        name = f"cli {' '.join(verb)}"
        args = [verb[0], src] + ([out_path] if verb[0] == "convert-ala" else []) + list(verb[1:])
        stdout, stderr = io.StringIO(), io.StringIO()

        def run():
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                return cli.main(args)
        ok, status = check.step(name, run, expect_error=False)
        if not ok:
            continue
        err = stderr.getvalue()
        if status not in (0, 1):
            check.problems.append(f"{name}: exit status {status!r}")
        if err.count("\n") > 1 or "Traceback" in err:
            check.problems.append(f"{name}: more than one line on stderr: {err[:300]!r}")
        if status == 1 and verb[0] in ("info", "dump", "convert-ala") and not err.strip():
            check.problems.append(f"{name}: failed without saying why")
        left = sorted(set(os.listdir(folder)) - {FILENAME, "converted.ala"})
        if left:
            check.problems.append(f"{name}: left files behind: {left}")
        if os.path.exists(out_path):
            os.unlink(out_path)


@dataclass
class Outcome:
    problems: list
    seconds: float           # every reader (and the command line), without tracing
    slowest: tuple           # (seconds, step) of the slowest step
    peak: int                # bytes allocated at the peak of the readers, traced
    limit: int
    readable: bool           # read_any accepted the input


def memory_limit(data):
    return max(MEMORY_FLOOR, MEMORY_FACTOR * len(data))


def check_input(data, cli_folder=None, time_limit=TIME_LIMIT):
    """Run every reader (and the command line when ``cli_folder`` is given) on ``data``.

    Two passes: one timed (each reader, and each command, under ``time_limit``; a slow one
    is timed again, so that a busy machine does not make a failure), one under tracemalloc
    for the peak allocation (tracing slows Python code several times over, so it would
    spoil the timing).
    """
    start = time.perf_counter()
    check = _timed_pass(data, cli_folder, time_limit)
    if any(p.startswith("slow:") for p in check.problems):
        again = _timed_pass(data, cli_folder, time_limit)
        check.problems = [p for p in check.problems if not p.startswith("slow:")] + [
            p for p in again.problems if p.startswith("slow:")]
    seconds = time.perf_counter() - start
    if any(p.startswith("hang:") for p in check.problems):
        return Outcome(check.problems, seconds, check.slowest, 0, memory_limit(data),
                       check.readable)
    peak = measure_peak(data)
    limit = memory_limit(data)
    if peak > limit:
        check.problems.append(f"memory: peak {peak / 1e6:.1f} MB for {len(data)} bytes "
                              f"(limit {limit / 1e6:.0f} MB)")
    return Outcome(check.problems, seconds, check.slowest, peak, limit, check.readable)


def _timed_pass(data, cli_folder, time_limit):
    check = _Checker(time_limit)
    try:
        with np.errstate(all="ignore"), watchdog(HANG_LIMIT):
            run_readers(data, check)
            if cli_folder is not None:
                run_cli(data, check, cli_folder)
    except Hang as e:
        check.problems.append(f"hang: {e}")
    return check


def measure_peak(data):
    """Peak bytes allocated (numpy arrays included) while every reader runs on ``data``."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        with np.errstate(all="ignore"), watchdog(HANG_LIMIT):
            run_readers(data, _Checker())
    except Hang:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1] - base
        if not was_tracing:
            tracemalloc.stop()
    return peak


# --- saving and replaying failures ------------------------------------------------------------

def save_failure(data, seed, rng_seed, steps, problems, folder=FIXTURE_DIR):
    """Store a failing input (generated seeds) or a note how to remake it (corpus seeds)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(data).hexdigest()
    note = {"seed": seed.name, "origin": seed.origin, "rng_seed": rng_seed,
            "mutations": steps, "sha256": digest, "problems": problems[:5]}
    if seed.origin == "generated":
        path = folder / f"{seed.name}-{digest[:12]}{seed.suffix}"
        path.write_bytes(data)
        (folder / f"{path.name}.json").write_text(json.dumps(note, indent=1) + "\n")
    else:
        note["corpus_sha256"] = hashlib.sha256(seed.data).hexdigest()
        path = folder / f"corpus-{digest[:12]}.json"
        path.write_text(json.dumps(note, indent=1) + "\n")
    return path


def fixture_inputs(folder=FIXTURE_DIR, corpus=DEFAULT_CORPUS):
    """(name, bytes or None, why skipped) for every saved input and corpus note."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in (".alo", ".ala", ".bin"):
            out.append((p.name, p.read_bytes(), None))
        elif p.name.startswith("corpus-") and p.suffix == ".json":
            out.append((p.name, *remake_from_note(json.loads(p.read_text()), corpus)))
    return out


def remake_from_note(note, corpus=DEFAULT_CORPUS):
    """The input a corpus note describes, or (None, reason) when it cannot be remade."""
    src = Path(corpus) / note["seed"]
    if not src.is_file():
        return None, f"corpus file {note['seed']} not available"
    seed_data = src.read_bytes()
    if hashlib.sha256(seed_data).hexdigest() != note.get("corpus_sha256"):
        return None, f"corpus file {note['seed']} differs from the one the note was made with"
    data, _ = mutate(seed_data, RandomDraw(note["rng_seed"]))
    if hashlib.sha256(data).hexdigest() != note["sha256"]:
        return None, "the mutations have changed since the note was written"
    return data, None


# --- the long run ------------------------------------------------------------------------------

def _limit_address_space(gigabytes):
    """Turn a runaway allocation into a MemoryError instead of the system's OOM killer."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = gigabytes << 30
    if hard == resource.RLIM_INFINITY or hard > want:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))


def fuzz(seconds, seed=0, corpus=None, cli_every=4, out=FIXTURE_DIR, log=print,
         max_inputs=None, blender=False):
    """Mutate and check inputs for ``seconds``; the command line runs on every
    ``cli_every``-th input (0: never). With ``blender`` (a Python with the bpy wheel) the
    inputs are imported into Blender instead. Returns counts and the saved paths."""
    seeds = generated_seeds() + (corpus_seeds(corpus) if corpus else [])
    n_gen = len(generated_seeds())
    log(f"{len(seeds)} seeds ({n_gen} generated, {len(seeds) - n_gen} from {corpus}); "
        f"run seed {seed}" + (" (importing into Blender)" if blender else ""))
    stats = {"inputs": 0, "readable": 0, "failures": 0, "saved": []}
    seen = set()
    start = last = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="alamo-fuzz-") as tmp, \
            (BlenderCheck(tmp) if blender else contextlib.nullcontext()) as in_blender:
        i = 0
        while time.perf_counter() - start < seconds and (max_inputs is None
                                                          or i < max_inputs):
            rng_seed = seed * 1_000_003 + i
            s = RandomDraw(rng_seed + PICK_SALT).choice(seeds)
            data, steps = mutate(s.data, RandomDraw(rng_seed))
            i += 1
            if blender:
                outcome = in_blender.check(data, s.suffix)
            else:
                use_cli = cli_every and i % cli_every == 0
                outcome = check_input(data, cli_folder=tmp if use_cli else None)
            stats["inputs"] += 1
            stats["readable"] += outcome.readable
            if outcome.problems:
                key = tuple(sorted(p.split(":")[0] + _site(p) for p in outcome.problems))
                stats["failures"] += 1
                if key not in seen:
                    seen.add(key)
                    path = save_failure(data, s, rng_seed, steps, outcome.problems, out)
                    stats["saved"].append(str(path))
                    log(f"FAIL #{i} {s.name} ({'; '.join(steps)})")
                    for p in outcome.problems[:5]:
                        log(f"    {p}")
                    log(f"    saved {path}")
            now = time.perf_counter()
            if now - last > 30:
                rate = stats["inputs"] / (now - start)
                log(f"  {stats['inputs']} inputs, {rate:.0f}/s, {stats['failures']} failing")
                last = now
    stats["seconds"] = time.perf_counter() - start
    return stats


class BlenderCheck:
    """Imports inputs into Blender (the bpy wheel): .alo files as models (each then exported
    again), .ala files onto a model's armature. Only AlamoFormatError may come out, and
    then no data collection has changed; a model that imports exports (or is refused with
    a clear ExportError)."""

    RESET_EVERY = 40                       # a fresh scene now and then keeps it small

    def __init__(self, folder):
        self.folder = folder
        self.count = 0

    def __enter__(self):
        import bpy

        import io_alamo
        from io_alamo.formats.alamo import save
        from io_alamo.formats.alamo.sample import sample_model
        self.bpy, self.addon = bpy, io_alamo
        io_alamo.register()
        self.base = os.path.join(self.folder, "base.alo")
        save(sample_model(), self.base)
        return self

    def __exit__(self, *exc):
        self.addon.unregister()           # Blender 4.2/4.5 crash at exit otherwise
        return False

    def _reset(self):
        from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
        self.bpy.ops.wm.read_factory_settings(use_empty=True)
        self.armature = import_alo(self.bpy.context, self.base,
                                   AloImportOptions(import_animations=False)).armature

    def counts(self):
        data = self.bpy.data
        return {n: len(getattr(data, n)) for n in dir(data)
                if isinstance(getattr(data, n, None), self.bpy.types.bpy_prop_collection)}

    def check(self, data, suffix):
        from io_alamo.blender.alamo.exporter.alo import ExportError, AloExportOptions, export_alo
        from io_alamo.blender.alamo.importer.ala import import_ala
        from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alamo
        if self.count % self.RESET_EVERY == 0:
            self._reset()
        self.count += 1
        path = os.path.join(self.folder, "input" + suffix)
        with open(path, "wb") as f:
            f.write(data)
        problems, readable = [], False
        before = self.counts()
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            with np.errstate(all="ignore"), watchdog(HANG_LIMIT):
                if suffix == ".alo":
                    import_alamo(self.bpy.context, path, AloImportOptions(import_animations=False))
                    readable = True
                    try:
                        export_alo(self.bpy.context, os.path.join(self.folder, "out.alo"),
                                   AloExportOptions())
                    except (ExportError, AlamoFormatError, OSError):
                        pass
                    self.bpy.context.view_layer.objects.active = self.armature
                else:
                    import_ala(self.bpy.context, self.armature, path)
                    readable = True
        except AlamoFormatError as e:
            if self.counts() != before:
                problems.append(f"import refused the file but changed the data: {e}")
        except Hang as e:
            problems.append(f"hang: {e}")
        except Exception as e:
            problems.append(f"blender: {type(e).__name__}: {e}"[:400] + _where(e))
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        if cpu > 5 * TIME_LIMIT:
            problems.append(f"slow: import and export took {cpu:.1f} s of CPU")
        return Outcome(problems, seconds, (seconds, "blender"), 0, 0, readable)


def _site(problem):
    at = problem.rfind(" at ")
    return problem[at:] if at >= 0 else ""


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=1.0, help="how long to run (default 1)")
    p.add_argument("--seed", type=int, default=None, help="run seed (default: from the clock)")
    p.add_argument("--corpus", default=str(DEFAULT_CORPUS),
                   help="folder of real .alo/.ala files to mutate too (default ../shared/corpus)")
    p.add_argument("--cli-every", type=int, default=4, metavar="N",
                   help="run the command line on every N-th input (default 4; 0: never)")
    p.add_argument("--out", default=str(FIXTURE_DIR), help="where failing inputs are saved")
    p.add_argument("--replay", nargs="+", metavar="FILE",
                   help="run saved inputs or corpus notes and print what they do")
    p.add_argument("--memory-gb", type=int, default=8,
                   help="address-space limit, so a runaway allocation fails cleanly")
    p.add_argument("--blender", action="store_true",
                   help="import the inputs into Blender (run with a Python that has bpy)")
    args = p.parse_args(argv)
    if not args.blender:
        _limit_address_space(args.memory_gb)
    if args.replay:
        return replay(args.replay, args.corpus, args.blender)
    seed = args.seed if args.seed is not None else int(time.time())
    stats = fuzz(args.minutes * 60, seed, args.corpus, args.cli_every, args.out,
                 blender=args.blender)
    rate = stats["inputs"] / max(stats["seconds"], 1e-9)
    print(f"{stats['inputs']} inputs in {stats['seconds']:.0f} s ({rate:.1f} inputs/s; "
          f"{stats['readable']} readable, {stats['inputs'] - stats['readable']} refused), "
          f"{stats['failures']} failing, {len(stats['saved'])} saved (seed {seed})")
    return 1 if stats["failures"] else 0


def replay(paths, corpus, blender=False):
    """Check saved inputs and corpus notes again; folders are replayed whole."""
    status = 0
    files = []
    for name in paths:
        path = Path(name)
        files += sorted(path.iterdir()) if path.is_dir() else [path]
    with tempfile.TemporaryDirectory(prefix="alamo-fuzz-") as tmp, \
            (BlenderCheck(tmp) if blender else contextlib.nullcontext()) as in_blender:
        for path in files:
            if path.suffix == ".json" and not path.name.startswith("corpus-"):
                continue                        # the note beside a saved input
            if path.suffix == ".json":
                note = json.loads(path.read_text())
                data, why = remake_from_note(note, corpus)
                if data is None:
                    print(f"{path}: skipped: {why}")
                    continue
                suffix = Path(note["seed"]).suffix.lower()
            elif path.suffix.lower() in (".alo", ".ala"):
                data, suffix = path.read_bytes(), path.suffix.lower()
            else:
                continue
            if blender:
                outcome = in_blender.check(data, suffix)
            else:
                outcome = check_input(data, cli_folder=tmp)
            print(f"{path}: {'ok' if not outcome.problems else 'FAILS'} "
                  f"({outcome.seconds:.3f} s, peak {outcome.peak / 1e6:.1f} MB)")
            for p in outcome.problems:
                print(f"    {p}")
            status |= bool(outcome.problems)
    return status


if __name__ == "__main__":
    sys.exit(main())
