"""A short, deterministic run of the fuzz harness (scripts/fuzz.py), and every input it ever
saved. Only AlamoFormatError may come out of any reader or the command line, each reader
finishes within a second, and an input allocates at most max(128 MB, 50 x its size).
``python scripts/fuzz.py --minutes N`` runs the same checks for longer."""

import importlib.util
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from corpus import corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("fuzz", ROOT / "scripts" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

# generated seeds always; small real files too when the shared corpus is beside the checkout
SEEDS = fuzz.generated_seeds() + [fuzz.Seed(p.name, p.read_bytes(), "corpus")
                                  for p in corpus_files(".alo", ".ala")
                                  if p.stat().st_size < 40_000]
EXAMPLES = 300
CLI_EVERY = 10                # the command line re-reads the file seven times: a sample


@pytest.fixture(scope="module")
def cli_folder():
    with tempfile.TemporaryDirectory(prefix="alamo-fuzz-") as folder:
        yield folder


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_files_only_ever_give_the_format_error(cli_folder, data):
    draw = fuzz.HypothesisDraw(data)
    seed = draw.choice(SEEDS)
    mutated, steps = fuzz.mutate(seed.data, draw)
    use_cli = draw.int(1, CLI_EVERY) == 1
    outcome = fuzz.check_input(mutated, cli_folder=cli_folder if use_cli else None)
    assert not outcome.problems, (seed.name, steps, outcome.problems)


def saved_inputs():
    found = fuzz.fixture_inputs()
    if not found:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="nothing saved yet"))]
    return [pytest.param(data, why, id=name) for name, data, why in found]


@pytest.mark.parametrize("data, why", saved_inputs())
def test_saved_fuzz_inputs_stay_fixed(cli_folder, data, why):
    if data is None:
        pytest.skip(why)
    outcome = fuzz.check_input(data, cli_folder=cli_folder)
    assert not outcome.problems


def test_the_mutations_cover_every_kind():
    """Each mutation applies to a generated seed and changes it (none silently idles)."""
    seed = next(s for s in fuzz.generated_seeds() if s.name == "sample_model")
    for op in fuzz.BYTE_MUTATIONS + fuzz.CHUNK_MUTATIONS:
        changed = 0
        for k in range(40):
            done = op(seed.data, fuzz.RandomDraw(k))
            changed += done is not None and done[0] != seed.data
        assert changed, op.__name__


def test_a_replayed_note_remakes_the_same_input(tmp_path):
    """A corpus-derived failure is kept as a note (file name, sha256, recipe), never as
    bytes; the note remakes the input exactly."""
    real = tmp_path / "real.alo"
    real.write_bytes(fuzz.generated_seeds()[0].data)        # stands in for a corpus file
    seed = fuzz.Seed("real.alo", real.read_bytes(), "corpus")
    data, steps = fuzz.mutate(seed.data, fuzz.RandomDraw(1234))
    note = fuzz.save_failure(data, seed, 1234, steps, ["example"], tmp_path / "saved")
    assert note.suffix == ".json" and not list((tmp_path / "saved").glob("*.alo"))
    name, again, why = fuzz.fixture_inputs(tmp_path / "saved", corpus=tmp_path)[0]
    assert again == data and why is None
    stored = fuzz.save_failure(data, fuzz.Seed("gen", seed.data, "generated"), 1, steps, [],
                               tmp_path / "saved")
    assert stored.read_bytes() == data


@pytest.mark.parametrize("verb", [["info"], ["dump"], ["dump", "--json"], ["validate"],
                                  ["roundtrip"], ["convert-ala", "--format", "1"]])
