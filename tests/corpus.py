"""The real files the tests use: ``../shared/corpus`` beside the checkout, or a modder's own
folder named by the ``ALAMO_CORPUS`` environment variable (searched recursively: a mod's
``Data`` folder works); Arma .p3d samples from ``../shared/corpus-odol`` or
``ALAMO_P3D_CORPUS``. Without either the real-file tests skip with a message.

    ALAMO_CORPUS=~/Mods/MyMod/Data ./scripts/test.sh -k corpus
"""

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = Path(os.environ.get("ALAMO_CORPUS") or SHARED / "corpus").expanduser()
P3D_CORPUS = Path(os.environ.get("ALAMO_P3D_CORPUS") or SHARED / "corpus-odol").expanduser()


def corpus_files(*suffixes):
    """Real files of the corpus whose suffix is one of ``suffixes`` (any case), found
    recursively (empty when there is no corpus)."""
    if not CORPUS.is_dir():
        return []
    return sorted((p for p in CORPUS.rglob("*") if p.suffix.lower() in suffixes
                   and p.is_file()), key=lambda p: str(p.relative_to(CORPUS)).lower())


def corpus_params(*suffixes):
    files = corpus_files(*suffixes)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no corpus at {CORPUS} (set ALAMO_CORPUS to a folder of "
                   ".alo/.ala files): real-file tests skipped"))]
    return [pytest.param(p, id=str(p.relative_to(CORPUS))) for p in files]
