"""Accuracy: the Hellinger distance, running estimates, and the two averages of the distance (AHD).

:func:`mean_hellinger_over_chains` is the paper's AHD(t) of one variable over its runs (one
chain each); :func:`mean_hellinger_over_variables` is one chain's accuracy over the network.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..checkpoints import checked_checkpoints

__all__ = ["hellinger", "mean_hellinger_over_chains", "mean_hellinger_over_variables", "running_marginals",
           "scalar_or_array"]


def scalar_or_array(value):
    """``value`` as a float if it is a scalar, else as a float array."""
    value = np.asarray(value, dtype=float)
    return float(value) if value.ndim == 0 else value


SUM_TOLERANCE = 1e-6
"""How far from 1 the sum of a probability vector given to :func:`hellinger` may be (rounding, not counts)."""


def hellinger(p, q):
    """Hellinger distance between discrete distributions, over the last axis.

    .. math:: H(P, Q) = \\frac{1}{\\sqrt{2}} \\sqrt{\\sum_i (\\sqrt{p_i} - \\sqrt{q_i})^2}

    Parameters
    ----------
    p, q : array_like
        Probability vectors along the last axis; leading axes broadcast against
        each other. Entries must be non-negative and sum to 1 within
        :data:`SUM_TOLERANCE` (they are not renormalised: counts are refused).

    Returns
    -------
    float or numpy.ndarray
        The distance, in ``[0, 1]`` for normalised inputs: a float for 1-D inputs,
        otherwise an array of the broadcast leading shape.

    Raises
    ------
    ValueError
        If an entry is negative, a vector does not sum to 1 (counts, say), or the
        last axes differ in length.

    References
    ----------
    Phillipson, Parie and Weikamp, "Prune Sampling: a MCMC inference technique for
    discrete and deterministic Bayesian networks" (2019), section "Performance
    indicators", subsection "Average Hellinger distance".

    Examples
    --------
    >>> hellinger([1.0, 0.0], [0.0, 1.0])
    1.0
    >>> round(hellinger([0.5, 0.5], [1.0, 0.0]), 6)
    0.541196
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape[-1:] != q.shape[-1:]:
        raise ValueError(f"last axes differ: p has shape {p.shape}, q has shape {q.shape}")
    if (p < 0).any() or (q < 0).any():
        raise ValueError("probabilities must be non-negative")
    for name, v in (("p", p), ("q", q)):
        total = v.sum(axis=-1)
        off = np.abs(total - 1.0) > SUM_TOLERANCE  # NaN (a failed estimate) passes through as NaN
        if np.any(off):
            raise ValueError(
                f"{name} sums to {float(np.asarray(total)[off].flat[0]):g}, not 1: hellinger compares probability "
                "vectors (divide counts by their total first)"
            )
    squared = np.sum((np.sqrt(p) - np.sqrt(q)) ** 2, axis=-1)
    return scalar_or_array(np.sqrt(0.5 * squared))


def running_marginals(x, n_states: int, checkpoints) -> np.ndarray:
    """Running estimate of a one-variable marginal after ``t`` draws, at each checkpoint.

    For chain ``s`` and checkpoint ``t`` the estimate of ``P(X = k)`` is the fraction of
    the first ``t`` draws in state ``k`` (or, for probability-vector input, the mean of
    the first ``t`` vectors). Computed with cumulative sums: ``O(chains T n_states)``
    time, no loop over ``t``.

    Parameters
    ----------
    x : array_like
        Either integer draws of shape ``(chains, T)`` with values in
        ``range(n_states)``, or per-draw probability vectors of shape
        ``(chains, T, n_states)`` (e.g. Rao-Blackwellised Gibbs).
    n_states : int
        Number of states of the query variable.
    checkpoints : array_like of int
        Sample counts ``t`` with ``1 <= t <= T``, e.g. from :func:`log_checkpoints`.

    Returns
    -------
    numpy.ndarray of float64
        Shape ``(chains, len(checkpoints), n_states)``.

    Raises
    ------
    ValueError
        If a draw is outside ``range(n_states)``, shapes disagree, or a checkpoint
        is outside ``[1, T]``.
    TypeError
        If 2-D input is not of integer (or bool) dtype.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators": the
    approximate one-variable marginal at every ``t``-th point, ``1 <= t <= T``.

    Examples
    --------
    >>> x = np.array([[0, 1, 1, 1]])
    >>> running_marginals(x, 2, [1, 2, 4])[0].tolist()
    [[1.0, 0.0], [0.5, 0.5], [0.25, 0.75]]
    """
    x = np.asarray(x)
    n_states = int(n_states)
    if n_states < 1:
        raise ValueError(f"n_states must be at least 1, got {n_states}")
    if x.ndim == 2:
        if not (np.issubdtype(x.dtype, np.integer) or x.dtype == bool):
            raise TypeError(
                f"2-D draws must be integer states, got dtype {x.dtype}; pass probability "
                "vectors as a (chains, T, n_states) array"
            )
        if x.size and (x.min() < 0 or x.max() >= n_states):
            raise ValueError(f"draws must lie in range({n_states})")
        cps = checked_checkpoints(checkpoints, x.shape[1])
        counts = np.empty((x.shape[0], cps.size, n_states), dtype=np.int64)
        for k in range(n_states):  # a loop over states, never over draws
            counts[:, :, k] = np.cumsum(x == k, axis=1, dtype=np.int64)[:, cps - 1]
        return counts / cps[None, :, None]
    if x.ndim == 3:
        if x.shape[2] != n_states:
            raise ValueError(f"probability vectors have {x.shape[2]} states, expected {n_states}")
        cps = checked_checkpoints(checkpoints, x.shape[1])
        sums = np.cumsum(x, axis=1, dtype=np.float64)[:, cps - 1, :]
        return sums / cps[None, :, None]
    raise ValueError(f"x must be (chains, T) draws or (chains, T, n_states) vectors, got shape {x.shape}")


