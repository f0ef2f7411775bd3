"""Initial states: the paper's forward, random forward and hybrid forward sampling.

Three initialisers from the paper's section "Generate initial states", all one
kernel (:func:`hybrid_forward_nb`) that walks the variables in topological
order and, at each free variable ``X_i`` with parents set to ``pa``,

* **forward** draws ``x_i ~ P(X_i | pa)``;
* **random forward** draws ``x_i`` uniformly from the non-zero entries
  ``{x : P(X_i = x | pa) > 0}``;
* **hybrid(p)** does the first with probability ``p`` and the second otherwise.

So forward is hybrid(1) and random forward is hybrid(0), draw for draw: the coin
for hybrid is tossed (one ``rng.random()``) only when ``0 < p < 1``, and every
free variable then takes one more ``rng.random()``.

Evidence variables are clamped. A state found this way has ``P(x) > 0`` in the
network without evidence but may have ``P(x, e) = 0``: the kernel rejects it as
soon as an evidence variable's CPT entry is zero given its sampled parents and
starts again, up to ``max_restarts`` tries (default :data:`MAX_RESTARTS`). When the
budget is spent, :func:`initial_state` falls back on exact inference
(:mod:`prunelab.exact`): it raises :class:`~prunelab.EvidenceError` if
``P(e) = 0`` and otherwise draws ``x`` from the exact posterior ``P(x | e)``: one
upward pass of the junction tree, then backward sampling through its cliques in
reverse elimination order. The upward pass is cached per (network, evidence), so
the chains of one :func:`prunelab.sample` call share one exact inference. Where the
tables do not fit, the planner draws from a circuit, and where that refuses too, a
SAT solver's model of the support CNF is the start (:mod:`.circuit_start`).
Nothing loops without a bound.

Every sampler's ``run_chain`` opens with :func:`~prunelab.samplers.chain.start_chain`: the start state checked
(:func:`~prunelab.samplers.chain.check_state`) and the draws buffer allocated.
"""

from __future__ import annotations

import difflib
import threading
import weakref
from collections.abc import Mapping
from typing import NamedTuple

import numba
import numpy as np

from ..compiled import CompiledNetwork, compile_network
from ..evidence import as_evidence, impossible_evidence
from ..network import BayesianNetwork, EvidenceError
from .. import junction_tree
from ..extras import available
from ..planner import START_COMPILE_SECONDS, ExactPlan, draw_method
from .circuit_start import ExactStartRefusedError, circuit_posterior_state, solver_start_state
from ..inverse_cdf import inverse_cdf_py
from .chain import check_state, feasible

__all__ = [
    "MAX_RESTARTS",
    "INITS",
    "InitInfo",
    "initial_state",
    "hybrid_forward_nb",
    "start_state_from",
]

MAX_RESTARTS = 10_000
"""Forward-sampling tries before :func:`initial_state` turns to exact inference."""

INITS = ("forward", "random_forward", "hybrid")


class InitInfo(NamedTuple):
    """How an initial state was found.

    Attributes
    ----------
    init : str
        ``"forward"``, ``"random_forward"``, ``"hybrid"``; ``"exact"`` when the
        restart budget was spent and the state was drawn from ``P(x | e)``; ``"solver"``
        when exact inference refused too and the state is a SAT solver's model.
    n_tries : int
        Forward-sampling tries used (``max_restarts`` when it fell back on exact).
    """

    init: str
    n_tries: int


def _hybrid_forward_py(rng, cardinality, parent_ptr, parent_index, parent_stride,
                       cpt_offset, cpt, evidence_value, p, max_restarts, x):
    """One to ``max_restarts`` hybrid forward tries; fills ``x``; returns tries used or -1.

    The hybrid forward kernel's one source: run as it is, the plain-Python
    reference (slow, for tests); compiled by numba, :func:`hybrid_forward_nb`.
    A module-level function, not a closure, so that numba's on-disk cache finds
    it again in every process (a closure is compiled and cached anew each time).
    """
    n = cardinality.shape[0]
    toss = 0.0 < p < 1.0
    for attempt in range(max_restarts):
        feasible = True
        for i in range(n):
            base = cpt_offset[i]
            for k in range(parent_ptr[i], parent_ptr[i + 1]):
                base += x[parent_index[k]] * parent_stride[k]
            card = cardinality[i]
            observed = evidence_value[i]
            if observed >= 0:
                x[i] = observed
                if cpt[base + observed] == 0.0:
                    feasible = False
                    break
                continue
            if toss:
                use_cpt = rng.random() < p
            else:
                use_cpt = p >= 1.0
            if use_cpt:
                # forward: inverse CDF of the CPT row, never a zero entry
                total = 0.0
                for s in range(card):
                    total += cpt[base + s]
                chosen = inverse_cdf_py(cpt[base:base + card], card, rng.random() * total)
            else:
                # random forward: uniform over the row's non-zero entries
                count = 0
                for s in range(card):
                    if cpt[base + s] > 0.0:
                        count += 1
                j = int(rng.random() * count)
                if j > count - 1:
                    j = count - 1
                chosen = -1
                for s in range(card):
                    if cpt[base + s] > 0.0:
                        if j == 0:
                            chosen = s
                            break
                        j -= 1
            x[i] = chosen
        if feasible:
            return attempt + 1
    return -1


