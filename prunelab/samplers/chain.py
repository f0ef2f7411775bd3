"""What every sampler's chain shares: the checked start, the draws buffer, and the state that is just ``x``.

A start state is checked by :func:`check_state` and the draws buffer allocated by :func:`start_chain`.

The interface every sampler follows is written in :mod:`prunelab.samplers` (the
registry); this module holds the code that Gibbs and Metropolis would otherwise
copy. A new sampler whose state is just the full state ``x`` takes
:class:`ChainState` and :func:`init_state` as its ``State`` and ``init``; every
sampler opens its ``run_chain`` with :func:`start_chain`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiled import CompiledNetwork, draw_dtype, state_labels
from ..network import BayesianNetwork, EvidenceError

__all__ = ["ChainStart", "ChainState", "InfeasibleStateError", "check_state", "feasible", "init_state", "start_chain"]


class InfeasibleStateError(ValueError):
    """A full state with probability zero (given the evidence) where one with ``P > 0`` is needed."""


class ChainState(NamedTuple):
    """State of a chain that carries nothing but the full state.

    Attributes
    ----------
    x : int64 (n,)
        Full state, topological order, evidence set.
    """

    x: np.ndarray


def init_state(net: CompiledNetwork, x0) -> ChainState:
    """The chain's state at ``x0``, checked: evidence agrees and ``P(x0, e) > 0``.

    Raises
    ------
    InfeasibleStateError
        ``x0`` has probability zero or disagrees with the evidence; the message
        names the state.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import gibbs
    >>> gibbs.init(compile_network(load_network("deterministic_pair")), [1, 1]).x.tolist()
    [1, 1]
    """
    return ChainState(check_state(net, x0))


# ------------------------------------------------------------------ checking states
def feasible(net: CompiledNetwork, x: np.ndarray) -> bool:
    """Whether every CPT entry of the full state ``x`` is positive (``P(x, e) > 0`` for a state that keeps ``e``).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> feasible(net, np.array([1, 1])), feasible(net, np.array([1, 0]))
    (True, False)
    """
    return bool(np.all(net.cpt[state_labels(net, x)] > 0.0))


def _describe(bn: BayesianNetwork | None, x: np.ndarray) -> str:
    if bn is None:
        return str(np.asarray(x).tolist())
    return "{" + ", ".join(f"{v}={bn.states[v][s]}" for v, s in zip(bn.variables, x)) + "}"


def check_state(net: CompiledNetwork, x, bn: BayesianNetwork | None = None) -> np.ndarray:
    """Validate a full state: shape, ranges, agreement with the evidence, ``P(x, e) > 0``.

    Parameters
    ----------
    net : CompiledNetwork
    x : array_like of int, shape (n,)
        State indices in topological order.
    bn : BayesianNetwork, optional
        Only for messages that name variables and states.

    Returns
    -------
    numpy.ndarray of int64
        A fresh copy of ``x``.

    Raises
    ------
    TypeError
        Indices that are not integers (``[0.7, 0.2]`` is not rounded to ``[0, 0]``).
    ValueError
        Wrong shape or a state index out of range.
    EvidenceError
        ``x`` disagrees with the evidence.
    InfeasibleStateError
        ``P(x) = 0``; the message names the state and the zero CPT entries.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.init import check_state
    >>> bn = load_network("deterministic_pair")
    >>> check_state(compile_network(bn), [1, 1]).tolist()
    [1, 1]
    """
    given = np.asarray(x)
    if given.dtype == bool or not np.issubdtype(given.dtype, np.integer):
        raise TypeError(f"a state holds integer state indices, got {given.tolist()} (dtype {given.dtype})")
    x = np.array(given, dtype=np.int64)
    n = net.n_variables
    if x.shape != (n,):
        raise ValueError(f"a full state has shape ({n},), got {x.shape}")
    bad = (x < 0) | (x >= net.cardinality)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        name = bn.variables[i] if bn is not None else f"variable {i}"
        raise ValueError(f"state index {x[i]} out of range for {name} (cardinality {net.cardinality[i]})")
    observed = net.evidence_value >= 0
    clash = observed & (x != net.evidence_value)
    if clash.any():
        i = int(np.flatnonzero(clash)[0])
        if bn is not None:
            v = bn.variables[i]
            what = f"{v}={bn.states[v][x[i]]} but the evidence says {v}={bn.states[v][net.evidence_value[i]]}"
        else:
            what = f"variable {i} is {x[i]} but the evidence says {net.evidence_value[i]}"
        raise EvidenceError(f"start state {_describe(bn, x)} disagrees with the evidence: {what}")
    zero = np.flatnonzero(net.cpt[state_labels(net, x)] == 0.0)
    if zero.size:
        names = [bn.variables[i] if bn is not None else str(i) for i in zero]
        raise InfeasibleStateError(
            f"start state {_describe(bn, x)} has probability zero (given the evidence): "
            f"zero CPT entries of {names}"
        )
    return x


class ChainStart(NamedTuple):
    """What a ``run_chain`` starts from: the checked count and state, their labels, the draws buffer.

    Attributes
    ----------
    n_draws : int
    x : int64 (n,)
        The checked start state (the kernel's working copy).
    labels : int64 (n,)
        ``state_labels(net, x)``.
    draws : int (n_draws, n)
        Uninitialised, of :func:`~prunelab.compiled.draw_dtype` (``int8`` on most
        networks); the kernel fills one row per draw.
    """

    n_draws: int
    x: np.ndarray
    labels: np.ndarray
    draws: np.ndarray


def start_chain(net: CompiledNetwork, x0, n_draws: int) -> ChainStart:
    """The common start of ``run_chain``: refuse a negative count or a bad state, allocate the draws.

    Raises
    ------
    ValueError
        ``n_draws < 0``.
    InfeasibleStateError
        ``x0`` has probability zero or disagrees with the evidence.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> start = start_chain(compile_network(load_network("deterministic_pair")), [1, 1], 3)
    >>> start.x.tolist(), start.labels.tolist(), start.draws.shape, start.draws.dtype.name
    ([1, 1], [1, 5], (3, 2), 'int8')
    """
    n_draws = int(n_draws)
    if n_draws < 0:
        raise ValueError(f"n_draws must be >= 0, got {n_draws}")
    x = check_state(net, x0)
    draws = np.empty((n_draws, net.n_variables), dtype=draw_dtype(net.cardinality))
    return ChainStart(n_draws, x, state_labels(net, x), draws)
