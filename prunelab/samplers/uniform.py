"""Uniform draws from the set of states that survive a pruning.

After pruning (see :mod:`prunelab.samplers.prune`) every CPT label is either kept
or pruned. The pruned set ``S`` is the set of full states that agree with the
evidence and whose ``n`` labels are all kept. Prune sampling needs one state drawn
*exactly* uniformly from ``S``. Three ways are implemented here, chosen by name:

``"enumerate"`` (the paper's way)
    Depth-first search over the free variables in topological order. A value of
    variable ``v`` is tried only if its own label is kept (its parents are already
    assigned), every observed child whose parents are now all assigned has its
    label kept, and every later free child whose parents are now all assigned has
    at least one kept value (forward checking). The search counts ``S`` and keeps
    its first :data:`MEMBER_CAPACITY` members; an index ``r`` is drawn uniformly
    from ``{0, ..., |S|-1}`` and the ``r``-th member (lexicographic in the search
    order) is taken from that buffer, or found by a second search that stops there.
    Memory ``O(n)``, time proportional to the size of the search tree, so at least
    to ``|S|`` times the depth.

``"count"``
    Variable elimination on 0/1 indicator factors: one factor per CPT, its kept
    mask sliced at the evidence, over the CPT's free variables. Summing out the
    free variables in a greedy order (the cheapest of min-fill, min-weight and
    min-degree by total table size, compiled once per network and evidence) gives
    ``|S|`` without listing it; the combined table of every elimination step is
    kept, and one member of ``S`` is drawn by backward sampling (forward-filter,
    backward-sample) through those tables: variables are drawn in reverse
    elimination order, each with probability proportional to the number of
    members of ``S`` that extend the values drawn so far. The cost grows with the
    width of the elimination order, not with ``|S|``. The program is compiled
    into flat arrays: for every step its inputs and, unrolled from their strides
    over the step's combined scope, the position of every input entry (what a
    mixed-radix counter would visit), so a step is one tight loop.

``"heuristic"`` (the paper's approximate method; **biased**)
    Build a multiset ``V`` of ``n_candidates`` states by random forward sampling
    in the pruned network (uniform over the allowed values of each variable in
    topological order, restarting a candidate on a dead end, at most
    ``max_restarts`` times), then draw uniformly from the *distinct* members of
    ``V``. States that random forward sampling reaches easily are over-represented
    when ``V`` misses part of ``S``, so the draw is not uniform and the chain does
    not in general leave ``P`` invariant. Provided for the paper's comparison only;
    never the default. If no candidate completes, the current state is returned.

``"auto"`` (default)
    Run the search with a budget of tried values (compiled from the cost of one
    counting pass, :attr:`UniformPlan.node_budget`); if it finishes, draw by
    enumeration, otherwise draw by counting. Both draw exactly uniformly from the
    same ``S``, and which of them draws is decided by the pruning alone (the
    search's size), before any random number of the draw is used; so, given the
    pruning, the next state is uniform on ``S`` whichever method ran, and the
    mixture is exactly uniform. On the benchmark networks the elimination orders
    are narrow and counting costs a few microseconds, so ``"auto"`` nearly always
    counts; the search pays off when the treewidth is large and ``S`` small.

Exactness of the counts. Counts are float64 and every table entry is an integer;
all arithmetic is exact while the numbers stay below ``2**53`` (about ``9e15``
states; win95pts has at most ``2**76`` states in all, but pruned sets seen in
practice are below ``1e9``). Each backward-sampling choice then draws an integer
``r`` uniformly below the (exact) row total with ``Generator.integers`` and picks
the value whose cumulative count first exceeds ``r``, so the draw is exactly
uniform. Should a row total reach ``2**53`` the choice falls back to
``Generator.random() * total``, uniform up to float rounding.

Randomness. The numba kernels and the numpy references consume the
``numpy.random.Generator`` in the same order (numba replicates NumPy's
``random()`` and ``integers()``), so both give identical draws for the same seed.

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", sections
   "Prune sampling" and "Practical implementation".
.. [2] R. Dechter, "Bucket elimination: a unifying framework for reasoning",
   Artificial Intelligence 113 (1999); D. Koller and N. Friedman, *Probabilistic
   Graphical Models*, MIT Press, 2009, sec. 9.3-9.4 and 12.1 (variable
   elimination, forward-filter / backward-sample).
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from typing import NamedTuple

import numba
import numpy as np

from prunelab.compiled import CompiledNetwork
from prunelab.elimination import check_fits, find_order, interaction_graph

__all__ = [
    "UNIFORM_METHODS",
    "UniformPlan",
    "UniformWorkspace",
    "compile_uniform_plan",
    "uniform_plan",
    "network_key",
    "make_workspace",
    "count_pruned_states",
    "used_labels",
    "enumerate_pruned_states",
    "uniform_pruned_state",
    "seconds_per_uniform_draw",
    "method_code",
    "METHOD_NAMES",
]

UNIFORM_METHODS = ("enumerate", "count", "heuristic", "auto")
"""Accepted values of ``uniform=``."""

METHOD_NAMES = ("enumerate", "count", "heuristic")
"""Name of the method that drew, by the integer code kernels return."""

ENUMERATE, COUNT, HEURISTIC, AUTO = 0, 1, 2, 3

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

_PLAN_CACHE_SIZE = 32


def method_code(uniform: str) -> int:
    """Integer code of a ``uniform=`` name (``"auto"`` is 3)."""
    try:
        return UNIFORM_METHODS.index(uniform)
    except ValueError:
        raise ValueError(
            f"unknown uniform method {uniform!r}; choose one of {list(UNIFORM_METHODS)}"
        ) from None


# ====================================================================== the plan
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
        return int(self.table_ptr.shape[0] - 1)


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


def _csr(lists) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    for i, items in enumerate(lists):
        ptr[i + 1] = ptr[i] + len(items)
    flat = np.array([v for items in lists for v in items], dtype=np.int64)
    return ptr, flat


def _parents(net: CompiledNetwork, i: int) -> np.ndarray:
    return net.parent_index[net.parent_ptr[i] : net.parent_ptr[i + 1]]


def _symbolic_elimination(order, scopes, card, position, n_indicator, with_strides=True):
    """Steps of variable elimination along ``order`` over factors with ``scopes``, and their cost.

    Every step is ``(v, combined, inputs, strides, output id, output scope)``; the
    combined scope lists the other variables by search position, then ``v``.
    ``with_strides=False`` leaves the strides empty (enough for the cost).
    """
    active = {f: tuple(s) for f, s in enumerate(scopes)}
    holding: dict[int, set[int]] = {}  # variable -> active factors that mention it
    for f, s in active.items():
        for u in s:
            holding.setdefault(u, set()).add(f)
    next_id = len(scopes)
    steps = []
    for v in order:
        # indicator factors first: they are sparse and stop the product early
        inputs = sorted(holding.pop(v, ()), key=lambda f: (f >= n_indicator, f))
        union = set().union(*(active[f] for f in inputs))
        outer = sorted(union - {v}, key=lambda u: position[u])
        combined = outer + [v]
        strides = []
        for f in inputs:
            s = active.pop(f)
            if with_strides:
                own = {}
                stride = 1
                for u in reversed(s):
                    own[u] = stride
                    stride *= int(card[u])
                strides.append([own.get(u, 0) for u in combined])
            for u in s:
                if u != v:
                    holding[u].discard(f)
        active[next_id] = tuple(outer)
        for u in outer:
            holding[u].add(next_id)
        steps.append((v, combined, inputs, strides, next_id, tuple(outer)))
        next_id += 1
    cost = sum(math.prod(int(card[u]) for u in st[1]) * len(st[2]) for st in steps)
    return steps, cost


def compile_uniform_plan(net: CompiledNetwork, node_budget: int | None = None) -> UniformPlan:
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

    Returns
    -------
    UniformPlan

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.uniform import compile_uniform_plan
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

    const_label = []
    checks: list[list[int]] = [[] for _ in free]
    looks: list[list[int]] = [[] for _ in free]
    for i in range(n):
        pars = [int(p) for p in _parents(net, i)]
        free_pars = [p for p in pars if not observed[p]]
        if observed[i]:
            if not free_pars:
                lab = net.cpt_offset[i] + ev[i]
                lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
                lab += int(np.dot(ev[net.parent_index[lo:hi]], net.parent_stride[lo:hi]))
                const_label.append(int(lab))
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
    labels: list[np.ndarray] = []
    for i in range(n):
        pars = [int(p) for p in _parents(net, i)]
        strides = net.parent_stride[net.parent_ptr[i] : net.parent_ptr[i + 1]]
        family = pars + [i]
        family_stride = [int(s) for s in strides] + [1]
        scope = sorted((u for u in family if not observed[u]), key=lambda u: position[u])
        if not scope:
            continue
        fixed = int(net.cpt_offset[i]) + sum(
            int(ev[u]) * s for u, s in zip(family, family_stride) if observed[u]
        )
        grid = np.indices([int(card[u]) for u in scope]).reshape(len(scope), -1)
        stride_of = dict(zip(family, family_stride))
        lab = fixed + sum(grid[a] * stride_of[u] for a, u in enumerate(scope))
        scopes.append(tuple(scope))
        labels.append(np.asarray(lab, dtype=np.int64).ravel())

    # ---- elimination program: the cheapest order found, refused before allocating if too large
    def count_cost(candidate) -> float:
        return float(_symbolic_elimination(candidate.order, scopes, card, position, len(scopes), False)[1])

    best = find_order(interaction_graph(scopes, free), card, cost=count_cost)
    check_fits(best, "the counting plan of prune sampling and of uniform draws")
    steps, cost = _symbolic_elimination(best.order, scopes, card, position, len(scopes))

    factor_sizes = [len(lab) for lab in labels]
    factor_scopes = list(scopes)
    step_scopes, step_inputs, input_strides, table_sizes = [], [], [], []
    for v, combined, inputs, strides, out_id, out_scope in steps:
        step_scopes.append(combined)
        step_inputs.append(inputs)
        input_strides.extend(strides)
        table_sizes.append(int(np.prod([card[u] for u in combined])))
        factor_sizes.append(int(np.prod([card[u] for u in out_scope])) if out_scope else 1)
        factor_scopes.append(out_scope)
    factor_ptr = np.concatenate([[0], np.cumsum(factor_sizes)]).astype(np.int64)
    table_ptr = np.concatenate([[0], np.cumsum(table_sizes)]).astype(np.int64)
    gathers, gather_sizes = [], []
    for (v, combined, inputs, strides, out_id, out_scope), size in zip(steps, table_sizes):
        unrolled = size * len(inputs)
        if unrolled > GATHER_STEP_LIMIT or sum(gather_sizes) + unrolled > GATHER_LIMIT:
            gather_sizes.append(0)  # counted with a mixed-radix counter instead
            continue
        grid = np.indices([int(card[u]) for u in combined]).reshape(len(combined), -1)
        for f, stride in zip(inputs, strides):
            gathers.append(factor_ptr[f] + np.asarray(stride, dtype=np.int64) @ grid)
        gather_sizes.append(unrolled)
    gather = np.concatenate(gathers).astype(np.int64) if gathers else np.zeros(0, np.int64)
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
        factor_label=(np.concatenate(labels) if labels else np.zeros(0, np.int64)).astype(np.int64),
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
        n_indicator=len(labels),
        count_cost=int(cost),
        node_budget=int(node_budget),
    )


def network_key(net: CompiledNetwork) -> bytes:
    """A digest of every array of ``net``: equal networks with equal evidence share it."""
    digest = hashlib.blake2b(digest_size=16)
    for a in net:
        a = np.ascontiguousarray(a)
        digest.update(str((a.dtype.str, a.shape)).encode())
        digest.update(a.tobytes())
    return digest.digest()


class _PlanCache:
    """A small least-recently-used cache of compiled plans, keyed by :func:`network_key`.

    ``compile_network`` builds a new object for every chain, so the key is the
    content, not the identity.
    """

    def __init__(self, compile_plan, size: int = _PLAN_CACHE_SIZE):
        self._compile = compile_plan
        self._size = size
        self._plans: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, net: CompiledNetwork):
        key = network_key(net)
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self._plans.move_to_end(key)
                return plan
        plan = self._compile(net)
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > self._size:
                self._plans.popitem(last=False)
        return plan


_uniform_plans = _PlanCache(compile_uniform_plan)


def uniform_plan(net: CompiledNetwork) -> UniformPlan:
    """The :class:`UniformPlan` of ``net``, compiled on first use and cached.

    The cache is keyed by the content of ``net`` (:func:`network_key`) and keeps
    the most recent few networks.
    """
    return _uniform_plans(net)


def make_workspace(
    net: CompiledNetwork, plan: UniformPlan, n_candidates: int = DEFAULT_N_CANDIDATES
) -> UniformWorkspace:
    """Scratch arrays for the numba kernels (one per chain; not shared between threads)."""
    n_free = plan.dfs_order.shape[0]
    axes = int(np.diff(plan.step_scope_ptr).max(initial=0)) + 1
    inputs = int(np.diff(plan.step_input_ptr).max(initial=0)) + 1
    return UniformWorkspace(
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


# ================================================================ numba kernels
# Arrays are taken out of the network/plan tuples once, at the top of each kernel:
# reading a field of a numba tuple inside a loop costs a reference-count update.
_jit = numba.njit(cache=True, nogil=True)


@_jit
def _label_nb(offset, parent_ptr, parent_index, parent_stride, y, i):
    """Global label of variable ``i``'s CPT entry in the (partial) state ``y``."""
    lab = offset[i] + y[i]
    for k in range(parent_ptr[i], parent_ptr[i + 1]):
        lab += y[parent_index[k]] * parent_stride[k]
    return lab


