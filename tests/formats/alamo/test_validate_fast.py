"""Issue 44 point 3: the loader rules' short cuts decide what their step-by-step checks decide.

``validate`` takes a header's mini-chunks at once when the rules' steps have already taken that
sequence of mini types (``game_rules._plan``: then only the sizes are checked), a skeleton bone
at once when it is the plain name-and-data bone the loader reads (``game_rules._plain_bone``),
and a particle track's keys straight from their bytes (``particles.game_rules._keys_taken``).
Each test runs the command line's result with the short cuts and with each of them turned off
(every header stepped through, every bone and key looked at one by one) and asserts the same
problems, text and order, on the corpus, the particle corpus, the saved fuzz inputs, mutated
files and effects whose keys the short cut must hand back.
"""

import struct
from collections import Counter

import numpy as np
import pytest
from corpus import CORPUS, corpus_files
from test_collision import grid, scattered
from test_validate_lazy import _files, _mutated

from io_alamo.cli_validate import validate_one
from io_alamo.formats.errors import AlamoFormatError
from io_alamo.formats.alamo import (CollisionTree, build_collision_tree, check_collision_tree,
                                   game_rules, loader_runs, read_ala, read_alo, write_alo)
from io_alamo.formats.alamo.collision import check as collision_check
from io_alamo.formats.alamo.chunks import (MAX_MINIS, Chunk, read_chunks, read_minis,
                                           write_chunks)
from io_alamo.formats.alamo.particles import game_rules as particle_rules
from io_alamo.formats.alamo.sample import sample_model
from io_alamo.formats.alamo import validate as validate_module
from io_alamo.formats.alamo.validate import validate

PARTICLES = CORPUS.parent / "corpus-particles"


def _effects():
    return sorted(p for p in PARTICLES.glob("*") if p.suffix.lower() == ".alo")


def _step_by_step(m):
    m.setattr(game_rules, "_plan", lambda *a: None)
    m.setattr(game_rules, "_plain_bone", lambda *a: None)
    m.setattr(game_rules, "_bones_taken", lambda *a: 0)
    m.setattr(game_rules, "_submeshes_taken", lambda *a: 0)
    m.setattr(game_rules, "_connections_taken", lambda *a: 0)
    m.setattr(particle_rules, "_keys_taken", lambda *a: False)


def _both(path, monkeypatch):
    """(with the short cuts, step by step): the command line's result for one file."""
    short = validate_one(str(path))
    with monkeypatch.context() as m:
        _step_by_step(m)
        full = validate_one(str(path))
    return short, full


def _written(folder, name, data):
    path = folder / name
    path.write_bytes(data)
    return path


def test_the_short_cuts_decide_what_the_steps_decide(tmp_path, monkeypatch):
    results = [(name, *_both(_written(tmp_path, name, data), monkeypatch))
               for name, data in _files() + _mutated()]
    assert len(results) > 150
    assert [name for name, short, full in results if short != full] == []
    refused = sum(any("game loader rule" in p["message"] for p in short["problems"])
                  for _, short, _ in results)
    assert refused > 20         # the mutated files reach the rules' refusals too


def test_the_short_cuts_are_taken_on_real_files(monkeypatch):
    """They are no dead code: the corpus' headers, bones and keys go through them."""
    taken = {"plan": 0, "bone": 0, "keys": 0, "animation bones": 0, "sub-meshes": 0}

    def count(key, fn, hit):
        def wrapped(*a):
            out = fn(*a)
            taken[key] += hit(out)
            return out
        return wrapped
    monkeypatch.setattr(game_rules, "_plan", count("plan", game_rules._plan,
                                                   lambda v: v is not None))
    monkeypatch.setattr(game_rules, "_plain_bone", count("bone", game_rules._plain_bone,
                                                         lambda v: v is not None))
    monkeypatch.setattr(particle_rules, "_keys_taken", count("keys", particle_rules._keys_taken,
                                                             bool))
    monkeypatch.setattr(game_rules, "_bones_taken", count(
        "animation bones", game_rules._bones_taken, lambda v: v))
    monkeypatch.setattr(game_rules, "_submeshes_taken", count(
        "sub-meshes", game_rules._submeshes_taken, lambda v: v))
    paths = corpus_files(".alo", ".ala") + _effects()
    for p in paths:
        validate_one(str(p))
    assert taken["plan"] > 500 and taken["bone"] > 500 and taken["keys"] > 50
    assert taken["animation bones"] > 300 and taken["sub-meshes"] > 100


def _keys_chunks(roots):
    """Every particle track's keys chunk (0x01 after a 0x00 header in a 0x01 container)."""
    out = []
    for c in roots:
        if c.children is None:
            continue
        if c.type == 0x01 and all(k.type in (0, 1) for k in c.children):
            out += [k for k in c.children if k.type == 0x01 and k.children is None]
        out += _keys_chunks(c.children)
    return out