def mean_hellinger_over_chains(estimates, exact) -> np.ndarray:
    """The paper's AHD(t) of one variable: the mean over chains (the paper's runs) of H(estimate, exact).

    Not to be confused with :func:`mean_hellinger_over_variables` (one chain, the mean
    over the network's free variables).

    Parameters
    ----------
    estimates : array_like
        Running estimates of shape ``(chains, n_checkpoints, n_states)`` (from
        :func:`running_marginals`); the first axis is averaged over.
    exact : array_like
        The exact marginal, shape ``(n_states,)`` (or anything that broadcasts
        against ``estimates``).

    Returns
    -------
    numpy.ndarray
        Shape ``(n_checkpoints,)``: AHD at each checkpoint.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators",
    subsection "Average Hellinger distance": Hellinger distances to the exact
    probability, averaged over 100 runs at every ``t``.

    Examples
    --------
    >>> est = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])   # two chains, one checkpoint
    >>> mean_hellinger_over_chains(est, [1.0, 0.0]).tolist()
    [0.5]
    """
    estimates = np.asarray(estimates, dtype=float)
    if estimates.ndim < 2:
        raise ValueError(f"estimates must have a leading chains axis, got shape {estimates.shape}")
    return np.asarray(hellinger(estimates, exact)).mean(axis=0)


def mean_hellinger_over_variables(estimates: Mapping[str, np.ndarray], exact: Mapping[str, np.ndarray]):
    """One chain's accuracy over the whole network: the mean over variables of H(estimate, exact).

    The average runs over the variables of ``exact`` (the free ones, as
    :func:`prunelab.exact_marginals` gives them), in their order. Not to be confused with
    :func:`mean_hellinger_over_chains`, the paper's AHD(t) of one variable over its runs;
    the experiment tables hold both (``hellinger_all`` is this one, per run).

    Parameters
    ----------
    estimates : mapping of str to array_like
        Per variable, an estimate of its marginal: shape ``(n_states,)``, or with
        leading axes (e.g. ``(n_checkpoints, n_states)`` running estimates), the same
        for every variable. Variables not in ``exact`` are ignored.
    exact : mapping of str to array_like
        Per variable, the exact marginal, shape ``(n_states,)``.

    Returns
    -------
    float or numpy.ndarray
        A float for 1-D estimates, else an array of their leading shape.

    Raises
    ------
    KeyError
        A variable of ``exact`` has no estimate.
    ValueError
        ``exact`` is empty.

    Examples
    --------
    >>> mean_hellinger_over_variables({"A": [1.0, 0.0], "B": [0.5, 0.5]},
    ...                               {"A": [0.0, 1.0], "B": [0.5, 0.5]})
    0.5
    """
    if not exact:
        raise ValueError("exact has no variables to average over")
    missing = [v for v in exact if v not in estimates]
    if missing:
        raise KeyError(f"no estimate for {missing[:10]}")
    total = 0.0
    for v in exact:  # summed in order, then divided: the same bits as the runner's stored curves
        total = total + np.asarray(hellinger(estimates[v], exact[v]))
    return scalar_or_array(total / len(exact))
