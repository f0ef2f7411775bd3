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
   count or past the counting plan's caps, :func:`~prunelab.samplers.prune.auto.auto_choice`),
   ``"circuit"`` (:mod:`prunelab.samplers.prune.draws.circuit`) - all exactly uniform - or
   ``"heuristic"``, the paper's approximate method, which is biased; every option is
   named in :data:`~prunelab.samplers.prune.draws.registry.DRAWS`.

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

from typing import NamedTuple

import numba
import numpy as np

from prunelab.compiled import CompiledNetwork
from prunelab.samplers.chain import check_state, start_chain

from .auto import auto_searches, draw_plan
from .draws.compiler import DEFAULT_MAX_RESTARTS, DEFAULT_N_CANDIDATES
from .draws.counting import backward_arrays, count_nb, count_sparse_arrays
from .draws.kernels import uniform_draw_nb
from .draws.reference import uniform_draw_py
from .draws.registry import AUTO, COUNT, DRAWS, ENUMERATE, HEURISTIC, UNIFORM_NAMES, pruned_draw
from .draws.search import draw_member_arrays, search_arrays
from .plan import PrunePlan, SparseCount, make_workspace
from .pruning import prune_around, prune_around_nb
from .rao_blackwell import (add_marginals_nb, chain_sums, count_marginals_arrays, member_marginals_arrays,
                            pruned_set_marginals, rao_blackwell_refusal, record_step_arrays)

__all__ = ["PruneState", "PruneInfo", "PruneChain", "RAO_BLACKWELL", "rao_blackwell_refusal", "init", "step",
           "run_chain", "prune_chain_nb", "drawn_marginals", "NO_SPARSE_COUNT"]

RAO_BLACKWELL = False
"""No Rao-Blackwell sums by default; ``run_chain(..., rb_checkpoints=...)`` records them (:mod:`.rao_blackwell`),
for the options :func:`~prunelab.samplers.prune.rao_blackwell.rao_blackwell_refusal` (the sampler's own, which
:func:`prunelab.sample` asks) does not refuse."""


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
        The uniform draw that ran, as an index into :data:`~prunelab.samplers.prune.draws.registry.UNIFORM_NAMES`
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
        The uniform draw that ran, as an index into :data:`~prunelab.samplers.prune.draws.registry.UNIFORM_NAMES`.
    rb_checkpoints, rb_sums : int64 (k,), float64 (k, sum of cardinalities), or None
        As in :class:`~prunelab.samplers.gibbs.GibbsChain` (sums of ``PruneInfo.conditionals``), when asked for.
    """

    draws: np.ndarray
    size: np.ndarray
    uniform_code: np.ndarray
    rb_checkpoints: np.ndarray | None = None
    rb_sums: np.ndarray | None = None


def drawn_marginals(drawn_by: str, net: CompiledNetwork, kept, plan) -> np.ndarray:
    """The Rao-Blackwell term of a step drawn by a draw's own module (its ``marginals``), else empty.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.auto import draw_plan
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> drawn_marginals("circuit", net, net.cpt > 0, draw_plan(net, "circuit")[1]).tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    marginals = getattr(pruned_draw(drawn_by), "marginals", None)
    return np.zeros(0) if marginals is None else marginals(net, kept, plan)


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
        A key of :data:`~prunelab.samplers.prune.draws.registry.DRAWS`: how the next state is drawn from the
        pruned set (see :mod:`prunelab.samplers.prune.draws`); ``"heuristic"`` is approximate.
    n_candidates, max_restarts : int
        Size of the candidate set ``V`` and restarts per candidate, for
        ``"heuristic"`` only.
    node_budget : int, optional
        Search nodes ``"auto"`` allows before it counts (default: the plan's).
    plan : PrunePlan, optional
        Default: the plan :func:`~prunelab.samplers.prune.auto.draw_plan` settles (the counting plan,
        :func:`~prunelab.samplers.prune.plan.prune_plan`; for ``uniform="circuit"``, the
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
    code, plan = draw_plan(net, uniform, plan, vtree)
    x = state.x
    kept = prune_around(rng, net, x, plan)
    if DRAWS[UNIFORM_NAMES[code]].module is not None:
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
        One of :data:`~prunelab.samplers.prune.draws.registry.UNIFORM_NAMES`.
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
    code, plan = draw_plan(net, uniform, plan, vtree)
    rb = chain_sums(net, plan, rb_checkpoints, n_draws, uniform, UNIFORM_NAMES[code])
    if DRAWS[UNIFORM_NAMES[code]].module is not None:
        draws, sizes = pruned_draw(UNIFORM_NAMES[code]).run_chain(rng, net, x0, n_draws, plan, *rb.asked())
        return PruneChain(draws, sizes, np.full(sizes.shape[0], code, dtype=np.int8), *rb.output(net))
    n_draws, x, x_labels, draws = start_chain(net, x0, n_draws)
    budget = plan.node_budget if node_budget is None else int(node_budget)
    sparse = plan.count
    ws = make_workspace(net, plan.uniform, int(n_candidates), fill=None if sparse is None else sparse.possible)
    sizes = np.empty(n_draws, dtype=np.float64)
    uniform_codes = np.empty(n_draws, dtype=np.int8)
    kept = plan.pruning.base_kept.copy()
    marked = np.zeros(net.n_labels, dtype=np.bool_)
    prune_chain_nb(
        rng, net, plan.uniform, NO_SPARSE_COUNT if sparse is None else sparse, sparse is not None,
        plan.pruning.random_label, plan.pruning.random_c, kept, marked, x_labels, x, x.copy(), n_draws, code,
        int(n_candidates), int(max_restarts), budget, plan.nodes_per_member, ws, draws, sizes, uniform_codes, rb,
    )
    return PruneChain(draws, sizes, uniform_codes, *rb.output(net))

