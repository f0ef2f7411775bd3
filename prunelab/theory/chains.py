"""What a transition matrix says about its chain: stationarity, reversibility, classes, regularity, and a test."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats
from scipy.sparse.csgraph import connected_components

__all__ = [
    "ChiSquare", "communicating_classes", "is_irreducible", "is_regular", "stationary_check", "transition_chi_square",
]


def stationary_check(states: np.ndarray, R: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """How far ``R`` is from a reversible, ``p``-stationary stochastic matrix.

    Parameters
    ----------
    states : int array (k, n)
        Only its length is used (rows of ``R``).
    R : float array (k, k)
    p : float array (k,)
        The target distribution, e.g. from :func:`feasible_states`.

    Returns
    -------
    dict
        ``row_sum``: max ``|sum_y R(x, y) - 1|``; ``detailed_balance``: max
        ``|p(x) R(x, y) - p(y) R(y, x)|``; ``stationarity``: max ``|(p R - p)(y)|``;
        ``negative``: most negative entry of ``R`` (0 if none).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory import feasible_states, prune_transition_matrix, stationary_check
    >>> bn = load_network("deterministic_pair")
    >>> states, R = prune_transition_matrix(bn)
    >>> stationary_check(states, R, feasible_states(bn)[1])["detailed_balance"]
    0.0
    """
    R = np.asarray(R, dtype=float)
    p = np.asarray(p, dtype=float)
    if R.shape != (len(states), len(states)) or p.shape != (len(states),):
        raise ValueError(f"shapes disagree: {len(states)} states, R {R.shape}, p {p.shape}")
    flow = p[:, None] * R
    return {
        "row_sum": float(np.abs(R.sum(axis=1) - 1.0).max()),
        "detailed_balance": float(np.abs(flow - flow.T).max()),
        "stationarity": float(np.abs(p @ R - p).max()),
        "negative": float(min(R.min(), 0.0)),
    }


def communicating_classes(R: np.ndarray) -> list[np.ndarray]:
    """The communicating classes of the chain (strongly connected components of ``R > 0``).

    Returns
    -------
    list of int arrays
        State indices of every class, ordered by their smallest member.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab.theory import communicating_classes
    >>> [c.tolist() for c in communicating_classes(np.eye(2))]
    [[0], [1]]
    """
    n, labels = connected_components(np.asarray(R) > 0, directed=True, connection="strong")
    classes = [np.flatnonzero(labels == c) for c in range(n)]
    return sorted(classes, key=lambda c: int(c[0]))


def is_irreducible(R: np.ndarray) -> bool:
    """Whether every state reaches every other state (``R`` irreducible)."""
    return len(communicating_classes(R)) == 1


def is_regular(R: np.ndarray) -> bool:
    """Whether some power of ``R`` is strictly positive (irreducible and aperiodic).

    Uses Wielandt's bound: a primitive ``k x k`` matrix has ``R^m > 0`` for
    ``m = (k - 1)^2 + 1``; the boolean pattern is squared until past it.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab.theory import is_regular
    >>> is_regular(np.array([[0.0, 1.0], [1.0, 0.0]])), is_regular(np.array([[0.5, 0.5], [1.0, 0.0]]))
    (False, True)
    """
    A = (np.asarray(R) > 0).astype(np.int64)
    k = A.shape[0]
    bound = (k - 1) ** 2 + 1
    power = 1
    while power < bound:
        A = ((A @ A) > 0).astype(np.int64)
        power *= 2
    return bool(A.all())


class ChiSquare(NamedTuple):
    """A chi-square goodness-of-fit test: statistic, degrees of freedom, p-value."""

    statistic: float
    dof: int
    p_value: float


def transition_chi_square(counts, R, minimum: float = 5.0) -> ChiSquare:
    """Test observed transition counts against exact transition probabilities.

    Each row of ``counts`` (the next states seen from one state) is compared with
    its expected counts ``counts.sum() * R[row]``. Within a row, cells are pooled
    from the smallest expected count up until each group expects at least
    ``minimum`` (a remainder joins the last group), so that the chi-square
    approximation holds; a row contributes its number of groups minus one degrees of
    freedom.

    Parameters
    ----------
    counts : array_like, shape (n_rows, n_states) or (n_states,)
        Observed next-state counts, one row per start state.
    R : array_like, same shape as ``counts``
        The exact transition probabilities of those rows (each sums to 1).
    minimum : float, default 5.0
        Smallest expected count of a pooled group.

    Returns
    -------
    ChiSquare

    Examples
    --------
    A sampler that moves exactly as ``R`` says passes; one that never moves fails:

    >>> import numpy as np
    >>> R = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> round(transition_chi_square([[750, 250], [250, 750]], R).p_value, 3)
    1.0
    >>> transition_chi_square([[1000, 0], [0, 1000]], R).p_value < 1e-12
    True
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    R = np.atleast_2d(np.asarray(R, dtype=float))
    if counts.shape != R.shape:
        raise ValueError(f"counts has shape {counts.shape} but R has {R.shape}")
    statistic, dof = 0.0, 0
    for observed, row in zip(counts, R):
        expected = observed.sum() * row
        obs, exp, pool_o, pool_e = [], [], 0.0, 0.0
        for j in np.argsort(expected):
            pool_o, pool_e = pool_o + observed[j], pool_e + expected[j]
            if pool_e >= minimum:
                obs.append(pool_o)
                exp.append(pool_e)
                pool_o = pool_e = 0.0
        if exp:
            obs[-1] += pool_o
            exp[-1] += pool_e
        obs, exp = np.array(obs), np.array(exp)
        statistic += float(((obs - exp) ** 2 / exp).sum())
        dof += max(len(obs) - 1, 0)
    return ChiSquare(statistic, dof, float(stats.chi2.sf(statistic, dof)))
