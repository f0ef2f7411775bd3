"""Parallel tempering with prune moves: ``K`` prune chains at inverse temperatures, and swaps.

Replica ``k`` targets the *tempered* posterior

.. math:: \\pi_{\\beta_k}(x) \\propto \\prod_{l \\in C_x} c_l^{\\beta_k} \\, 1\\{x \\text{ agrees with } e\\},
   \\qquad 1 = \\beta_0 > \\beta_1 > \\dots > \\beta_{K-1} > 0,

over the same CPT labels ``C_x`` as prune sampling, so replica 0 targets
``P(x | e)`` and only its draws are returned. One step (one draw):

1. **Prune moves.** Every replica, in order ``k = 0, ..., K-1``, makes one prune
   step (:mod:`prunelab.samplers.prune.sampler`) with its label values ``c^beta_k``.
2. **Swaps.** Adjacent pairs ``(i, i + 1)`` with ``i`` even on even steps (the
   step count from the start of the chain) and ``i`` odd on odd steps (the
   deterministic even-odd scheme [3]_) exchange their states with probability
   :func:`~prunelab.samplers.prune.ladder.swap_probability`,
   ``min(1, exp((beta_i - beta_j)(log P(x_j) - log P(x_i))))``,
   where ``log P(x)`` is the log of the product of the labels ``x`` uses (evidence
   included); one ``rng.random()`` per proposed pair, in increasing ``i``.

The replicas share everything prune compiles for the network (the uniform plan, the
counting program, the lists of random labels: :class:`~prunelab.samplers.prune.plan.PrunePlan`);
only ``random_c``, the values of the labels pruned at random, is raised to
``beta_k``, one small array per replica (:func:`~prunelab.samplers.prune.ladder.tempered_plan`). A draw costs ``K``
prune steps. The default ladder, :data:`DEFAULT_BETAS`, is the usual first choice:
geometric (:func:`geometric_betas`), ``K = 4`` down to ``beta = 0.2``, where a label
of 0.01 survives a pruning with probability 0.4.

Why a tempered replica is exact
-------------------------------
The paper's proof of detailed balance (section "A regular and reversible Markov
chain") uses three facts only: every label not in ``C_x`` survives independently
with probability ``c_l``, which needs ``0 <= c_l <= 1``; the target is proportional
to ``prod_{l in C_x} c_l``; and the next state is drawn exactly uniformly from the
survivors ``S``. Then ``P(x) R_h(x -> y) = prod_{pruned} (1 - c) prod_{kept} c / |S|``
is symmetric in ``x`` and ``y``. It never uses that a CPT column sums to one, so
it holds word for word with ``c`` replaced by ``c^beta``: for ``beta > 0``,
``c^beta`` maps ``[0, 1]`` into ``[0, 1]``, ``0`` to ``0`` and ``1`` to ``1`` and
``(0, 1)`` into ``(0, 1)``. So a tempered prune step is reversible with respect to
``pi_beta``; the zeros stay zeros (determinism and the feasible set are unchanged,
and the same labels are random, so the plan's lists and counting program stay
valid); and it is regular, since with probability ``prod c^beta > 0`` nothing
feasible is pruned and ``S`` holds every feasible state. ``beta = 0`` is excluded:
``0^0 = 1`` would keep the impossible labels.

The uniform draw must be exact and keep no memory between steps
(``Draw.tempered`` in :data:`~prunelab.samplers.prune.draws.registry.DRAWS`): ``"count"``, ``"enumerate"``, or
``"circuit"``, where
every replica draws from the same compiled circuit
(:mod:`prunelab.samplers.prune.draws.circuit`), weighing its label indicators 1 or 0 by
its own pruning: ``S`` does not depend on ``c``, only the pruning does, so the
circuit is compiled once for all temperatures. ``"auto"`` resolves once per chain,
as prune's does at set-up: to the circuit where prune's ``"auto"`` turns to it (the
counting plan refuses), else to ``"count"`` (prune's per-step choice between search
and count follows the last ``|S|`` of one chain, which a replica that steps once
per call does not keep). ``"heuristic"`` is refused (biased), and so are the solver
draws ``"cmsgen"`` and ``"unigen"`` (not exactly uniform) and ``"circuit-per-step"``
(one compilation per replica and step).

A swap is a Metropolis move on the product target ``prod_k pi_{beta_k}(x_k)`` with a
symmetric, deterministic proposal (exchange two states); its acceptance ratio
``pi_i(x_j) pi_j(x_i) / (pi_i(x_i) pi_j(x_j))`` is the formula above (the
normalising constants cancel). Every move of a step leaves the product target
invariant, hence so does the step; replica 0's marginal is ``P(x | e)``. From
any joint state a step reaches every joint state with positive probability, so the
joint chain is regular and the averages of replica 0's draws converge to
``P(x | e)``.

:func:`step` is the numpy reference (it calls :func:`prunelab.samplers.prune.sampler.step`
per replica); :func:`run_chain` runs the whole chain in numba, calling prune's
numba kernel for every replica step. They consume the generator in the same
order and give identical draws.

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", section "A regular
   and reversible Markov chain".
.. [2] C. J. Geyer, "Markov chain Monte Carlo maximum likelihood", Computing
   Science and Statistics: Proc. 23rd Symposium on the Interface, 1991 (parallel
   tempering); K. Hukushima and K. Nemoto, "Exchange Monte Carlo method and
   application to spin glass simulations", J. Phys. Soc. Japan 65, 1996.
.. [3] S. Syed, A. Bouchard-Cote, G. Deligiannidis and A. Doucet, "Non-reversible
   parallel tempering: a scalable highly parallel MCMC scheme", JRSS B 84, 2022
   (the deterministic even-odd swap scheme).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from prunelab.circuit import CircuitPasses, passes_for
from prunelab.compiled import CompiledNetwork, state_labels
from prunelab.samplers.chain import check_state, start_chain

from .auto import draw_plan
from .draws.circuit import circuit_prune_chain_nb
from .draws.compiler import DEFAULT_MAX_RESTARTS, DEFAULT_N_CANDIDATES
from .draws.primitives import label_nb
from .draws.registry import AUTO, COUNT, DRAWS, UNIFORM_NAMES, uniform_index
from .ladder import DEFAULT_BETAS, check_betas, swap_phase_nb, swap_phase_py, tempered_plan
from .plan import PrunePlan, UniformWorkspace, make_workspace
from .rao_blackwell import NO_RAO_BLACKWELL, chain_sums, rao_blackwell_refusal
from .sampler import NO_SPARSE_COUNT, PruneState, prune_chain_nb
from .sampler import step as prune_step

__all__ = [
    "TemperedState",
    "TemperedInfo",
    "TemperedChain",
    "RAO_BLACKWELL",
    "rao_blackwell_refusal",
    "init",
    "step",
    "run_chain",
]

RAO_BLACKWELL = False
"""No Rao-Blackwell sums by default; ``run_chain(..., rb_checkpoints=...)`` records the cold replica's.