def test_command_line_fails_in_one_line_without_a_traceback(tmp_path, verb):
    model = next(s for s in fuzz.generated_seeds() if s.name == "sample_model").data
    bad = bytearray(model[:len(model) // 2])
    struct.pack_into("<I", bad, 4, 0x7FFFFFF0 | 0x80000000)    # root size: 2 GB
    path = tmp_path / "bad.alo"
    path.write_bytes(bytes(bad))
    out = [str(tmp_path / "out.ala")] if verb[0] == "convert-ala" else []
    r = subprocess.run([sys.executable, "-m", "io_alamo", verb[0], str(path), *out, *verb[1:]],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and r.stderr.count("\n") <= 1
    lines = (r.stderr or r.stdout).strip().splitlines()
    if verb[0] in ("validate", "roundtrip", "info"):      # the run's summary line comes last
        summary = (r.stdout.strip().splitlines() or [""])[-1]
        assert "1 not read" in summary, r.stdout
        lines = [line for line in lines if line != summary]
    if verb[0] == "convert-ala":      # a model: refused before any chunk is read (issue 24)
        assert lines == [f"{path}: is an Alamo model; convert-ala works on Alamo .ala files only"]
    else:
        assert len(lines) == 1 and "bad.alo" in lines[0] and "offset 0x0" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.alo"]


# --- what a few bytes may claim ---------------------------------------------------------------

def _chunk(ctype, body, container=False):
    return struct.pack("<II", ctype, len(body) | (0x80000000 if container else 0)) + body


def test_files_of_nothing_but_tiny_chunks_are_refused_at_the_caps():
    from io_alamo.formats.alamo.chunks import MAX_CHUNKS, MAX_MINIS
    many = _chunk(0x200, b"") * (MAX_CHUNKS + 1)
    with pytest.raises(fuzz.AlamoFormatError, match="more than 100,000 chunks"):
        fuzz.read_any(many)
    minis = _chunk(0x600, _chunk(0x601, b"\x63\x00" * (MAX_MINIS + 1)), container=True)
    with pytest.raises(fuzz.AlamoFormatError, match="more than 100,000 mini-chunks"):
        fuzz.read_any(_chunk(0x200, _chunk(0x201, bytes(128)), container=True) + minis)


def test_writers_refuse_what_readers_would_refuse():
    from io_alamo.formats.alamo.chunks import MAX_CHUNKS, Chunk, write_chunks
    with pytest.raises(fuzz.AlamoFormatError, match="readers accept at most"):
        write_chunks([Chunk(0x999, data=b"")] * (MAX_CHUNKS + 1))


def _animation(frames, bones, extra=b""):
    header = (b"\x01\x04" + struct.pack("<I", frames) + b"\x02\x04" + struct.pack("<f", 30)
              + b"\x03\x04" + struct.pack("<I", bones))
    bone = _chunk(0x1002, _chunk(0x1003, b"\x04\x02B\0\x05\x04\0\0\0\0") + extra, True)
    return _chunk(0x1000, _chunk(0x1001, header) + bone * bones, container=True)


def test_a_small_animation_cannot_claim_gigabytes_of_frames():
    small = _animation(100_000, 1000)                       # 1,000 constant bones, 100,000 frames
    anim = fuzz.read_ala(small, "claims.ala")               # reading follows the file's size
    assert len(anim.bones) == 1000 and anim.num_frames == 100_000
    with pytest.raises(fuzz.AlamoFormatError, match="1,000 bones x 100,000 frames"):
        fuzz.decode_animation(anim)                         # 4.2 GB of float arrays: refused
    t, q, s, vis, step = fuzz.decode_bone(anim.bones[0], 100_000, full=False)
    assert t.shape == (1, 3) and q.shape == (1, 4) and vis is None and step is None
    anim = fuzz.read_ala(_animation(100_000, 10))           # 1,000,000 bone-frames: fine
    assert fuzz.decode_animation(anim).translation.shape == (10, 100_000, 3)
    for data in (small, _animation(100_000, 10)):
        assert not fuzz.check_input(data).problems


def test_bones_may_share_frame_values_but_not_many_times_over():
    from io_alamo.formats.alamo import read_ala, write_ala
    seed = next(s for s in fuzz.generated_seeds() if s.name == "sample_animation_v2").data
    tree = fuzz.parse_tree(seed)
    bones = [n for n in tree[0].kids if n.type == 0x1002]
    twice = fuzz.write_tree([fuzz.Node(0x1000, kids=tree[0].kids + [fuzz._copy(bones[1])])])
    assert write_ala(read_ala(twice)) == twice             # a repeated bone reads and writes
    many = fuzz.write_tree([fuzz.Node(0x1000, kids=tree[0].kids
                                      + [fuzz._copy(bones[1]) for _ in range(3)])])
    with pytest.raises(fuzz.AlamoFormatError, match="more than twice over"):
        read_ala(many)


# --- saving: all or nothing -------------------------------------------------------------------

def test_a_full_disk_leaves_the_old_file_and_says_so(tmp_path, monkeypatch):
    import errno
    import os

    from io_alamo.formats.alamo.files import save_all
    from io_alamo.formats.saving import SaveError
    from io_alamo.formats.alamo.sample import sample_animation, sample_model
    model = sample_model()
    targets = [tmp_path / "m.alo", tmp_path / "m_Turn.ala"]
    for t in targets:
        t.write_bytes(b"old")
    real_write = os.write
    calls = []

    def full(fd, data):
        calls.append(fd)
        if len(calls) == 2:                                  # the second file
            real_write(fd, bytes(data[:3]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(SaveError) as info:
        save_all([(model, targets[0]), (sample_animation(model), targets[1])])
    assert str(info.value) == (f"{targets[1]}: cannot be written: the disk is full; it was left as "
                               "it was")
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError)
    assert [t.read_bytes() for t in targets] == [b"old", b"old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.alo", "m_Turn.ala"]


def test_the_command_line_reports_an_unwritable_output_in_one_line(tmp_path):
    seed = next(s for s in fuzz.generated_seeds() if s.name == "sample_animation_v2").data
    src = tmp_path / "a.ala"
    src.write_bytes(seed)
    missing = tmp_path / "no such folder" / "b.ala"
    r = subprocess.run([sys.executable, "-m", "io_alamo", "convert-ala", str(src), str(missing),
                        "--format", "1"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert r.stderr == f"{missing}: cannot be written: the folder does not exist; nothing " \
                       "was written\n"
