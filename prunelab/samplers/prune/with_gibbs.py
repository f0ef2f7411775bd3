"""Prune sampling interleaved with Gibbs sweeps: ``prune_steps`` prune steps, then one sweep, repeated.

Registered as ``"prune+gibbs"``. Both moves keep ``P(x | e)`` invariant, so their
fixed cycle does too; the sweep lets a chain leave a state where pruning keeps
drawing the same few members (a large network whose pruned sets are small), and
the prune steps let it cross what a single-site move cannot (determinism).

The state carries the prune chain's ``size`` and ``nodes_per_member`` (for
``uniform="auto"``) within a block of prune steps; a sweep starts the next block
afresh, as a new :func:`prunelab.samplers.prune.sampler.run_chain` would.

Examples
--------
>>> import numpy as np
>>> from prunelab import load_network
>>> from prunelab.compiled import compile_network
>>> from prunelab.samplers.prune import with_gibbs
>>> net = compile_network(load_network("deterministic_pair"))
>>> out = with_gibbs.run_chain(np.random.default_rng(1), net, [0, 0], 5, prune_steps=2)
>>> out.sweep.tolist()
[False, False, True, False, False]
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from prunelab.compiled import CompiledNetwork
from prunelab.samplers import gibbs
from prunelab.samplers.chain import ChainState
from prunelab.samplers.chain import check_state, start_chain

from . import sampler as prune
from .plan import PrunePlan, prune_plan

__all__ = ["PRUNE_STEPS", "PruneGibbsState", "PruneGibbsInfo", "PruneGibbsChain", "init", "step", "run_chain"]

PRUNE_STEPS = 20
"""Prune steps between two Gibbs sweeps by default."""


class PruneGibbsState(NamedTuple):
    """State of the interleaved chain."""

    x: np.ndarray
    """Full state, topological order, evidence set."""
    phase: int = 0
    """Prune steps since the last sweep (a sweep comes when it reaches ``prune_steps``)."""
    size: float = np.inf
    """As :class:`prunelab.samplers.prune.sampler.PruneState`: ``|S|`` of the last prune step of this block."""
    nodes_per_member: float = 0.0
    """As :class:`prunelab.samplers.prune.sampler.PruneState`."""


class PruneGibbsInfo(NamedTuple):
    """What one draw did."""

    sweep: bool
    """A Gibbs sweep (True) or a prune step."""
    size: float
    """``|S|`` of the prune step; NaN for a sweep."""


class PruneGibbsChain(NamedTuple):
    """Output of :func:`run_chain`: ``draws`` (n_draws, n), per-draw ``sweep`` and ``size``."""

    draws: np.ndarray
    sweep: np.ndarray
    size: np.ndarray


def _prune_steps(prune_steps) -> int:
    try:
        k = operator.index(prune_steps)
    except TypeError:
        raise TypeError(f"prune_steps must be an integer, got {type(prune_steps).__name__} {prune_steps!r}") from None
    if k < 1:
        raise ValueError(f"prune_steps must be at least 1, got {k}")
    return k


def init(net: CompiledNetwork, x0) -> PruneGibbsState:
    """The chain's state at ``x0``, checked: evidence agrees and ``P(x0, e) > 0``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> init(compile_network(load_network("deterministic_pair")), [1, 1]).phase
    0
    """
    return PruneGibbsState(check_state(net, x0))


def step(rng: np.random.Generator, net: CompiledNetwork, state: PruneGibbsState, prune_steps: int = PRUNE_STEPS,
         *, plan: PrunePlan | None = None) -> tuple[PruneGibbsState, PruneGibbsInfo]:
    """One draw (numpy reference): a prune step, or the sweep that ends a block of ``prune_steps``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Consumed as :func:`prunelab.samplers.prune.sampler.step` or :func:`prunelab.samplers.gibbs.step`.
    net : CompiledNetwork
    state : PruneGibbsState
    prune_steps : int, default :data:`PRUNE_STEPS`
        Prune steps between two sweeps (at least 1).
    plan : PrunePlan, optional
        Default: :func:`prunelab.samplers.prune.plan.prune_plan` of ``net``.

    Returns
    -------
    PruneGibbsState
    PruneGibbsInfo

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> state, info = step(np.random.default_rng(0), net, init(net, [0, 0]), prune_steps=1)
    >>> state.phase, info.sweep
    (1, False)
    >>> step(np.random.default_rng(0), net, state, prune_steps=1)[1]
    PruneGibbsInfo(sweep=True, size=nan)
    """
    k = _prune_steps(prune_steps)
    if state.phase < k:
        new, info = prune.step(rng, net, prune.PruneState(state.x, state.size, state.nodes_per_member), plan=plan)
        return PruneGibbsState(new.x, state.phase + 1, new.size, new.nodes_per_member), PruneGibbsInfo(False, info.size)
    new, _ = gibbs.step(rng, net, ChainState(state.x))
    return PruneGibbsState(new.x), PruneGibbsInfo(True, np.nan)


def run_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int, prune_steps: int = PRUNE_STEPS,
              *, plan: PrunePlan | None = None) -> PruneGibbsChain:
    """``n_draws`` draws from ``x0``: blocks of ``prune_steps`` numba prune steps, each followed by a numba sweep.

    Parameters
    ----------
    rng : numpy.random.Generator
        Consumed exactly like ``n_draws`` calls of :func:`step`.
    net, x0, n_draws
        As in :func:`prunelab.samplers.prune.sampler.run_chain` (``x0`` is checked the same way).
    prune_steps, plan
        As in :func:`step`.

    Returns
    -------
    PruneGibbsChain

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> out = run_chain(np.random.default_rng(1), net, [0, 0], 3, prune_steps=2)
    >>> out.draws.shape, out.sweep.tolist()
    ((3, 2), [False, False, True])
    """
    k = _prune_steps(prune_steps)
    n_draws, x, _, draws = start_chain(net, x0, n_draws)
    plan = prune_plan(net) if plan is None else plan
    sweep = np.zeros(n_draws, dtype=np.bool_)
    size = np.full(n_draws, np.nan)
    t = 0
    while t < n_draws:
        m = min(k, n_draws - t)
        block = prune.run_chain(rng, net, x, m, plan=plan)
        draws[t:t + m], size[t:t + m], x = block.draws, block.size, block.draws[-1]
        t += m
        if t < n_draws:
            x = gibbs.run_chain(rng, net, x, 1).draws[-1]
            draws[t], sweep[t] = x, True
            t += 1
    return PruneGibbsChain(draws, sweep, size)