The term of step ``t`` is the marginals of the cold replica's pruned set, before the
swaps: its prune move keeps ``P(x | e)`` invariant, so the term's stationary mean is
the posterior (:mod:`prunelab.samplers.prune.rao_blackwell`).
"""

CIRCUIT = uniform_index("circuit")
"""The code of the circuit draw."""


def _log_labels(net: CompiledNetwork) -> np.ndarray:
    """``log c`` of every label (``-inf`` for impossible labels, which no feasible state uses)."""
    with np.errstate(divide="ignore"):
        return np.log(net.cpt)


def _check_uniform(uniform: str) -> None:
    if uniform not in DRAWS or not DRAWS[uniform].tempered:
        raise ValueError(
            f"prune-tempered needs an exact uniform draw without memory between steps, one of "
            f"{[name for name, draw in DRAWS.items() if draw.tempered]}; got uniform={uniform!r}"
        )


def _tempered_uniform(net: CompiledNetwork, uniform: str, plan, vtree: str | None = None):
    """``(code, plan)`` of every replica's draw: ``"auto"`` resolved once, to the circuit or to ``"count"``."""
    _check_uniform(uniform)
    code, plan = draw_plan(net, uniform, plan, vtree)
    return (COUNT if code == AUTO else code), plan


class TemperedState(NamedTuple):
    """State of the tempered chain.

    Attributes
    ----------
    x : int64 (n,)
        The ``beta = 1`` replica's state (the draw).
    replicas : int64 (K, n) or None
        Every replica's state, ``replicas[0] == x``; None at the start: every
        replica starts at ``x``.
    n_steps : int
        Steps made so far (their parity picks the pairs proposed for swaps).
    """

    x: np.ndarray
    replicas: np.ndarray | None = None
    n_steps: int = 0


