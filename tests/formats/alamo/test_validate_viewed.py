"""Issue 44 point 3: ``validate``'s lean decode finds exactly what the full decode finds.

Inside :func:`~io_alamo.formats.run_cache.read_only` (``validate``) the decoders leave out
what only writing back needs (:func:`~io_alamo.formats.run_cache.viewing`): mini-chunk
headers keep no layout, animation bones no layout and no translation, scale or bit arrays,
particle tracks no records. Each test runs the command line's check both ways and asserts the
same result dict (problems, severities, messages, ``where``, order, or the same error), on the
corpus, the particle corpus, the saved fuzz inputs, mutated files, and files whose bone and
track chunks were cut, dropped, repeated and swapped where the lean readers take them.
"""

import contextlib
import random
import re
from pathlib import Path

import numpy as np
import pytest
from corpus import CORPUS, corpus_files
from test_validate_lazy import differing

from io_alamo.cli_validate import validate_one
from io_alamo.formats import run_cache
from io_alamo.formats.alamo import alo_read, animation, fields, write_ala, write_alo
from io_alamo.formats.alamo.chunks import read_chunks, write_chunks
from io_alamo.formats.alamo.particles import read as particle_read
from io_alamo.formats.alamo.sample import sample_animation, sample_model

ROOT = Path(__file__).resolve().parents[3]
PARTICLES = CORPUS.parent / "corpus-particles"
# every module that asks viewing(): the full path turns each of them off
VIEWERS = (alo_read, fields, animation, particle_read)


def _both(path, monkeypatch):
    """(lean, full): the command line's result for one file, as data."""
    lean = validate_one(str(path))
    with monkeypatch.context() as m:
        for module in VIEWERS:
            m.setattr(module, "viewing", lambda: False)
        full = validate_one(str(path))
    return lean, full


def test_every_module_that_asks_is_turned_off_by_the_full_path():
    asking = {p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
              for p in (ROOT / "io_alamo").rglob("*.py")
              if re.search(r"\bviewing\(\)", p.read_text(encoding="utf-8"))
              and p.name != "run_cache.py"}
    assert asking == {m.__name__ for m in VIEWERS}


def test_the_lean_decode_finds_what_the_full_decode_finds(tmp_path, monkeypatch):
    assert not differing(_both, tmp_path, monkeypatch)


def test_the_lean_records_leave_out_what_only_writing_needs():
    """The lean path is taken: under read_only() the bones and tracks are lean, outside it
    they are whole."""
    anim = sample_animation(sample_model())
    anim.format = 1
    data = write_ala(anim)
    with run_cache.read_only():
        lean = animation.read_ala(data)
    whole = animation.read_ala(data)
    assert all(b.layout is None and b.translation is None for b in lean.bones)
    assert all(b.layout is not None for b in whole.bones)
    assert any(b.translation is not None for b in whole.bones)
    for a, b in zip(lean.bones, whole.bones):
        assert a.name == b.name and a.index == b.index
        assert np.array_equal(a.rotation, b.rotation) if b.rotation is not None \
            else a.rotation is None
    effect = next(iter(sorted(PARTICLES.glob("*.alo"))), None) if PARTICLES.is_dir() else None
    if effect is not None:
        with run_cache.read_only():
            system = particle_read.read_particles(effect.read_bytes())
        assert all(t is None for e in system.emitters for t in e.tracks)


def _animations():
    model = sample_model()
    out = []
    for fmt in (1, 2):
        anim = sample_animation(model)
        anim.format = fmt
        out.append((f"sample{fmt}.ala", write_ala(anim)))
    out += [(p.name, p.read_bytes()) for p in corpus_files(".ala")[:4]]
    return out


def _effects():
    if not PARTICLES.is_dir():
        return []
    return [(p.name, p.read_bytes()) for p in sorted(PARTICLES.glob("*.alo"))]


def _edit(children, draw):
    """One edit of a list of chunks where a lean reader walks: a body cut short or grown,
    a chunk dropped, repeated, swapped with the next, or turned into a container."""
    k = draw.randrange(len(children))
    c = children[k]
    op = draw.choice(("cut", "grow", "drop", "repeat", "swap", "nest", "cut"))
    if op == "cut" and c.data is not None and len(c.data):
        c.data = bytes(c.data[:draw.randrange(len(c.data))])
    elif op == "grow" and c.data is not None:
        c.data = bytes(c.data) + bytes(draw.choice((1, 2, 8)))
    elif op == "drop":
        del children[k]
    elif op == "repeat":
        children.insert(k, c)
    elif op == "swap" and k + 1 < len(children):
        children[k], children[k + 1] = children[k + 1], c
    elif op == "nest" and c.data is not None:
        c.data, c.children = None, [type(c)(0, data=bytes(c.data))]


