"""What the single-site samplers share: the chain state, ``init``, and the start of ``run_chain``.

The interface every sampler follows is written in :mod:`prunelab.samplers` (the
registry); this module holds the code that Gibbs and Metropolis would otherwise
copy. A new sampler whose state is just the full state ``x`` takes
:class:`ChainState` and :func:`init_state` as its ``State`` and ``init``, and opens
its ``run_chain`` with :func:`start_chain`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiled import CompiledNetwork, draw_dtype, state_labels
from .init import check_state

__all__ = ["ChainState", "ChainStart", "init_state", "start_chain"]


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
