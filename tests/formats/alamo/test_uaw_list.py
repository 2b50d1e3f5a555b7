"""A Universe at War effect's emitter list rebuilt (uaw_list.rebuild): emitters deleted,
duplicated, reordered and renamed; every untouched emitter's bytes kept, the links between
emitters (death/trail creators by name, the trail creator by index) fixed up, a link whose
emitter is gone refused by name; the written files load and play in the viewer as in the
preview. Spec-built effects (tests/uaw_build.py)."""

import struct

import pytest
import uaw_build as ub

from io_alamo.formats.alamo import AlamoFormatError
from io_alamo.formats.alamo.chunks import read_chunks, write_chunks
from io_alamo.formats.alamo.particles import read_particles, simulate as sim
from io_alamo.formats.alamo.particles import uaw_params as up
from io_alamo.formats.alamo.particles import uaw_play
from io_alamo.formats.alamo.particles.uaw_list import rebuild
from io_alamo.formats.alamo.particles.write import write_particles


def effect():
    parent = ub.emitter("fire", ub.shape_creator(2.0, 1.0, bursting=True, velocity=ub.group(
        ub.DIRECTION, direction=(1, 0, 0), magnitude=(2, 2))), lifetime=1.0, spawn_on_death=True)
    child = ub.emitter("sparks", ub.death_creator("fire", 4.0), lifetime=5.0)
    smoke = ub.emitter("smoke", ub.shape_creator(5.0, 1.0), lifetime=2.0)
    return ub.effect([parent, child, smoke])


def emitter_bytes(data):
    system = read_particles(data)
    return [write_chunks([e.chunk]) for e in system.emitters]


def link_of(data, place):
    e = read_particles(data).emitters[place]
    for _, slot, pid, params in up.plugins(e.chunk):
        if pid == 40:
            return bytes(params[109].data).rstrip(b"\0").decode()
        if pid == 1:
            return struct.unpack("<i", bytes(params[100].data))[0]
    return None


def rebuilt(data, order, names=None):
    return write_particles(rebuild(read_particles(data), order, names or {}))


def test_the_same_order_writes_the_same_bytes_and_leaves_the_source_alone():
    data = effect()
    system = read_particles(data)
    assert write_particles(rebuild(system, [0, 1, 2], {0: "fire"})) == data
    rebuild(system, [2, 0], {})
    assert write_particles(system) == data


def test_reordering_moves_whole_emitters_and_keeps_the_death_link():
    data = effect()
    out = rebuilt(data, [2, 1, 0])
    before, after = emitter_bytes(data), emitter_bytes(out)
    assert after == [before[2], before[1], before[0]] and len(out) == len(data)
    models = uaw_play.models(read_particles(out))
    assert models[2].death == 1                       # fire (now 2) -> sparks (1)
    counts = [len(p) for p in sim.simulate(models, 2.5)]
    assert counts == [len(p) for p in sim.simulate(uaw_play.models(read_particles(data)),
                                                   2.5)][::-1]


def test_deleting_keeps_the_others_and_refuses_to_orphan_a_link():
    data = effect()
    out = rebuilt(data, [0, 1])
    assert emitter_bytes(out) == emitter_bytes(data)[:2]
    assert len(data) - len(out) == 8 + len(emitter_bytes(data)[2]) - 8  # the smoke chunk
    with pytest.raises(AlamoFormatError, match="'sparks'.*'fire', which is no longer"):
        rebuild(read_particles(data), [1, 2], {})


def test_duplicating_copies_the_bytes_and_a_renamed_copy_keeps_links_to_the_first():
    data = effect()
    out = rebuilt(data, [0, 0, 1, 2], {1: "fire_2"})
    e = emitter_bytes(out)
    assert e[0] == emitter_bytes(data)[0] and e[2:] == emitter_bytes(data)[1:]
    assert e[1][16:23] == b"fire_2\0" and e[1][23:] == e[0][21:]     # only its name differs
    assert link_of(out, 2) == "fire"
    models = uaw_play.models(read_particles(out))
    assert models[0].death == 2 and models[1].death == sim.NO_EMITTER


def test_renaming_a_parent_renames_the_links_that_followed_it():
    data = effect()
    out = rebuilt(data, [0, 1, 2], {0: "blaze"})
    assert link_of(out, 1) == "blaze"
    assert uaw_play.models(read_particles(out))[0].death == 1
    moved = rebuilt(data, [1, 0, 0], {2: "blaze"})   # the link follows the first copy
    assert link_of(moved, 0) == "fire" and uaw_play.models(read_particles(moved))[1].death == 0


def test_a_trail_creators_parent_index_is_renumbered():
    trail = ub.emitter("trail", [1, [(0, ub.f32(5.0)), (1, ub.f32(0.0)), (2, ub.f32(0.0)),
                                     (100, struct.pack("<I", 1))]])
    data = ub.effect([trail, ub.emitter("smoke"), ub.emitter("fire")])
    out = rebuilt(data, [1, 2, 0])
    assert link_of(out, 2) == 0
    changed = [i for i in range(len(out)) if out[i] != rebuilt(data, [1, 2, 0], {})[i]]
    assert changed == []
    with pytest.raises(AlamoFormatError, match="'trail'"):
        rebuild(read_particles(data), [0, 2], {})


def test_rebuilt_effects_load_in_the_viewer_and_play_as_the_preview(tmp_path):
    import particle_viewer
    if particle_viewer.exe() is None:
        pytest.skip("particle_check cannot be built here")
    out = rebuilt(effect(), [2, 1, 0, 0], {3: "fire_copy"})
    path = tmp_path / "p_uaw_list.alo"
    path.write_bytes(out)
    assert read_chunks(out)[0].type == 0x1500
    ok, line, rows = particle_viewer.run(path, [0.5, 1.5, 2.5])
    assert ok, line
    models = uaw_play.models(read_particles(out))
    for t in (0.5, 1.5, 2.5):
        ours = sim.simulate(models, t)
        for i in range(4):
            assert rows[(t, i)][0] == len(ours[i]), (t, i)
