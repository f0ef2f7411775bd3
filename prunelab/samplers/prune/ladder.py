"""The ladder of tempered prune sampling (:mod:`prunelab.samplers.prune.tempered`): its rungs and the swaps.

Replica ``k`` targets ``pi_beta(x) ~ P(x, e) ** beta_k``; ``beta_0 = 1`` is the chain
whose draws are returned. :func:`geometric_betas` makes the usual ladder and
:func:`check_betas` checks one given by hand; :func:`tempered_plan` is a rung's plan.
Neighbours exchange states by :func:`swap_probability` (:func:`swap_phase_py`, one
step's swaps), and :func:`swap_rates` reads how often they did.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["DEFAULT_N_REPLICAS", "DEFAULT_BETA_MIN", "DEFAULT_BETAS", "geometric_betas", "check_betas",
           "tempered_plan", "swap_probability", "swap_phase_py", "swap_phase_nb", "swap_rates"]

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


def tempered_plan(plan, beta: float):
    """``plan`` with its random labels' values raised to ``beta``; everything else shared.

    Only ``pruning.random_c`` changes: the labels with ``0 < c < 1`` stay exactly those with
    ``0 < c^beta < 1``, so the lists, ``base_kept`` and the counting program (or the
    circuit) are the same objects. With it, :func:`prunelab.samplers.prune.sampler.run_chain`
    targets ``pi_beta`` (see the module docstring).

    Parameters
    ----------
    plan : PrunePlan or CircuitPrunePlan
    beta : float
        In ``(0, 1]``; 1 gives values equal to ``plan``'s.

    Returns
    -------
    The type of ``plan``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.plan import prune_plan
    >>> plan = prune_plan(compile_network(load_network("blood_pressure")))
    >>> hot = tempered_plan(plan, 0.5)
    >>> bool(hot.uniform is plan.uniform), bool(np.allclose(hot.pruning.random_c ** 2, plan.pruning.random_c))
    (True, True)
    """
    if not 0.0 < beta <= 1.0:
        raise ValueError(f"beta must be in (0, 1], got {beta!r}")
    random_c = plan.pruning.random_c ** float(beta)
    random_c.setflags(write=False)
    return plan._replace(pruning=plan.pruning._replace(random_c=random_c))


@numba.njit(cache=True, nogil=True)
def swap_probability(beta_i, beta_j, log_p_i, log_p_j):
    """``min(1, exp((beta_i - beta_j) (log P(x_j) - log P(x_i))))``: replicas ``i`` and ``j`` exchange states.

    Parameters
    ----------
    beta_i, beta_j : float
        The two inverse temperatures.
    log_p_i, log_p_j : float
        ``log P(x, e)`` of the state each holds now.

    Examples
    --------
    A colder replica (``beta = 1``) at ``P = 0.1`` and a hotter one (``beta = 0.5``)
    at ``P = 0.4``: the swap gives the cold replica the likelier state, always
    accepted; the other way round, ``(0.1 / 0.4) ** 0.5 = 0.5``:

    >>> round(swap_probability(1.0, 0.5, np.log(0.1), np.log(0.4)), 12)
    1.0
    >>> round(swap_probability(1.0, 0.5, np.log(0.4), np.log(0.1)), 12)
    0.5
    """
    return math.exp(min((beta_i - beta_j) * (log_p_j - log_p_i), 0.0))


def swap_phase_py(rng, betas, log_c, labels, replicas, parity, swapped):
    """Propose the swaps of one step (pairs ``(i, i + 1)``, ``i = parity, parity + 2, ...``).

    ``labels[k]`` are the labels of ``replicas[k]``; accepted pairs exchange their
    rows of both. ``swapped[i]`` becomes 1 (accepted), 0 (rejected) or -1 (not
    proposed). Written once, compiled with numba (:data:`swap_phase_nb`), so the
    reference and the fast path add the logs in the same order.

    Examples
    --------
    The cold replica holds label 0 (``c = 0.1``), the hot one label 1 (``c = 0.4``): the swap gives the cold
    replica the likelier state, so it is always accepted:

    >>> replicas, labels, swapped = np.array([[0], [1]]), np.array([[0], [1]]), np.zeros(1, np.int64)
    >>> swap_phase_py(np.random.default_rng(0), np.array([1.0, 0.5]), np.log([0.1, 0.4]), labels, replicas, 0,
    ...               swapped)
    >>> replicas.tolist(), swapped.tolist()
    ([[1], [0]], [1])
    """
    n_replicas, n = replicas.shape
    for i in range(n_replicas - 1):
        swapped[i] = -1
    for i in range(parity, n_replicas - 1, 2):
        log_p_i = 0.0
        log_p_j = 0.0
        for v in range(n):
            log_p_i += log_c[labels[i, v]]
            log_p_j += log_c[labels[i + 1, v]]
        if rng.random() < swap_probability(betas[i], betas[i + 1], log_p_i, log_p_j):
            for v in range(n):
                replicas[i, v], replicas[i + 1, v] = replicas[i + 1, v], replicas[i, v]
                labels[i, v], labels[i + 1, v] = labels[i + 1, v], labels[i, v]
            swapped[i] = 1
        else:
            swapped[i] = 0


swap_phase_nb = numba.njit(cache=True, nogil=True)(swap_phase_py)


def swap_rates(swapped) -> np.ndarray:
    """Accepted over proposed swaps of every adjacent pair, pooled over all leading axes.

    Parameters
    ----------
    swapped : int array (..., K - 1)
        :attr:`TemperedChain.swapped`, or those of many chains stacked
        (``SampleResult.stats["swapped"]``).

    Returns
    -------
    float64 array (K - 1,)
        NaN for a pair never proposed.

    Examples
    --------
    >>> swap_rates(np.array([[1, -1], [-1, 0], [0, -1], [-1, 0]])).tolist()
    [0.5, 0.0]
    """
    s = np.asarray(swapped).reshape(-1, np.shape(swapped)[-1])
    proposed = (s >= 0).sum(axis=0)
    with np.errstate(invalid="ignore"):
        return (s == 1).sum(axis=0) / proposed