class TemperedInfo(NamedTuple):
    """What one tempered step did.

    Attributes
    ----------
    size : float
        ``|S|`` of the ``beta = 1`` replica's prune step (before the swaps).
    uniform_code : int
        The uniform draw of that step, an index into
        :data:`prunelab.samplers.prune.draws.registry.UNIFORM_NAMES`.
    swapped : int8 (K - 1,)
        Pair ``(i, i + 1)``: 1 exchanged, 0 rejected, -1 not proposed this step.
    conditionals : float64 (sum of cardinalities,)
        The marginals of the ``beta = 1`` replica's pruned set (its Rao-Blackwell term).
    """

    size: float
    uniform_code: int
    swapped: np.ndarray
    conditionals: np.ndarray = np.zeros(0)


class TemperedChain(NamedTuple):
    """Output of :func:`run_chain`.

    Attributes
    ----------
    draws : int64 (n_draws, n)
        The ``beta = 1`` replica's state after each step.
    size : float64 (n_draws,)
        ``|S|`` of its prune step.
    uniform_code : int8 (n_draws,)
        Its uniform draw.
    swapped : int8 (n_draws, K - 1)
        As :attr:`TemperedInfo.swapped`, step by step (see :func:`~prunelab.samplers.prune.ladder.swap_rates`).
    rb_checkpoints, rb_sums : int64 (k,), float64 (k, sum of cardinalities), or None
        Sums of :attr:`TemperedInfo.conditionals` at the checkpoints, when asked for.
    """

    draws: np.ndarray
    size: np.ndarray
    uniform_code: np.ndarray
    swapped: np.ndarray
    rb_checkpoints: np.ndarray | None = None
    rb_sums: np.ndarray | None = None


def init(net: CompiledNetwork, x0) -> TemperedState:
    """The chain's state at ``x0`` (every replica there), checked: evidence agrees and ``P(x0, e) > 0``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune import tempered
    >>> tempered.init(compile_network(load_network("deterministic_pair")), [1, 1]).x.tolist()
    [1, 1]
    """
    return TemperedState(check_state(net, x0))


def step(
    rng: np.random.Generator,
    net: CompiledNetwork,
    state: TemperedState,
    betas=DEFAULT_BETAS,
    uniform: str = "count",
    *,
    plan: PrunePlan | None = None,
    vtree: str | None = None,
) -> tuple[TemperedState, TemperedInfo]:
    """One tempered step (numpy reference): a prune step per replica, then the swaps.

    Parameters
    ----------
    rng : numpy.random.Generator
        Replica 0's prune step, replica 1's, ..., then one ``rng.random()`` per
        proposed pair.
    net : CompiledNetwork
    state : TemperedState
    betas : array_like of float, default :data:`DEFAULT_BETAS`
        ``1 = beta_0 > ... > beta_{K-1} > 0`` (checked, :func:`check_betas`).
    uniform : {"count", "enumerate", "circuit", "auto"}, default "count"
        The exact uniform draw of every prune step (``Draw.tempered``).
    plan : PrunePlan or CircuitPrunePlan, optional
        Default: the plan of ``uniform`` (:func:`prunelab.samplers.prune.auto.draw_plan`).
    vtree : {"dissection", "turned", "elimination"}, optional
        The circuit's vtree, as in :func:`prunelab.samplers.prune.sampler.step`.

    Returns
    -------
    TemperedState
    TemperedInfo

    Raises
    ------
    ValueError
        Bad ``betas`` or ``uniform``, or ``state.replicas`` with another number of
        replicas than ``betas``.

    See Also
    --------
    run_chain : the numba path, same draws for the same seed.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune import tempered
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> state, info = tempered.step(np.random.default_rng(1), net, tempered.init(net, [0, 0]), [1.0, 0.5])
    >>> state.replicas.shape, info.swapped.tolist()
    ((2, 2), [1])
    """
    betas = check_betas(betas)
    code, plan = _tempered_uniform(net, uniform, plan, vtree)
    k = betas.size
    if state.replicas is None:
        replicas = np.tile(state.x, (k, 1))
    elif state.replicas.shape != (k, net.n_variables):
        raise ValueError(f"the state holds replicas of shape {state.replicas.shape}, but {k} betas "
                         f"need ({k}, {net.n_variables})")
    else:
        replicas = state.replicas.copy()
    infos = []
    for r in range(k):
        new, info = prune_step(rng, net, PruneState(replicas[r]), UNIFORM_NAMES[code],
                               plan=tempered_plan(plan, betas[r]))
        replicas[r] = new.x
        infos.append(info)
    labels = state_labels(net, replicas)
    swapped = np.empty(k - 1, dtype=np.int8)
    swap_phase_py(rng, betas, _log_labels(net), labels, replicas, state.n_steps % 2, swapped)
    return (TemperedState(replicas[0].copy(), replicas, state.n_steps + 1),
            TemperedInfo(infos[0].size, infos[0].uniform_code, swapped, infos[0].conditionals))


