"""Shared fixtures: one seeded ``numpy.random.Generator`` per test."""

from __future__ import annotations

import numpy as np
import pytest

TEST_SEED = 20170125
"""Root seed of the ``rng`` fixture; every test gets the same fresh stream."""


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh ``Generator`` seeded with :data:`TEST_SEED` (tests never share state)."""
    return np.random.default_rng(TEST_SEED)
