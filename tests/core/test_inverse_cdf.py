"""The one inverse-CDF draw: its Python and numba forms agree, match searchsorted, never pick a zero weight."""

from __future__ import annotations

import numpy as np

from prunelab.inverse_cdf import inverse_cdf_nb, inverse_cdf_py


def test_python_and_numba_agree_with_searchsorted_and_skip_zeros(rng):
    for _ in range(500):
        n = int(rng.integers(1, 9))
        weights = rng.random(n) * (rng.random(n) < 0.6)
        weights[rng.integers(n)] = rng.random() + 0.1  # at least one positive weight
        cumulative = np.cumsum(weights)
        for r in (0.0, rng.random(), np.nextafter(1.0, 0.0)):
            u = r * cumulative[-1]
            expected = min(int(np.searchsorted(cumulative, u, side="right")), n - 1)
            while weights[expected] == 0.0:
                expected -= 1
            assert inverse_cdf_py(weights, n, u) == inverse_cdf_nb(weights, n, u) == expected
            assert weights[expected] > 0.0


def test_only_the_first_n_weights_are_read():
    buffer = np.array([0.0, 2.0, 0.0, 99.0])  # a kernel's scratch buffer: the tail is stale
    assert inverse_cdf_nb(buffer, 3, 1.999) == inverse_cdf_py(buffer, 3, 1.999) == 1
    assert inverse_cdf_py(buffer, 3, 2.0) == 1  # u at the total (rounding): back to the last positive weight