class _Replicas(NamedTuple):
    """Every replica's chain, row ``k`` for replica ``k`` (``K`` rows), and the scratch they share.

    ``x`` (K, n): the states; ``y`` (K, n): the next states (prune's draw buffer; unused by the circuit);
    ``labels`` (K, n): the labels each state uses; ``kept`` (K, n_labels): each pruning; ``random_c`` (K, r):
    each replica's tempered label values; ``one_draw`` (K, 1, n), ``one_size`` (K, 1), ``one_uniform_code``
    (K, 1): the outputs of a one-step prune chain. Shared: ``marked`` (n_labels,), ``x_labels`` (n,), and
    ``draw``, the workspace of the uniform draw (of the counting draw, or the circuit's passes).
    """

    x: np.ndarray
    y: np.ndarray
    labels: np.ndarray
    kept: np.ndarray
    random_c: np.ndarray
    one_draw: np.ndarray
    one_size: np.ndarray
    one_uniform_code: np.ndarray
    marked: np.ndarray
    x_labels: np.ndarray
    draw: UniformWorkspace | CircuitPasses


class _Ladder(NamedTuple):
    """What the swaps weigh: ``betas`` (K,) and ``log_c``, the log of every label (:func:`_log_labels`)."""

    betas: np.ndarray
    log_c: np.ndarray


@numba.njit(cache=True, nogil=True)
def _tempered_chain_nb(rng, net, plan, use_sparse, uniform_code, ladder, rep, out, rb, no_rb):
    """``out.draws.shape[0]`` tempered steps with prune's counting or search draw (:func:`run_chain`).

    ``plan`` is the :class:`PrunePlan` (its ``count`` a :data:`NO_SPARSE_COUNT` when ``use_sparse`` is off);
    ``rep`` the :class:`_Replicas`, moved in place; ``out`` a :class:`TemperedChain` without sums, filled.
    """
    replicas = rep.x
    n_replicas, n = replicas.shape
    offset = net.cpt_offset
    parent_ptr = net.parent_ptr
    parent_index = net.parent_index
    parent_stride = net.parent_stride
    uplan = plan.uniform
    sparse = plan.count
    random_label = plan.pruning.random_label
    budget = plan.node_budget
    ratio = plan.nodes_per_member
    scratch = rep.y
    labels = rep.labels
    draws = out.draws
    for t in range(draws.shape[0]):
        for r in range(n_replicas):
            for i in range(n):  # the draw's buffer starts at the state, as in prune's own steps
                scratch[r, i] = replicas[r, i]
            prune_chain_nb(rng, net, uplan, sparse, use_sparse, random_label, rep.random_c[r], rep.kept[r],
                           rep.marked, rep.x_labels, replicas[r], scratch[r], 1, uniform_code, DEFAULT_N_CANDIDATES,
                           DEFAULT_MAX_RESTARTS, budget, ratio, rep.draw, rep.one_draw[r], rep.one_size[r],
                           rep.one_uniform_code[r], rb if r == 0 else no_rb)
            for i in range(n):
                labels[r, i] = label_nb(offset, parent_ptr, parent_index, parent_stride, replicas[r], i)
        swap_phase_nb(rng, ladder.betas, ladder.log_c, labels, replicas, t % 2, out.swapped[t])
        for i in range(n):
            draws[t, i] = replicas[0, i]
        out.size[t] = rep.one_size[0, 0]
        out.uniform_code[t] = rep.one_uniform_code[0, 0]


