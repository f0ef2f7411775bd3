"""MC-SAT on the weighted clauses of a network, with an exact or a SampleSAT uniform step.

MC-SAT (Poon & Domingos 2006) on weighted clauses (:mod:`prunelab.clauses`), one
step from a state ``x`` that satisfies every hard clause:

1. **Select clauses.** Every hard clause is kept; every soft clause that ``x``
   satisfies is kept with probability ``1 - exp(-w)``, independently; the clauses
   ``x`` violates are not.
2. **Draw** the next state uniformly from ``M``, the states that satisfy every
   kept clause (``x`` is one of them).

On the clauses of a Bayesian network, ``1 - exp(-w_l) = 1 - c_l`` and "clause
``not l`` kept" means "no state in ``M`` uses label ``l``": step 1 is prune
sampling's pruning around ``x`` label for label, and ``M`` is its pruned set
``S`` (the chapter "Prune sampling and MC-SAT" proves it; :mod:`prunelab.theory`
checks it on the exact transition matrices).

Step 2 is pluggable, ``uniform=``:

``"exact"`` (default)
    The kept clauses become a pruning of the labels and prune sampling's exact
    uniform draw (:mod:`prunelab.samplers.prune.draws`, method ``"auto"``) draws
    from ``M``.
``"samplesat"``
    SampleSAT as Alchemy runs it (:mod:`prunelab.samplers.samplesat`), with
    Alchemy's defaults; only near-uniform. If it visits no solution within its
    flip budget, the chain stays at ``x`` (Alchemy would return the state with
    the fewest unsatisfied clauses, which may break a hard clause).
``"cmsgen"``, ``"unigen"``
    The solution samplers CMSGen and UniGen3 (:mod:`prunelab.samplers.prune.draws.solver`,
    the ``solvers`` extra) draw from ``M`` given as a CNF; CMSGen is near-uniform
    without a guarantee, UniGen3 almost-uniform with one. They run step by step in
    Python around the solver's call, which dominates their cost.

Random numbers. One ``rng.random()`` per *random* clause that ``x`` satisfies, in
clause order: a soft clause is random when some state that satisfies the hard
clauses violates it. The others are kept without a draw, because keeping them
leaves ``M`` unchanged (no state in it could violate them). A clause is kept when
``u >= exp(-w)``: so, clause ``not l`` being the negation of label ``l``, the
draws are those of prune sampling (label kept when ``u < c``), and for the same
seed ``uniform="exact"`` gives prune sampling's chain (up to the rounding of
``exp(log c)``) with ``uniform="count"``, the exact draw both use. :func:`step`
(numpy reference) and :func:`run_chain` (numba) consume the generator identically.

Rao-Blackwell estimate. With ``uniform="exact"`` the next state is uniform on ``M``,
so ``E[1{X_i = s} | M]`` is the share of ``M``'s members with ``X_i = s``: the same
downward pass over the count's tables as prune sampling's estimator
(:mod:`.prune.rao_blackwell`). ``run_chain(..., rb_checkpoints=...)`` records its running sums
(``SampleResult.marginals(estimator="rao_blackwell")``); it draws no random number,
so the draws are those of the plain chain. SampleSAT and the solver draws are not
exactly uniform on ``M`` and have no estimate (:func:`rao_blackwell_refusal`).

References
----------
.. [1] H. Poon and P. Domingos, "Sound and efficient inference with probabilistic
   and deterministic dependencies", AAAI 2006.
.. [2] W. Wei, J. Erenrich and B. Selman, "Towards efficient sampling: exploiting
   random walk strategies", AAAI 2004.
.. [3] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling", Algorithm 1.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numba
import numpy as np

from ..clauses import WeightedClauses, network_clauses
from ..compiled import CompiledNetwork, PlanCache
from .chain import check_state, start_chain
from .prune.draws.compiler import DEFAULT_MAX_RESTARTS, DEFAULT_N_CANDIDATES, UniformPlan, compile_uniform_plan
from .prune.draws.kernels import uniform_draw_nb
from .prune.draws.reference import uniform_draw_py
from .prune.draws.registry import COUNT, DRAWS, pruned_draw
from .prune.plan import UniformWorkspace, make_workspace, used_labels
from .prune.rao_blackwell import (NO_RAO_BLACKWELL, count_marginals_arrays, pruned_set_marginals, rao_blackwell_sums,
                                  record_step_arrays)
from .samplesat import (ALCHEMY_DEFAULTS, ClauseIndex, SampleSatOptions, SampleSatWork, clause_index, samplesat_nb,
                        samplesat_py, samplesat_workspace)

__all__ = [
    "MCSatState",
    "MCSatInfo",
    "MCSatChain",
    "MCSatPlan",
    "UNIFORM_STEPS",
    "RAO_BLACKWELL",
    "rao_blackwell_refusal",
    "init",
    "step",
    "run_chain",
    "select_clauses",
    "compile_mcsat_plan",
    "mcsat_plan",
]

RAO_BLACKWELL = False
"""No Rao-Blackwell sums by default; ``run_chain(..., rb_checkpoints=...)`` records them for ``uniform="exact"``."""

UNIFORM_STEPS = ("exact", "samplesat", *(name for name, draw in DRAWS.items() if draw.mcsat))
"""The uniform draws MC-SAT can use: its own two, then the draws of
:data:`~prunelab.samplers.prune.draws.registry.DRAWS` marked ``mcsat`` (the solution samplers)."""


class MCSatState(NamedTuple):
    """State of the MC-SAT chain: ``x``, int64 (n,), topological order, evidence set."""

    x: np.ndarray


class MCSatInfo(NamedTuple):
    """What one MC-SAT step did.

    Attributes
    ----------
    size : float
        ``|M|`` for ``uniform="exact"``; NaN for SampleSAT, which does not count.
    n_flips : int
        SampleSAT's flips (0 for the exact draw).
    n_found : int
        Solutions SampleSAT visited (0: none, the chain stayed); 1 for the exact draw.
    conditionals : float64 (sum of cardinalities,)
        ``E[1{X_i = s} | M]``, the Rao-Blackwell term, for ``uniform="exact"``; empty otherwise.
    """

    size: float
    n_flips: int
    n_found: int
    conditionals: np.ndarray = np.zeros(0)


class MCSatChain(NamedTuple):
    """Output of :func:`run_chain`: ``draws`` (n_draws, n), the :class:`MCSatInfo` fields per draw.

    ``rb_checkpoints``, ``rb_sums``: the running Rao-Blackwell sums when asked
    (``uniform="exact"``), else None, as :class:`~prunelab.samplers.prune.sampler.PruneChain`'s.
    """

    draws: np.ndarray
    size: np.ndarray
    n_flips: np.ndarray
    n_found: np.ndarray
    rb_checkpoints: np.ndarray | None = None
    rb_sums: np.ndarray | None = None


def rao_blackwell_refusal(options: dict) -> str | None:
    """Why MC-SAT with these options has no Rao-Blackwell estimate, or None if it has one (``uniform="exact"``).

    Examples
    --------
    >>> from prunelab.samplers.mcsat import rao_blackwell_refusal
    >>> rao_blackwell_refusal({}) is None
    True
    >>> print(rao_blackwell_refusal({"uniform": "samplesat"}))  # doctest: +ELLIPSIS
    MC-SAT with uniform='samplesat' has no Rao-Blackwell estimate...
    """
    uniform = options.get("uniform", "exact")
    if uniform == "exact":
        return None
    return (f"MC-SAT with uniform={uniform!r} has no Rao-Blackwell estimate (its draw is not exactly uniform on "
            "M, so the shares of M's members are not its conditional expectation); use uniform='exact', "
            "or estimator='empirical'")


class MCSatPlan(NamedTuple):
    """What an MC-SAT step needs besides the network, compiled once per (network, evidence).

    Attributes
    ----------
    clauses : WeightedClauses
        :func:`~prunelab.clauses.network_clauses` of the network.
    random_clause : int64 (r,)
        Soft clauses some hard-feasible state violates, increasing.
    keep_below : float64 (r,)
        ``exp(-w)``: a random clause that ``x`` satisfies is kept when ``u >= exp(-w)``.
    base_kept : bool (m,)
        Hard clauses and the other soft clauses kept; random entries overwritten.
    base_label_kept : bool (n_labels,)
        The labels the base clauses leave: used by some feasible state and not
        negated by a kept hard clause; random labels overwritten at every step.
    uniform : UniformPlan
        For ``uniform="exact"``.
    index : ClauseIndex
        Where each variable occurs, for SampleSAT.
    movable : int64
        Free variables with two or more values; ``is_movable`` marks them.
    """

    clauses: WeightedClauses
    random_clause: np.ndarray
    keep_below: np.ndarray
    base_kept: np.ndarray
    base_label_kept: np.ndarray
    uniform: UniformPlan
    index: ClauseIndex
    movable: np.ndarray
    is_movable: np.ndarray


def compile_mcsat_plan(net: CompiledNetwork, counting: bool = True) -> MCSatPlan:
    """Compile the clauses, the random-clause list and the uniform plan of ``net``.

    With ``counting=False`` (``uniform="samplesat"``, which draws without tables)
    the uniform plan has no elimination program, so no table cap applies, and the
    random clauses are those of every label with ``c > 0`` (a label that no
    consistent state uses gives a clause that every state satisfies: it changes
    nothing the walk can reach).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.mcsat import compile_mcsat_plan
    >>> plan = compile_mcsat_plan(compile_network(load_network("deterministic_pair")))
    >>> plan.clauses.label[plan.random_clause].tolist()  # "not A(1)", "not A(2)"
    [0, 1]
    """
    clauses = network_clauses(net)
    uniform = compile_uniform_plan(net, counting=counting)
    feasible = used_labels(net, net.cpt > 0.0, uniform) if counting else net.cpt > 0.0
    soft = ~clauses.hard
    random_clause = np.flatnonzero(soft & feasible[np.maximum(clauses.label, 0)]).astype(np.int64)
    base_kept = np.ones(clauses.n_clauses, dtype=bool)
    base_label_kept = feasible.copy()
    base_label_kept[clauses.label[clauses.hard & (clauses.label >= 0)]] = False
    is_movable = (net.evidence_value < 0) & (net.cardinality > 1)
    arrays = (random_clause, np.exp(-clauses.weight[random_clause]), base_kept, base_label_kept)
    for a in arrays:
        a.setflags(write=False)
    return MCSatPlan(clauses, *arrays, uniform, clause_index(clauses),
                     np.flatnonzero(is_movable).astype(np.int64), is_movable)


_mcsat_plans = PlanCache(compile_mcsat_plan)
_search_plans = PlanCache(functools.partial(compile_mcsat_plan, counting=False))


def mcsat_plan(net: CompiledNetwork, uniform: str = "exact") -> MCSatPlan:
    """The :class:`MCSatPlan` of ``net`` for the ``uniform`` step, compiled on first use and cached (by content).

    Every ``uniform`` but ``"exact"`` builds no counting tables (:func:`compile_mcsat_plan`
    with ``counting=False``).
    """
    return (_search_plans if _check_uniform(uniform) > 0 else _mcsat_plans)(net)


def _select_py(rng, clauses, random_clause, keep_below, x, kept, label_kept):
    """MC-SAT's clause selection on the random clauses, and the labels it leaves.

    Writes ``kept[c]`` for every random clause and ``label_kept`` of its label.
    Written once, compiled with numba (:data:`_select_nb`).
    """
    clause_ptr = clauses.clause_ptr
    literal_var = clauses.literal_var
    literal_value = clauses.literal_value
    literal_equal = clauses.literal_equal
    clause_label = clauses.label
    for j in range(random_clause.shape[0]):
        c = random_clause[j]
        satisfied = False
        for lit in range(clause_ptr[c], clause_ptr[c + 1]):
            if (x[literal_var[lit]] == literal_value[lit]) == literal_equal[lit]:
                satisfied = True
                break
        keep = False
        if satisfied:
            keep = rng.random() >= keep_below[j]
        kept[c] = keep
        label_kept[clause_label[c]] = not keep


_select_nb = numba.njit(cache=True, nogil=True)(_select_py)


def _check_uniform(uniform: str) -> int:
    if uniform not in UNIFORM_STEPS:
        raise ValueError(f"unknown uniform step {uniform!r} for MC-SAT; choose one of {UNIFORM_STEPS}")
    return UNIFORM_STEPS.index(uniform)


def select_clauses(rng: np.random.Generator, net: CompiledNetwork, x, plan: MCSatPlan | None = None):
    """MC-SAT's clause selection around ``x``: which clauses the next state must satisfy.

    Parameters
    ----------
    rng : numpy.random.Generator
        One ``rng.random()`` per random clause ``x`` satisfies, in clause order.
    net : CompiledNetwork
    x : int array (n,)
    plan : MCSatPlan, optional

    Returns
    -------
    kept : bool (m,)
        The kept clauses (of ``plan.clauses``).
    label_kept : bool (n_labels,)
        The labels they leave: prune sampling's pruning of the same draws.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.mcsat import select_clauses
    >>> from prunelab.samplers.prune.pruning import prune_around
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> kept, label_kept = select_clauses(np.random.default_rng(1), net, [0, 0])
    >>> kept.tolist(), label_kept.tolist() == prune_around(np.random.default_rng(1), net, [0, 0]).tolist()
    ([False, True, True, True], True)
    """
    plan = mcsat_plan(net) if plan is None else plan
    x = np.asarray(x, dtype=np.int64)
    kept, label_kept = plan.base_kept.copy(), plan.base_label_kept.copy()
    _select_py(rng, plan.clauses, plan.random_clause, plan.keep_below, x, kept, label_kept)
    return kept, label_kept


def init(net: CompiledNetwork, x0) -> MCSatState:
    """The chain's state at ``x0``, checked: evidence agrees and every hard clause holds (``P(x0, e) > 0``).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import mcsat
    >>> mcsat.init(compile_network(load_network("deterministic_pair")), [1, 1]).x.tolist()
    [1, 1]
    """
    return MCSatState(check_state(net, x0))


def _options(sa_probability, temperature, noise, tabu_length, n_solutions, max_flips, late_sa, uniform="samplesat"):
    """SampleSAT's options, checked; under ``uniform="exact"`` any that differs from the default is refused."""
    mode = _check_uniform(uniform)
    options = SampleSatOptions(sa_probability, temperature, noise, tabu_length, n_solutions, max_flips,
                               late_sa).checked()
    if UNIFORM_STEPS[mode] != "samplesat":
        changed = [name for name in options._fields if getattr(options, name) != getattr(ALCHEMY_DEFAULTS, name)]
        if changed:
            raise ValueError(
                f"SampleSAT option(s) {changed} have no effect with uniform={UNIFORM_STEPS[mode]!r}; "
                "pass uniform='samplesat' to use them, or drop them"
            )
    return options