@_jit
def _consistent_nb(card, offset, parent_ptr, parent_index, parent_stride, order,
                   check_ptr, check_var, look_ptr, look_var, kept, y, p):
    """Do the checks of search position ``p`` pass for the values in ``y``?"""
    if not kept[_label_nb(offset, parent_ptr, parent_index, parent_stride, y, order[p])]:
        return False
    for k in range(check_ptr[p], check_ptr[p + 1]):
        if not kept[_label_nb(offset, parent_ptr, parent_index, parent_stride, y, check_var[k])]:
            return False
    for k in range(look_ptr[p], look_ptr[p + 1]):
        c = look_var[k]
        base = _label_nb(offset, parent_ptr, parent_index, parent_stride, y, c) - y[c]
        ok = False
        for b in range(card[c]):
            if kept[base + b]:
                ok = True
                break
        if not ok:
            return False
    return True


@_jit
def _constants_kept_nb(const_label, kept):
    for k in range(const_label.shape[0]):
        if not kept[const_label[k]]:
            return False
    return True


@_jit
def _search_nb(net, plan, kept, y, value, budget, target, members):
    """Depth-first search over ``S`` in lexicographic order of ``dfs_order``.

    Counts members of ``S`` and copies the first ``len(members)`` of them (free
    variables, in search order) into ``members``. Stops early when the count
    reaches ``target + 1`` (then ``y`` holds that member) or when more than
    ``budget`` nodes (tried values) were visited (then the count is -1).
    ``budget < 0`` or ``target < 0``: no limit. Returns ``(count, nodes)``.
    """
    card = net.cardinality
    offset = net.cpt_offset
    parent_ptr = net.parent_ptr
    parent_index = net.parent_index
    parent_stride = net.parent_stride
    order = plan.dfs_order
    check_ptr = plan.check_ptr
    check_var = plan.check_var
    look_ptr = plan.look_ptr
    look_var = plan.look_var
    if not _constants_kept_nb(plan.const_label, kept):
        return 0, 0
    nf = order.shape[0]
    if nf == 0:
        return 1, 0
    capacity = members.shape[0]
    count = 0
    nodes = 0
    p = 0
    value[0] = -1
    while p >= 0:
        v = order[p]
        a = value[p] + 1
        found = False
        while a < card[v]:
            nodes += 1
            if budget >= 0 and nodes > budget:
                return -1, nodes
            y[v] = a
            # the checks of _consistent_nb, written out: a call per node costs more
            # than the checks themselves
            lab = offset[v] + a
            for k in range(parent_ptr[v], parent_ptr[v + 1]):
                lab += y[parent_index[k]] * parent_stride[k]
            ok = kept[lab]
            if ok:
                for kk in range(check_ptr[p], check_ptr[p + 1]):
                    c = check_var[kk]
                    lab = offset[c] + y[c]
                    for k in range(parent_ptr[c], parent_ptr[c + 1]):
                        lab += y[parent_index[k]] * parent_stride[k]
                    if not kept[lab]:
                        ok = False
                        break
            if ok:
                for kk in range(look_ptr[p], look_ptr[p + 1]):
                    c = look_var[kk]
                    lab = offset[c]
                    for k in range(parent_ptr[c], parent_ptr[c + 1]):
                        lab += y[parent_index[k]] * parent_stride[k]
                    some = False
                    for b in range(card[c]):
                        if kept[lab + b]:
                            some = True
                            break
                    if not some:
                        ok = False
                        break
            if ok:
                found = True
                break
            a += 1
        if not found:
            p -= 1
            continue
        value[p] = a
        if p == nf - 1:
            if count < capacity:
                for q in range(nf):
                    members[count, q] = y[order[q]]
            count += 1
            if target >= 0 and count == target + 1:
                return count, nodes
        else:
            p += 1
            value[p] = -1
    return count, nodes