hybrid_forward_nb = numba.njit(cache=True, nogil=True)(_hybrid_forward_py)
"""The numba-compiled kernel of :func:`initial_state` (same arguments as its Python twin)."""


def _resolve_init(init: str, p: float) -> float:
    if init == "forward":
        return 1.0
    if init == "random_forward":
        return 0.0
    if init == "hybrid":
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"hybrid forward sampling needs 0 <= p <= 1, got p={p!r}")
        return p
    raise ValueError(f"unknown init {init!r}; choose one of {list(INITS)}")


class _PosteriorTables(NamedTuple):
    """One upward pass of exact inference, kept for backward sampling from ``P(x | e)``.

    ``order`` and ``cliques`` are the junction tree's elimination order and cliques
    (clique ``k`` is ``(order[k], *separator)``, every separator variable eliminated
    later); ``potentials[k]`` is clique ``k``'s factors times its children's
    messages after the upward pass, so ``potentials[k][:, sep]`` is proportional to
    ``P(X_order[k] | sep, e)`` once the variables eliminated after it are fixed.
    """

    evidence: tuple[tuple[int, int], ...]
    order: tuple[int, ...]
    cliques: tuple[tuple[int, ...], ...]
    potentials: tuple[np.ndarray, ...]


_posterior_tables: weakref.WeakKeyDictionary[BayesianNetwork, _PosteriorTables] = weakref.WeakKeyDictionary()
"""The last (evidence, tables) per network: chains of one :func:`prunelab.sample` call share it."""
_posterior_lock = threading.Lock()


def _posterior_tables_for(bn: BayesianNetwork, evidence: Mapping | None) -> _PosteriorTables | ExactPlan:
    """The upward pass of exact inference for ``(bn, evidence)``, from the cache or computed once.

    Where the planner draws from a circuit instead (:func:`prunelab.planner.draw_method`:
    the junction tree's tables do not fit), its plan. Feasibility is decided on
    ``log P(e)`` (``-inf`` only when impossible), never on ``P(e)``, which underflows
    to 0 for possible evidence on large networks.
    """
    key = tuple(sorted(bn.evidence_indices(evidence).items()))
    with _posterior_lock:
        tables = _posterior_tables.get(bn)
    if tables is not None and tables.evidence == key:
        return tables
    named_evidence = bn.evidence_names(evidence)
    plan = draw_method(bn, named_evidence)
    if plan.method != "junction_tree":
        return plan
    tree, calibration = junction_tree.calibrate(bn, named_evidence)
    if calibration.log_probability == -np.inf:
        raise impossible_evidence(bn, named_evidence)
    tables = _PosteriorTables(key, tree.order, tree.cliques, tuple(calibration.potentials))
    with _posterior_lock:
        _posterior_tables[bn] = tables
    return tables