def step(
    rng: np.random.Generator,
    net: CompiledNetwork,
    state: MCSatState,
    uniform: str = "exact",
    *,
    sa_probability: float = ALCHEMY_DEFAULTS.sa_probability,
    temperature: float = ALCHEMY_DEFAULTS.temperature,
    noise: float = ALCHEMY_DEFAULTS.noise,
    tabu_length: int = ALCHEMY_DEFAULTS.tabu_length,
    n_solutions: int = ALCHEMY_DEFAULTS.n_solutions,
    max_flips: int = ALCHEMY_DEFAULTS.max_flips,
    late_sa: bool = ALCHEMY_DEFAULTS.late_sa,
    plan: MCSatPlan | None = None,
) -> tuple[MCSatState, MCSatInfo]:
    """One MC-SAT step (numpy reference).

    Parameters
    ----------
    rng : numpy.random.Generator
    net : CompiledNetwork
    state : MCSatState
    uniform : {"exact", "samplesat", "cmsgen", "unigen"}, default "exact"
        The uniform draw from ``M`` (see the module docstring).
    sa_probability, temperature, noise, tabu_length, n_solutions, max_flips, late_sa
        SampleSAT's settings (``uniform="samplesat"`` only); defaults: Alchemy's,
        see :class:`~prunelab.samplers.samplesat.SampleSatOptions`.
    plan : MCSatPlan, optional
        Default: :func:`mcsat_plan` of ``net``.

    Returns
    -------
    MCSatState
    MCSatInfo

    See Also
    --------
    run_chain : the numba path, same draws for the same seed.
    select_clauses, prunelab.samplers.prune.sampler.step

    References
    ----------
    .. [1] H. Poon and P. Domingos, "Sound and efficient inference with probabilistic
       and deterministic dependencies", AAAI 2006, Table 1 (MC-SAT).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import mcsat
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> state, info = mcsat.step(np.random.default_rng(1), net, mcsat.init(net, [0, 0]))
    >>> state.x.tolist(), info.size
    ([0, 0], 1.0)
    """
    mode = _check_uniform(uniform)
    options = _options(sa_probability, temperature, noise, tabu_length, n_solutions, max_flips, late_sa, uniform)
    plan = mcsat_plan(net, uniform) if plan is None else plan
    x = state.x
    kept, label_kept = select_clauses(rng, net, x, plan)
    if UNIFORM_STEPS[mode] in DRAWS:
        draw = pruned_draw(uniform)
        y, size = draw.draw(rng, net, x, label_kept, draw.plan(net))
        return MCSatState(y), MCSatInfo(float(size), 0, 1)
    y = x.copy()
    if mode == 0:
        size, _, _ = uniform_draw_py(rng, net, plan.uniform, label_kept, x, y, COUNT, DEFAULT_N_CANDIDATES,
                                     DEFAULT_MAX_RESTARTS, plan.uniform.node_budget)
        return MCSatState(y), MCSatInfo(float(size), 0, 1, pruned_set_marginals(net, plan.uniform, label_kept))
    work = samplesat_workspace(plan.clauses)
    work.best[:] = x
    flips, found = samplesat_py(rng, plan.clauses, plan.index, plan.movable, plan.is_movable, kept, y, options, work)
    return MCSatState(work.best), MCSatInfo(float("nan"), int(flips), int(found))