@_jit
def _choose_nb(rng, weights, start, n, total):
    """Index in ``weights[start:start+n]`` drawn proportionally to the weights."""
    acc = 0.0
    if total < 9007199254740992.0:  # 2**53: integer-valued, exact
        r = rng.integers(0, np.int64(total))
        for a in range(n):
            acc += weights[start + a]
            if r < acc:
                return a
    else:
        u = rng.random() * total
        for a in range(n):
            acc += weights[start + a]
            if u < acc:
                return a
    for a in range(n - 1, -1, -1):  # float guard: last value with weight
        if weights[start + a] > 0.0:
            return a
    return n - 1


@_jit
def _start_rows_nb(plan, k, counter, radix, stride, base):
    """Load step ``k`` into the counter's scratch arrays; returns ``(inputs, axes)``.

    ``radix``: the cardinality of every axis of the combined scope; ``stride[g]``:
    input ``g``'s stride along every axis; ``base[g]``: input ``g``'s position at
    the first row (all outer axes 0); the counter is set to that row.
    """
    i0 = plan.step_input_ptr[k]
    ni = plan.step_input_ptr[k + 1] - i0
    s0 = plan.step_scope_ptr[k]
    nd = plan.step_scope_ptr[k + 1] - s0
    for d in range(nd):
        counter[d] = 0
        radix[d] = plan.step_scope_card[s0 + d]
    for g in range(ni):
        base[g] = plan.factor_ptr[plan.step_input_factor[i0 + g]]
        p0 = plan.input_stride_ptr[i0 + g]
        for d in range(nd):
            stride[g, d] = plan.input_stride[p0 + d]
    return ni, nd


