"""What the single-site samplers share: the chain state that is just ``x``, and ``init``.

The interface every sampler follows is written in :mod:`prunelab.samplers` (the
registry); this module holds the code that Gibbs and Metropolis would otherwise
copy. A new sampler whose state is just the full state ``x`` takes
:class:`ChainState` and :func:`init_state` as its ``State`` and ``init``; every
sampler opens its ``run_chain`` with :func:`prunelab.samplers.init.start_chain`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiled import CompiledNetwork
from .init import check_state

__all__ = ["ChainState", "init_state"]


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