def _rewrite(roots, keys, body):
    """The effect with ``keys`` (a chunk of ``roots``) holding ``body``."""
    def copy(c):
        if c is keys:
            return Chunk(c.type, data=body)
        if c.children is None:
            return Chunk(c.type, data=bytes(c.data))
        return Chunk(c.type, children=[copy(k) for k in c.children])
    return write_chunks([copy(c) for c in roots])


def _key_edits():
    """Edits of a colour track's keys (value uint32, time float32) and of a float track's
    keys, each as (label, colour track?, function of the key records)."""
    def at(k, field, value):
        def edit(rec):
            rec[field][min(k, len(rec) - 1)] = value
        return edit

    def mini(k, field, value):
        def edit(rec):
            rec[field][min(k, len(rec) - 1)] = value
        return edit
    return [("sound", True, lambda rec: None), ("sound", False, lambda rec: None),
            ("time past 1", True, at(-1, "time", 1.5)), ("time NaN", False, at(0, "time", np.nan)),
            ("times out of order", True, lambda rec: rec["time"].__setitem__(
                slice(None), rec["time"][::-1].copy())),
            ("negative first time", False, at(0, "time", -0.25)),
            ("colour 256", True, at(0, "value", 256)), ("colour 255", True, at(0, "value", 255)),
            ("mini type 6", True, mini(0, "type", 6)), ("mini size 9", False, mini(0, "size", 9)),
            ("time exactly 1", False, at(-1, "time", 1.0))]


def _record_dtype(colour):
    return np.dtype([("type", "u1"), ("size", "u1"), ("value", "<u4" if colour else "<f4"),
                     ("time", "<f4")])


@pytest.mark.parametrize("label, colour, edit", _key_edits(),
                         ids=[f"{e[0]}-{'colour' if e[1] else 'float'}" for e in _key_edits()])
def test_keys_taken_from_their_bytes_decide_what_the_minis_decide(label, colour, edit, tmp_path,
                                                                   monkeypatch):
    found = [(roots, k, rec) for p in _effects()
             for roots in [read_chunks(p.read_bytes())]
             for i, k in enumerate(_keys_chunks(roots)) if (i % 7 < 4) == colour     # colours
             for rec in [np.frombuffer(bytes(k.data), _record_dtype(colour)).copy()]  # first
             if len(rec) >= 3 and len(set(rec["time"].tolist())) > 1]
    if not found:
        pytest.skip("no particle corpus")
    roots, keys, rec = found[0]
    edit(rec)
    path = tmp_path / "p_edited.alo"
    path.write_bytes(_rewrite(roots, keys, rec.tobytes()))
    short, full = _both(path, monkeypatch)
    assert short == full
    refused = any("track key" in p["message"] for p in short["problems"])   # rule or reader
    if label != "mini size 9":          # the minis after it no longer line up: whatever it is
        assert refused == (label not in ("sound", "colour 255", "time exactly 1"))


@pytest.mark.parametrize("extra", [0, 16])
def test_keys_count_in_the_mini_budget_as_the_minis_do(extra, tmp_path, monkeypatch):
    """A keys chunk that takes a file to (or past) the 100,000 mini-chunks a reader accepts
    gives the same verdict both ways: the short cut counts its keys as read_minis would."""
    source = PARTICLES / "P_EXPLOSION_EXAMPLE.ALO"
    if not source.exists():
        pytest.skip("no particle corpus")
    roots = read_chunks(source.read_bytes())
    keys = _keys_chunks(roots)[4]
    n = MAX_MINIS - 40 + extra
    rec = np.zeros(n, _record_dtype(False))
    rec["type"], rec["size"], rec["time"] = 5, 8, np.linspace(0, 1, n, dtype=np.float32)
    path = tmp_path / "p_many_keys.alo"
    path.write_bytes(_rewrite(roots, keys, rec.tobytes()))
    short, full = _both(path, monkeypatch)
    assert short == full
    assert any(f"{MAX_MINIS:,} mini-chunks" in p["message"] for p in short["problems"])


@pytest.mark.parametrize("column, weight, beyond", [(1, 0.0, False), (1, 0.5, True),
                                                     (0, 0.0, True), (3, 0.25, True),
                                                     (2, 0.0, False)])
def test_vertex_bone_indices_past_the_bone_map(column, weight, beyond):
    """A vertex's bone index past its sub-mesh's bone map is an error when the vertex uses
    it (weight above 0, or the first index, which the game always reads), nothing when its
    weight is 0: the check looks weight by weight only when some index reaches that far,
    and finds what the weight-by-weight check finds."""
    model = sample_model()
    sub = model.meshes[1].submeshes[0]
    assert len(sub.bone_map) == 2
    sub.vertices["bone_indices"][5, column] = 2
    sub.vertices["bone_weights"][5, column] = weight
    if column:
        sub.vertices["bone_weights"][5, 0] = 1.0 - weight
    found = [p.message for p in validate(read_alo(write_alo(model)))]
    assert ("vertex bone index 2 beyond the bone map (2 entries)" in found) == beyond
    assert not any("beyond the bone map" in m for m in validate(read_alo(write_alo(
        sample_model()))))


