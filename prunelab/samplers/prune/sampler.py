"""Prune sampling: prune the CPT labels around the current state, draw uniformly from what is left.

One step from a state ``x`` (the paper's Algorithm 1):

1. **Prune around x** (Definition "Pruning around state x"). Every CPT label
   ``l`` that ``x`` does not use is pruned with probability ``1 - c_l`` and kept
   with probability ``c_l``; the labels ``C_x`` of ``x`` are always kept. Labels
   with ``c = 0`` are therefore always pruned and labels with ``c = 1`` always
   kept: no random number is drawn for them, nor for the labels of ``x``, nor for
   labels that no evidence-consistent state uses. One ``rng.random()`` is drawn
   for every other label, in increasing label order.
2. **Draw uniformly** the next state from ``S``: the states that agree with the
   evidence and whose labels all survived. ``x`` is in ``S``, so ``S`` is never
   empty, and every member of ``S`` is feasible (its labels have ``c > 0``). How
   the uniform draw is made is chosen by ``uniform=`` (see
   :mod:`prunelab.samplers.prune.draws`): ``"enumerate"`` (the paper's exhaustive
   listing), ``"count"`` (variable elimination over 0/1 factors and backward
   sampling), ``"auto"`` (the default: count, and enumerate when the search is
   predicted far cheaper; the circuit where a circuit step costs less than a
   count or past the counting plan's caps, :func:`auto_choice`), ``"circuit"``
   (:mod:`prunelab.samplers.prune.draws.registry`) - all exactly uniform - or
   ``"heuristic"``, the paper's approximate method, which is biased.

With an exact uniform draw the chain is reversible with respect to ``P(x | e)``
and regular (the paper's section "A regular and reversible Markov chain";
:mod:`prunelab.theory` checks both on small networks with the exact transition
matrix).

:func:`step` is the readable numpy reference; :func:`run_chain` is the numba
path. They consume the ``numpy.random.Generator`` in the same order - the pruning
draws, then the uniform draw's integers - so for the same seed and ``uniform=``
they give identical draws.

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", sections
   "Prune sampling" and "Practical implementation".
.. [2] H. Poon and P. Domingos, "Sound and efficient inference with probabilistic
   and deterministic dependencies", AAAI 2006 (MC-SAT, the idea behind pruning).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numba
import numpy as np

from prunelab.circuit import VTREES
from prunelab.compiled import CompiledNetwork, PlanCache, state_labels
from prunelab.elimination import TablesTooLargeError
from prunelab.samplers.chain import start_chain
from prunelab.samplers.init import check_state
from .plan import PrunePlan, prune_plan
from .draws.registry import circuit_plan_after, circuit_plan_if_cheaper, pruned_draw, sampler_vtree
from .rao_blackwell import (
    add_marginals_nb,
    chain_sums,
    count_marginals_arrays,
    drawn_marginals,
    member_marginals_arrays,
    pruned_set_marginals,
    rao_blackwell_refusal,
    record_step_arrays,
)
from .pruning import prune_around_nb
from .draws.compiler import (
    AUTO,
    COUNT,
    DEFAULT_MAX_RESTARTS,
    DEFAULT_N_CANDIDATES,
    ENUMERATE,
    HEURISTIC,
    UNIFORM_NAMES,
    uniform_index,
)
from .draws.sparse import SparseCount
from .draws.kernels import make_workspace
from .draws.counting import backward_arrays, count_nb, count_sparse_arrays
from .draws.search import draw_member_arrays, search_arrays
from .draws.kernels import uniform_draw_nb
from .draws.reference import uniform_draw_py

__all__ = [
    "PruneState", "PruneInfo", "PruneChain", "ChainOutput", "RAO_BLACKWELL", "UNIFORM_NAMES", "init",
    "step", "run_chain", "prune_around", "prune_chain_nb", "NO_SPARSE_COUNT",
    "auto_searches", "auto_choice", "AUTO_SHARE", "rao_blackwell_refusal", "uniform_and_plan", "FIRST_PRUNED_DRAW",
]

RAO_BLACKWELL = False
"""No Rao-Blackwell sums by default; ``run_chain(..., rb_checkpoints=...)`` records them (:mod:`.rao_blackwell`)."""

AUTO_SHARE = 0.125
"""``"auto"`` searches when the predicted search costs at most this share of a count.

