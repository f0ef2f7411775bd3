"""The inverse-CDF draw from unnormalised weights that never lands on a zero weight.

Written once as plain Python (:func:`inverse_cdf_py`, for the numpy references) and
compiled by numba from the same source (:func:`inverse_cdf_nb`, for the kernels),
as :mod:`prunelab.samplers.init` does with its initialiser, so the readable path and
the fast one cannot drift apart. The samplers and :mod:`prunelab.evidence` (forward
sampling) share it, so it sits in the core, below both.

Given weights ``w_0 .. w_{n-1}`` with a positive sum and ``u = r * sum(w)`` for a
uniform ``r`` in ``[0, 1)``, the draw is the first ``s`` whose running sum
``w_0 + ... + w_s`` (added left to right) exceeds ``u``. The sum is added in the
same order as :func:`numpy.cumsum`, so ``u`` scaled by ``np.cumsum(w)[-1]`` gives
the same ``s`` as ``np.searchsorted(np.cumsum(w), u, side="right")``. Should
rounding ever leave ``s`` past the last positive weight, ``s`` steps back to it: a
state of probability zero is never drawn.
"""

from __future__ import annotations

import numba
from numba.extending import register_jitable

__all__ = ["inverse_cdf_py", "inverse_cdf_nb"]


@register_jitable  # a plain function here, and callable as it is from numba-compiled kernels
def inverse_cdf_py(weights, n: int, u: float) -> int:
    """First ``s < n`` with ``weights[0] + ... + weights[s] > u``, never a zero weight.

    Parameters
    ----------
    weights : float64 array
        Non-negative weights; only the first ``n`` are read (a kernel's scratch
        buffer may be longer).
    n : int
        Number of weights, at least one of them positive.
    u : float
        ``rng.random()`` times the sum of the ``n`` weights.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([0.5, 0.0, 1.5, 0.0])
    >>> [inverse_cdf_py(w, 4, u) for u in (0.0, 0.49, 0.5, 1.99, 2.0)]
    [0, 0, 2, 2, 2]
    """
    cumulative = 0.0
    s = n - 1
    for k in range(n):
        cumulative += weights[k]
        if cumulative > u:
            s = k
            break
    while weights[s] == 0.0:
        s -= 1
    return s


inverse_cdf_nb = numba.njit(cache=True, nogil=True)(inverse_cdf_py)
"""The numba-compiled :func:`inverse_cdf_py` (same arguments), called from the kernels."""
