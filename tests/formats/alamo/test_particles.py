"""Particle effects (issue 33), format layer: spec-built and real files read into the records
the spec describes, write back byte for byte, edits change only what was edited, and the
command line's info/validate/dump/roundtrip understand them."""

import importlib.util
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import particle_build as pb
import pytest

from io_alamo.formats import registry
from io_alamo.formats.alamo import AlamoFormatError
from io_alamo.formats.alamo.particles import (Emitter, ParticleSystem, UawParticleSystem,
                                              read_particles)
from io_alamo.formats.alamo.particles.write import write_particles

ROOT = Path(__file__).resolve().parents[3]
PARTICLES = ROOT.parent / "shared" / "corpus-particles"
CORPUS = ROOT.parent / "shared" / "corpus"


def real_files():
    files = sorted(p for p in PARTICLES.glob("*") if p.suffix.lower() == ".alo") \
        if PARTICLES.is_dir() else []
    files += [p for p in sorted(CORPUS.glob("*")) if p.suffix.lower() == ".alo"
              and p.read_bytes()[:4] in (b"\0\x09\0\0", b"\0\x15\0\0")] \
        if CORPUS.is_dir() else []
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no particle corpus at {PARTICLES}: real-file tests skipped"))]
    return [pytest.param(p, id=p.name) for p in files]


def check_emitter(e, spec):
    assert e.name == spec["name"] and e.texture == spec["texture"]
    assert e.secondary_texture == spec["secondary_texture"]
    for name, value in spec["properties"].items():
        assert getattr(e, name) == value, name
    for g, gspec in zip(e.groups, spec["groups"]):
        assert g.values() == tuple(gspec[k] for k in pb.GROUP_KEYS)
    for t in e.tracks:
        first, last, interp, keys = spec["tracks"][t.name]
        assert (t.first_key, t.last_key, t.interpolation) == (first, last, interp)
        assert t.keys["value"].tolist() == [v for v, _ in keys]
        assert t.keys["time"].tolist() == [k for _, k in keys]
    assert (e.death, e.birth) == (spec["death"], spec["birth"])


def test_spec_built_system_reads_every_field_and_writes_back():
    data, spec = pb.linked_system()
    system = read_particles(data)
    assert isinstance(system, ParticleSystem)
    assert (system.name, system.id, system.persist) == (spec["name"], 0, 1)
    assert len(system.emitters) == 3
    for e, es in zip(system.emitters, spec["emitters"]):
        check_emitter(e, es)
    assert write_particles(system) == data
    assert registry.identify(data).key == "alo-particles"


def test_unknown_minis_and_chunks_are_kept_in_place():
    data, _ = pb.linked_system()
    system = read_particles(data)
    entries = system.emitters[0].layout.minis["properties"]
    assert (73, b"\x2e\x00\x46\x00", None, None) in entries
    assert system.emitters[2].layout.order[-1].type == 0x100
    system.emitters[0].gravity = 1.5
    again = read_particles(write_particles(system))
    assert (73, b"\x2e\x00\x46\x00", None, None) in again.emitters[0].layout.minis["properties"]
    assert bytes(again.emitters[2].layout.order[-1].data) == b"\x01\x00\x00\x00"


def changed_bytes(a, b):
    assert len(a) == len(b)
    return np.flatnonzero(np.frombuffer(a, np.uint8) != np.frombuffer(b, np.uint8))


def test_lifetime_edit_changes_lifetime_and_its_group_only():
    data, _ = pb.linked_system()
    system = read_particles(data)
    e = system.emitters[1]
    e.lifetime = 3.0
    e.sync_lifetime_group()
    out = write_particles(system)
    at = changed_bytes(data, out)
    again = read_particles(out)
    assert again.emitters[1].lifetime == 3.0
    assert again.emitters[1].lifetime_group.max_y == 3.0
    assert again.emitters[1].lifetime_group.min_y == 3.0     # randomized_lifetime 0
    assert 0 < len(at) <= 12        # the lifetime float and the group's min_y / max_y
    for i in (0, 2):
        check_emitter(again.emitters[i], pb.linked_system()[1]["emitters"][i])


def test_key_edit_rewrites_that_track_only():
    data, spec = pb.linked_system()
    system = read_particles(data)
    t = system.emitters[0].track("size")
    t.keys = np.array([(4.0, 0.25), (12.0, 0.75)], t.key_dtype)
    out = read_particles(write_particles(system))
    assert out.emitters[0].track("size").keys.tolist() == [(4.0, 0.25), (12.0, 0.75)]
    assert out.emitters[0].track("red").keys.tolist() == [(128, 0.25), (64, 0.75)]