def _containers(chunks, want):
    for c in chunks:
        if c.children is not None:
            if want(c):
                yield c
            yield from _containers(c.children, want)


def _models():
    return [("sample.alo", write_alo(sample_model()))] + [
        (p.name, p.read_bytes()) for p in corpus_files(".alo")[:6]]


_CONTAINERS = {"meshes": 0x400, "sub-meshes": 0x10000, "skeletons": 0x200,
               "connections": 0x600, "collision trees": 0x1200}


@pytest.mark.parametrize("kind", ["animation bones", "model bones", "materials",
                                  "particle tracks", "particle groups", *_CONTAINERS])
def test_the_lean_readers_agree_on_broken_bones_and_tracks(kind, tmp_path, monkeypatch):
    """Bone, bone animation and track chunks edited where the lean readers take them: every
    file gets the full decode's result, and both good files and refusals occur."""
    if kind == "animation bones":
        seeds, want = _animations(), (lambda c: c.type == animation.ChunkType.BONE_ANIMATION)
    elif kind in ("model bones", "materials"):
        ctype = animation.ChunkType.BONE if kind == "model bones" else animation.ChunkType.MATERIAL
        seeds, want = _models(), (lambda c: c.type == ctype)
    elif kind in _CONTAINERS:
        seeds, want = _models(), (lambda c: c.type == _CONTAINERS[kind])
    else:
        types = (0x1,) if kind == "particle tracks" else (0x29, 0x1100)
        seeds, want = _effects(), (lambda c: c.type in types)
        if not seeds:
            pytest.skip("no particle corpus")
    draw = random.Random(44)
    verdicts = set()
    for k in range(120):
        name, data = seeds[k % len(seeds)]
        roots = read_chunks(data)
        targets = list(_containers(roots, want))
        if not targets:
            continue
        for _ in range(draw.choice((1, 1, 2))):
            parent = draw.choice(targets)
            if parent.children:
                _edit(parent.children, draw)
        path = tmp_path / f"edited{k}_{name}"
        path.write_bytes(write_chunks(roots))
        lean, full = _both(path, monkeypatch)
        assert lean == full, (k, name)
        verdicts.add(any(p["severity"] == "error" for p in lean["problems"]))
        verdicts.add(lean.get("unread", False) and "unread")
    assert {True, False, "unread"} <= verdicts


def test_a_repeated_track_is_kept_raw_by_both(tmp_path, monkeypatch):
    """Format #1: every track, bit and header chunk of every bone followed by a broken copy
    of itself (one byte short). The reader takes the first of each kind (a one-frame rotation
    as the default rotation counts as the rotation track) and keeps the repeat raw, so the
    file reads as before; the lean reader must decide the same."""
    anim = sample_animation(sample_model())
    anim.format = 1
    anim.bones[0].rotation = None                   # a constant rotation: 8 bytes
    anim.bones[0].default_rotation = np.array([0, 0, 0, 32767], np.int16)
    data = write_ala(anim)
    roots = read_chunks(data)
    bones = list(_containers(roots, lambda c: c.type == animation.ChunkType.BONE_ANIMATION))
    assert any(len(c.data) == 8 for b in bones for c in b.children
               if c.type == animation.ChunkType.ROTATION_TRACK)
    for b in bones:
        b.children = [d for c in b.children for d in (
            c, type(c)(c.type, data=bytes(c.data[:-1]) if len(c.data) else b"\0"))]
    path = tmp_path / "repeats.ala"
    path.write_bytes(write_chunks(roots))
    lean, full = _both(path, monkeypatch)
    assert lean == full
    assert not lean.get("unread")


def test_a_repeated_bone_chunk_is_kept_raw_by_both(tmp_path, monkeypatch):
    """Every bone's name and data followed by another name and data: the reader takes the
    first of each (bone 1's first data names a parent out of range, its repeat a good one),
    so the problem names the first name, and the lean reader must say the same."""
    roots = read_chunks(write_alo(sample_model()))
    bones = list(_containers(roots, lambda c: c.type == animation.ChunkType.BONE))
    bad = bones[1].children[1]
    bad.data = (5000).to_bytes(4, "little") + bytes(bad.data[4:])
    for b in bones:
        b.children = [d for c in b.children for d in (c, type(c)(c.type, data=(
            b"renamed\0" if c.type == animation.ChunkType.BONE_NAME
            else bytes(4) + bytes(c.data[4:]))))]
    path = tmp_path / "repeats.alo"
    path.write_bytes(write_chunks(roots))
    lean, full = _both(path, monkeypatch)
    assert lean == full
    assert any("has parent 5000" in p["message"] and "renamed" not in p["where"]
               for p in lean["problems"])