def exact_posterior_state(rng: np.random.Generator, bn: BayesianNetwork, evidence: Mapping | None,
                           max_restarts: int, compile_seconds: float | None = None) -> np.ndarray:
    """Draw ``x ~ P(x | e)`` exactly: one upward pass, then backward sampling (a circuit's draw past the tree).

    The junction tree's upward pass (:mod:`prunelab.exact`) leaves in every clique
    the product of its factors and its children's messages; drawing the variables
    in reverse elimination order, each from its clique's row at the values already
    drawn for its separator, samples the posterior exactly (forward filtering,
    backward sampling). The pass is computed once per (network, evidence) and
    cached, so every chain that falls back pays one exact inference in all and then
    microseconds per variable. One ``rng.random()`` is used per free variable, in
    reverse elimination order. Where the junction tree's tables do not fit, the
    planner draws from a compiled circuit instead (:func:`prunelab.planner.draw_method`;
    :func:`~prunelab.samplers.circuit_start.circuit_posterior_state`), its compilation capped at
    ``compile_seconds`` (default :data:`~prunelab.circuit.AUTO_COMPILE_SECONDS`).
    """
    tables = _posterior_tables_for(bn, evidence)
    if isinstance(tables, ExactPlan):
        return circuit_posterior_state(rng, bn, evidence, max_restarts, tables, compile_seconds)
    x = np.empty(bn.n_variables, dtype=np.int64)
    for i, s in tables.evidence:
        x[i] = s
    for clique, potential in zip(reversed(tables.cliques), reversed(tables.potentials)):
        row = potential[(slice(None), *x[list(clique[1:])])] if len(clique) > 1 else potential
        x[clique[0]] = inverse_cdf_py(row, row.size, rng.random() * np.cumsum(row)[-1])
    return x


def initial_state(
    rng: np.random.Generator,
    net_or_bn: CompiledNetwork | BayesianNetwork,
    init: str = "forward",
    p: float = 0.5,
    evidence: Mapping | None = None,
    max_restarts: int = MAX_RESTARTS,
    backend: str = "numba",
    return_info: bool = False,
    compiled: CompiledNetwork | None = None,
):
    """A full state with ``P(x, e) > 0`` from forward, random forward or hybrid sampling.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness.
    net_or_bn : CompiledNetwork or BayesianNetwork
        A compiled network carries its evidence; a :class:`BayesianNetwork` is
        compiled with ``evidence`` and also enables the exact fallback.
    init : {"forward", "random_forward", "hybrid"}
        The paper's Definitions (forward, random forward, hybrid forward sampling).
    p : float, default 0.5
        For ``"hybrid"``: probability of drawing a variable from its CPT row rather
        than uniformly from the row's non-zero entries. Ignored otherwise.
    evidence : mapping of str to state, optional
        Only with a :class:`BayesianNetwork`.
    max_restarts : int, default :data:`MAX_RESTARTS` (10 000)
        Forward tries before the exact fallback. Each try is ``O(n)`` in compiled
        code, so the budget costs milliseconds.
    backend : {"numba", "python"}
        The compiled kernel or the same code run by the interpreter (same draws).
    return_info : bool, default False
        Also return an :class:`InitInfo`.
    compiled : CompiledNetwork, optional
        With a :class:`BayesianNetwork`: it compiled with ``evidence``, if the caller has it
        (:func:`prunelab.sample` does), so that it is not compiled again.

    Returns
    -------
    x : numpy.ndarray of int64, shape (n,)
        State indices in ``bn.variables`` (topological) order, evidence set.
    info : InitInfo
        Only if ``return_info``.

    Raises
    ------
    EvidenceError
        If the evidence is impossible, ``P(e) = 0`` (found by exact inference after
        the restart budget, on ``log P(e)`` so that tiny probabilities do not
        underflow to "impossible", or by the SAT solver past it; the message names
        the evidence), if neither can decide (the message names every refusal), or
        if the budget is spent on a bare :class:`CompiledNetwork`, which has no
        network to run exact inference on.
    prunelab.extras.MissingExtraError
        Exact inference refused and ``pycmsgen`` (the extra ``solvers``) is not installed.

    See Also
    --------
    hybrid_forward_nb : the kernel, with its order of random numbers.
    prunelab.exact : the junction tree whose upward pass the fallback samples backward.

    Notes
    -----
    Rejection of forward samples inconsistent with ``e`` keeps the forward bias the
    paper discusses. The exact fallback instead yields a draw from the posterior;
    ``InitInfo.init == "exact"`` records that it happened. It costs one upward
    pass of exact inference per (network, evidence), cached and shared by later
    calls, then one table row per free variable. Where the junction tree and the
    circuit refuse, the start is one CMSGen model of the support CNF (``"solver"``:
    feasible, not a posterior draw; :func:`~prunelab.samplers.circuit_start.solver_start_state`);
    with CMSGen installed the circuit gets :data:`~prunelab.planner.START_COMPILE_SECONDS`
    to compile (a circuit compiled before is used at once), without it
    :data:`~prunelab.circuit.AUTO_COMPILE_SECONDS`.

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
       technique for discrete and deterministic Bayesian networks", 2017, section
       "Generate initial states" (Definitions of forward, random forward and
       hybrid forward sampling).
    .. [2] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
       2009, sec. 12.1 (forward sampling, rejection of samples inconsistent with e).
    .. [3] R. Dechter, "Bucket elimination: a unifying framework for reasoning",
       Artificial Intelligence 113 (1999), and Koller and Friedman, sec. 12.1.2
       (sampling from the posterior after an elimination pass, backward).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.samplers.init import initial_state
    >>> bn = load_network("deterministic_pair")
    >>> x = initial_state(np.random.default_rng(0), bn, evidence={"B": "1"})
    >>> x.tolist()
    [1, 1]
    """
    p = _resolve_init(init, p)
    evidence = as_evidence(evidence)
    if isinstance(net_or_bn, BayesianNetwork):
        bn = net_or_bn
        net = compile_network(bn, evidence) if compiled is None else compiled
    elif isinstance(net_or_bn, CompiledNetwork):
        if evidence:
            raise ValueError("a CompiledNetwork carries its evidence; pass evidence=None")
        bn, net = None, net_or_bn
    else:
        raise TypeError(f"expected a BayesianNetwork or CompiledNetwork, got {type(net_or_bn).__name__}")
    max_restarts = int(max_restarts)
    if max_restarts < 1:
        raise ValueError(f"max_restarts must be >= 1, got {max_restarts}")
    if backend == "numba":
        kernel = hybrid_forward_nb
    elif backend == "python":
        kernel = _hybrid_forward_py
    else:
        raise ValueError(f"unknown backend {backend!r}; choose 'numba' or 'python'")
    x = np.zeros(net.n_variables, dtype=np.int64)
    n_tries = kernel(
        rng, net.cardinality, net.parent_ptr, net.parent_index, net.parent_stride,
        net.cpt_offset, net.cpt, net.evidence_value, p, max_restarts, x,
    )
    if n_tries > 0:
        info = InitInfo(init, int(n_tries))
    else:
        if bn is None:
            raise EvidenceError(
                f"no state consistent with the evidence in {max_restarts} forward-sampling tries; "
                "pass the BayesianNetwork (not a CompiledNetwork) to fall back on exact inference"
            )
        try:
            # with a solver to take over, a circuit that is slow to compile is not worth a start's wait
            cap = START_COMPILE_SECONDS if available("pycmsgen") else None
            x, how = exact_posterior_state(rng, bn, evidence, max_restarts, cap), "exact"
        except ExactStartRefusedError as refused:
            x, how = solver_start_state(rng, bn, evidence, refused), "solver"
        info = InitInfo(how, max_restarts)
    if not feasible(net, x):  # cannot happen; a cheap guard for the kernel itself
        raise AssertionError(f"initialiser produced an infeasible state {x.tolist()}")
    return (x, info) if return_info else x