Small because the prediction is weak: the last step's ``|S|`` times the last search's nodes per member misjudges
the next search often (the search's dead ends dominate), and a search that runs out of its budget is paid on top
of the count. Measured on stationary chains of every network of ``benchmarks/bench_prune.py``: even an oracle that
knew each search's cost in advance would search on 11-41 % of the steps and save at most 17 %, and the rule at
share 0.5 lost 1-9 % to pure counting (grid-8x8: 9 %); at 0.125 it loses under 1 % and still searches where
counting is dear (a small ``|S|`` under big tables)."""


class PruneState(NamedTuple):
    """State of the prune chain.

    Attributes
    ----------
    x : int64 (n,)
        Full state, topological order, evidence set.
    size : float, default inf
        ``|S|`` of the step that produced ``x`` (inf at the start).
    nodes_per_member : float, default 0
        Search nodes per member of ``S`` in the last completed search, raised to
        ``budget / |S|`` when a search runs out of budget (0 before the first: the
        plan's estimate is used). With ``size`` it predicts the next search, for
        ``uniform="auto"``.
    """

    x: np.ndarray
    size: float = np.inf
    nodes_per_member: float = 0.0


class PruneInfo(NamedTuple):
    """What one prune step did.

    Attributes
    ----------
    size : float
        ``|S|``, the number of states that survived the pruning (for
        ``uniform="heuristic"``: the number of distinct candidates in ``V``).
    uniform_code : int
        The uniform draw that ran, as an index into :data:`UNIFORM_NAMES`
        (``"enumerate"``, ``"count"``, ``"heuristic"``); an integer so that the
        reference and the numba path report it alike.
    conditionals : float64 (sum of cardinalities,)
        ``E[1{X_i = s} | S]`` (:mod:`.rao_blackwell`); empty for ``"heuristic"``.
    """

    size: float
    uniform_code: int
    conditionals: np.ndarray = np.zeros(0)

    @property
    def uniform_name(self) -> str:
        """The name of the uniform draw that ran."""
        return UNIFORM_NAMES[self.uniform_code]


class PruneChain(NamedTuple):
    """Output of :func:`run_chain`.

    Attributes
    ----------
    draws : int64 (n_draws, n)
        The state after each step.
    size : float64 (n_draws,)
        ``|S|`` at each step (see :class:`PruneInfo`).
    uniform_code : int8 (n_draws,)
        The uniform draw that ran, as an index into :data:`UNIFORM_NAMES`.
    rb_checkpoints, rb_sums : int64 (k,), float64 (k, sum of cardinalities), or None
        As in :class:`~prunelab.samplers.gibbs.GibbsChain` (sums of ``PruneInfo.conditionals``), when asked for.
    """

    draws: np.ndarray
    size: np.ndarray
    uniform_code: np.ndarray
    rb_checkpoints: np.ndarray | None = None
    rb_sums: np.ndarray | None = None


ChainOutput = PruneChain
"""Alias: the chain output of this sampler module."""


FIRST_PRUNED_DRAW = 4
"""Codes from here on are the draws of :mod:`prunelab.samplers.prune.draws.registry`, in its order."""


def _auto_plan(net: CompiledNetwork, vtree: str = "dissection"):
    """``(code, plan)`` of ``uniform="auto"``: the counting plan, or the circuit (cheaper, or the tables refuse).

    See :func:`~prunelab.samplers.prune.draws.registry.circuit_plan_if_cheaper`; the circuit is over the vtree
    named ``vtree``.
    """
    try:
        plan = prune_plan(net)
    except TablesTooLargeError as refusal:
        return uniform_index("circuit"), circuit_plan_after(net, refusal, vtree)
    circuit = circuit_plan_if_cheaper(net, plan.count_units, plan.random_label.size, vtree)
    return (AUTO, plan) if circuit is None else (uniform_index("circuit"), circuit)


_auto_plans = {name: PlanCache(partial(_auto_plan, vtree=name)) for name in VTREES}


def auto_choice(net: CompiledNetwork) -> str:
    """The draw ``uniform="auto"`` makes on ``net``: ``"auto"`` (the counting plan) or ``"circuit"``.

    Decided once per (network, evidence) from the counting plan's work per step and the circuit's size, and
    cached: the circuit where a circuit step is cheaper than a count or where the tables refuse; otherwise the
    counting plan, which counts and searches when the search is predicted far cheaper (:func:`auto_searches`).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.sampler import auto_choice
    >>> auto_choice(compile_network(load_network("asia")))  # small tables: no circuit is compiled
    'auto'
    """
    return UNIFORM_NAMES[_auto_plans["dissection"](net)[0]]


def _code_and_plan(net: CompiledNetwork, uniform: str, plan, vtree: str | None = None):
    """The uniform draw's code and its plan; ``"auto"``'s choice is :func:`auto_choice`."""
    code = uniform_index(uniform)
    name = sampler_vtree(uniform, vtree, plan)
    own = isinstance(plan, PrunePlan)
    if code >= FIRST_PRUNED_DRAW or (plan is not None and not own):
        if code < FIRST_PRUNED_DRAW or own:
            raise ValueError(f"the plan given does not serve uniform={uniform!r}")
        if plan is not None:
            return code, plan
        return code, (pruned_draw(uniform).plan(net, name) if uniform == "circuit" else pruned_draw(uniform).plan(net))
    if plan is not None:
        return code, plan
    if code == AUTO:
        return _auto_plans[name](net)
    return code, prune_plan(net)


def uniform_and_plan(net: CompiledNetwork, uniform: str = "auto", plan=None, vtree: str | None = None):
    """The code of the uniform draw ``uniform`` names and its plan, as :func:`step` and :func:`run_chain` settle them.

    ``"auto"`` stays :data:`~prunelab.samplers.prune.draws.compiler.AUTO` with the counting plan, or turns to the
    circuit (its code and :class:`~prunelab.samplers.prune.draws.circuit.CircuitPrunePlan`) where :func:`step` would.
    ``vtree`` names the circuit's vtree (as in :func:`step`).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> code, plan = uniform_and_plan(compile_network(load_network("deterministic_pair")), "circuit")
    >>> UNIFORM_NAMES[code], type(plan).__name__, plan.circuit.vtree_name
    ('circuit', 'CircuitPrunePlan', 'dissection')
    """
    return _code_and_plan(net, uniform, plan, vtree)


def init(net: CompiledNetwork, x0) -> PruneState:
    """The chain's state at ``x0``, checked: evidence agrees and ``P(x0, e) > 0``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune import sampler as prune
    >>> prune.init(compile_network(load_network("deterministic_pair")), [1, 1]).x.tolist()
    [1, 1]
    """
    return PruneState(check_state(net, x0))


def prune_around(
    rng: np.random.Generator, net: CompiledNetwork, x, plan: PrunePlan | None = None
) -> np.ndarray:
    """One random pruning around ``x`` (the paper's Definition "Pruning around state x").

    Parameters
    ----------
    rng : numpy.random.Generator
        One ``rng.random()`` per label in ``plan.random_label`` that ``x`` does
        not use, in increasing label order.
    net : CompiledNetwork
    x : int array (n,)
        The current state.
    plan : PrunePlan, optional
        Default: :func:`prune_plan` of ``net``.

    Returns
    -------
    bool array (n_labels,)
        ``kept[l]``: label ``l`` survived (is in the paper's ``C_x^np``). Entries of
        labels that contradict the evidence are meaningless.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.sampler import prune_around
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> prune_around(np.random.default_rng(1), net, [0, 0]).tolist()
    [True, False, True, False, False, True]
    """
    plan = prune_plan(net) if plan is None else plan
    labels = state_labels(net, np.asarray(x, dtype=np.int64))
    kept = plan.base_kept.copy()
    random = ~np.isin(plan.random_label, labels)
    kept[plan.random_label[random]] = rng.random(int(random.sum())) < plan.random_c[random]
    kept[labels] = True
    return kept


def step(
    rng: np.random.Generator,
    net: CompiledNetwork,
    state: PruneState,
    uniform: str = "auto",
    *,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    node_budget: int | None = None,
    plan: PrunePlan | None = None,
    vtree: str | None = None,
) -> tuple[PruneState, PruneInfo]:
    """One prune-sampling step (numpy reference).

    Parameters
    ----------
    rng : numpy.random.Generator
    net : CompiledNetwork
    state : PruneState
    uniform : str, default "auto"
        One of :data:`~prunelab.samplers.prune.draws.compiler.UNIFORM_NAMES`. How the next state is drawn from the
        pruned set (see
        :mod:`prunelab.samplers.prune.draws`, :mod:`prunelab.samplers.prune.draws.registry`);
        ``"heuristic"`` is approximate.
    n_candidates, max_restarts : int
        Size of the candidate set ``V`` and restarts per candidate, for
        ``"heuristic"`` only.
    node_budget : int, optional
        Search nodes ``"auto"`` allows before it counts (default: the plan's).
    plan : PrunePlan, optional
        Default: :func:`prune_plan` of ``net`` (for ``uniform="circuit"``, the
        :func:`~prunelab.samplers.prune.draws.circuit.plan` of ``net`` and ``vtree``).
    vtree : {"dissection", "turned", "elimination"}, optional
        With ``uniform="circuit"`` or ``"auto"``: the vtree of the circuit drawn
        over, one fixed vtree, never a race (see
        :func:`~prunelab.samplers.prune.draws.registry.sampler_vtree`; default the dissection).

    Returns
    -------
    PruneState
    PruneInfo

    See Also
    --------
    run_chain : the numba path, same draws for the same seed.
    prune_around, prunelab.samplers.prune.draws.api.uniform_pruned_state

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling", Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune import sampler as prune
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> state, info = prune.step(np.random.default_rng(1), net, prune.init(net, [0, 0]))
    >>> state.x.tolist(), info.size, info.uniform_name
    ([0, 0], 1.0, 'count')
    """
    code, plan = _code_and_plan(net, uniform, plan, vtree)
    x = state.x
    kept = prune_around(rng, net, x, plan)
    if code >= FIRST_PRUNED_DRAW:
        y, size = pruned_draw(UNIFORM_NAMES[code]).draw(rng, net, x, kept, plan)
        return PruneState(y, size), PruneInfo(size, code, drawn_marginals(UNIFORM_NAMES[code], net, kept, plan))
    y = x.copy()
    budget = plan.node_budget if node_budget is None else int(node_budget)
    ratio = state.nodes_per_member or plan.nodes_per_member
    if code == AUTO and not auto_searches(state.size, ratio, budget):
        code = COUNT
    size, used, nodes = uniform_draw_py(
        rng, net, plan.uniform, kept, x, y, code, int(n_candidates), int(max_restarts), budget
    )
    rb = np.zeros(0) if used == HEURISTIC else pruned_set_marginals(net, plan.uniform, kept)  # by counting
    if used == ENUMERATE and size > 0:
        ratio = nodes / size
    elif code == AUTO and used == COUNT and size > 0:  # the search ran out of budget
        ratio = max(ratio, budget / size)
    return PruneState(y, float(size), ratio), PruneInfo(float(size), int(used), rb)


@numba.njit(cache=True, nogil=True)
def auto_searches(size, nodes_per_member, budget):
    """Does ``uniform="auto"`` search this step? The rule of :func:`step` and :func:`run_chain`.

    The search is predicted to visit ``size * nodes_per_member`` nodes (the last
    step's ``|S|`` times the nodes per member of the last completed search); it
    is tried when that is at most :data:`AUTO_SHARE` of ``budget``, and stops
    (for a count) when it exceeds ``budget``. Otherwise the step counts at once.
    The choice depends on the chain's past and on the pruning only, never on the
    draw's own random numbers, and both draw exactly uniformly from
    ``S``, so the mixture is exact.
    """
    return size * nodes_per_member <= AUTO_SHARE * budget


NO_SPARSE_COUNT = SparseCount(np.zeros(0, np.bool_), *([np.zeros(0, np.int64)] * 8), 0)
"""Stands in for ``PrunePlan.count`` when it is None (numba needs one type); never read."""


@numba.njit(cache=True, nogil=True)
def prune_chain_nb(rng, net, uplan, sparse, use_sparse, random_label, random_c, kept, marked, x_labels, x, y,
                       n_draws, uniform_code, n_candidates, max_restarts, budget, ratio, ws, draws, sizes,
                       uniform_codes, rb):
    """``n_draws`` prune steps from ``x``, in place: the numba body of :func:`run_chain` (see its set-up there).

    Also the prune move of :mod:`prunelab.samplers.prune.tempered`, which passes its own ``random_c``. With
    ``rb.checkpoints`` non-empty, every step adds its set's marginals to ``rb`` (:mod:`.rao_blackwell`).
    """
    # every array is taken out of its tuple once, here: see search_arrays
    n = x.shape[0]
    card = net.cardinality
    offset = net.cpt_offset
    parent_ptr = net.parent_ptr
    parent_index = net.parent_index
    parent_stride = net.parent_stride
    order = uplan.dfs_order
    check_ptr = uplan.check_ptr
    check_var = uplan.check_var
    look_ptr = uplan.look_ptr
    look_var = uplan.look_var
    const_label = uplan.const_label
    table_ptr = uplan.table_ptr
    scope_ptr = uplan.step_scope_ptr
    scope_var = uplan.step_scope_var
    scope_card = uplan.step_scope_card
    value = ws.value
    members = ws.members
    factors = ws.factors
    tables = ws.tables
    live_ptr = sparse.live_ptr
    live_entry = sparse.live_entry
    live_row = sparse.live_row
    n_label = sparse.n_label
    n_input = sparse.n_input
    gather_ptr = sparse.gather_ptr
    gather = sparse.gather
    root_factor = sparse.root_factor
    rb_on = rb.checkpoints.shape[0] > 0  # the Rao-Blackwell pass's arrays (prunelab.samplers.prune.rao_blackwell)
    input_ptr = uplan.step_input_ptr
    input_factor = uplan.step_input_factor
    stride_ptr = uplan.input_stride_ptr
    input_stride = uplan.input_stride
    factor_ptr = uplan.factor_ptr
    n_indicator = uplan.n_indicator
    plan_gather_ptr = uplan.gather_ptr
    plan_gather = uplan.gather
    message_ptr = rb.message_ptr
    message_input = rb.message_input
    reached = rb.reached
    listed = rb.listed
    n_listed = rb.n_listed
    rb_index = rb.index
    rb_offsets = rb.offsets
    running = rb.running
    rb_checkpoints = rb.checkpoints
    rb_sums = rb.sums
    progress = rb.progress
    size = np.inf
    for t in range(n_draws):
        prune_around_nb(rng, net, x, random_label, random_c, kept, marked, x_labels)
        if uniform_code == HEURISTIC:
            size, used = uniform_draw_nb(rng, net, uplan, kept, x, y, uniform_code, n_candidates,
                                          max_restarts, budget, ws)
        else:
            count = -1
            searched = uniform_code == ENUMERATE or (uniform_code == AUTO and auto_searches(size, ratio, budget))
            if searched:
                limit = budget if uniform_code == AUTO else -1
                count, nodes = search_arrays(card, offset, parent_ptr, parent_index, parent_stride, order,
                                             check_ptr, check_var, look_ptr, look_var, const_label, kept, y,
                                             value, limit, -1, members)
            if count >= 0:
                draw_member_arrays(rng, card, offset, parent_ptr, parent_index, parent_stride, order,
                                   check_ptr, check_var, look_ptr, look_var, const_label, kept, y, value,
                                   members, count)
                size, used = float(count), ENUMERATE
                if count > 0:
                    ratio = nodes / count
            else:
                if use_sparse:
                    size = count_sparse_arrays(const_label, kept, factors, tables, live_ptr, live_entry,
                                               live_row, n_label, n_input, gather_ptr, gather, root_factor)
                else:
                    size = count_nb(uplan, kept, factors, tables, ws.counter, ws.radix, ws.stride, ws.base)
                if size > 0.0:
                    backward_arrays(rng, table_ptr, scope_ptr, scope_var, scope_card, tables, y)
                    if uniform_code == AUTO and count == -1 and searched:  # the search ran out of budget
                        ratio = max(ratio, budget / size)
                used = COUNT
        if rb_on:
            if used == ENUMERATE and count > members.shape[0]:  # more members than the search kept
                add_marginals_nb(rb, uplan, sparse, use_sparse, kept, ws, count)
            else:
                if used == ENUMERATE:
                    member_marginals_arrays(order, members, count, rb_offsets, running)
                else:
                    count_marginals_arrays(table_ptr, scope_ptr, scope_var, scope_card, message_ptr, message_input,
                                           input_ptr, input_factor, stride_ptr, input_stride, factor_ptr,
                                           n_indicator, plan_gather_ptr, plan_gather, factors, tables, reached,
                                           listed, n_listed, rb_index, rb_offsets, running)
                record_step_arrays(rb_checkpoints, rb_sums, running, progress)
        for i in range(n):
            x[i] = y[i]
            draws[t, i] = y[i]
        sizes[t] = size
        uniform_codes[t] = used


def run_chain(
    rng: np.random.Generator,
    net: CompiledNetwork,
    x0,
    n_draws: int,
    uniform: str = "auto",
    *,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    node_budget: int | None = None,
    plan: PrunePlan | None = None,
    rb_checkpoints=None,
    vtree: str | None = None,
) -> PruneChain:
    """``n_draws`` prune-sampling steps from ``x0`` (numba path).

    Parameters
    ----------
    rng : numpy.random.Generator
        Consumed exactly like ``n_draws`` calls of :func:`step` with the same
        options.
    net : CompiledNetwork
    x0 : array_like of int (n,)
        A feasible start state (checked).
    n_draws : int
    uniform : str, default "auto"
        One of :data:`~prunelab.samplers.prune.draws.compiler.UNIFORM_NAMES`.
    n_candidates, max_restarts, node_budget, plan
        As in :func:`step`.
    rb_checkpoints : array_like of int, optional
        Increasing step counts at which to record the sums of ``PruneInfo.conditionals``; none by default.
    vtree : {"dissection", "turned", "elimination"}, optional
        As in :func:`step`.

    Returns
    -------
    PruneChain
        ``draws`` (n_draws, n), per-step ``size`` = |S| and ``uniform_code``.

    Raises
    ------
    InfeasibleStateError
        ``x0`` has ``P(x0, e) = 0``.
    EvidenceError
        ``x0`` disagrees with the evidence.

    See Also
    --------
    step : the numpy reference.
    prunelab.sample : chains, seeds, parallelism.

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling", Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune import sampler as prune
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> out = prune.run_chain(np.random.default_rng(1), net, [0, 0], 4)
    >>> out.draws.tolist(), out.size.tolist()
    ([[0, 0], [0, 0], [1, 1], [1, 1]], [1.0, 1.0, 2.0, 2.0])
    >>> prune.run_chain(np.random.default_rng(1), net, [0, 0], 4, uniform="circuit", vtree="turned").draws.shape
    (4, 2)
    """
    code, plan = _code_and_plan(net, uniform, plan, vtree)
    rb = chain_sums(net, plan, rb_checkpoints, n_draws, uniform, UNIFORM_NAMES[code])
    if code >= FIRST_PRUNED_DRAW:
        draws, sizes = pruned_draw(UNIFORM_NAMES[code]).run_chain(rng, net, x0, n_draws, plan, *rb.asked())
        return PruneChain(draws, sizes, np.full(sizes.shape[0], code, dtype=np.int8), *rb.output(net))
    n_draws, x, x_labels, draws = start_chain(net, x0, n_draws)
    budget = plan.node_budget if node_budget is None else int(node_budget)
    sparse = plan.count
    ws = make_workspace(net, plan.uniform, int(n_candidates), fill=None if sparse is None else sparse.possible)
    sizes = np.empty(n_draws, dtype=np.float64)
    uniform_codes = np.empty(n_draws, dtype=np.int8)
    kept = plan.base_kept.copy()
    marked = np.zeros(net.n_labels, dtype=np.bool_)
    prune_chain_nb(
        rng, net, plan.uniform, NO_SPARSE_COUNT if sparse is None else sparse, sparse is not None,
        plan.random_label, plan.random_c, kept, marked, x_labels, x, x.copy(), n_draws, code,
        int(n_candidates), int(max_restarts), budget, plan.nodes_per_member, ws, draws, sizes, uniform_codes, rb,
    )
    return PruneChain(draws, sizes, uniform_codes, *rb.output(net))