def test_keys_checked_from_their_bytes_decide_what_the_key_records_decide():
    """The lean track check reads a keys chunk's type and size bytes; it takes exactly the
    bodies the record reader takes: whole runs of 05/08 minis, of any length (past the
    lean check's 4,096 keys too), and no body with a byte of either changed, cut or grown."""
    draw = random.Random(3)
    taken = refused = 0
    for _ in range(4000):
        n = draw.choice((0, 1, 2, 7, 20, 4096, 4097, 5000))
        body = bytearray(b"\x05\x08" + bytes(8)) * n
        for _ in range(draw.choice((0, 0, 1, 2))):
            if body:
                body[draw.randrange(len(body))] = draw.choice((0, 5, 6, 8, 9, 255))
        if body and draw.random() < 0.1:
            body = body[:-1]
        elif draw.random() < 0.05:
            body += b"\x05"
        view = memoryview(bytes(body))
        lean = particle_read._all_keys(view)
        assert lean == (particle_read._key_minis(view) is not None)
        taken, refused = taken + lean, refused + (not lean)
    assert taken > 500 and refused > 500


def test_groups_read_from_a_struct_hold_the_values_the_records_hold():
    """Inside read_only() the particle groups are read with struct, outside with numpy: every
    field of every group of every corpus effect is the same Python value (NaN as NaN)."""
    effects = _effects()
    if not effects:
        pytest.skip("no particle corpus")
    compared = 0
    for name, data in effects:
        whole = particle_read.read_particles(data)
        with run_cache.read_only():
            lean = particle_read.read_particles(data)
        for a, b in zip(lean.emitters, whole.emitters):
            for ga, gb in zip(a.groups, b.groups):
                assert [type(v) for v in ga.values()] == [type(v) for v in gb.values()]
                assert np.array_equal(np.array(ga.values()), np.array(gb.values()),
                                      equal_nan=True), name
                compared += 1
    assert compared > 10


@pytest.mark.parametrize("name", ["Bone_01", "Böne €", "bone \udc81\udc8d", ""])
def test_names_decode_the_same_in_both_readers(name, tmp_path, monkeypatch):
    """Inside read_only() ASCII names are decoded by Python's ASCII decoder, the rest as
    everywhere (cp1252, undefined bytes kept as surrogates): a bone whose problem names it
    is named the same both ways."""
    from io_alamo.formats.alamo import read_alo
    model = sample_model()
    model.bones[1].name = name
    model.bones[1].parent = 5000
    path = tmp_path / "named.alo"
    path.write_bytes(write_alo(model))
    lean, full = _both(path, monkeypatch)
    assert lean == full
    assert any(p["where"] == f"bone 1 ({name!r})" for p in lean["problems"])
    with run_cache.read_only():
        assert read_alo(path.read_bytes()).bones[1].name == name


def test_a_repeated_shader_name_is_kept_raw_by_both(tmp_path, monkeypatch):
    """Every material's shader name followed by a second one no game has: the reader takes
    the first (a real shader: no warning), both ways; a material without any shader name
    is refused both ways."""
    roots = read_chunks(write_alo(sample_model()))
    materials = list(_containers(roots, lambda c: c.type == animation.ChunkType.MATERIAL))
    for m in materials:
        m.children = [d for c in m.children for d in (
            (c, type(c)(c.type, data=b"NoSuchShader.fx\0"))
            if c.type == animation.ChunkType.SHADER_NAME else (c,))]
    path = tmp_path / "shaders.alo"
    path.write_bytes(write_chunks(roots))
    lean, full = _both(path, monkeypatch)
    assert lean == full
    assert not any("NoSuchShader" in p["message"] for p in lean["problems"])
    materials[0].children = [c for c in materials[0].children
                             if c.type != animation.ChunkType.SHADER_NAME]
    path.write_bytes(write_chunks(roots))
    lean, full = _both(path, monkeypatch)
    assert lean == full and lean.get("unread")
    assert "missing material shader name" in lean["problems"][0]["message"]


# (container type, header chunk type, offsets of its uint32 counts)
_COUNTED = ((0x400, 0x402, (0,)), (0x10000, 0x10001, (0, 4)), (0x200, 0x201, (0,)))