class _MCSatWork(NamedTuple):
    """The chain's scratch, rewritten at every step.

    ``kept`` (m,) and ``label_kept`` (n_labels,): the clauses and labels the step keeps; ``y`` (n,): the next
    state; ``uniform``, ``samplesat``: the workspaces of the exact draw and of SampleSAT.
    """

    kept: np.ndarray
    label_kept: np.ndarray
    y: np.ndarray
    uniform: UniformWorkspace
    samplesat: SampleSatWork


@numba.njit(cache=True, nogil=True)
def _mcsat_chain_nb(rng, net, plan, mode, options, x, work, out, rb):
    """``out.draws.shape[0]`` MC-SAT steps from ``x``, in place: the numba body of :func:`run_chain`.

    ``plan`` is the :class:`MCSatPlan`, ``mode`` the code of the uniform step (0 exact, 1 SampleSAT),
    ``options`` the checked :class:`SampleSatOptions`, ``work`` an :class:`_MCSatWork`; ``out`` an
    :class:`MCSatChain` without sums, whose arrays the steps fill; ``rb`` the Rao-Blackwell sums (mode 0).
    """
    n = x.shape[0]
    uplan = plan.uniform
    clauses = plan.clauses
    random_clause = plan.random_clause
    keep_below = plan.keep_below
    kept = work.kept
    label_kept = work.label_kept
    y = work.y
    ws = work.uniform
    sat = work.samplesat
    best = sat.best
    draws = out.draws
    sizes = out.size
    flips = out.n_flips
    founds = out.n_found
    rb_on = rb.checkpoints.shape[0] > 0  # only with mode 0: the count's tables are fresh after the draw
    for t in range(draws.shape[0]):
        _select_nb(rng, clauses, random_clause, keep_below, x, kept, label_kept)
        for i in range(n):
            y[i] = x[i]
        if mode == 0:
            size, _ = uniform_draw_nb(rng, net, uplan, label_kept, x, y, COUNT, DEFAULT_N_CANDIDATES,
                                      DEFAULT_MAX_RESTARTS, uplan.node_budget, ws)
            sizes[t] = size
            flips[t] = 0
            founds[t] = 1
            if rb_on:
                count_marginals_arrays(uplan.table_ptr, uplan.step_scope_ptr, uplan.step_scope_var,
                                       uplan.step_scope_card, rb.message_ptr, rb.message_input, uplan.step_input_ptr,
                                       uplan.step_input_factor, uplan.input_stride_ptr, uplan.input_stride,
                                       uplan.factor_ptr, uplan.n_indicator, uplan.gather_ptr, uplan.gather,
                                       ws.factors, ws.tables, rb.reached, rb.listed, rb.n_listed, rb.index,
                                       rb.offsets, rb.running)
                record_step_arrays(rb.checkpoints, rb.sums, rb.running, rb.progress)
            for i in range(n):
                x[i] = y[i]
        else:
            for i in range(n):
                best[i] = x[i]
            n_flips, found = samplesat_nb(rng, clauses, plan.index, plan.movable, plan.is_movable, kept, y,
                                          options, sat)
            sizes[t] = np.nan
            flips[t] = n_flips
            founds[t] = found
            for i in range(n):
                x[i] = best[i]
        for i in range(n):
            draws[t, i] = x[i]


