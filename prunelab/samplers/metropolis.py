"""Single-site Metropolis with a uniform proposal over the other states, systematic scan.

One draw is one sweep over the free variables in topological order. At a site
``i`` with ``|X_i| > 1`` (single-state variables are skipped and use no random
numbers) the kernel

1. proposes ``x_i'`` uniformly among the ``|X_i| - 1`` states other than ``x_i``:
   ``j = floor(u_1 (|X_i| - 1))``, ``x_i' = j + (j >= x_i)``, with
   ``u_1 = rng.random()``;
2. accepts with probability ``min(1, P(x') / P(x))``: ``u_2 = rng.random()``,
   accept iff ``u_2 * P_family(x) < P_family(x')``, where ``P_family`` is the
   product of the family factors of ``i`` (its CPT and its children's) - the
   Markov-blanket ratio. A zero numerator is always rejected, so the chain never
   enters a state with probability zero.

The proposal is symmetric, so this is the Metropolis rule; it is the idea of
PyMC's ``CategoricalGibbsMetropolis(proposal="uniform")`` (and of
``BinaryMetropolis``/``Metropolis`` on discrete variables), which the paper used for
its Metropolis baseline. :func:`step` (numpy) and :func:`run_chain` (numba) use
the two ``rng.random()`` per site in the same order: same seed, same draws.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ..compiled import CompiledNetwork, state_labels
from .chain import ChainState
from .chain import init_state as init
from .chain import start_chain

__all__ = ["MetropolisState", "MetropolisInfo", "MetropolisChain", "init", "step", "run_chain"]

RAO_BLACKWELL = False

SINGLE_SITE = True
"""A draw changes one variable at a time, so determinism can trap it (see :func:`prunelab.sample`, Traps)."""


MetropolisState = ChainState
"""State of the Metropolis chain: the full state ``x`` (see :class:`~prunelab.samplers.chain.ChainState`)."""


class MetropolisInfo(NamedTuple):
    """What one sweep did.

    Attributes
    ----------
    n_accepted : int
        Accepted proposals in the sweep (out of the free variables with more than
        one state).
    """

    n_accepted: int


class MetropolisChain(NamedTuple):
    """Output of :func:`run_chain`.

    Attributes
    ----------
    draws : int64 (n_draws, n)
    n_accepted : int64 (n_draws,)
        Accepted proposals per sweep.
    """

    draws: np.ndarray
    n_accepted: np.ndarray


def step(rng: np.random.Generator, net: CompiledNetwork,
         state: MetropolisState) -> tuple[MetropolisState, MetropolisInfo]:
    """One systematic-scan single-site Metropolis sweep (numpy reference).

    Parameters
    ----------
    rng : numpy.random.Generator
        Two ``rng.random()`` per free variable with more than one state.
    net : CompiledNetwork
    state : MetropolisState

    Returns
    -------
    MetropolisState
    MetropolisInfo

    See Also
    --------
    run_chain : the numba path, same draws for the same seed.

    References
    ----------
    .. [1] N. Metropolis, A. W. Rosenbluth, M. N. Rosenbluth, A. H. Teller and
       E. Teller, "Equation of state calculations by fast computing machines",
       J. Chem. Phys. 21 (1953).
    .. [2] PyMC, ``pymc.step_methods.metropolis.CategoricalGibbsMetropolis``
       (``proposal="uniform"``), https://www.pymc.io.
    .. [3] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling", 2017,
       section "Experiments" (the Metropolis baseline).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import metropolis
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> state, info = metropolis.step(np.random.default_rng(0), net, metropolis.init(net, [0, 0]))
    >>> state.x.tolist(), info.n_accepted
    ([0, 0], 0)
    """
    x = state.x.copy()
    labels = state_labels(net, x)
    accepted = 0
    for i in net.free:
        card = int(net.cardinality[i])
        if card < 2:
            continue
        j = min(int(rng.random() * (card - 1)), card - 2)
        proposal = j + 1 if j >= x[i] else j
        family = slice(net.family_ptr[i], net.family_ptr[i + 1])
        members, strides = net.family_var[family], net.family_stride[family]
        current_labels = labels[members]
        proposed_labels = current_labels + (proposal - x[i]) * strides
        current = net.cpt[current_labels].prod()
        proposed = net.cpt[proposed_labels].prod()
        if rng.random() * current < proposed:
            labels[members] = proposed_labels
            x[i] = proposal
            accepted += 1
    return MetropolisState(x), MetropolisInfo(accepted)


@numba.njit(cache=True, nogil=True)
def _metropolis_chain_nb(rng, cardinality, cpt, family_ptr, family_var, family_stride, free,
                             x, labels, n_draws, draws, n_accepted):
    n_free = free.shape[0]
    for t in range(n_draws):
        accepted = 0
        for f in range(n_free):
            i = free[f]
            card = cardinality[i]
            if card < 2:
                continue
            xi = x[i]
            j = int(rng.random() * (card - 1))
            if j > card - 2:
                j = card - 2
            proposal = j + 1 if j >= xi else j
            delta = proposal - xi
            f0 = family_ptr[i]
            f1 = family_ptr[i + 1]
            current = 1.0
            proposed = 1.0
            for k in range(f0, f1):
                label = labels[family_var[k]]
                current *= cpt[label]
                proposed *= cpt[label + delta * family_stride[k]]
            if rng.random() * current < proposed:
                for k in range(f0, f1):
                    labels[family_var[k]] += delta * family_stride[k]
                x[i] = proposal
                accepted += 1
        n_accepted[t] = accepted
        for q in range(x.shape[0]):
            draws[t, q] = x[q]


def run_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int) -> MetropolisChain:
    """``n_draws`` Metropolis sweeps from ``x0`` (numba path).

    Parameters
    ----------
    rng : numpy.random.Generator
        Consumed exactly like ``n_draws`` calls of :func:`step`.
    net : CompiledNetwork
    x0 : array_like of int (n,)
        A feasible start state (checked).
    n_draws : int

    Returns
    -------
    MetropolisChain

    See Also
    --------
    step : the numpy reference.
    prunelab.sample : chains, seeds, parallelism.

    References
    ----------
    .. [1] PyMC, ``CategoricalGibbsMetropolis(proposal="uniform")``.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import metropolis
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> out = metropolis.run_chain(np.random.default_rng(0), net, [1, 1], 4)
    >>> out.draws.tolist(), out.n_accepted.tolist()
    ([[1, 1], [1, 1], [1, 1], [1, 1]], [0, 0, 0, 0])
    """
    n_draws, x, labels, draws = start_chain(net, x0, n_draws)
    n_accepted = np.zeros(n_draws, dtype=np.int64)
    _metropolis_chain_nb(
        rng, net.cardinality, net.cpt, net.family_ptr, net.family_var, net.family_stride,
        net.free, x, labels, n_draws, draws, n_accepted,
    )
    return MetropolisChain(draws, n_accepted)