def test_the_lean_layouts_keep_the_counts_validate_reports(tmp_path, monkeypatch):
    """Header counts of meshes, sub-meshes and skeletons that disagree with their data:
    reported alike by the lean decode (whose layouts keep only the counts) and the full one;
    and the lean records' layouts keep nothing else."""
    draw = random.Random(45)
    reported = 0
    for k, (name, data) in enumerate(_models() * 3):
        roots = read_chunks(data)
        for ctype, htype, offsets in _COUNTED:
            for parent in _containers(roots, lambda c, t=ctype: c.type == t):
                head = next((c for c in parent.children if c.type == htype and c.data), None)
                if head is not None and len(head.data) >= 8 and draw.random() < 0.5:
                    at = draw.choice(offsets)
                    value = draw.choice((0, 1, 7, 0xFFFFFFFF))
                    head.data = bytes(head.data[:at]) + value.to_bytes(4, "little") \
                        + bytes(head.data[at + 4:])
        path = tmp_path / f"counted{k}_{name}"
        path.write_bytes(write_chunks(roots))
        lean, full = _both(path, monkeypatch)
        assert lean == full, (k, name)
        reported += sum(p["message"].startswith("header says")
                        for p in lean["problems"])
    assert reported
    with run_cache.read_only():
        model = alo_read.read_alo(write_alo(sample_model()))
    layouts = [model.skeleton.layout, *(m.layout for m in model.meshes),
               *(s.layout for m in model.meshes for s in m.submeshes)]
    assert all(type(x).__name__ == "_Looked" and not x.order and not x.tails for x in layouts)


@pytest.mark.parametrize("drop", [(0x29,), (0x1,), (0x29, 0x1)], ids=["groups", "tracks", "both"])
@pytest.mark.parametrize("lean", [False, True], ids=["full", "lean"])
def test_an_emitter_without_groups_or_tracks_gets_the_defaults(drop, lean):
    """The reader makes an emitter's default groups and tracks only when the file has none
    (it replaces them otherwise): emitters whose chunks are dropped read as the defaults,
    the ones they have as read (and those are not all the defaults)."""
    from io_alamo.formats.alamo.particles.records import Emitter
    effects = _effects()
    if not effects:
        pytest.skip("no particle corpus")
    default = Emitter()
    own_groups = own_tracks = False
    for _, data in effects:
        roots = read_chunks(data)
        for c in _containers(roots, lambda c: c.type == 0x700):
            c.children = [k for k in c.children if k.type not in drop]
        with run_cache.read_only() if lean else contextlib.nullcontext():
            emitters = particle_read.read_particles(write_chunks(roots)).emitters
            kept = particle_read.read_particles(data).emitters
        for e, k in zip(emitters, kept, strict=True):
            want = default if 0x29 in drop else k
            assert [g.values() for g in e.groups] == [g.values() for g in want.groups]
            want = default if 0x1 in drop else k
            assert [_track_seen(t) for t in e.tracks] == [_track_seen(t) for t in want.tracks]
            own_groups |= [g.values() for g in k.groups] != [g.values() for g in default.groups]
            own_tracks |= [_track_seen(t) for t in k.tracks] != [_track_seen(t) for t in
                                                               default.tracks]
    assert own_groups and own_tracks


def _track_seen(t):
    return None if t is None else (t.name, t.interpolation, t.keys.tobytes())


def test_lean_properties_give_the_same_values_and_notes(tmp_path, monkeypatch):
    """Emitter property minis grown, cut, repeated, dropped and unknown: the lean reader
    (values and notes, no mini list) gives the full decode's result; notes occur."""
    from io_alamo.formats.alamo.chunks import Mini, read_minis, write_minis
    effects = _effects()
    if not effects:
        pytest.skip("no particle corpus")
    draw = random.Random(46)
    noted = 0
    for k in range(60):
        name, data = effects[k % len(effects)]
        roots = read_chunks(data)
        for emitter in _containers(roots, lambda c: c.type == 0x700):
            for c in emitter.children:
                if c.type != 0x2 or c.data is None:
                    continue
                minis = read_minis(c)
                for _ in range(draw.randrange(4)):
                    i = draw.randrange(len(minis))
                    m = minis[i]
                    op = draw.choice(("grow", "cut", "repeat", "drop", "unknown"))
                    if op == "grow":
                        minis[i] = Mini(m.type, bytes(m.data) + b"\1")
                    elif op == "cut" and m.data:
                        minis[i] = Mini(m.type, bytes(m.data[:-1]))
                    elif op == "repeat":
                        minis.insert(i + 1, Mini(m.type, bytes(draw.randrange(256)
                                                               for _ in range(len(m.data)))))
                    elif op == "drop":
                        del minis[i]
                    else:
                        minis.insert(i, Mini(0xF0, b"\0\0\0\0"))
                c.data = write_minis(minis)
        path = tmp_path / f"props{k}_{name}"
        path.write_bytes(write_chunks(roots))
        lean, full = _both(path, monkeypatch)
        assert lean == full, (k, name)
        noted += sum("property mini" in p["message"] for p in lean["problems"])
    assert noted
