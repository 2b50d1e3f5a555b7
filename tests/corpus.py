"""The shared corpus of real files (../shared/corpus), when it is beside the checkout."""

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def corpus_files(*suffixes):
    """Real files from ../shared/corpus (empty when a fresh clone has no ../shared)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.suffix.lower() in suffixes)


def corpus_params(*suffixes):
    files = corpus_files(*suffixes)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no shared corpus at {CORPUS}: real-file tests skipped"))]
    return [pytest.param(p, id=p.name) for p in files]