@_jit
def _next_row_nb(counter, radix, stride, base, ni, nd):
    """Advance the counter by one row (the next value of the outer axes, C order)."""
    d = nd - 2
    while d >= 0:
        counter[d] += 1
        if counter[d] < radix[d]:
            for g in range(ni):
                base[g] += stride[g, d]
            return
        for g in range(ni):
            base[g] -= stride[g, d] * (radix[d] - 1)
        counter[d] = 0
        d -= 1


@_jit
def _count_nb(plan, kept, factors, tables, counter, radix, stride, base):
    """|S| by variable elimination; fills ``tables`` for :func:`_backward_nb`.

    Each step multiplies its inputs entry by entry (indicator inputs first, so a
    pruned entry stops the product at once) and sums the eliminated variable, the
    last axis, out of the combined table. Input positions come from the
    precompiled gather indices, or, for a step too large to unroll, from a
    mixed-radix counter over the outer axes; the products and sums are the same.
    """
    if not _constants_kept_nb(plan.const_label, kept):
        return 0.0
    factor_label = plan.factor_label
    factor_ptr = plan.factor_ptr
    table_ptr = plan.table_ptr
    gather_ptr = plan.gather_ptr
    gather = plan.gather
    input_ptr = plan.step_input_ptr
    scope_ptr = plan.step_scope_ptr
    scope_card = plan.step_scope_card
    n_indicator = plan.n_indicator
    for j in range(factor_label.shape[0]):
        factors[j] = 1.0 if kept[factor_label[j]] else 0.0
    total = 1.0
    for k in range(table_ptr.shape[0] - 1):
        ni = input_ptr[k + 1] - input_ptr[k]
        t0 = table_ptr[k]
        size = table_ptr[k + 1] - t0
        g0 = gather_ptr[k]
        cv = scope_card[scope_ptr[k + 1] - 1]
        o0 = factor_ptr[n_indicator + k]
        if gather_ptr[k + 1] > g0:
            for e in range(size):
                prod = factors[gather[g0 + e]]
                g = 1
                while g < ni and prod != 0.0:
                    prod *= factors[gather[g0 + g * size + e]]
                    g += 1
                tables[t0 + e] = prod
        else:
            ni, nd = _start_rows_nb(plan, k, counter, radix, stride, base)
            for o in range(size // cv):
                for a in range(cv):
                    prod = factors[base[0] + a * stride[0, nd - 1]]
                    g = 1
                    while g < ni and prod != 0.0:
                        prod *= factors[base[g] + a * stride[g, nd - 1]]
                        g += 1
                    tables[t0 + o * cv + a] = prod
                _next_row_nb(counter, radix, stride, base, ni, nd)
        for o in range(size // cv):
            s = 0.0
            for a in range(cv):
                s += tables[t0 + o * cv + a]
            factors[o0 + o] = s
        if scope_ptr[k + 1] - scope_ptr[k] == 1:
            total *= factors[o0]
    return total


@_jit
def _support_nb(plan, kept, counter, radix, stride, base):
    """Which indicator-factor entries some member of ``S`` uses (boolean semiring).

    An upward pass computes every factor in the (OR, AND) semiring: is some
    extension of this entry in ``S``? A downward pass marks, step by step from the
    last, the entries of the step's combined table that are alive and whose row is
    reached, and with them every input entry they read: the support of the
    marginal of ``S`` on every factor's scope. Because AND is idempotent, the
    marginal support can be passed down in place of the message that excludes the
    receiving factor (no division). Nothing is counted, so nothing overflows.

    Returns
    -------
    nonempty : bool
        Is ``S`` non-empty?
    reached : bool array (len(factor_label),)
        For every indicator entry: is its label used by some member of ``S``?
    """
    factor_label = plan.factor_label
    factor_ptr = plan.factor_ptr
    table_ptr = plan.table_ptr
    n_indicator = plan.n_indicator
    n_steps = table_ptr.shape[0] - 1
    alive = np.zeros(factor_ptr[factor_ptr.shape[0] - 1], dtype=np.bool_)
    reached = np.zeros_like(alive)
    if not _constants_kept_nb(plan.const_label, kept):
        return False, reached[: factor_label.shape[0]]
    for j in range(factor_label.shape[0]):
        alive[j] = kept[factor_label[j]]
    for k in range(n_steps):
        ni, nd = _start_rows_nb(plan, k, counter, radix, stride, base)
        cv = radix[nd - 1]
        o0 = factor_ptr[n_indicator + k]
        for o in range((table_ptr[k + 1] - table_ptr[k]) // cv):
            some = False
            for a in range(cv):
                every = True
                for g in range(ni):
                    if not alive[base[g] + a * stride[g, nd - 1]]:
                        every = False
                        break
                if every:
                    some = True
                    break
            alive[o0 + o] = some
            _next_row_nb(counter, radix, stride, base, ni, nd)
        if nd == 1 and not alive[o0]:
            return False, reached[: factor_label.shape[0]]
    for k in range(n_steps - 1, -1, -1):
        ni, nd = _start_rows_nb(plan, k, counter, radix, stride, base)
        cv = radix[nd - 1]
        o0 = factor_ptr[n_indicator + k]
        if nd == 1:
            reached[o0] = True  # a root: its (non-zero) total is a factor of |S|
        for o in range((table_ptr[k + 1] - table_ptr[k]) // cv):
            if reached[o0 + o]:
                for a in range(cv):
                    every = True
                    for g in range(ni):
                        if not alive[base[g] + a * stride[g, nd - 1]]:
                            every = False
                            break
                    if every:
                        for g in range(ni):
                            reached[base[g] + a * stride[g, nd - 1]] = True
            _next_row_nb(counter, radix, stride, base, ni, nd)
    return True, reached[: factor_label.shape[0]]


@_jit
def _backward_nb(rng, plan, tables, y):
    """Draw the free variables of ``y`` uniformly from ``S`` (after :func:`_count_nb`)."""
    table_ptr = plan.table_ptr
    scope_ptr = plan.step_scope_ptr
    scope_var = plan.step_scope_var
    scope_card = plan.step_scope_card
    for k in range(table_ptr.shape[0] - 2, -1, -1):
        s0 = scope_ptr[k]
        s1 = scope_ptr[k + 1]
        row = 0
        for d in range(s0, s1 - 1):
            row = row * scope_card[d] + y[scope_var[d]]
        cv = scope_card[s1 - 1]
        start = table_ptr[k] + row * cv
        total = 0.0
        for a in range(cv):
            total += tables[start + a]
        y[scope_var[s1 - 1]] = _choose_nb(rng, tables, start, cv, total)


@_jit
def _heuristic_nb(rng, net, plan, kept, x, y, n_candidates, max_restarts, ws):
    """The paper's heuristic: uniform over the distinct states of ``V``."""
    card = net.cardinality
    offset = net.cpt_offset
    parent_ptr = net.parent_ptr
    parent_index = net.parent_index
    parent_stride = net.parent_stride
    order = plan.dfs_order
    check_ptr = plan.check_ptr
    check_var = plan.check_var
    look_ptr = plan.look_ptr
    look_var = plan.look_var
    allowed = ws.allowed
    candidates = ws.candidates
    hashes = ws.hashes
    nf = order.shape[0]
    if not _constants_kept_nb(plan.const_label, kept):
        return 0.0
    n_distinct = 0
    for c in range(n_candidates):
        complete = False
        for attempt in range(max_restarts + 1):
            complete = True
            for p in range(nf):
                v = order[p]
                na = 0
                for a in range(card[v]):
                    y[v] = a
                    if _consistent_nb(card, offset, parent_ptr, parent_index, parent_stride, order,
                                      check_ptr, check_var, look_ptr, look_var, kept, y, p):
                        allowed[na] = a
                        na += 1
                if na == 0:
                    complete = False
                    break
                y[v] = allowed[rng.integers(0, na)]
            if complete:
                break
        if not complete:
            continue
        h = np.uint64(1469598103934665603)
        for p in range(nf):
            h = (h ^ np.uint64(y[order[p]])) * np.uint64(1099511628211)
        new = True
        for j in range(n_distinct):
            if hashes[j] == h:
                same = True
                for p in range(nf):
                    if candidates[j, p] != y[order[p]]:
                        same = False
                        break
                if same:
                    new = False
                    break
        if new:
            hashes[n_distinct] = h
            for p in range(nf):
                candidates[n_distinct, p] = y[order[p]]
            n_distinct += 1
    if n_distinct == 0:
        for i in range(y.shape[0]):
            y[i] = x[i]
        return 1.0
    r = rng.integers(0, n_distinct)
    for p in range(nf):
        y[order[p]] = candidates[r, p]
    return float(n_distinct)


@_jit
def _uniform_draw_nb(rng, net, plan, kept, x, y, method, n_candidates, max_restarts, budget, ws):
    """Draw ``y`` from ``S``; returns ``(size, method used)``.

    ``y`` must hold the evidence values on entry (any values on free variables).
    """
    if method == 2:
        return _heuristic_nb(rng, net, plan, kept, x, y, n_candidates, max_restarts, ws), 2
    if method == 0 or method == 3:
        limit = budget if method == 3 else -1
        members = ws.members
        count, nodes = _search_nb(net, plan, kept, y, ws.value, limit, -1, members)
        if count >= 0:
            if count > 0:
                r = rng.integers(0, count)
                if r < members.shape[0]:
                    order = plan.dfs_order
                    for q in range(order.shape[0]):
                        y[order[q]] = members[r, q]
                else:
                    _search_nb(net, plan, kept, y, ws.value, -1, r, members[:0])
            return float(count), 0
    total = _count_nb(plan, kept, ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base)
    if total > 0.0:
        _backward_nb(rng, plan, ws.tables, y)
    return total, 1


# ============================================================ numpy references
def _label_py(net, y, i):
    lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
    return int(net.cpt_offset[i] + y[i] + np.dot(y[net.parent_index[lo:hi]], net.parent_stride[lo:hi]))


def _consistent_py(net, plan, kept, y, p) -> bool:
    if not kept[_label_py(net, y, plan.dfs_order[p])]:
        return False
    for c in plan.check_var[plan.check_ptr[p] : plan.check_ptr[p + 1]]:
        if not kept[_label_py(net, y, c)]:
            return False
    for c in plan.look_var[plan.look_ptr[p] : plan.look_ptr[p + 1]]:
        base = _label_py(net, y, c) - y[c]
        if not kept[base : base + net.cardinality[c]].any():
            return False
    return True


def _search_py(net, plan, kept, y):
    """All members of ``S`` in search order, and the number of nodes tried."""
    if not all(kept[plan.const_label]):
        return [], 0
    order = plan.dfs_order
    members: list[np.ndarray] = []
    nodes = 0

    def extend(p):
        nonlocal nodes
        if p == len(order):
            members.append(y.copy())
            return
        v = order[p]
        for a in range(net.cardinality[v]):
            nodes += 1
            y[v] = a
            if _consistent_py(net, plan, kept, y, p):
                extend(p + 1)

    extend(0)
    return members, nodes


def _choose_py(rng, row) -> int:
    total = float(sum(row))
    if total < EXACT_COUNT_LIMIT:
        r = rng.integers(0, int(total))
    else:
        r = rng.random() * total
    cumulative = 0.0
    for a, w in enumerate(row):
        cumulative += w
        if r < cumulative:
            return a
    return max(a for a, w in enumerate(row) if w > 0)


def _count_py(net, plan, kept):
    """|S| and the combined tables, by variable elimination with ``np.einsum``."""
    if not all(kept[plan.const_label]):
        return 0.0, None
    card = net.cardinality

    def scope(f):
        return plan.factor_scope_var[plan.factor_scope_ptr[f] : plan.factor_scope_ptr[f + 1]]

    factors = {}
    for f in range(plan.n_indicator):
        lo, hi = plan.factor_ptr[f], plan.factor_ptr[f + 1]
        factors[f] = kept[plan.factor_label[lo:hi]].astype(np.float64).reshape(card[scope(f)])
    tables = []
    total = 1.0
    for k in range(plan.n_steps):
        combined = plan.step_scope_var[plan.step_scope_ptr[k] : plan.step_scope_ptr[k + 1]]
        letter = {int(u): chr(ord("a") + d) for d, u in enumerate(combined)}
        operands = []
        for f in plan.step_input_factor[plan.step_input_ptr[k] : plan.step_input_ptr[k + 1]]:
            operands += [factors.pop(int(f)), [letter[int(u)] for u in scope(f)]]
        spec = ",".join("".join(s) for s in operands[1::2]) + "->" + "".join(letter.values())
        table = np.einsum(spec, *operands[0::2])
        tables.append(table)
        out = table.sum(axis=-1)
        factors[plan.n_indicator + k] = out
        if len(combined) == 1:
            total *= float(out)
    return total, tables


def _backward_py(rng, plan, tables, y):
    for k in reversed(range(plan.n_steps)):
        combined = plan.step_scope_var[plan.step_scope_ptr[k] : plan.step_scope_ptr[k + 1]]
        row = tables[k][tuple(y[combined[:-1]])]
        y[combined[-1]] = _choose_py(rng, row)


def _heuristic_py(rng, net, plan, kept, x, y, n_candidates, max_restarts):
    if not all(kept[plan.const_label]):
        return 0.0
    order = plan.dfs_order
    distinct: list[tuple] = []
    seen: set[tuple] = set()
    for _ in range(n_candidates):
        for _attempt in range(max_restarts + 1):
            complete = True
            for p, v in enumerate(order):
                allowed = []
                for a in range(net.cardinality[v]):
                    y[v] = a
                    if _consistent_py(net, plan, kept, y, p):
                        allowed.append(a)
                if not allowed:
                    complete = False
                    break
                y[v] = allowed[rng.integers(0, len(allowed))]
            if complete:
                break
        if not complete:
            continue
        key = tuple(int(a) for a in y[order])
        if key not in seen:
            seen.add(key)
            distinct.append(key)
    if not distinct:
        y[:] = x
        return 1.0
    y[order] = distinct[rng.integers(0, len(distinct))]
    return float(len(distinct))


def _uniform_draw_py(rng, net, plan, kept, x, y, method, n_candidates, max_restarts, budget):
    if method == HEURISTIC:
        return _heuristic_py(rng, net, plan, kept, x, y, n_candidates, max_restarts), HEURISTIC
    if method in (ENUMERATE, AUTO):
        members, nodes = _search_py(net, plan, kept, y.copy())
        if method == ENUMERATE or nodes <= budget:
            if members:
                y[:] = members[rng.integers(0, len(members))]
            return float(len(members)), ENUMERATE
    total, tables = _count_py(net, plan, kept)
    if total > 0:
        _backward_py(rng, plan, tables, y)
    return total, COUNT


# ================================================================== public API
def _check_kept(net: CompiledNetwork, kept) -> np.ndarray:
    kept = np.asarray(kept)
    if kept.shape != (net.n_labels,):
        raise ValueError(f"kept must have one entry per label, shape ({net.n_labels},); got {kept.shape}")
    return kept.astype(np.bool_)


def _start_state(net: CompiledNetwork, x=None) -> np.ndarray:
    y = np.zeros(net.n_variables, dtype=np.int64) if x is None else np.array(x, dtype=np.int64)
    observed = net.evidence_value >= 0
    y[observed] = net.evidence_value[observed]
    return y


def count_pruned_states(net: CompiledNetwork, kept, plan: UniformPlan | None = None) -> float:
    """|S|: the number of evidence-consistent states whose labels are all kept.

    Parameters
    ----------
    net : CompiledNetwork
    kept : bool array (n_labels,)
        ``kept[l]`` is False when label ``l`` is pruned.
    plan : UniformPlan, optional
        Default: :func:`uniform_plan` of ``net``.

    Returns
    -------
    float
        The count, by variable elimination (exact below ``2**53``).

    See Also
    --------
    enumerate_pruned_states, uniform_pruned_state

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.uniform import count_pruned_states
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> count_pruned_states(net, net.cpt > 0)
    2.0
    """
    plan = uniform_plan(net) if plan is None else plan
    ws = make_workspace(net, plan, 1)
    return float(_count_nb(plan, _check_kept(net, kept), ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base))


def used_labels(net: CompiledNetwork, kept, plan: UniformPlan | None = None) -> np.ndarray:
    """Which labels some member of ``S`` uses: the support of every family marginal of ``S``.

    One upward and one downward pass over the counting program in the boolean
    semiring (see :func:`_support_nb`), so the cost is about two counting passes
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
    >>> from prunelab.samplers.uniform import used_labels
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> used_labels(net, net.cpt > 0).tolist()  # B's zero entries are never used
    [True, True, True, False, False, True]
    """
    plan = uniform_plan(net) if plan is None else plan
    ws = make_workspace(net, plan, 1)
    nonempty, reached = _support_nb(plan, _check_kept(net, kept), ws.counter, ws.radix, ws.stride, ws.base)
    used = np.zeros(net.n_labels, dtype=bool)
    if nonempty:
        used[plan.factor_label[reached]] = True
        used[plan.const_label] = True
    return used


def enumerate_pruned_states(net: CompiledNetwork, kept, plan: UniformPlan | None = None) -> np.ndarray:
    """Every member of ``S``, by the paper's depth-first search (numpy reference).

    Parameters
    ----------
    net : CompiledNetwork
    kept : bool array (n_labels,)
    plan : UniformPlan, optional

    Returns
    -------
    int64 array (|S|, n)
        Full states (evidence included) in the search's lexicographic order.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.uniform import enumerate_pruned_states
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> enumerate_pruned_states(net, net.cpt > 0).tolist()
    [[0, 0], [1, 1]]
    """
    plan = uniform_plan(net) if plan is None else plan
    members, _ = _search_py(net, plan, _check_kept(net, kept), _start_state(net))
    return np.array(members, dtype=np.int64).reshape(len(members), net.n_variables)


def uniform_pruned_state(
    rng: np.random.Generator,
    net: CompiledNetwork,
    kept,
    x=None,
    method: str = "auto",
    *,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    node_budget: int | None = None,
    plan: UniformPlan | None = None,
    reference: bool = False,
) -> tuple[np.ndarray, float, str]:
    """One state drawn uniformly from the pruned set ``S``.

    Parameters
    ----------
    rng : numpy.random.Generator
    net : CompiledNetwork
    kept : bool array (n_labels,)
        Which labels survived the pruning.
    x : int array (n,), optional
        The state pruned around (returned by ``"heuristic"`` if no candidate
        completes). Default: ``S``'s draw does not need it.
    method : {"auto", "enumerate", "count", "heuristic"}
        See the module docstring. ``"heuristic"`` is approximate (biased).
    n_candidates, max_restarts : int
        Size of ``V`` and restarts per candidate, for ``"heuristic"``.
    node_budget : int, optional
        Search nodes ``"auto"`` allows before counting (default: the plan's).
    plan : UniformPlan, optional
    reference : bool, default False
        Run the readable numpy reference instead of the numba kernel (same draws).

    Returns
    -------
    y : int64 array (n,)
        The drawn state (evidence included). If ``S`` is empty, the evidence
        values and zeros.
    size : float
        ``|S|``; for ``"heuristic"`` the number of distinct members of ``V``.
    method : str
        The method that drew: ``"enumerate"``, ``"count"`` or ``"heuristic"``.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.uniform import uniform_pruned_state
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> y, size, how = uniform_pruned_state(np.random.default_rng(0), net, net.cpt > 0)
    >>> bool(y[0] == y[1]), size, how
    (True, 2.0, 'enumerate')
    """
    code = method_code(method)
    plan = uniform_plan(net) if plan is None else plan
    kept = _check_kept(net, kept)
    x = _start_state(net, x)
    y = _start_state(net)
    budget = plan.node_budget if node_budget is None else int(node_budget)
    if reference:
        size, used = _uniform_draw_py(rng, net, plan, kept, x, y, code, n_candidates, max_restarts, budget)
    else:
        ws = make_workspace(net, plan, n_candidates)
        size, used = _uniform_draw_nb(
            rng, net, plan, kept, x, y, code, n_candidates, max_restarts, budget, ws
        )
    if size == 0:
        y = _start_state(net)
    return y, float(size), METHOD_NAMES[used]


@numba.njit(cache=True)
def _repeat_draws_nb(rng, net, plan, kept, x, y, method, n_candidates, max_restarts, budget, ws, repeats):
    size = 0.0
    for _ in range(repeats):
        size, _ = _uniform_draw_nb(rng, net, plan, kept, x, y, method, n_candidates, max_restarts, budget, ws)
    return size


def seconds_per_uniform_draw(
    rng: np.random.Generator,
    net: CompiledNetwork,
    kept,
    x=None,
    method: str = "auto",
    *,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    plan: UniformPlan | None = None,
    target_seconds: float = 0.004,
    rounds: int = 3,
) -> float:
    """Wall seconds of one uniform draw from a pruned network (best of ``rounds``).

    The draws repeat inside one compiled loop, so the tens of microseconds that a
    call from Python into numba costs are not counted; each round repeats the draw
    enough times to last about ``target_seconds`` (at most 1000 times).

    Parameters
    ----------
    rng : numpy.random.Generator
        Drives the draws that are timed.
    net : CompiledNetwork
    kept : bool array (n_labels,)
        Which labels survived the pruning.
    x : int array (n,), optional
        The state pruned around (used by ``"heuristic"``).
    method : {"auto", "enumerate", "count", "heuristic"}
    n_candidates, max_restarts : int
        Size of ``V`` and restarts per candidate, for ``"heuristic"``.
    plan : UniformPlan, optional
        Default: the network's cached plan.
    target_seconds : float, default 0.004
        Approximate length of one timed round.
    rounds : int, default 3
        Timed rounds; the fastest is reported.

    Returns
    -------
    float
        Seconds per draw.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> seconds = seconds_per_uniform_draw(np.random.default_rng(0), net, net.cpt > 0, method="count")
    >>> 0 < seconds < 0.01
    True
    """
    if rounds < 1 or target_seconds <= 0:
        raise ValueError(f"rounds must be >= 1 and target_seconds > 0, got {rounds} and {target_seconds}")
    code = method_code(method)
    plan = uniform_plan(net) if plan is None else plan
    kept = _check_kept(net, kept)
    x = _start_state(net, x)
    y = _start_state(net)
    ws = make_workspace(net, plan, n_candidates)
    args = (rng, net, plan, kept, x, y, code, n_candidates, max_restarts, plan.node_budget, ws)
    tic = time.perf_counter()
    _repeat_draws_nb(*args, 1)
    once = time.perf_counter() - tic
    repeats = int(np.clip(target_seconds / max(once, 1e-7), 1, 1000))
    best = np.inf
    for _ in range(rounds):
        tic = time.perf_counter()
        _repeat_draws_nb(*args, repeats)
        best = min(best, (time.perf_counter() - tic) / repeats)
    return best
