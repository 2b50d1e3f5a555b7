"""``model_pairs.models_beside`` looks an animation's models up by its ``_`` prefixes in a
per-folder index (``naming.indexed_owners``, which ``naming.animation_owners`` uses too); both
must choose and order them exactly as comparing the animation with every model of the folder's
whole listing does (the step-by-step reference below)."""

import os
import random

from io_alamo.formats.alamo import model_pairs, naming
from io_alamo.formats.run_cache import run_cache

MODELS = ["A.alo", "a.ALO", "A_Blue.alo", "a_blue.alo", "A_Blue_Idle.alo", "B.alo",
          ".alo", "_.alo", "x\\A_Blue.alo", "İ.alo", "i̇_x.alo", "Ünit_Ä.alo", "Unit.alo",
          "Unit_.alo", "Unit__.alo", "Long_Name_Model.ALO", "long_name.alo", "C.ala.alo"]


def _stem(name):
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base[:-4] if base.lower().endswith((".alo", ".ala")) else base


def animation_owners(animation_name, model_names):
    """The reference: every model whose stem followed by ``_`` starts the animation's stem
    (any case), found by comparing with each model in listing order, then the longest first."""
    stem = _stem(animation_name).lower()
    found = [m for m in model_names if stem.startswith(_stem(m).lower() + "_")]
    return sorted(found, key=lambda m: -len(_stem(m)))


def _reference(path):
    folder, name = os.path.split(path)
    listing = [f for f in os.listdir(folder) if f.lower().endswith(".alo")]
    return [os.path.join(folder, m) for m in animation_owners(name, listing)]


def _animation_names(rng):
    parts = ["A", "a", "Blue", "BLUE", "Idle", "", "İ", "i̇", "x", "Ünit", "Ä", "Unit",
             "Long", "name", "Model", "00", "C.ala", "_"]
    names = []
    for _ in range(400):
        words = [rng.choice(parts) for _ in range(rng.randint(1, 5))]
        names.append("_".join(words) + rng.choice([".ala", ".ALA", ".alo", ""]))
    return names


def test_models_beside_chooses_and_orders_as_animation_owners(tmp_path):
    for name in MODELS:
        try:
            (tmp_path / name).write_bytes(b"")
        except OSError:             # a name this file system refuses
            pass
    (tmp_path / "not_a_model.ala").write_bytes(b"")
    rng = random.Random(44)
    names = _animation_names(rng) + ["A_Blue_Idle_00.ala", "a_blue_idle_00.ALA", "_x.ala",
                                     "__.ala", "Unit___y.ala", "İ_x.ala"]
    paths = [os.path.join(str(tmp_path), n) for n in names]
    outside = [model_pairs.models_beside(p) for p in paths]
    with run_cache():
        inside = [model_pairs.models_beside(p) for p in paths]
        again = [model_pairs.models_beside(p) for p in paths]
    expected = [_reference(p) for p in paths]
    assert outside == expected and inside == expected and again == expected
    listing = [f for f in os.listdir(tmp_path) if f.lower().endswith(".alo")]
    assert [naming.animation_owners(n, listing) for n in names] == \
        [animation_owners(n, listing) for n in names]
    counts = [len(e) for e in expected]
    assert sum(c == 0 for c in counts) > 20 and sum(c >= 2 for c in counts) > 20
    assert max(counts) >= 3


def test_models_beside_in_the_current_folder(tmp_path, monkeypatch):
    for name in ("M.alo", "M_Sub.alo", "m_sub_x.alo"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    for name in ("M_Sub_X_Walk.ala", "m_Walk.ala", "N_Walk.ala"):
        assert model_pairs.models_beside(name) == animation_owners(name, [
            f for f in os.listdir(".") if f.lower().endswith(".alo")])


def test_models_beside_keeps_the_listing_order_where_lengths_tie(tmp_path, monkeypatch):
    """Lower-casing may lengthen a stem (İ -> i̇): two owners of the same length as written
    but of different lower-case lengths come in the folder's listing order, both ways."""
    names = ["İİ_x.alo", "i̇i̇.alo", "I.alo"]
    for listing in (names, names[::-1], names[1:] + names[:1]):
        monkeypatch.setattr(model_pairs, "_models_in", lambda folder, listing=listing: listing)
        for animation in ("i̇i̇_x_walk.ala", "İİ_X_Walk.ala", "i_walk.ala"):
            with run_cache():
                got = model_pairs.models_beside(os.path.join(tmp_path, animation))
            assert got == [os.path.join(tmp_path, m) for m in animation_owners(animation,
                                                                              listing)]
            assert len(got) == (2 if "x" in animation.lower() else 1)
