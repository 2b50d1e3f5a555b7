"""A short, deterministic run of scripts/fuzz_paa.py: its seeds are mipmapped PAAs whose
levels ``max_side`` picks, mutated inputs give only PaaFormatError (quickly, within the
memory budget), and the harness does report anything else. ``python scripts/fuzz_paa.py
--minutes N`` runs the same checks for longer."""

import importlib.util
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("fuzz_paa", ROOT / "scripts" / "fuzz_paa.py")
fuzz_paa = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_paa)


def test_the_seeds_are_mipmapped_dxt_plain_and_lzo_and_max_side_picks_their_levels():
    chains = [s for s in fuzz_paa.seeds() if len(fuzz_paa._level_headers(s)) > 1]
    assert len(chains) == 8                     # DXT1/DXT5 x plain/LZO x two chains
    kinds = {(fuzz_paa.read_paa(s).kind_name, bool(s[fuzz_paa._level_headers(s)[0] + 1] & 0x80))
             for s in chains}
    assert kinds == {("DXT1", False), ("DXT1", True), ("DXT5", False), ("DXT5", True)}
    for s in chains:
        for side in (16, 4, 1):
            tex = fuzz_paa.read_paa(s, max_side=side)
            assert max(tex.width, tex.height) <= side or tex.level == 0
        assert fuzz_paa.read_paa(s, max_side=16).level > 0


def test_mutated_textures_only_ever_give_the_format_error():
    rng = random.Random(7)
    pool = fuzz_paa.seeds()
    for _ in range(150):
        data = fuzz_paa.mutate(rng.choice(pool), rng)
        found, _ = fuzz_paa.run_one(data)
        assert not found, (found, data[:64])


def test_the_harness_reports_what_is_not_the_format_error(monkeypatch):
    def broken(data, filename=None, decode=True, max_side=None):
        raise ValueError("not the format's own error")
    monkeypatch.setattr(fuzz_paa, "read_paa", broken)
    found, read = fuzz_paa.run_one(fuzz_paa.seeds()[0])
    assert read == 0 and len(found) == len(fuzz_paa.SIDES)
    assert all("ValueError" in f for f in found)