def test_new_system_from_nothing_reads_back():
    system = ParticleSystem(name="p_new", emitters=[Emitter(name="a", texture="a.tga"),
                                                    Emitter(name="b", index=1, birth=0)])
    system.emitters[0].lifetime = 2.5
    system.emitters[0].sync_lifetime_group()
    data = write_particles(system)
    back = read_particles(data)
    assert [e.name for e in back.emitters] == ["a", "b"]
    assert back.emitters[0].lifetime == 2.5 and back.emitters[0].lifetime_group.max_y == 2.5
    assert registry.by_key("alo-particles").validate(data, "p_new.alo") == []
    assert write_particles(back) == data
    minis = [m[0] for m in back.emitters[0].layout.minis["properties"]]
    assert minis == sorted(minis) and 73 in minis and 17 not in minis


def test_uaw_system_is_listed_and_kept_byte_for_byte():
    data, spec = pb.uaw_system("p_uaw", [pb.uaw_emitter("fire", "fire.tga", 1.5),
                                         pb.uaw_emitter("glow", "glow.dds", 0.25, renderer=52)])
    system = read_particles(data)
    assert isinstance(system, UawParticleSystem)
    assert [(e.name, e.textures, e.lifetime) for e in system.emitters] == [
        ("fire", ["fire.tga"], 1.5), ("glow", ["glow.dds"], 0.25)]
    assert system.emitters[1].info["renderer"] == "Kites Renderer"
    assert write_particles(system) == data
    tree = registry.by_key("alo-particles").dump(data, "p_uaw.alo")
    emitters = next(c for c in tree[0]["children"] if c["type"] == "0x1520")
    emitter = emitters["children"][0]
    assert emitter["name"] == "emitter" and emitter["children"][0]["text"] == "fire"
    assert [k["name"] for k in emitter["children"][1:5]] == [
        "creator plugin", "translater plugin", "killer plugin", "renderer plugin"]


@pytest.mark.parametrize("path", real_files())
def test_real_files_round_trip_and_list(path):
    data = path.read_bytes()
    system = read_particles(data, str(path))
    assert write_particles(system) == data
    info = registry.by_key("alo-particles").info_json(data, str(path))
    assert len(info["emitters"]) == len(system.emitters) > 0
    for e, d in zip(system.emitters, info["emitters"]):
        assert d["name"] == e.name and d["texture"] == e.texture
        assert d["lifetime"] == pytest.approx(float(e.lifetime))


@pytest.mark.parametrize("path", real_files())
def test_real_files_one_lifetime_edit_changes_nothing_else(path):
    data = path.read_bytes()
    system = read_particles(data)
    e = system.emitters[-1]
    e.lifetime = float(e.lifetime) + 0.5
    e.sync_lifetime_group()
    out = write_particles(system)
    again = read_particles(out)
    assert again.emitters[-1].lifetime == pytest.approx(e.lifetime)
    start = _emitter_offset(data, len(system.emitters) - 1)
    assert changed_bytes(data, out).min() > start      # nothing before the edited emitter
    assert len(changed_bytes(data, out)) <= 12


def _emitter_offset(data, k):
    from io_alamo.formats.alamo import read_chunks
    root = read_chunks(data)[0]
    lst = next(c for c in root.children if c.type == 0x800)
    return lst.children[k].offset


def test_validate_names_what_the_game_needs():
    e0 = pb.emitter("a", index=0, death=5)
    e1 = pb.emitter("b", index=3)
    data, _ = pb.particle_system("p_other", [e0, e1])
    found = registry.by_key("alo-particles").validate(data, "p_mine.alo")
    text = "\n".join(found)
    assert "does not match the file name 'p_mine'" in text
    assert "death emitter 5 does not exist" in text
    assert "index 3, but it is emitter 1" in text


@pytest.mark.parametrize("cut", [10, 40, 200, 600])
def test_cut_files_give_the_format_error(cut):
    data, _ = pb.linked_system()
    with pytest.raises(AlamoFormatError) as e:
        read_particles(data[:cut], "x.alo")
    assert "x.alo" in str(e.value) and "offset" in str(e.value)


def test_track_key_of_the_wrong_size_is_refused_with_its_place():
    e = pb.emitter("a")
    data, _ = pb.particle_system("p", [e])
    # the red track's keys chunk: empty; give it one 05 mini of 4 bytes
    at = data.index(struct.pack("<II", 0x1, 0) + struct.pack("<II", 0x0, 18))
    bad = data[:at] + struct.pack("<II", 0x1, 6) + bytes((5, 4)) + b"\0" * 4 + data[at + 8:]
    bad = _fix_sizes(bad)
    with pytest.raises(AlamoFormatError, match="track key mini 0x5 of 4 bytes"):
        read_particles(bad, "p.alo")