def run_chain(
    rng: np.random.Generator,
    net: CompiledNetwork,
    x0,
    n_draws: int,
    uniform: str = "exact",
    *,
    sa_probability: float = ALCHEMY_DEFAULTS.sa_probability,
    temperature: float = ALCHEMY_DEFAULTS.temperature,
    noise: float = ALCHEMY_DEFAULTS.noise,
    tabu_length: int = ALCHEMY_DEFAULTS.tabu_length,
    n_solutions: int = ALCHEMY_DEFAULTS.n_solutions,
    max_flips: int = ALCHEMY_DEFAULTS.max_flips,
    late_sa: bool = ALCHEMY_DEFAULTS.late_sa,
    plan: MCSatPlan | None = None,
    rb_checkpoints=None,
) -> MCSatChain:
    """``n_draws`` MC-SAT steps from ``x0`` (numba path).

    Parameters
    ----------
    rng : numpy.random.Generator
        Consumed exactly like ``n_draws`` calls of :func:`step` with the same options.
    net : CompiledNetwork
    x0 : array_like of int (n,)
        A feasible start state (checked).
    n_draws : int
    uniform, sa_probability, temperature, noise, tabu_length, n_solutions, max_flips, late_sa, plan
        As in :func:`step`.
    rb_checkpoints : array_like of int, optional
        Strictly increasing step counts in ``1..n_draws`` at which the running sums
        of ``E[1{X_i = s} | M]`` are copied out (``uniform="exact"`` only).

    Returns
    -------
    MCSatChain

    Raises
    ------
    ValueError
        ``rb_checkpoints`` with a ``uniform`` that has no estimate (:func:`rao_blackwell_refusal`),
        or checkpoints out of order or range.
    InfeasibleStateError
        ``x0`` has ``P(x0, e) = 0``.
    EvidenceError
        ``x0`` disagrees with the evidence.

    See Also
    --------
    step : the numpy reference.
    prunelab.sample : chains, seeds, parallelism.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import mcsat
    >>> from prunelab.samplers.prune import sampler as prune
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> out = mcsat.run_chain(np.random.default_rng(1), net, [0, 0], 4)
    >>> out.draws.tolist() == prune.run_chain(np.random.default_rng(1), net, [0, 0], 4).draws.tolist()
    True
    """
    mode = _check_uniform(uniform)
    options = _options(sa_probability, temperature, noise, tabu_length, n_solutions, max_flips, late_sa, uniform)
    if rb_checkpoints is not None and (why := rao_blackwell_refusal({"uniform": uniform})) is not None:
        raise ValueError(f"{why}; drop rb_checkpoints")
    n_draws, x, _, draws = start_chain(net, x0, n_draws)
    plan = mcsat_plan(net, uniform) if plan is None else plan
    rb = NO_RAO_BLACKWELL if rb_checkpoints is None else rao_blackwell_sums(net, plan.uniform, rb_checkpoints,
                                                                            n_draws)
    sizes = np.empty(n_draws, dtype=np.float64)
    flips = np.zeros(n_draws, dtype=np.int64)
    founds = np.ones(n_draws, dtype=np.int64)
    if UNIFORM_STEPS[mode] in DRAWS:  # the solver's call dominates: the numpy step, one at a time
        state = MCSatState(x)
        for t in range(n_draws):
            state, info = step(rng, net, state, uniform, plan=plan)
            draws[t], sizes[t] = state.x, info.size
        return MCSatChain(draws, sizes, flips, founds)
    work = _MCSatWork(plan.base_kept.copy(), plan.base_label_kept.copy(), x.copy(), make_workspace(net, plan.uniform),
                     samplesat_workspace(plan.clauses))
    _mcsat_chain_nb(rng, net, plan, mode, options, x, work, MCSatChain(draws, sizes, flips, founds), rb)
    return MCSatChain(draws, sizes, flips, founds, *rb.output(net))
