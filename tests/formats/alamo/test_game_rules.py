"""Issue 31: the game's loader rules (io_alamo.formats.alamo.game_rules) against the game's
loaders themselves (the alo-viewer's, built by tests/alo_viewer.py): they agree on every
corpus file and on broken files built from the project's own sample unit, each broken in
one rule; validate names the file, the chunk path and the rule; writes refuse such files."""

import struct

import numpy as np
import pytest
from corpus import corpus_files

import alo_viewer
from io_alamo.cli import main
from io_alamo.formats.alamo import convert_animation, write_ala, write_alo
from io_alamo.formats.alamo.chunks import Chunk, Mini, read_chunks, read_minis, write_chunks, \
    write_minis
from io_alamo.formats.alamo.game_rules import (GameRefusedError, game_problem, model_beside,
                                               model_bones)
from io_alamo.formats.alamo.sample import sample_animation, sample_model

MODEL = write_alo(sample_model())
ANIM_2 = write_ala(convert_animation(sample_animation(sample_model()), 2))
ANIM_1 = write_ala(convert_animation(sample_animation(sample_model()), 1))


def need_viewer():
    if alo_viewer.viewer() is None:
        pytest.skip(alo_viewer.reason())


# --- building broken files from good ones -------------------------------------------------

def tree(data):
    def copy(c):
        if c.is_container:
            return Chunk(c.type, children=[copy(k) for k in c.children])
        return Chunk(c.type, data=bytes(c.data))
    return [copy(c) for c in read_chunks(data)]


def find(chunks, *types):
    """The first chunk along ``types`` (each the type of the next level's child)."""
    c = None
    for t in types:
        c = next(k for k in chunks if k.type == t)
        chunks = c.children if c.is_container else []
    return c


def edit_minis(chunk, fn):
    minis = [Mini(m.type, m.data) for m in read_minis(chunk)]
    chunk.data = write_minis(fn(minis))


def u32(v):
    return struct.pack("<I", v)


def anim2_without_minis_14_15(roots):
    edit_minis(find(roots, 0x1000, 0x1002, 0x1003), lambda ms: [m for m in ms
                                                                if m.type not in (14, 15)])


def anim2_with_scale_block(roots):
    find(roots, 0x1000).children.append(Chunk(0x100B, data=b"\0" * 6))


def anim_bone_of_another_model(roots):
    edit_minis(find(roots, 0x1000, 0x1002, 0x1003),
               lambda ms: [Mini(4, b"NotInTheModel\0") if m.type == 4 else m for m in ms])


def anim2_blocks_swapped(roots):
    kids = find(roots, 0x1000).children
    i, j = (next(k for k, c in enumerate(kids) if c.type == t) for t in (0x100A, 0x1009))
    kids[i], kids[j] = kids[j], kids[i]


def anim_one_bone_more_in_header(roots):
    edit_minis(find(roots, 0x1000, 0x1001),
               lambda ms: [Mini(3, u32(struct.unpack("<I", m.data)[0] + 1)) if m.type == 3
                           else m for m in ms])


def anim1_short_rotation_track(roots):
    bone = next(c for c in find(roots, 0x1000).children if c.type == 0x1002 and any(
        k.type == 0x1006 and len(k.data) > 8 for k in c.children))
    track = next(k for k in bone.children if k.type == 0x1006)
    track.data = track.data[:-8]


def model_skeleton_count_short(roots):
    head = find(roots, 0x200, 0x201)
    head.data = u32(struct.unpack_from("<I", head.data)[0] - 1) + head.data[4:]


def model_unknown_chunk_in_mesh(roots):
    find(roots, 0x400).children.insert(2, Chunk(0x7777, data=b"hello"))


def model_proxy_on_no_bone(roots):
    edit_minis(find(roots, 0x600, 0x603),
               lambda ms: [Mini(6, u32(9999)) if m.type == 6 else m for m in ms])


def model_connection_to_no_object(roots):
    edit_minis(find(roots, 0x600, 0x602),
               lambda ms: [Mini(2, u32(99)) if m.type == 2 else m for m in ms])


def model_bone_parent_past_the_end(roots):
    bone = [c for c in find(roots, 0x200).children if c.type == 0x202][1]
    data = next(c for c in bone.children if c.type in (0x205, 0x206))
    data.data = u32(500) + data.data[4:]


def model_submesh_count_one_more(roots):
    info = find(roots, 0x400, 0x402)
    info.data = u32(struct.unpack_from("<I", info.data)[0] + 1) + info.data[4:]


def model_vertices_cut_short(roots):
    vb = find(roots, 0x400, 0x10000, 0x10007)
    vb.data = vb.data[:-144]


def model_without_connections(roots):
    roots[:] = [c for c in roots if c.type != 0x600]


def model_connections_header_extra_mini(roots):
    edit_minis(find(roots, 0x600, 0x601), lambda ms: ms + [Mini(42, u32(0))])


def model_shader_parameter_without_value(roots):
    param = next(c for c in find(roots, 0x400, 0x10100).children if c.type != 0x10101)
    edit_minis(param, lambda ms: [m for m in ms if m.type != 2])