def _fix_sizes(data):
    """Re-size the containers of a hand-edited spec-built file (its only changed chunk grew
    by 6 bytes)."""
    out = bytearray(data)
    # grow the four enclosing containers (root, emitter list, emitter, tracks) by hand
    pos = 0
    for _ in range(4):
        ctype, size = struct.unpack_from("<II", out, pos)
        struct.pack_into("<II", out, pos, ctype, size + 6)
        body = pos + 8
        if ctype == 0x900:
            pos = body + 8 + out[body + 4] + 8 + 4        # skip name and id chunks
        elif ctype == 0x800:
            pos = body
        elif ctype == 0x700:
            pos = body
            while struct.unpack_from("<I", out, pos)[0] != 0x1:
                pos += 8 + (struct.unpack_from("<I", out, pos + 4)[0] & 0x7FFFFFFF)
    return bytes(out)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "io_alamo.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_command_line_understands_particle_files(tmp_path):
    data, _ = pb.linked_system("p_linked")
    path = tmp_path / "p_linked.alo"
    path.write_bytes(data)
    r = cli("info", "--json", str(path))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)[0]
    assert out["format"] == "alo-particles"
    assert [(e["name"], e["texture"], e["lifetime"]) for e in out["emitters"]] == [
        ("trail head", "p_particle_master.tga", 2.0), ("sparks", "p_particle_master.tga", 0.5),
        ("smoke", "p_smoke.tga", 4.0)]
    r = cli("info", str(path))
    assert "emitter 0 'trail head'" in r.stdout and "birth -> 1, death -> 2" in r.stdout
    assert cli("roundtrip", str(path)).stdout.strip().endswith("identical")
    assert cli("validate", str(path)).returncode == 0
    r = cli("dump", str(path))
    assert "0x700 emitter" in r.stdout and "mini 15 lifetime = 2.0" in r.stdout
    assert "mini 73 ? = 2e004600" in r.stdout


_spec = importlib.util.spec_from_file_location("fuzz_particles",
                                              ROOT / "scripts" / "fuzz_particles.py")
fuzz_particles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_particles)


def test_fuzzed_particle_files_only_ever_give_the_format_error():
    """A few hundred mutated files through scripts/fuzz_particles.py's checks (the long runs
    are the script's: python scripts/fuzz_particles.py --minutes N). Spec-built seeds only,
    so that the run is the same on every machine."""
    pool = fuzz_particles.seeds(real=False)
    failures = []
    readable = 0
    for n in range(300):
        draw = fuzz_particles.RandomDraw(n)
        data, steps = fuzz_particles.mutate(draw.choice(pool), draw)
        found = fuzz_particles.run_one(data)
        try:
            read_particles(data)
            readable += 1
        except AlamoFormatError:
            pass
        if found:
            failures.append((steps, found))
    assert failures == []
    assert readable > 30          # the mutations leave enough files readable to write back


def test_dump_decodes_spawn_groups_by_shape(tmp_path, capsys):
    from io_alamo.cli import main
    e = pb.emitter("g", lifetime=1.0, groups=[{"type": 3, "sphere_radius": 4.0, "sphere_surface": 1,
                                 "side_length": 2.0},
                                {}, {"type": 4, "cylinder_radius": 2.0, "cylinder_height": 8.0}])
    e2 = pb.emitter("h", index=1, groups=[{"type": 2, "side_length": 3.0}, {},
                                          {"type": 0, "val_x": 0.5, "val_z": -1.0}])
    data, _ = pb.particle_system("p_groups", [e, e2])
    path = tmp_path / "p_groups.alo"
    path.write_bytes(data)
    assert main(["dump", str(path)]) == 0
    out = capsys.readouterr().out
    assert "sphere: radius 4, surface only" in out
    assert "other shapes' values (not used): side_length 2" in out
    assert "cylinder: radius 2 height 8" in out
    assert "box: min (0, 1, 0) max (0, 1, 0)" in out            # the lifetime group
    assert "cube: side length 3" in out and "exact: value (0.5, 0, -1)" in out
    assert "0300000000000000" not in out                         # no raw hex for groups
    assert main(["dump", "--json", str(path)]) == 0
    assert "sphere: radius 4, surface only" in capsys.readouterr().out