def start_state_from(bn: BayesianNetwork, net: CompiledNetwork, state) -> np.ndarray:
    """An explicit start state, as a dict of names or an int array, checked by :func:`.chain.check_state`.

    Parameters
    ----------
    bn : BayesianNetwork
    net : CompiledNetwork
        ``bn`` compiled with the evidence.
    state : mapping of str to state, or array_like of int
        A dict names every free variable (evidence variables may be left out; if
        given they must agree); an array has one index per variable in
        ``bn.variables`` order.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.init import start_state_from
    >>> bn = load_network("deterministic_pair")
    >>> start_state_from(bn, compile_network(bn), {"A": "1", "B": "1"}).tolist()
    [1, 1]
    """
    if isinstance(state, Mapping):
        unknown = [v for v in state if v not in bn.states]
        if unknown:
            close = {v: difflib.get_close_matches(v, bn.variables, n=1, cutoff=0.6) for v in unknown}
            hint = "".join(f" ({v!r}: did you mean {c[0]!r}?)" for v, c in close.items() if c)
            raise ValueError(
                f"start state (init) names unknown variable(s) {unknown}{hint}; variables are {list(bn.variables)}"
            )
        x = np.array(net.evidence_value, dtype=np.int64)
        for v, s in state.items():
            x[bn.index(v)] = bn.state_index(v, s)
        missing = [bn.variables[i] for i in np.flatnonzero(x < 0)]
        if missing:
            raise ValueError(f"start state {dict(state)} leaves free variable(s) {missing} unset")
    else:
        x = state
    return check_state(net, x, bn)
