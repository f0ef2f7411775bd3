"""The ladder of inverse temperatures of tempered prune sampling (:mod:`prunelab.samplers.prune.tempered`).

Replica ``k`` targets ``pi_beta(x) ~ P(x, e) ** beta_k``; ``beta_0 = 1`` is the chain
whose draws are returned. :func:`geometric_betas` makes the usual ladder and
:func:`check_betas` checks one given by hand.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_N_REPLICAS", "DEFAULT_BETA_MIN", "DEFAULT_BETAS", "geometric_betas", "check_betas"]

DEFAULT_N_REPLICAS = 4
"""Replicas of the default ladder."""

DEFAULT_BETA_MIN = 0.2
"""Inverse temperature of the hottest replica of the default ladder."""


def geometric_betas(n_replicas: int, beta_min: float) -> np.ndarray:
    """The geometric ladder ``beta_k = beta_min ** (k / (K - 1))``, ``k = 0, ..., K - 1``.

    Equal ratios between neighbours: the usual first choice, since the swap
    acceptance between ``beta`` and ``r beta`` depends on ``log P`` spread over
    ``(1 - r) beta``, roughly even along a geometric ladder when the energy's
    spread scales like ``1 / beta``.

    Parameters
    ----------
    n_replicas : int
        ``K >= 1``; ``K = 1`` gives ``[1.0]`` (plain prune sampling).
    beta_min : float
        The hottest replica's ``beta``, in ``(0, 1)``.

    Returns
    -------
    float64 array (K,)

    Raises
    ------
    ValueError
        ``n_replicas < 1`` or ``beta_min`` outside ``(0, 1)``.

    Examples
    --------
    >>> geometric_betas(3, 0.25).tolist()
    [1.0, 0.5, 0.25]
    """
    if isinstance(n_replicas, bool) or not isinstance(n_replicas, (int, np.integer)) or n_replicas < 1:
        raise ValueError(f"n_replicas must be an integer >= 1, got {n_replicas!r}")
    if not 0.0 < beta_min < 1.0:
        raise ValueError(f"beta_min must be in (0, 1), got {beta_min!r}")
    if n_replicas == 1:
        return np.ones(1)
    betas = float(beta_min) ** (np.arange(n_replicas) / (n_replicas - 1))
    betas[0] = 1.0
    return betas


DEFAULT_BETAS = geometric_betas(DEFAULT_N_REPLICAS, DEFAULT_BETA_MIN)
"""The default ladder: :data:`DEFAULT_N_REPLICAS` geometric steps down to :data:`DEFAULT_BETA_MIN`."""
DEFAULT_BETAS.setflags(write=False)


def check_betas(betas) -> np.ndarray:
    """The ladder as a read-only float64 array, or a ``ValueError`` that says what is wrong.

    Parameters
    ----------
    betas : array_like of float
        Inverse temperatures: one dimension, finite, the first exactly 1, strictly
        decreasing, all above 0.

    Returns
    -------
    float64 array (K,)

    Raises
    ------
    ValueError
        Naming the first rule broken and the offending value(s).

    Examples
    --------
    >>> check_betas([1, 0.5]).tolist()
    [1.0, 0.5]
    >>> check_betas([1, 0.5, 0.5])
    Traceback (most recent call last):
    ...
    ValueError: betas must be strictly decreasing: betas[1] = 0.5 <= betas[2] = 0.5
    """
    entries = np.asarray(betas, dtype=object).ravel() if not isinstance(betas, str) else [betas]
    if any(isinstance(v, (bool, np.bool_, str, bytes)) for v in entries) or np.asarray(betas).dtype == bool:
        raise ValueError(f"betas must be a sequence of numbers (not bools or strings), got {betas!r}")
    try:
        b = np.array(betas, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"betas must be a sequence of numbers, got {betas!r}") from None
    if b.ndim != 1 or b.size == 0:
        raise ValueError(f"betas must be a non-empty 1-d sequence, got shape {b.shape}")
    if not np.isfinite(b).all():
        raise ValueError(f"betas must be finite, got {b.tolist()}")
    if b[0] != 1.0:
        raise ValueError(f"betas[0] must be 1 (the replica whose draws are returned), got {float(b[0])!r}")
    down = np.diff(b)
    if (down >= 0).any():
        i = int(np.argmax(down >= 0))
        raise ValueError(f"betas must be strictly decreasing: betas[{i}] = {float(b[i])!r} "
                         f"<= betas[{i + 1}] = {float(b[i + 1])!r}")
    if b[-1] <= 0:
        raise ValueError(f"betas must all be > 0 (0 would keep impossible labels: 0**0 = 1), got {float(b[-1])!r}")
    b.setflags(write=False)
    return b