def _small_trees():
    """(tree, positions, indices) of the corpus's collision trees and built small ones."""
    out = []
    for path in corpus_files(".alo"):
        try:
            model = read_alo(path.read_bytes())
        except Exception:       # particle effects and the like: no meshes to take trees from
            continue
        for mesh in getattr(model, "meshes", ()):
            out += [(s.collision_tree, s.vertices["position"], s.indices)
                    for s in mesh.submeshes if s.collision_tree is not None]
    for n in (1, 2, 3, 5, 8, 13, 21):
        pos, idx = scattered(n, n)
        out.append((build_collision_tree(pos, idx), pos, idx))
    return out


def _mutated_tree(tree, rng):
    nodes = tree.nodes.copy()
    for _ in range(int(rng.integers(1, 4))):
        node = int(rng.integers(len(nodes)))
        field = ("link", "count", "min", "max")[int(rng.integers(4))]
        if field == "link":
            nodes["link"][node] = rng.choice([0, node, len(nodes) - 1, len(nodes), 10 ** 6,
                                              int(rng.integers(len(nodes)))])
        elif field == "count":
            nodes["count"][node] = rng.choice([0, 1, 3])
        else:
            nodes[field][node][int(rng.integers(3))] = rng.choice([0, 1, 128, 254, 255])
    box = tree.box_min.copy()
    if rng.random() < 0.1:
        box[int(rng.integers(3))] = rng.choice([np.nan, np.inf, 1e30])
    return CollisionTree(box_min=box, box_max=tree.box_max.copy(), nodes=nodes,
                         triangles=tree.triangles.copy())


def test_small_collision_trees_walk_in_python_as_numpy_does(monkeypatch):
    """``collision.check._walk_small`` (trees up to ``SMALL_TREE`` nodes) gives the numpy
    walk's arrays bit for bit and the checker the same problems, on the corpus's trees, built
    ones and 1,500 with changed links, counts, byte boxes and header boxes."""
    rng = np.random.default_rng(44)
    cases = []
    for tree, pos, idx in _small_trees():
        cases.append((tree, pos, idx))
        cases += [(_mutated_tree(tree, rng), pos, idx) for _ in range(80)]
    assert len(cases) > 1500
    kinds, walked = Counter(), 0
    for tree, pos, idx in cases:
        t = collision_check._tree_arrays(tree, [])
        with monkeypatch.context() as m:
            m.setattr(collision_check, "SMALL_TREE", 10 ** 9)
            small_p = []
            small = collision_check._walk(t, True, small_p)
            small_all = check_collision_tree(tree, pos, idx)
            m.setattr(collision_check, "SMALL_TREE", 0)
            big_p = []
            big = collision_check._walk(t, True, big_p)
            big_all = check_collision_tree(tree, pos, idx)
        assert small_p == big_p and small_all == big_all
        for a, b in zip((small.seen, small.dmin, small.dmax, small.slack),
                        (big.seen, big.dmin, big.dmax, big.slack)):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        kinds.update(p.split(" (")[0].split(" ", 1)[1] for p in big_p)
        walked += len(tree.nodes) <= collision_check.SMALL_TREE
    assert walked > 500         # most cases are small enough for the Python walk
    for kind in ("inner nodes link to children outside the", "nodes are reached more than once",
                 "nodes are not reachable from the root"):
        assert any(k.startswith(kind) for k in kinds), kinds


def _header(chunk, edit):
    """A bone header (0x1003) with its minis ``{type: bytes}`` changed by ``edit``."""
    minis = {m.type: m.data for m in read_minis(chunk)}
    edit(minis)
    return Chunk(0x1003, data=b"".join(bytes([t, len(d)]) + d for t, d in minis.items()))


