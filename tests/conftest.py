"""Shared fixtures: one seeded ``numpy.random.Generator`` per test; the paper's source where it exists."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

TEST_SEED = 20170125
"""Root seed of the ``rng`` fixture; every test gets the same fresh stream."""

PAPER_TEX = Path(os.environ.get("PRUNELAB_PAPER_TEX")
                 or Path(__file__).resolve().parents[1].parent / "shared" / "paper" / "prune-sampling.tex")
"""The paper's LaTeX source, outside the repository (``../shared/paper/``, or ``$PRUNELAB_PAPER_TEX``): the
transcription test (``lab/test_paper_source.py``) is collected only where it exists, so it never skips."""

collect_ignore = [] if PAPER_TEX.is_file() else ["lab/test_paper_source.py"]


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh ``Generator`` seeded with :data:`TEST_SEED` (tests never share state)."""
    return np.random.default_rng(TEST_SEED)
