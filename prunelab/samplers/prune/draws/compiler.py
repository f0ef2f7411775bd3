"""The plan compiler: search order and elimination program of a network with evidence.

Also the constants that the kernels, the numpy references and the public API share.
See :mod:`prunelab.samplers.prune.draws` for what the plan is for.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np

from prunelab.compiled import CompiledNetwork, PlanCache
from prunelab.elimination import check_fits, find_order, interaction_graph
from prunelab.network import collector_paused

__all__ = [
    "DEFAULT_MAX_RESTARTS",
    "DEFAULT_N_CANDIDATES",
    "EXACT_COUNT_LIMIT",
    "GATHER_LIMIT",
    "GATHER_STEP_LIMIT",
    "MEMBER_CAPACITY",
    "UniformPlan",
    "compile_uniform_plan",
    "uniform_plan",
]

EXACT_COUNT_LIMIT = float(2**53)
"""Float64 represents every integer below this; counts stay exact under it."""

GATHER_STEP_LIMIT = 2**16
"""Largest step (table entries times inputs) whose input positions are unrolled into ``gather``."""

GATHER_LIMIT = 2**22
"""Most unrolled input positions a plan keeps (int64: 32 MiB); later steps use a counter."""

MEMBER_CAPACITY = 256
"""Members of ``S`` the search keeps; a larger ``S`` needs a second pass to reach the drawn one."""

DEFAULT_N_CANDIDATES = 100
DEFAULT_MAX_RESTARTS = 100


class UniformPlan(NamedTuple):
    """Everything the uniform draws need, compiled once per network and evidence.

    Attributes
    ----------
    const_label : int64 (n_const,)
        Labels of observed variables whose parents are all observed: constant
        factors; if one is pruned, ``S`` is empty.
    dfs_order : int64 (n_free,)
        Free variables in topological order (the search order).
    check_ptr, check_var : int64
        CSR: observed variables whose label is determined once position ``p`` of
        ``dfs_order`` is assigned (checked at ``p``).
    look_ptr, look_var : int64
        CSR: free variables two or more positions ahead whose parents are all
        assigned at ``p`` (forward checking: some value must be kept).
    factor_ptr : int64 (n_factors + 1,)
        Offsets of the factors in the factor buffer: first the indicator factors
        (one per CPT with a free variable), then one output per elimination step.
    factor_label : int64
        For every entry of every indicator factor (C order over its scope), the
        CPT label it indicates.
    factor_scope_ptr, factor_scope_var : int64
        CSR: the scope of every factor, in axis order.
    n_indicator : int
        Number of indicator factors.
    step_scope_ptr, step_scope_var, step_scope_card : int64
        CSR: the combined scope of every elimination step; the eliminated variable
        is last.
    step_input_ptr, step_input_factor : int64
        CSR: the factors multiplied in every step.
    input_stride_ptr, input_stride : int64
        For every step input, its stride along every axis of the step's combined
        scope (0 where the input does not mention the variable).
    table_ptr : int64 (n_steps + 1,)
        Offsets of the combined tables in the table buffer.
    gather_ptr, gather : int64
        The strides unrolled, for steps small enough (:data:`GATHER_STEP_LIMIT`,
        :data:`GATHER_LIMIT`): for step ``k`` with ``m`` inputs and combined table
        size ``T``, ``gather[gather_ptr[k] + g * T + e]`` is the position in the
        factor buffer of input ``g``'s entry for combined entry ``e`` (what a
        mixed-radix counter over the combined scope would visit). Indicator inputs
        come first. A step with no gather entries is counted with that counter
        (slower on small tables, but it needs no memory).
    count_cost : int
        Multiply-adds of one counting pass (sum over steps of table size times
        number of inputs); a measure of the treewidth cost. The elimination
        order is the cheapest by this cost that
        :func:`prunelab.elimination.find_order` finds.
    node_budget : int
        Search-tree nodes ``"auto"`` allows the enumeration before it counts.
    """

    const_label: np.ndarray
    dfs_order: np.ndarray
    check_ptr: np.ndarray
    check_var: np.ndarray
    look_ptr: np.ndarray
    look_var: np.ndarray
    factor_ptr: np.ndarray
    factor_label: np.ndarray
    factor_scope_ptr: np.ndarray
    factor_scope_var: np.ndarray
    n_indicator: int
    step_scope_ptr: np.ndarray
    step_scope_var: np.ndarray
    step_scope_card: np.ndarray
    step_input_ptr: np.ndarray
    step_input_factor: np.ndarray
    input_stride_ptr: np.ndarray
    input_stride: np.ndarray
    table_ptr: np.ndarray
    gather_ptr: np.ndarray
    gather: np.ndarray
    count_cost: int
    node_budget: int

    @property
    def n_steps(self) -> int:
        """Steps of the elimination program."""
        return int(self.table_ptr.shape[0] - 1)


def _csr(lists) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(items) for items in lists], out=ptr[1:])
    flat = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64, count=int(ptr[-1]))
    return ptr, flat


def _grid_rows(bases, strides, shapes) -> tuple[np.ndarray, np.ndarray]:
    """``bases[k] + sum_a index_a * strides[k][a]`` over the states of ``shapes[k]`` in C order, for every ``k``.

    The label or entry lists of many small tables, one after another, and their lengths: computed with one
    matrix product per distinct shape rather than a few numpy calls per table (which dominated the plan's
    compilation on networks of many small CPTs), and written into one array (not one row per table).
    """
    groups: dict[tuple[int, ...], list[int]] = {}
    for k, shape in enumerate(shapes):
        groups.setdefault(tuple(shape), []).append(k)
    sizes = np.zeros(len(shapes), dtype=np.int64)
    for shape, members in groups.items():
        sizes[members] = math.prod(shape)
    start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    flat = np.zeros(int(start[-1]), dtype=np.int64)
    for shape, members in groups.items():
        grid = np.indices(shape, dtype=np.int64).reshape(len(shape), -1)
        stride = np.array([strides[k] for k in members], dtype=np.int64).reshape(len(members), len(shape))
        table = np.array([bases[k] for k in members], dtype=np.int64)[:, None] + stride @ grid
        flat[start[members][:, None] + np.arange(grid.shape[1])] = table
    return flat, sizes


def _holding(scopes, n_variables: int) -> list[set[int]]:
    """For every variable, the factors (indices into ``scopes``) that mention it."""
    holding: list[set[int]] = [set() for _ in range(n_variables)]
    for f, scope in enumerate(scopes):
        for u in scope:
            holding[u].add(f)
    return holding


def _elimination_cost(order, scopes, card) -> int:
    """The cost of :func:`_symbolic_elimination` along ``order``, without its steps (sets, not sorted lists).

    The sum over the steps of the combined table's entries times the factors
    multiplied into it: what :func:`find_order` weighs each candidate order by.
    """
    card = [int(c) for c in card]
    active = [set(s) for s in scopes]  # by factor id; the factors produced are appended
    holding = _holding(scopes, len(card))  # variable -> active factors that mention it
    cost = 0
    for v in order:
        inputs = holding[v]
        union = set()
        for f in inputs:
            union |= active[f]
        union.discard(v)
        out = len(active)
        for u in union:
            holding[u] -= inputs
            holding[u].add(out)
        cost += math.prod(map(card.__getitem__, union), start=card[v]) * len(inputs)
        active.append(union)
    return cost


def _symbolic_elimination(order, scopes, card, position):
    """Steps of variable elimination along ``order`` over factors with ``scopes``, and their cost.

    Every step is ``(v, combined, inputs, strides, output id, output scope)``; the
    combined scope lists the other variables by search position, then ``v``. The
    cost is :func:`_elimination_cost`'s.
    """
    card = [int(c) for c in card]  # Python ints: numpy scalars cost ~100 ns each
    where = [0] * len(card)  # the search position of each variable, as a list lookup
    for u, p in position.items():
        where[u] = p
    at = where.__getitem__
    active = [tuple(s) for s in scopes]  # by factor id; the factors produced are appended
    holding = _holding(active, len(card))  # variable -> active factors that mention it
    steps = []
    cost = 0
    for v in order:
        # indicator factors first: they are sparse and stop the product early (the factors produced are
        # numbered after them, from len(scopes) up, so the numbers alone give that order)
        held = holding[v]
        inputs = sorted(held)
        union = set()
        for f in inputs:
            union.update(active[f])
        union.discard(v)
        outer = sorted(union, key=at)
        combined = outer + [v]
        column = {u: a for a, u in enumerate(combined)}
        cost += math.prod(map(card.__getitem__, outer), start=card[v]) * len(inputs)
        strides = []
        for f in inputs:
            row = [0] * len(combined)
            stride = 1
            for u in reversed(active[f]):
                row[column[u]] = stride
                stride *= card[u]
            strides.append(row)
        out_id = len(active)
        out = tuple(outer)
        active.append(out)
        for u in outer:
            holding[u] -= held
            holding[u].add(out_id)
        steps.append((v, combined, inputs, strides, out_id, out))
    return steps, cost


@collector_paused()
def compile_uniform_plan(net: CompiledNetwork, node_budget: int | None = None, counting: bool = True,
                         max_work: float = math.inf) -> UniformPlan:
    """Compile the search order and the elimination program for ``net``.

    Parameters
    ----------
    net : CompiledNetwork
        The network with its evidence.
    node_budget : int, optional
        Search-tree nodes that ``"auto"`` lets the enumeration visit before it
        switches to counting. Default: ``count_cost // 64``, at least 16. A
        search node costs about 10-25 ns and a unit of ``count_cost`` about 2 ns
        (one core, numba), so a search that runs out of budget adds at most about
        15 % to the count that follows it.
    counting : bool, default True
        Compile the elimination program (refused, before allocating, when its
        tables would be too large: :func:`~prunelab.elimination.check_fits`).
        ``False`` gives a plan for the search and the support checks only (no
        tables, ``count_cost = 0``, ``n_steps = 0``): what MC-SAT with SampleSAT
        needs. Counting with it is an error of the caller.
    max_work : float, default inf
        Cap on the elimination-order search (:func:`~prunelab.elimination.find_order`), for a caller with another
        way to draw (``uniform="auto"`` turns to the circuit); the order found is the same under any cap it meets.

    Returns
    -------
    UniformPlan

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.compiler import compile_uniform_plan
    >>> plan = compile_uniform_plan(compile_network(load_network("deterministic_pair")))
    >>> plan.dfs_order.tolist(), plan.n_steps
    ([0, 1], 2)
    """
    n = net.n_variables
    card = net.cardinality
    ev = net.evidence_value
    observed = ev >= 0
    free = [int(v) for v in net.free]
    position = {v: p for p, v in enumerate(free)}

    # Python lists of the network's arrays: these loops run once per variable, and numpy scalars are slow
    observed_l, ev_l, offset_l = observed.tolist(), ev.tolist(), net.cpt_offset.tolist()
    ptr_l, index_l, stride_l = net.parent_ptr.tolist(), net.parent_index.tolist(), net.parent_stride.tolist()
    const_label = []
    checks: list[list[int]] = [[] for _ in free]
    looks: list[list[int]] = [[] for _ in free]
    for i in range(n):
        pars = index_l[ptr_l[i]:ptr_l[i + 1]]
        free_pars = [p for p in pars if not observed_l[p]]
        if observed_l[i]:
            if not free_pars:
                strides = stride_l[ptr_l[i]:ptr_l[i + 1]]
                const_label.append(offset_l[i] + ev_l[i] + sum(ev_l[p] * st for p, st in zip(pars, strides)))
            else:
                checks[max(position[p] for p in free_pars)].append(i)
        elif free_pars:
            last = max(position[p] for p in free_pars)
            if position[i] > last + 1:
                looks[last].append(i)
    check_ptr, check_var = _csr(checks)
    look_ptr, look_var = _csr(looks)

    # ---- indicator factors: one per CPT that mentions a free variable
    scopes: list[tuple[int, ...]] = []
    fixed_labels, scope_strides = [], []
    where = [-1] * n  # search position of every free variable, -1 for an observed one
    for p, v in enumerate(free):
        where[v] = p
    for i in range(n):
        lo, hi = ptr_l[i], ptr_l[i + 1]
        family = list(zip(index_l[lo:hi], stride_l[lo:hi]))
        family.append((i, 1))
        members = sorted((where[u], u, st) for u, st in family if where[u] >= 0)  # positions differ: no ties
        if not members:
            continue
        scopes.append(tuple(u for _p, u, _st in members))
        fixed_labels.append(offset_l[i] + sum(ev_l[u] * st for u, st in family if where[u] < 0))
        scope_strides.append([st for _p, _u, st in members])
    cards = card.tolist()  # Python ints: numpy scalars cost ~100 ns each
    labels, label_sizes = _grid_rows(fixed_labels, scope_strides, [[cards[u] for u in scope] for scope in scopes])

    # ---- elimination program: the cheapest order found, refused before allocating if too large
    first = {}  # the program of the first candidate costed, the min-fill order: usually the one chosen

    def count_cost(candidate) -> float:
        if first:
            return float(_elimination_cost(candidate.order, scopes, card))
        first[candidate.order] = _symbolic_elimination(candidate.order, scopes, card, position)
        return float(first[candidate.order][1])

    if counting:
        best = find_order(interaction_graph(scopes, free), card, cost=count_cost, max_work=max_work)
        check_fits(best, "the counting plan of prune sampling and of uniform draws (sampler 'prune', "
                   "'prune-tempered', or 'mc-sat' with uniform='exact')")
        steps, cost = first.get(best.order) or _symbolic_elimination(best.order, scopes, card, position)
    else:
        steps, cost = [], 0

    factor_sizes = label_sizes.tolist()
    factor_scopes = list(scopes)
    step_scopes, step_inputs, input_strides, table_sizes = [], [], [], []
    for v, combined, inputs, strides, _out_id, out_scope in steps:
        step_scopes.append(combined)
        step_inputs.append(inputs)
        input_strides.extend(strides)
        out_size = math.prod(map(cards.__getitem__, out_scope))
        table_sizes.append(out_size * cards[v])
        factor_sizes.append(out_size)
        factor_scopes.append(out_scope)
    factor_ptr = np.concatenate([[0], np.cumsum(factor_sizes)]).astype(np.int64)
    table_ptr = np.concatenate([[0], np.cumsum(table_sizes)]).astype(np.int64)
    gather_sizes = []
    gather_base, gather_stride, gather_shape = [], [], []  # per input of a gathered step
    gathered = 0  # sum(gather_sizes), kept as it grows (summing the list per step was quadratic)
    factor_start = factor_ptr.tolist()
    for (_v, combined, inputs, strides, _out_id, _out_scope), size in zip(steps, table_sizes):
        unrolled = size * len(inputs)
        if unrolled > GATHER_STEP_LIMIT or gathered + unrolled > GATHER_LIMIT:
            gather_sizes.append(0)  # counted with a mixed-radix counter instead
            continue
        shape = [cards[u] for u in combined]
        for f, stride in zip(inputs, strides):  # the entries of f over the combined scope's states in C order
            gather_base.append(factor_start[f])
            gather_stride.append(stride)
            gather_shape.append(shape)
        gather_sizes.append(unrolled)
        gathered += unrolled
    gather = _grid_rows(gather_base, gather_stride, gather_shape)[0]
    gather_ptr = np.concatenate([[0], np.cumsum(gather_sizes)]).astype(np.int64)
    factor_scope_ptr, factor_scope_var = _csr(factor_scopes)
    step_scope_ptr, step_scope_var = _csr(step_scopes)
    step_input_ptr, step_input_factor = _csr(step_inputs)
    input_stride_ptr, input_stride = _csr(input_strides)
    if node_budget is None:
        node_budget = max(16, cost // 64)
    arrays = dict(
        const_label=np.asarray(const_label, dtype=np.int64),
        dfs_order=np.asarray(free, dtype=np.int64),
        check_ptr=check_ptr,
        check_var=check_var,
        look_ptr=look_ptr,
        look_var=look_var,
        factor_ptr=factor_ptr,
        factor_label=labels,
        factor_scope_ptr=factor_scope_ptr,
        factor_scope_var=factor_scope_var,
        step_scope_ptr=step_scope_ptr,
        step_scope_var=step_scope_var,
        step_scope_card=card[step_scope_var].astype(np.int64),
        step_input_ptr=step_input_ptr,
        step_input_factor=step_input_factor,
        input_stride_ptr=input_stride_ptr,
        input_stride=input_stride,
        table_ptr=table_ptr,
        gather_ptr=gather_ptr,
        gather=gather,
    )
    for a in arrays.values():
        a.setflags(write=False)
    return UniformPlan(
        **arrays,
        n_indicator=len(scopes),
        count_cost=int(cost),
        node_budget=int(node_budget),
    )


_uniform_plans = PlanCache(compile_uniform_plan)


def uniform_plan(net: CompiledNetwork) -> UniformPlan:
    """The :class:`UniformPlan` of ``net``, compiled on first use and cached.

    The cache is keyed by the content of ``net`` (:func:`~prunelab.compiled.network_key`) and keeps
    the most recent few networks.
    """
    return _uniform_plans(net)
