"""Time consumption: the draws and seconds to bring sigma_t down to a target."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .accuracy import scalar_or_array

__all__ = ["TimeToSigma", "first_checkpoint_below", "time_to_sigma"]


class TimeToSigma(NamedTuple):
    """Result of :func:`time_to_sigma`: draws ``t* = (alpha/target)^2`` and the seconds they cost."""

    draws: float
    seconds: float


def time_to_sigma(alpha, seconds_per_draw, init_seconds=0.0, target=0.01) -> TimeToSigma:
    """Draws and seconds needed to bring sigma_t down to ``target``.

    From :math:`\\sigma_t = \\alpha/\\sqrt{t}`: :math:`t^* = (\\alpha/\\text{target})^2`
    draws, costing ``init_seconds + t* * seconds_per_draw`` seconds (the paper
    includes the generation of the initial state).

    Parameters
    ----------
    alpha : float or array_like
        Rate-of-convergence constant (from :func:`fit_alpha`).
    seconds_per_draw : float or array_like
        Measured sampling time per draw.
    init_seconds : float or array_like, default 0.0
        Time to build the initial state.
    target : float, default 0.01
        The sigma_t to reach (the paper's 0.01).

    Returns
    -------
    TimeToSigma
        ``draws`` (not rounded, so ``alpha = 0.4`` gives 1600) and ``seconds``;
        floats for scalar input, arrays when inputs broadcast.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators",
    subsection "Time consumption": :math:`t = (\\alpha/0.01)^2`.

    Examples
    --------
    >>> time_to_sigma(0.5, 1e-4, init_seconds=0.2)
    TimeToSigma(draws=2500.0, seconds=0.45)
    """
    alpha = np.asarray(alpha, dtype=float)
    seconds_per_draw = np.asarray(seconds_per_draw, dtype=float)
    init_seconds = np.asarray(init_seconds, dtype=float)
    if not target > 0:
        raise ValueError(f"target must be positive, got {target}")
    if (alpha < 0).any() or (seconds_per_draw < 0).any() or (init_seconds < 0).any():
        raise ValueError("alpha and times must be non-negative")
    draws = (alpha / target) ** 2
    seconds = init_seconds + draws * seconds_per_draw
    return TimeToSigma(scalar_or_array(draws), scalar_or_array(seconds))


def first_checkpoint_below(checkpoints, sigma, target=0.01, t_min=1):
    """The first checkpoint ``t >= t_min`` at which ``sigma_t <= target``.

    A direct, fit-free reading of the time-consumption indicator. It is the first
    crossing, not a guarantee that sigma_t stays below; and sigma_t at very small
    ``t`` can be 0 when all chains start from the same state, so raise ``t_min`` past
    that transient.

    Parameters
    ----------
    checkpoints : array_like of int
        Sample counts, increasing.
    sigma : array_like
        sigma_t at those counts.
    target : float, default 0.01
        The paper's target for sigma_t.
    t_min : int, default 1
        Checkpoints below this are not considered.

    Returns
    -------
    int or None
        The checkpoint, or ``None`` if sigma_t never reaches the target.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators",
    subsection "Time consumption".

    Examples
    --------
    >>> first_checkpoint_below([1, 10, 100], [0.3, 0.02, 0.005])
    100
    """
    checkpoints = np.asarray(checkpoints)
    sigma = np.asarray(sigma, dtype=float)
    if checkpoints.shape != sigma.shape or checkpoints.ndim != 1:
        raise ValueError("checkpoints and sigma must be 1-D arrays of the same length")
    hits = np.flatnonzero((sigma <= target) & (checkpoints >= t_min))
    return int(checkpoints[hits[0]]) if hits.size else None