@numba.njit(cache=True, nogil=True)
def _tempered_circuit_chain_nb(rng, net, plan, ladder, rep, out, rb, no_rb):
    """As :func:`_tempered_chain_nb`, every replica drawing from ``plan``'s circuit (a ``CircuitPrunePlan``)."""
    replicas = rep.x
    n_replicas, n = replicas.shape
    labels = rep.labels
    draws = out.draws
    for t in range(draws.shape[0]):
        for r in range(n_replicas):
            circuit_prune_chain_nb(rng, net, plan, rep.random_c[r], rep.draw, rep.kept[r], rep.marked,
                                   rep.x_labels, replicas[r], 1, rep.one_draw[r], rep.one_size[r],
                                   rb if r == 0 else no_rb)
            for i in range(n):
                labels[r, i] = label_nb(net.cpt_offset, net.parent_ptr, net.parent_index, net.parent_stride,
                                        replicas[r], i)
        swap_phase_nb(rng, ladder.betas, ladder.log_c, labels, replicas, t % 2, out.swapped[t])
        for i in range(n):
            draws[t, i] = replicas[0, i]
        out.size[t] = rep.one_size[0, 0]


def run_chain(
    rng: np.random.Generator,
    net: CompiledNetwork,
    x0,
    n_draws: int,
    betas=DEFAULT_BETAS,
    uniform: str = "count",
    *,
    plan: PrunePlan | None = None,
    rb_checkpoints=None,
    vtree: str | None = None,
) -> TemperedChain:
    """``n_draws`` tempered steps from ``x0`` (every replica starts there); numba path.

    Parameters
    ----------
    rng : numpy.random.Generator
        Consumed exactly like ``n_draws`` calls of :func:`step`.
    net : CompiledNetwork
    x0 : array_like of int (n,)
        A feasible start state (checked).
    n_draws : int
    betas, uniform, plan, vtree
        As in :func:`step`.
    rb_checkpoints : array_like of int, optional
        Increasing step counts at which to record the sums of ``TemperedInfo.conditionals``.

    Returns
    -------
    TemperedChain

    Raises
    ------
    ValueError
        Bad ``betas``, ``uniform`` or ``n_draws``.
    InfeasibleStateError
        ``x0`` has ``P(x0, e) = 0``.
    EvidenceError
        ``x0`` disagrees with the evidence.

    See Also
    --------
    step : the numpy reference.
    prunelab.sample : chains, seeds, parallelism (``sampler="prune-tempered"``).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune import tempered
    >>> net = compile_network(load_network("blood_pressure"), {"Measurement": "m_e"})
    >>> out = tempered.run_chain(np.random.default_rng(1), net, [1, 0, 1, 0, 1], 1000)
    >>> out.draws.shape, out.swapped.shape
    ((1000, 5), (1000, 3))
    """
    betas = check_betas(betas)
    _check_uniform(uniform)
    start = start_chain(net, x0, n_draws)  # bad starts and sizes are refused before the plan is compiled
    code, plan = _tempered_uniform(net, uniform, plan, vtree)
    k = betas.size
    replicas = np.tile(start.x, (k, 1))
    out = TemperedChain(start.draws, np.empty(start.n_draws, dtype=np.float64),
                        np.full(start.n_draws, code, dtype=np.int8), np.empty((start.n_draws, k - 1), dtype=np.int8))
    rb = chain_sums(net, plan, rb_checkpoints, start.n_draws, uniform, UNIFORM_NAMES[code])
    if code == CIRCUIT:
        draw = passes_for(plan.circuit)
    else:
        sparse = plan.count
        draw = make_workspace(net, plan.uniform, fill=None if sparse is None else sparse.possible)
    rep = _Replicas(replicas, replicas.copy(), state_labels(net, replicas), np.tile(plan.pruning.base_kept, (k, 1)),
                    np.stack([tempered_plan(plan, b).pruning.random_c for b in betas]),
                    np.empty((k, 1, net.n_variables), dtype=np.int64), np.empty((k, 1)), np.empty((k, 1), np.int8),
                    np.zeros(net.n_labels, dtype=np.bool_), np.zeros(net.n_variables, dtype=np.int64), draw)
    ladder = _Ladder(betas, _log_labels(net))
    if code == CIRCUIT:
        _tempered_circuit_chain_nb(rng, net, plan, ladder, rep, out, rb, NO_RAO_BLACKWELL)
    else:
        _tempered_chain_nb(rng, net, plan if sparse is not None else plan._replace(count=NO_SPARSE_COUNT),
                           sparse is not None, code, ladder, rep, out, rb, NO_RAO_BLACKWELL)
    return TemperedChain(*out[:4], *rb.output(net))
