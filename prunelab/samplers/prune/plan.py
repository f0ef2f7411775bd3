"""The plan of a prune chain: the labels pruned at random and the uniform draw's program, compiled once.

:func:`compile_prune_plan` reads off a network with its evidence which labels a
pruning draws a random number for, and compiles the counting program of the
uniform draw (:mod:`prunelab.samplers.prune.draws`) with its specialisation to the
labels that vary; :func:`prune_plan` caches it by content. Used by
:mod:`prunelab.samplers.prune.sampler` and :mod:`prunelab.samplers.prune.tempered`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from prunelab.compiled import CompiledNetwork, PlanCache
from .draws.sparse import SparseCount, compile_sparse_count
from .draws.compiler import UniformPlan, compile_uniform_plan
from .draws.api import used_labels

__all__ = ["PrunePlan", "compile_prune_plan", "prune_plan", "NODE_UNITS", "BACKWARD_UNITS"]

NODE_UNITS = 6
"""Multiply-adds of a count that one search node (one tried value) is taken to cost (one core, numba).

Measured on stationary chains (CPU time per search node over time per count unit): 5.0 (alarm), 5.8-6.7
(win95pts), 5.5-7.8 (grid-8x8), 6.4 (asia); ``benchmarks/bench_prune.py``."""

BACKWARD_UNITS = 8
"""Multiply-adds that one backward-sampling step is taken to cost."""


class PrunePlan(NamedTuple):
    """What a prune step needs besides the network, compiled once per (network, evidence).

    Attributes
    ----------
    uniform : UniformPlan
        Search order and elimination program for the uniform draw.
    random_label : int64 (m,)
        Labels pruned at random: ``0 < c < 1`` and used by some feasible state that
        agrees with the evidence; increasing.
    random_c : float64 (m,)
        Their keep probabilities ``c``.
    base_kept : bool (n_labels,)
        The fixed part of every pruning: used labels with ``c = 1`` kept, labels
        with ``c = 0`` or used by no feasible state pruned; the random labels are
        overwritten at every step.
    count : SparseCount or None
        The counting program specialised to prunings that change only the
        random labels (:func:`~prunelab.samplers.prune.draws.sparse.compile_sparse_count`),
        which :func:`run_chain` counts with; None if it does not fit (the full
        program is used).
    count_units : int
        Work of one count and backward draw, in multiply-adds: the entries the
        (specialised) counting program visits plus :data:`BACKWARD_UNITS` per
        elimination step. What ``uniform="auto"`` weighs a search and a circuit
        against.
    node_budget : int
        Search nodes ``uniform="auto"`` allows before it counts: about the cost
        of one count (``count_units / NODE_UNITS``), at least 16.
    nodes_per_member : float
        First estimate of search nodes per member of ``S``: the number of free
        variables (measured 0.6 to 15 times that on the benchmark networks; a
        low first guess makes ``"auto"`` try a search early and learn the ratio).
    """

    uniform: UniformPlan
    random_label: np.ndarray
    random_c: np.ndarray
    base_kept: np.ndarray
    count: SparseCount | None
    count_units: int
    node_budget: int
    nodes_per_member: float


def compile_prune_plan(net: CompiledNetwork, node_budget: int | None = None) -> PrunePlan:
    """Compile the pruning lists and the uniform plan of ``net``.

    A label is pruned at random only if ``0 < c < 1`` and some feasible state that
    agrees with the evidence uses it (found for all labels at once by two passes
    over the counting program, :func:`~prunelab.samplers.prune.draws.api.used_labels`): the
    others never change ``S``, so they get no random number. Unused labels are
    marked pruned in ``base_kept``, which lets the search skip them.

    Parameters
    ----------
    net : CompiledNetwork
    node_budget : int, optional
        Search nodes ``uniform="auto"`` allows before it counts, in the chain
        (:attr:`PrunePlan.node_budget`) and in the uniform plan
        (:func:`~prunelab.samplers.prune.draws.compiler.compile_uniform_plan`). Default: about
        one count's cost for the chain, the uniform plan's own default there.

    Returns
    -------
    PrunePlan

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.plan import compile_prune_plan
    >>> plan = compile_prune_plan(compile_network(load_network("deterministic_pair")))
    >>> plan.random_label.tolist()  # A(1), A(2); B's entries are 0 or 1
    [0, 1]
    """
    uniform = compile_uniform_plan(net, node_budget)
    c = net.cpt
    used = used_labels(net, c > 0.0, uniform)
    random = used & (c < 1.0)
    random_label = np.flatnonzero(random).astype(np.int64)
    arrays = (random_label, c[random_label].astype(np.float64), used)
    for a in arrays:
        a.setflags(write=False)
    sparse = compile_sparse_count(net, uniform, used, random)
    units = (uniform.count_cost if sparse is None else sparse.cost) + BACKWARD_UNITS * uniform.n_steps
    if node_budget is None:
        node_budget = max(16, units // NODE_UNITS)
    nodes_per_member = float(max(net.free.size, 1))
    return PrunePlan(uniform, *arrays, sparse, int(units), int(node_budget), nodes_per_member)


_prune_plans = PlanCache(compile_prune_plan)


def prune_plan(net: CompiledNetwork) -> PrunePlan:
    """The :class:`PrunePlan` of ``net``, compiled on first use and cached (by content)."""
    return _prune_plans(net)
