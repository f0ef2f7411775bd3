"""The plans of prune sampling: the pruning every draw shares, and the counting plan, compiled once.

Every uniform draw's plan (:mod:`prunelab.samplers.prune.draws.registry`) carries one :class:`Pruning`: the labels a
step prunes at random, their keep probabilities and the fixed part of every pruning, built by :func:`pruning_of`.

The counting plan (:class:`PrunePlan`) serves the draws of prune's own chain (``"enumerate"``, ``"count"``,
``"heuristic"``, ``"auto"``): :func:`compile_prune_plan` reads off a network with its evidence which labels some
feasible state uses (:func:`used_labels`, so that only those are pruned at random), compiles the uniform draw's
program (:func:`~prunelab.samplers.prune.draws.compiler.compile_uniform_plan`) and specialises it to the labels that
vary (:class:`SparseCount`); :func:`prune_plan` caches it by content. A chain allocates its scratch arrays from it
once (:func:`make_workspace`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from prunelab.compiled import CompiledNetwork, PlanCache

from .draws.compiler import (DEFAULT_N_CANDIDATES, GATHER_LIMIT, MEMBER_CAPACITY, UniformPlan, compile_uniform_plan,
                             uniform_plan)
from .draws.counting import count_nb, sparse_count_nb, support_nb

__all__ = ["Pruning", "pruning_of", "PrunePlan", "compile_prune_plan", "prune_plan", "NODE_UNITS", "BACKWARD_UNITS",
           "used_labels", "checked_kept", "UniformWorkspace", "make_workspace", "SparseCount", "compile_sparse_count"]


class Pruning(NamedTuple):
    """Which labels a prune step prunes at random: the one field every draw's plan carries as ``pruning``.

    Attributes
    ----------
    random_label : int64 (m,)
        Labels pruned at random (``0 < c < 1``), increasing; a draw may leave out labels no feasible state uses.
    random_c : float64 (m,)
        Their keep probabilities ``c``.
    base_kept : bool (n_labels,)
        The fixed part of every pruning (``c = 1`` kept, ``c = 0`` pruned, and for a draw that knows them, the labels
        no feasible state uses pruned); the random labels are overwritten at every step.
    """

    random_label: np.ndarray
    random_c: np.ndarray
    base_kept: np.ndarray


def pruning_of(net: CompiledNetwork, random_label, base_kept) -> Pruning:
    """The :class:`Pruning` of ``net`` that draws ``random_label`` at random (read-only arrays, ``c`` read off).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> pruning_of(net, [0, 1], net.cpt > 0).random_c.tolist()
    [0.5, 0.5]
    """
    random_label = np.asarray(random_label, dtype=np.int64)
    arrays = (random_label, net.cpt[random_label].astype(np.float64), np.asarray(base_kept, dtype=np.bool_))
    for a in arrays:
        a.setflags(write=False)
    return Pruning(*arrays)


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
    pruning : Pruning
        Labels pruned at random: ``0 < c < 1`` and used by some feasible state that
        agrees with the evidence; ``base_kept``: used labels with ``c = 1`` kept, labels
        with ``c = 0`` or used by no feasible state pruned.
    count : SparseCount or None
        The counting program specialised to prunings that change only the
        random labels (:func:`compile_sparse_count`),
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
    pruning: Pruning
    count: SparseCount | None
    count_units: int
    node_budget: int
    nodes_per_member: float


def compile_prune_plan(net: CompiledNetwork, node_budget: int | None = None,
                       max_work: float = math.inf) -> PrunePlan:
    """Compile the pruning lists and the uniform plan of ``net``.

    A label is pruned at random only if ``0 < c < 1`` and some feasible state that
    agrees with the evidence uses it (found for all labels at once by two passes
    over the counting program, :func:`~prunelab.samplers.prune.plan.used_labels`): the
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
    max_work : float, default inf
        Cap on the elimination-order search (``compile_uniform_plan``'s); past it,
        :class:`~prunelab.elimination.OrderSearchTooLongError`.

    Returns
    -------
    PrunePlan

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.plan import compile_prune_plan
    >>> plan = compile_prune_plan(compile_network(load_network("deterministic_pair")))
    >>> plan.pruning.random_label.tolist()  # A(1), A(2); B's entries are 0 or 1
    [0, 1]
    """
    uniform = compile_uniform_plan(net, node_budget, max_work=max_work)
    c = net.cpt
    used = used_labels(net, c > 0.0, uniform)
    random = used & (c < 1.0)
    pruning = pruning_of(net, np.flatnonzero(random), used)
    sparse = compile_sparse_count(net, uniform, used, random)
    units = (uniform.count_cost if sparse is None else sparse.cost) + BACKWARD_UNITS * uniform.n_steps
    if node_budget is None:
        node_budget = max(16, units // NODE_UNITS)
    nodes_per_member = float(max(net.free.size, 1))
    return PrunePlan(uniform, pruning, sparse, int(units), int(node_budget), nodes_per_member)


_prune_plans = PlanCache(compile_prune_plan)


def prune_plan(net: CompiledNetwork, max_work: float = math.inf) -> PrunePlan:
    """The :class:`PrunePlan` of ``net``, compiled on first use and cached (by content).

    ``max_work`` caps the elimination-order search of a plan not cached yet (see :func:`compile_prune_plan`); a
    plan found is the same under any cap.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> plan = prune_plan(compile_network(load_network("deterministic_pair")))
    >>> prune_plan(compile_network(load_network("deterministic_pair"))) is plan  # the same content: cached
    True
    >>> plan.pruning.random_label.tolist()  # A(1), A(2); B's entries are 0 or 1
    [0, 1]
    """
    return _prune_plans(net, max_work=max_work)


def checked_kept(net: CompiledNetwork, kept) -> np.ndarray:
    """``kept`` as a bool array, checked: one entry per label of ``net``.

    Raises
    ------
    ValueError
        ``kept`` has another shape.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> checked_kept(compile_network(load_network("deterministic_pair")), [1, 1, 1, 0, 0, 1]).tolist()
    [True, True, True, False, False, True]
    """
    kept = np.asarray(kept)
    if kept.shape != (net.n_labels,):
        raise ValueError(f"kept must have one entry per label, shape ({net.n_labels},); got {kept.shape}")
    return kept.astype(np.bool_)


def used_labels(net: CompiledNetwork, kept, plan: UniformPlan | None = None) -> np.ndarray:
    """Which labels some member of ``S`` uses: the support of every family marginal of ``S``.

    One upward and one downward pass over the counting program in the boolean
    semiring (see :func:`support_nb`), so the cost is about two counting passes
    for all labels together, and nothing can overflow.

    Parameters
    ----------
    net : CompiledNetwork
    kept : bool array (n_labels,)
    plan : UniformPlan, optional
        Default: :func:`uniform_plan` of ``net``.

    Returns
    -------
    bool array (n_labels,)
        ``used[l]``: some evidence-consistent state whose labels are all kept uses
        label ``l``. All False when ``S`` is empty.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
        >>> net = compile_network(load_network("deterministic_pair"))
    >>> used_labels(net, net.cpt > 0).tolist()  # B's zero entries are never used
    [True, True, True, False, False, True]
    """
    plan = uniform_plan(net) if plan is None else plan
    ws = make_workspace(net, plan, 1)
    nonempty, reached = support_nb(plan, checked_kept(net, kept), ws.counter, ws.radix, ws.stride, ws.base)
    used = np.zeros(net.n_labels, dtype=bool)
    if nonempty:
        used[plan.factor_label[reached]] = True
        used[plan.const_label] = True
    return used


class UniformWorkspace(NamedTuple):
    """Scratch arrays for the numba kernels, allocated once per chain."""

    factors: np.ndarray  # float64, factor buffer
    tables: np.ndarray  # float64, combined tables of the elimination steps
    value: np.ndarray  # int64, search state per position
    allowed: np.ndarray  # int64, allowed values (heuristic)
    candidates: np.ndarray  # int64 (n_candidates, n_free)
    hashes: np.ndarray  # uint64 (n_candidates,)
    members: np.ndarray  # int64 (MEMBER_CAPACITY, n_free): first members found by the search
    counter: np.ndarray  # int64 (axes,), mixed-radix counter over a step's combined scope
    radix: np.ndarray  # int64 (axes,), the cardinalities of that scope
    stride: np.ndarray  # int64 (inputs, axes), every input's stride along every axis
    base: np.ndarray  # int64 (inputs,), every input's position at the counter's row


def make_workspace(
    net: CompiledNetwork,
    plan: UniformPlan,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    fill=None,
) -> UniformWorkspace:
    """Scratch arrays for the numba kernels (one per chain; not shared between threads).

    With ``fill`` (bool array over the labels), the tables and factors are filled
    by one count with those labels kept: a :class:`SparseCount` needs
    ``fill=sparse.possible``, since it never recomputes the steps that do not vary.
    """
    n_free = plan.dfs_order.shape[0]
    axes = int(np.diff(plan.step_scope_ptr).max(initial=0)) + 1
    inputs = int(np.diff(plan.step_input_ptr).max(initial=0)) + 1
    ws = UniformWorkspace(
        factors=np.zeros(int(plan.factor_ptr[-1]), dtype=np.float64),
        tables=np.zeros(int(plan.table_ptr[-1]), dtype=np.float64),
        value=np.zeros(n_free + 1, dtype=np.int64),
        allowed=np.zeros(int(net.cardinality.max()) + 1, dtype=np.int64),
        candidates=np.zeros((max(int(n_candidates), 1), n_free), dtype=np.int64),
        hashes=np.zeros(max(int(n_candidates), 1), dtype=np.uint64),
        members=np.zeros((MEMBER_CAPACITY, n_free), dtype=np.int64),
        counter=np.zeros(axes, dtype=np.int64),
        radix=np.zeros(axes, dtype=np.int64),
        stride=np.zeros((inputs, axes), dtype=np.int64),
        base=np.zeros(inputs, dtype=np.int64),
    )
    if fill is not None:
        count_nb(plan, np.ascontiguousarray(fill, dtype=np.bool_), ws.factors, ws.tables, ws.counter,
                 ws.radix, ws.stride, ws.base)
    return ws


class SparseCount(NamedTuple):
    """A plan's counting program specialised to prunings in which only some labels vary.

    Prune sampling redraws only its random labels; every other label is kept or
    pruned at every step alike. So an entry of a step's table that is zero with
    every label that can be kept is zero at every step (it is not *live*), an
    indicator input whose labels at the live entries are all fixed is 1 there,
    and a step none of whose inputs varies gives the same table at every step.
    This program recomputes only the live entries of the steps that vary, from
    the inputs that vary (and the fixed messages they read); the rest of the
    workspace is filled once (:func:`make_workspace`).
    On deterministic networks with evidence most entries are dead and most steps
    fixed: on link, mildew and diabetes with 25 % evidence a count does 10 to 60
    times fewer multiply-adds.

    Valid for every ``kept`` that equals ``possible`` outside ``variable`` and is
    False wherever ``possible`` is; it then gives the same tables and count as
    the full program, number for number.

    Attributes
    ----------
    possible : bool (n_labels,)
        The fixed labels at their value, the varying ones True.
    live_ptr : int64 (n_dirty + 1,)
        CSR over the steps that vary, in step order: their live entries.
    live_entry, live_row : int64
        Position in the table buffer of every live entry, and in the factor
        buffer of the output entry (row) it is summed into.
    n_label, n_input : int64 (n_dirty,)
        Inputs of every varying step that are read (the first ``n_label`` are
        indicator inputs, read from ``kept`` by label; the others are messages,
        read from the factor buffer), in the full program's order.
    gather_ptr, gather : int64
        For varying step ``d`` with ``L`` live entries, ``gather[gather_ptr[d] +
        g * L + j]`` is input ``g``'s label or factor position at live entry ``j``.
    root_factor : int64
        Factor positions of the root steps' outputs, in step order: ``|S|`` is
        their product.
    cost : int
        Multiply-adds of one count (``sum L * n_input``).
    """

    possible: np.ndarray
    live_ptr: np.ndarray
    live_entry: np.ndarray
    live_row: np.ndarray
    n_label: np.ndarray
    n_input: np.ndarray
    gather_ptr: np.ndarray
    gather: np.ndarray
    root_factor: np.ndarray
    cost: int


def compile_sparse_count(
    net: CompiledNetwork, plan: UniformPlan, possible, variable
) -> SparseCount | None:
    """Specialise the counting program of ``plan`` to prunings that change only ``variable`` labels.

    Parameters
    ----------
    net : CompiledNetwork
    plan : UniformPlan
    possible : bool array (n_labels,)
        The value of every label that does not vary, True for those that do.
    variable : bool array (n_labels,)
        The labels that vary from one pruning to the next (a subset of ``possible``).

    Returns
    -------
    SparseCount or None
        None when its gather indices would exceed :data:`GATHER_LIMIT` (the
        full program is then used).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.compiler import uniform_plan
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> sparse = compile_sparse_count(net, uniform_plan(net), net.cpt > 0, (net.cpt > 0) & (net.cpt < 1))
    >>> sparse.cost, int(sparse.live_entry.size)  # both steps read A's labels; 2 live entries each
    (4, 4)
    """
    possible = np.ascontiguousarray(possible, dtype=np.bool_)
    variable = np.ascontiguousarray(variable, dtype=np.bool_)
    ws = make_workspace(net, plan, 1, fill=possible)  # a full count with every possible label kept
    n_gather, *parts = sparse_count_nb(plan, ws.tables, variable, GATHER_LIMIT)
    if n_gather < 0:
        return None
    arrays = dict(zip(SparseCount._fields[1:-1], parts), possible=possible)
    for a in arrays.values():
        a.setflags(write=False)
    return SparseCount(**arrays, cost=int(n_gather))