def _bone_edits():
    """Edits of one bone (0x1002) of an animation, as (label, format, refused?, function of
    the bone's chunks and the frame count giving the new chunks)."""
    def head(edit):
        return lambda kids, frames: [_header(kids[0], edit)] + kids[1:]

    def chunk(ctype, change):
        return lambda kids, frames: [change(c, frames) if c.type == ctype else c for c in kids]

    def cut(c, frames):
        return Chunk(c.type, data=bytes(c.data)[:-1])

    def index(value):
        return head(lambda m: m.__setitem__(5, struct.pack("<I", value)))

    def flag(m):            # mini 10 after the name and index, as the loader allows
        rest = {t: m.pop(t) for t in list(m) if t not in (4, 5)}
        m[10] = b"\1\0\0\0"
        m.update(rest)
    return [("sound", 1, False, lambda kids, frames: kids),
            ("sound", 2, False, lambda kids, frames: kids),
            ("index of another bone", 1, True, index(0)),
            ("index of another bone", 2, True, index(0)),
            ("index past the model", 2, True, index(999)),
            ("name in lower case", 2, False, head(lambda m: m.__setitem__(4, m[4].lower()))),
            ("name of another bone", 1, True, head(lambda m: m.__setitem__(4, b"ROOT\0"))),
            ("header without its translation offset", 2, True,
             head(lambda m: m.pop(6))),
            ("header with the unknown flag", 1, False, head(flag)),
            ("translation offset of 8 bytes", 1, True, head(lambda m: m.__setitem__(6, m[6][:8]))),
            ("rotation index of 1 byte", 2, True, head(lambda m: m.__setitem__(16, m[16][:1]))),
            ("rotation track cut short", 1, True, chunk(0x1006, cut)),
            ("translation track cut short", 1, True, chunk(0x1004, cut)),
            ("rotation track of one frame", 1, False,
             chunk(0x1006, lambda c, frames: Chunk(0x1006, data=bytes(c.data)[:8]))),
            ("visibility cut short", 2, True, chunk(0x1007, lambda c, frames: Chunk(
                0x1007, data=bytes(c.data)[:(frames + 7) // 8 - 1]))),
            ("visibility as a container", 1, True, chunk(0x1007, lambda c, frames: Chunk(
                0x1007, children=[Chunk(1, data=bytes(c.data))]))),
            ("a chunk 0x1008 after", 2, False,
             lambda kids, frames: kids + [Chunk(0x1008, data=b"\0" * 4)]),
            ("a chunk 0x1009 after", 1, True,
             lambda kids, frames: kids + [Chunk(0x1009, data=b"\0" * 4)]),
            ("tracks out of order", 1, True, lambda kids, frames: kids[:1] + kids[1:][::-1]),
            ("no chunks", 2, True, lambda kids, frames: [])]


@pytest.mark.parametrize("label, version, refused, edit", _bone_edits(),
                         ids=[f"{e[0]}-{e[1]}" for e in _bone_edits()])
@pytest.mark.parametrize("beside", [True, False], ids=["model", "alone"])
def test_animation_bones_taken_at_once_decide_what_the_steps_decide(
        label, version, refused, edit, beside, tmp_path, monkeypatch):
    """``game_rules._bones_taken`` (runs of an animation's bones taken at once) finds what
    the bone-by-bone rules find, on bones edited in every way the short cut looks at: the
    same results (messages, order), the refusal exactly when the loader refuses."""
    model = CORPUS / "EI_VADER.ALO"
    source = CORPUS / ("EI_VADER_SPINMOVE_00.ALA" if version == 1 else "EI_VADER_IDLE_00.ALA")
    if not source.exists():
        pytest.skip("no corpus")
    roots = read_chunks(source.read_bytes())
    frames = struct.unpack("<I", {m.type: m.data for m in read_minis(
        roots[0].children[0])}[1])[0]
    bones = [c for c in roots[0].children if c.type == 0x1002]
    target = next(b for b in bones[5:] if {k.type for k in b.children} >= (
        {0x1004, 0x1006, 0x1007} if version == 1 else {0x1007}))
    copy = _copy_chunks(roots, {target: lambda c: Chunk(c.type, children=edit(
        [_copy_chunks([k])[0] for k in c.children], frames))})
    if beside:
        _written(tmp_path, model.name, model.read_bytes())
    bones = game_rules.model_bones(model.read_bytes()) if beside else None
    short = _rules_both_ways(write_chunks(copy), source.name, lambda d: _rules_alone(d, bones),
                             game_rules, "_bones_taken", loader_runs.anim_bones_taken,
                             tmp_path, monkeypatch, least=5)
    assert (short is not None) == (refused and (beside or not label.startswith(
        ("index", "name"))))


def _rules_both_ways(data, name, rules, module, short_cut, real, folder, monkeypatch,
                     least=1):
    """The command line's result for file ``data`` both ways, then the loader rules alone
    (``rules(data)``, headers parsed as the reader parses them: the short cut's part) both
    ways: they must agree; the short cut ``module.short_cut`` (``real``) takes at least
    ``least`` of the file's chunks. Gives the rules' verdict."""
    short, full = _both(_written(folder, name, data), monkeypatch)
    assert short == full                # the command line: the reader may refuse it first
    taken = []
    monkeypatch.setattr(module, short_cut, lambda *a: taken.append(real(*a)) or taken[-1])
    short = rules(data)
    assert sum(taken) >= least
    with monkeypatch.context() as m:
        _step_by_step(m)
        full = rules(data)
    assert short == full
    return short


def _rules_alone(data, bones):
    roots = read_chunks(data)
    for bone in roots[0].children:
        if bone.type == 0x1002 and bone.children and bone.children[0].children is None:
            read_minis(bone.children[0])
    return game_rules.game_problem(data, bones, roots)


def _copy_chunks(roots, change=None):
    """Fresh chunks of ``roots`` (data as bytes), with ``change[chunk]`` applied where given."""
    def copy(c):
        if change and c in change:
            return change[c](c)
        if c.children is None:
            return Chunk(c.type, data=bytes(c.data))
        return Chunk(c.type, children=[copy(k) for k in c.children])
    return [copy(c) for c in roots]


def _submesh_edits():
    """Edits of one skinned sub-mesh (its material 0x10100 and data 0x10000 chunks) of a
    model, as (label, refused?, function of the two chunks giving the new ones)."""
    def data(change):
        return lambda mat, sub: [mat, Chunk(0x10000, children=change(list(sub.children)))]

    def replace(ctype, make):
        return data(lambda kids: [make(c) if c.type == ctype else c for c in kids])

    def cut(c):
        return Chunk(c.type, data=bytes(c.data)[:-1])

    def more_vertices(c):
        nv, nt = struct.unpack_from("<II", c.data)
        return Chunk(c.type, data=struct.pack("<II", nv + 1, nt) + bytes(c.data)[8:])

    def params(change):
        return lambda mat, sub: [Chunk(0x10100, children=change(list(mat.children))), sub]
    return [("sound", False, lambda mat, sub: [mat, sub]),
            ("vertices cut short", True, replace(0x10007, cut)),
            ("triangles cut short", True, replace(0x10004, cut)),
            ("a header of one vertex more", True, replace(0x10001, more_vertices)),
            ("a bone map of 6 bytes", True, replace(0x10006, lambda c: Chunk(
                0x10006, data=bytes(6)))),
            ("a bone map of 98 bytes", False, replace(0x10006, lambda c: Chunk(
                0x10006, data=bytes(98)))),
            ("a collision tree", False, data(lambda kids: kids + [Chunk(0x1200, data=b"")])),
            ("a chunk 0x10009 after", True, data(lambda kids: kids + [Chunk(0x10009,
                                                                             data=b"")])),
            ("the vertex format as a container", True, replace(0x10002, lambda c: Chunk(
                0x10002, children=[Chunk(1, data=bytes(c.data))]))),
            ("no triangles", True, data(lambda kids: [c for c in kids if c.type != 0x10004])),
            ("a shader parameter without its value", True, params(lambda kids: kids[:1] + [
                Chunk(kids[1].type, data=bytes(kids[1].data)[:2 + kids[1].data[1]])]
                + kids[2:])),
            ("no shader name", True, params(lambda kids: kids[1:])),
            ("the material as a data chunk", True,
             lambda mat, sub: [Chunk(0x10100, data=b"\0"), sub]),
            ("data before material", True, lambda mat, sub: [sub, mat]),
            ("a material of chunk type 0x10200", True,
             lambda mat, sub: [Chunk(0x10200, children=mat.children), sub])]


@pytest.mark.parametrize("label, refused, edit", _submesh_edits(),
                         ids=[e[0] for e in _submesh_edits()])
def test_submeshes_taken_at_once_decide_what_the_steps_decide(label, refused, edit, tmp_path,
                                                              monkeypatch):
    """``game_rules._submeshes_taken`` (runs of a mesh's sub-meshes taken at once) finds
    what the rules find sub-mesh by sub-mesh, on a sub-mesh edited in every way the short
    cut looks at: the same results, the refusal exactly when the loader refuses."""
    source = CORPUS / "EI_VADER.ALO"
    if not source.exists():
        pytest.skip("no corpus")
    roots = read_chunks(source.read_bytes())
    mesh = [c for c in roots if c.type == 0x400 and len(c.children) >= 4 and any(
        k.type == 0x10006 for k in c.children[3].children)][-1]
    assert mesh is not roots[1]         # the meshes before it are taken at once
    k = 2                   # the name, the info, then the first sub-mesh
    copy = _copy_chunks(roots, {mesh: lambda c: Chunk(c.type, children=[
        _copy_chunks([x])[0] for x in c.children[:k]] + edit(*_copy_chunks(
            c.children[k:k + 2])) + _copy_chunks(c.children[k + 2:]))})
    short = _rules_both_ways(write_chunks(copy), source.name, _model_rules_alone, game_rules,
                             "_submeshes_taken", loader_runs.submeshes_taken, tmp_path,
                             monkeypatch)
    assert (short is not None) == refused


def _model_rules_alone(data):
    """The rules alone on a model whose shader parameters are parsed as the reader does."""
    roots = read_chunks(data)

    def parse(chunks):
        for c in chunks:
            if c.children is not None:
                parse(c.children)
            elif c.type in (0x10102, 0x10103, 0x10104, 0x10105, 0x10106):
                try:
                    read_minis(c)
                except AlamoFormatError:
                    pass
    parse(roots)
    return game_rules.game_problem(data, None, roots)


@pytest.mark.parametrize("field, column, value, warned", [
    (None, 0, 0.0, False), ("position", 2, np.nan, True), ("normal", 0, np.inf, True),
    ("uv", 7, -np.inf, True), ("binormal", 2, np.nan, True),
    ("unused", 1, np.nan, False), ("bone_weights", 3, np.inf, False),
    ("bone_indices", 0, 0xFFFFFFFF, False)])
def test_finite_vertices_leading_columns_find_what_the_fields_find(field, column, value,
                                                                    warned, monkeypatch):
    """``validate._finite_problems`` first tests the leading float columns of the vertex
    buffer at once, then field by field: words that are no finite float outside the checked
    fields (unused, bone weights, an index 0xFFFFFFFF) warn of nothing, and every result is
    what the field-by-field test gives."""
    model = sample_model()
    sub = model.meshes[1].submeshes[0]
    if field is not None:
        sub.vertices[field].reshape(len(sub.vertices), -1)[4, column] = value
    model = read_alo(write_alo(model))
    short = validate(model)
    with monkeypatch.context() as m:     # no whole-buffer test: the fields one by one
        m.setattr(validate_module, "_finite_plan", lambda dtype: (
            validate_module._FINITE_PLANS[dtype][0], 0))
        full = validate(model)
    assert short == full
    assert any("NaN or infinite" in p.message for p in short) == warned


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # 1e39 as float32
@pytest.mark.parametrize("name, value, warned", [
    (None, None, False), ("translation_offset", np.float32([0, np.nan, 0]), True),
    ("translation_scale", np.float32([np.inf, 1, 1]), True),
    ("scale_offset", [1.0, 1.0, -np.inf], True), ("scale_scale", [1.0, 2.0, 3.0], False),
    ("scale_scale", np.float32([[1, 1, np.nan]]), True), ("translation_offset", 1e39, False),
    ("translation_offset", np.float64([0, 1e39, 0]), False),
    ("scale_offset", np.float32([[1, 0], [np.nan, 0], [1, 0]])[:, 0], True),
    ("scale_scale", np.array([1, np.inf, 1], ">f4"), True),
    ("translation_scale", np.float16([1, np.nan, 1]), True),
    ("translation_scale", np.float64([np.nan, 0, 0]), True),
    ("scale_offset", np.int32([0x7FC00000, 0x7F800000, -1]), False),
    ("default_rotation", np.int16([0, 0, 0, 32767]), False),
    ("default_rotation", np.int16([0, 0, 0, 100]), True),
    ("default_rotation", [0, 0, 0, 100], True),
    ("default_rotation", np.array([0, 0, 0, 32767], ">i2"), False),
    ("default_rotation", np.array([0, 0, 0, 100], ">i2"), True),
    ("default_rotation", np.int16([[0, 1], [0, 1], [0, 1], [100, 1]])[:, 0], True),
    ("default_rotation", np.int32([0, 0, 0, 100]), True),
    ("default_rotation", np.int16([0, 0, 0, 32767] * 2), True)])
def test_bone_vectors_in_one_concatenation_find_what_each_bone_finds(name, value, warned,
                                                                      monkeypatch):
    """``validate._all_sound`` tests every bone's offsets and scales (and default rotations)
    at once, their bytes joined when all are C-contiguous of the native dtype; vectors of
    other shapes, types, byte orders or strides are taken value by value or bone by bone;
    either way the warnings are those of the bone-by-bone test (a float64 value past float32
    is finite: no warning; int32 words that would be NaN as float32 are finite numbers)."""
    source = CORPUS / "EI_VADER_IDLE_00.ALA"
    if not source.exists():
        pytest.skip("no corpus")
    anim = read_ala(source.read_bytes())
    if name is not None:
        setattr(anim.bones[-1], name, value)        # the last: a value left off shows
    short = validate(anim)
    with monkeypatch.context() as m:
        m.setattr(validate_module, "_all_sound", lambda bones: False)
        full = validate(anim)
    assert short == full
    assert any("NaN or infinite" in p.message or "unit quaternion" in p.message
               for p in short) == warned


def _mutated_leaves(tree, pos, idx, rng):
    """A tree (and positions) with its triangle list, leaf ranges or vertices changed."""
    nodes, pos = tree.nodes.copy(), np.array(pos, copy=True)
    tris = tree.triangles.astype(np.int64)      # room for -1 and 10 ** 6 (numpy 2 refuses)
    kind = int(rng.integers(6))
    leaves = np.flatnonzero(nodes["count"] > 0)
    if kind == 0 and len(tris) > 1:         # a triangle twice, another in no leaf
        tris[int(rng.integers(len(tris)))] = tris[int(rng.integers(len(tris)))]
    elif kind == 1 and len(tris):           # an id past the mesh, or negative
        tris[int(rng.integers(len(tris)))] = rng.choice([len(idx), -1, 10 ** 6])
    elif kind == 2 and len(tris) > 1:       # two ids swapped (between leaves: boxes may break)
        a, b = rng.integers(len(tris), size=2)
        tris[[a, b]] = tris[[b, a]]
    elif kind == 3 and len(leaves):         # a leaf's range one longer or shorter
        n = int(rng.choice(leaves))
        nodes["count"][n] = int(nodes["count"][n]) + int(rng.choice([-1, 1]))   # a leaf: >= 1
    elif kind == 4 and len(idx):            # a vertex of a leaf triangle moved out a little
        v = int(idx[int(rng.integers(len(idx)))][int(rng.integers(3))])
        extent = float(np.ptp(pos[:, int(rng.integers(3))])) or 1.0
        pos[v, int(rng.integers(3))] += rng.choice([1e-7, 1e-5, 1e-3, 0.1, -0.1]) * extent
    elif kind == 5 and len(idx):            # a vertex not finite
        pos[int(idx[0][0]), int(rng.integers(3))] = rng.choice([np.nan, np.inf])
    return CollisionTree(box_min=tree.box_min.copy(), box_max=tree.box_max.copy(),
                         nodes=nodes, triangles=tris), pos


def test_small_trees_sound_in_python_find_what_the_phases_find(monkeypatch):
    """``collision.check._small_rest_sound`` (a small tree's leaves, membership and boxes
    found sound in plain Python, so the numpy phases are skipped) gives the checker the same
    problems as the numpy phases, on the corpus's trees, built ones and 1,500 with changed
    triangle lists, leaf ranges and vertices, with and without rounded boxes."""
    rng = np.random.default_rng(45)
    cases = []
    for tree, pos, idx in _small_trees():
        cases.append((tree, pos, idx))
        cases += [(*_mutated_leaves(tree, pos, idx, rng), idx) for _ in range(80)]
    assert len(cases) > 1500
    sound, kinds = Counter(), Counter()
    real = collision_check._small_rest_sound

    def counted(*a):
        verdict = real(*a)
        sound[verdict] += 1
        return verdict
    monkeypatch.setattr(collision_check, "_small_rest_sound", counted)
    for k, (tree, pos, idx) in enumerate(cases):
        options = {"rounded_boxes": bool(k % 3), "tolerance": (1e-4, 0.0, 1e-2)[k % 3]}
        with monkeypatch.context() as m:
            m.setattr(collision_check, "SMALL_TREE", 10 ** 9)
            short = check_collision_tree(tree, pos, idx, **options)
            m.setattr(collision_check, "SMALL_TREE", 0)
            full = check_collision_tree(tree, pos, idx, **options)
        assert short == full
        kinds.update(p.split(" (")[0].split(" ", 1)[1] for p in full)
    assert sound[True] > 200 and sound[False] > 500
    for kind in ("triangles poke out of their leaf's box", "triangles are in no leaf",
                 "triangles are in more than one leaf", "leaf triangle ids are not below",
                 "leaf triangle ranges overlap", "entries of the triangle list belong"):
        assert any(k.startswith(kind) for k in kinds), kinds


_WIDE = np.dtype([("min", "<i4", (3,)), ("max", "<i4", (3,)), ("count", "<i4"),
                  ("link", "<i4")])


def _flat_tree_edited(edit):
    """A flat grid's tree (no extent on z, so any z byte box holds its triangles) with wide
    signed node fields, edited by ``edit(nodes)`` (which may return new nodes)."""
    pos, idx = grid(3, 2)
    tree = build_collision_tree(pos, idx)
    nodes = np.zeros(len(tree.nodes), _WIDE)
    for name in _WIDE.names:
        nodes[name] = tree.nodes[name]
    nodes = edit(nodes) if edit else nodes
    return CollisionTree(box_min=tree.box_min.copy(), box_max=tree.box_max.copy(),
                         nodes=nodes, triangles=tree.triangles.copy()), pos, idx


def _leaf(nodes):
    return int(np.flatnonzero(nodes["count"] > 0)[-1])


def _set(nodes, node, field, value, axis=None):
    if axis is None:
        nodes[field][node] = value
    else:
        nodes[field][node][axis] = value
    return nodes


def _appended(nodes, count, link):
    extra = np.zeros(1, _WIDE)
    extra["count"], extra["link"] = count, link
    return np.concatenate([nodes, extra])


@pytest.mark.parametrize("edit, kind", [
    (None, None),
    (lambda n: _set(_set(n, _leaf(n), "min", 9, 2), _leaf(n), "max", 3, 2),
     "byte box min above max"),
    (lambda n: _set(n, _leaf(n), "max", 256, 2), "byte boxes outside 0..255"),
    (lambda n: _set(n, _leaf(n), "min", -1, 2), "byte boxes outside 0..255"),
    (lambda n: _set(n, 0, "max", 254, 2), "root node box is"),
    (lambda n: _appended(n, 0, 0), "nodes are not reachable from the root"),
    (lambda n: _appended(n, -1, 0), "negative count or link"),
    (lambda n: _appended(n, 0, -1), "negative count or link"),
])
def test_small_trees_sound_in_one_python_pass_find_what_the_phases_find(edit, kind,
                                                                         monkeypatch):
    """``collision.check._small_sound`` (a small tree's boxes, walk and the rest found sound
    in plain Python) lets through only what the numpy phases find nothing in: byte boxes
    inverted or outside 0..255 where no containment test can see it (a flat mesh), a root box
    short of 0..255, an unreachable node, a negative count or link."""
    tree, pos, idx = _flat_tree_edited(edit)
    assert len(tree.nodes) <= collision_check.SMALL_TREE
    short = check_collision_tree(tree, pos, idx)
    with monkeypatch.context() as m:
        m.setattr(collision_check, "SMALL_TREE", 0)
        full = check_collision_tree(tree, pos, idx)
    assert short == full
    if kind is None:
        assert full == []
        t = collision_check._tree_arrays(tree, [])
        mesh = collision_check._mesh_arrays(pos, idx, [])
        assert collision_check._small_sound(t, mesh, 1e-4, True)       # the short cut is taken
    else:
        assert any(kind in p for p in full), full


@pytest.mark.parametrize("value, warned", [
    (None, False), (np.float32([[1, 0, 0, np.nan], [0, 1, 0, 0], [0, 0, 1, 0]]), True),
    (np.float32([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -np.inf]]), True),
    (np.float32([[1, 0, 0, 0, 9], [0, 1, 0, 0, 9], [0, 0, 1, np.inf, 9]])[:, :4], True),
    (np.array([[1, 0, 0, 0], [0, 1, 0, np.nan], [0, 0, 1, 0]], ">f4"), True),
    (np.float64([[1, 0, 0, 0], [0, 1, 0, 1e39], [0, 0, 1, 0]]), False),
    (np.float64([[1, 0, 0, 0], [0, 1, 0, np.nan], [0, 0, 1, 0]]), True),
    (np.float16([[1, 0, 0, 0], [0, 1, 0, np.nan], [0, 0, 1, 0]]), True),
    (np.float32([[1, 0, 0, 0], [0, 1, 0, 0]]), False), (np.float32([[np.nan] * 6]), True)])
def test_bone_matrices_joined_find_what_each_bone_finds(value, warned, monkeypatch):
    """``validate._all_finite`` tests every skeleton bone's matrix at once (float32 ones as
    their bytes joined); whatever the last bone's matrix is (strided, big-endian, float64,
    float16, another shape), the warnings are those of the bone-by-bone test."""
    source = CORPUS / "EI_VADER.ALO"
    if not source.exists():
        pytest.skip("no corpus")
    model = read_alo(source.read_bytes())
    if value is not None:
        model.bones[-1].matrix = value
    short = validate(model)
    with monkeypatch.context() as m:
        m.setattr(validate_module, "_all_finite", lambda arrays: False)
        full = validate(model)
    assert short == full
    assert any("matrix has NaN" in p.message for p in short) == warned


def _connection(*minis):
    return Chunk(0x602, data=b"".join(bytes([t, len(d)]) + d for t, d in minis))


def _connection_edits(objects, bones):
    u32 = struct.Struct("<I").pack
    return [("sound", False, lambda c: c),
            ("the last object", False, lambda c: _connection((2, u32(objects - 1)),
                                                              (3, u32(0)))),
            ("the last bone", False, lambda c: _connection((2, u32(0)), (3, u32(bones - 1)))),
            ("an object past the end", True, lambda c: _connection((2, u32(objects)),
                                                                    (3, u32(0)))),
            ("a bone past the end", True, lambda c: _connection((2, u32(0)), (3, u32(bones)))),
            ("no bone mini", True, lambda c: _connection((2, u32(0)))),
            ("an object mini of 3 bytes", True, lambda c: _connection((2, b"\0" * 3),
                                                                       (3, u32(0)))),
            ("a mini more", True, lambda c: _connection((2, u32(0)), (3, u32(0)),
                                                        (4, u32(0)))),
            ("minis swapped", True, lambda c: _connection((3, u32(0)), (2, u32(0)))),
            ("as a container", True, lambda c: Chunk(0x602, children=[Chunk(
                2, data=bytes(c.data))])),
            ("a chunk 0x603 in its place", True, lambda c: Chunk(0x603, data=bytes(c.data)))]


@pytest.mark.parametrize("label, refused, index", [
    (e[0], e[1], i) for i, e in enumerate(_connection_edits(1, 1))],
    ids=[e[0] for e in _connection_edits(1, 1)])
def test_connections_taken_at_once_decide_what_the_steps_decide(label, refused, index,
                                                                tmp_path, monkeypatch):
    """``game_rules._connections_taken`` (runs of object connections taken at once) finds
    what the rules find connection by connection, on the last connection edited in every
    way the short cut looks at: the same results, the refusal exactly when expected."""
    source = CORPUS / "EI_VADER.ALO"
    if not source.exists():
        pytest.skip("no corpus")
    model = read_alo(source.read_bytes())
    edit = _connection_edits(len(model.objects), len(model.bones))[index][2]
    roots = read_chunks(source.read_bytes())
    conn = next(c for c in roots if c.type == 0x600)
    last = max(i for i, c in enumerate(conn.children) if c.type == 0x602)
    assert last >= 5                    # the connections before it are taken at once
    copy = _copy_chunks(roots, {conn: lambda c: Chunk(c.type, children=_copy_chunks(
        c.children[:last]) + [edit(_copy_chunks([c.children[last]])[0])] + _copy_chunks(
        c.children[last + 1:]))})

    def rules_alone(data):
        roots = read_chunks(data)
        for c in next(c for c in roots if c.type == 0x600).children:
            if c.type in (0x602, 0x603) and c.children is None:     # as the reader does
                try:
                    read_minis(c)
                except AlamoFormatError:
                    pass
        return game_rules.game_problem(data, None, roots)
    short = _rules_both_ways(write_chunks(copy), source.name, rules_alone, game_rules,
                             "_connections_taken", loader_runs.connections_taken, tmp_path,
                             monkeypatch, least=5)
    assert (short is not None) == refused
