"""Issue 44 point 3: ``validate``'s short cuts find exactly what the full path finds.

validate decodes a file into views of its bytes instead of array copies
(:func:`~io_alamo.formats.run_cache.read_only`), checks every animation quaternion and offset
in one whole-array test before looking bone by bone (``validate._all_sound``), and takes a
model's bones for its animations from the same loader walk that decides its refusal
(``game_rules._walk``). Each test here runs the full path beside the short one (copies,
every bone looked at, the skeleton walked on its own) and asserts the same problems, the same
text, in the same order, or the same error: on the corpus, the particle corpus, the saved fuzz
inputs, mutated files and animations built with the values the short cuts decide on.
"""

import contextlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from corpus import CORPUS, corpus_files

from io_alamo.cli_validate import validate_one
from io_alamo.formats.alamo import game_rules, read_alo, verbs, write_ala, write_alo
from io_alamo.formats.alamo import validate as validate_mod
from io_alamo.formats.alamo.animation import read_ala
from io_alamo.formats.alamo.sample import sample_animation, sample_model

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("fuzz", ROOT / "scripts" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

PARTICLES = CORPUS.parent / "corpus-particles"


def _both(path, monkeypatch):
    """(short path, full path): the command line's result for one file, as data."""
    short = validate_one(str(path))
    with monkeypatch.context() as m:
        m.setattr(verbs, "read_only", contextlib.nullcontext)    # copies, as info decodes
        m.setattr(validate_mod, "_all_sound", lambda bones: False)  # every bone looked at
        full = validate_one(str(path))
    return short, full


def _files():
    out = [(p.name, p.read_bytes()) for p in corpus_files(".alo", ".ala")]
    if PARTICLES.is_dir():
        out += [(p.name, p.read_bytes()) for p in sorted(PARTICLES.glob("*.alo"))]
    out += [(name, data) for name, data, _ in fuzz.fixture_inputs()]
    return out


def _mutated(count=150):
    seeds = fuzz.generated_seeds()
    out = []
    for k in range(count):
        draw = fuzz.RandomDraw(k)
        seed = draw.choice(seeds)
        data, _ = fuzz.mutate(seed.data, draw)
        suffix = ".ala" if data[:4] == b"\0\x10\0\0" else ".alo"
        out.append((f"mutated{k}{suffix}", data))
    return out


def differing(both, tmp_path, monkeypatch):
    """The corpus, particle, fuzz and 150 mutated files whose two results by ``both``
    (short path, full path) differ."""
    files = _files() + _mutated()
    assert len(files) > 150
    differ = []
    for name, data in files:
        path = tmp_path / name
        path.write_bytes(data)
        short, full = both(path, monkeypatch)
        if short != full:
            differ.append((name, short, full))
    return differ


def test_the_short_path_finds_what_the_full_decode_finds(tmp_path, monkeypatch):
    assert not differing(_both, tmp_path, monkeypatch)


def test_the_short_path_agrees_on_animations_it_must_look_into(tmp_path, monkeypatch):
    """Quaternions just inside and outside 1 % of unit length, and either side of the
    whole-array test's own 1.9 % bound, a bad default rotation, NaN offsets and scales, bones
    animating one skeleton bone twice: each file has the problems the full path finds, and
    the warnings it must have."""
    model = sample_model()
    (tmp_path / "tank.alo").write_bytes(write_alo(model))
    base = sample_animation(model)
    cases = {"sound": lambda a: None}
    for length in (0.99, 0.9899, 1.0099, 1.0101, 0.985, 1.012, 0.5, 0.0):
        def scale(a, length=length):
            q = a.bones[1].rotation.astype(np.float64) * length
            a.bones[1].rotation[7] = np.round(q[7]).astype(np.int16)
        cases[f"rotation x{length}"] = scale

    def default(a):
        a.bones[0].default_rotation = np.array([0, 0, 0, 30000], np.int16)

    def nan(a):
        a.bones[2].translation_offset = np.array([0, np.nan, 0], np.float32)
        a.bones[0].scale_scale = np.array([np.inf, 0, 0], np.float32)

    def twice(a):
        a.bones[2].index = a.bones[1].index
    cases.update(default=default, nan=nan, twice=twice)
    seen = set()
    for label, edit in cases.items():
        anim = read_ala(write_ala(base))
        edit(anim)
        path = tmp_path / "tank_move.ala"
        path.write_bytes(write_ala(anim))
        short, full = _both(path, monkeypatch)
        assert short == full, label
        seen.update(p["message"].split(" ")[0] + (" q" if "quaternion" in p["message"] else "")
                    for p in short["problems"])
    assert {"rotation q", "default q", "translation_offset", "scale_scale",
            "bones"} <= seen


@pytest.mark.parametrize("name, data", _files()[:80] + _mutated(60),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_one_walk_gives_the_bones_the_skeleton_walk_gives(name, data):
    """The bones kept for a model's animations, from the walk that decides its refusal, are
    those the skeleton alone gives, and the refusal is the loader rules' own."""
    bones, refusal = game_rules._walk(data)
    assert bones == game_rules.model_bones(data)
    assert refusal == game_rules.game_problem(data)


def test_read_only_records_are_views_and_the_others_copies():
    """Inside validate the decoded arrays are the file's bytes (nothing copied, nothing
    editable); everywhere else they are the records' own."""
    from io_alamo.formats.run_cache import read_only
    data = write_alo(sample_model())
    with read_only():
        sub = read_alo(data).meshes[0].submeshes[0]
    assert not sub.vertices.flags.writeable and not sub.vertices.flags.owndata
    sub = read_alo(data).meshes[0].submeshes[0]
    assert sub.vertices.flags.writeable and sub.vertices.flags.owndata