# (file kind, how it is broken, the rule the check names)
BROKEN = [
    ("ala2", anim2_without_minis_14_15, "bone header"),
    ("ala2", anim2_with_scale_block, "animation"),
    ("ala2", anim_bone_of_another_model, "bone matches model"),
    ("ala1", anim_bone_of_another_model, "bone matches model"),
    ("ala2", anim2_blocks_swapped, "frame blocks"),
    ("ala1", anim_one_bone_more_in_header, "animation"),
    ("ala1", anim1_short_rotation_track, "track"),
    ("alo", model_skeleton_count_short, "skeleton"),
    ("alo", model_unknown_chunk_in_mesh, "sub-mesh"),
    ("alo", model_proxy_on_no_bone, "proxy"),
    ("alo", model_connection_to_no_object, "object connection"),
    ("alo", model_bone_parent_past_the_end, "bone parent"),
    ("alo", model_submesh_count_one_more, "sub-mesh"),
    ("alo", model_vertices_cut_short, "vertices"),
    ("alo", model_without_connections, "model"),
    ("alo", model_connections_header_extra_mini, "connections header"),
    ("alo", model_shader_parameter_without_value, "shader parameter"),
]
GOOD = {"alo": MODEL, "ala1": ANIM_1, "ala2": ANIM_2}


def broken(kind, fn):
    roots = tree(GOOD[kind])
    fn(roots)
    return write_chunks(roots)


def write_unit(folder, kind, data):
    """The file as the viewer finds it: an animation beside its model."""
    (folder / "Tank.alo").write_bytes(MODEL if kind != "alo" else data)
    if kind == "alo":
        return folder / "Tank.alo"
    path = folder / "Tank_Broken_00.ala"
    path.write_bytes(data)
    return path


# --- the tests ------------------------------------------------------------------------------

def test_the_sample_unit_passes_both():
    bones = model_bones(MODEL)
    for data in GOOD.values():
        assert game_problem(data, bones) is None


@pytest.mark.parametrize("kind, fn, rule", BROKEN, ids=[f.__name__ for _, f, _ in BROKEN])
def test_each_broken_file_is_refused_naming_the_rule(kind, fn, rule):
    data = broken(kind, fn)
    refusal = game_problem(data, model_bones(MODEL) if kind != "alo" else None)
    assert refusal is not None and refusal.rule == rule, refusal


@pytest.mark.parametrize("kind, fn, rule", BROKEN, ids=[f.__name__ for _, f, _ in BROKEN])
def test_the_viewer_refuses_each_broken_file_too(tmp_path, kind, fn, rule):
    need_viewer()
    path = write_unit(tmp_path, kind, broken(kind, fn))
    ok, line = alo_viewer.check([path])[str(path)]
    assert not ok, line
    (tmp_path / "good").mkdir()
    good = write_unit(tmp_path / "good", kind, GOOD[kind])       # unbroken, it loads
    assert alo_viewer.check([good])[str(good)][0]


def _corpus_pairs():
    """(file, model bones or None, model path or None) for every corpus .alo and .ala the
    viewer's loaders take on (no particle effects; animations with a model)."""
    out = []
    for p in corpus_files(".alo", ".ala"):
        if alo_viewer.is_particle(p):
            continue
        model = None
        if p.suffix.lower() == ".ala":
            model = model_beside(p) or _longest_prefix_model(p)
            if model is None:
                continue
        out.append(pytest.param(p, model, id=p.name))
    return out or [pytest.param(None, None, marks=pytest.mark.skip(
        reason="no shared corpus at ../shared/corpus: real-file tests skipped"))]


def _longest_prefix_model(ala):
    words = ala.stem.lower().split("_")
    best, best_n = None, 1
    for p in corpus_files(".alo"):
        other = p.stem.lower().split("_")
        n = 0
        while n < min(len(words), len(other)) and words[n] == other[n]:
            n += 1
        if n > best_n:
            best, best_n = p, n
    return best


@pytest.mark.parametrize("path, model", _corpus_pairs())
def test_python_rules_and_the_viewer_agree_on_the_corpus(path, model):
    need_viewer()
    bones = model_bones(open(model, "rb").read()) if model else None
    refusal = game_problem(path.read_bytes(), bones)
    ok, line = alo_viewer.check([path], model=model)[str(path)]
    assert (refusal is None) == ok, (refusal, line)


def test_validate_names_the_file_the_chunk_path_and_the_rule(tmp_path, capsys):
    path = write_unit(tmp_path, "ala2", broken("ala2", anim2_without_minis_14_15))
    assert main(["validate", str(path)]) == 1
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "game loader rule" in ln]
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}: error: 0x1000/0x1002/0x1003: game loader rule "
                               "'bone header'")
    assert "mini-chunk 14 (translation index)" in lines[0]


def test_a_write_the_game_would_refuse_writes_nothing(tmp_path):
    from io_alamo.formats.alamo import read_ala, save
    save(sample_model(), tmp_path / "Tank.alo")
    anim = read_ala(ANIM_2)
    anim.bones[0].name = "NotInTheModel"
    with pytest.raises(GameRefusedError, match="NotInTheModel"):
        save(anim, tmp_path / "Tank_Turn_00.ala")
    assert not (tmp_path / "Tank_Turn_00.ala").exists()
    save(anim, tmp_path / "Tank_Turn_00.ala", game_check=False)      # broken test input
    assert (tmp_path / "Tank_Turn_00.ala").exists()
    keep = (tmp_path / "Tank_Turn_00.ala").read_bytes()
    save(anim, tmp_path / "Tank_Turn_00.ala", keep=[keep])           # written back as it was
    assert np.array_equal(np.frombuffer(keep, np.uint8),
                          np.frombuffer((tmp_path / "Tank_Turn_00.ala").read_bytes(), np.uint8))
