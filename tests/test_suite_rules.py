"""Rules of the test suite itself (issue 36): no test asserts wall-clock time (timings are in
scripts/bench_*.py), and ALAMO_CORPUS points the real-file tests at a modder's own folder."""

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCK = re.compile(r"perf_counter|time\.time\(|monotonic\(|process_time\(")


def test_no_test_reads_the_clock():
    offenders = [f"{p.relative_to(TESTS)}:{k}" for p in TESTS.rglob("*.py")
                 if p.name != Path(__file__).name
                 for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if CLOCK.search(line)]
    assert offenders == []


def test_alamo_corpus_points_the_real_file_tests_at_a_folder(tmp_path):
    mod = tmp_path / "MyMod" / "Data" / "Art" / "Models"
    mod.mkdir(parents=True)
    (mod / "UNIT.ALO").write_bytes(b"x")
    (mod / "unit_idle.ala").write_bytes(b"x")
    (mod / "unit.dds").write_bytes(b"x")
    code = ("import corpus; print(corpus.CORPUS); "
            "print([p.name for p in corpus.corpus_files('.alo', '.ala')])")
    env = dict(os.environ, ALAMO_CORPUS=str(tmp_path / "MyMod" / "Data"))
    r = subprocess.run([sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    folder, names = r.stdout.strip().splitlines()
    assert folder == str(tmp_path / "MyMod" / "Data")
    assert names == "['UNIT.ALO', 'unit_idle.ala']"
