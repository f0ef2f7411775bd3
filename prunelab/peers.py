"""Peer samplers on prunelab networks: pgmpy, pyAgrum and PyMC beside prunelab's own.

Every runner takes a :class:`~prunelab.network.BayesianNetwork` and evidence, runs
one chain for a number of sweeps (``n_steps``) *or* a wall-clock budget
(``seconds``), and returns a :class:`PeerRun` whose ``marginals`` are keyed and
ordered like :func:`prunelab.exact.exact_marginals` (free variables, states in
``bn.states`` order). Nothing here changes a peer's algorithm: the adapters only
translate the network, the evidence and the start state, and read the result.

========================  =========================================================
sampler                   what runs, and what one step is
========================  =========================================================
``pgmpy-gibbs``           ``pgmpy.sampling.GibbsSampling``; a sweep over all free
                          variables. Its constructor tabulates each variable's
                          conditional over the joint of *all* other variables, so it
                          is only built up to :data:`PGMPY_MAX_STATES` joint states.
``pyagrum-gibbs``         ``pyagrum.GibbsSampling`` (C++), one iteration set to a
                          systematic sweep, epsilon and rate stopping rules off.
``pymc-cgm-uniform``      ``pymc.CategoricalGibbsMetropolis(proposal="uniform")``;
                          one draw is a sweep (random scan).
``pymc-cgm-proportional`` the same with ``proposal="proportional"`` (see
                          :func:`pymc_categorical_frequencies` for its bug).
``pymc-metropolis``       ``pymc.Metropolis`` with PyMC's default (one step method
                          per variable, rounded-normal proposal); a draw is a sweep.
``prunelab-gibbs``,       :func:`prunelab.sample` with ``"gibbs"``,
``prunelab-metropolis``,  ``"metropolis"`` (a draw is a sweep) and ``"prune"``
``prunelab-prune``        (a draw is one step).
========================  =========================================================

Timing. ``seconds`` is each sampler's own sampling time: building, compiling and
pilot runs are excluded (they are in ``setup_seconds``). pyAgrum stops itself
(``setMaxTime``); pgmpy is stopped by the adapter's clock between sweeps; PyMC and
prunelab are run for ``rate * seconds`` draws, the rate measured by a short pilot,
so their actual ``seconds`` differ from the budget by the pilot's error.

pyAgrum is an optional extra (``pip install prunelab[peers]``); pgmpy and PyMC are
core dependencies. This module is the package's edge: it imports the peers lazily
and returns plain numpy values.

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", 2017 (the paper
   compares with PyMC's Gibbs and Metropolis samplers).
.. [2] J. S. Liu, "Peskun's theorem and a modified discrete-state Gibbs sampler",
   Biometrika 83(3), 1996 (the "Metropolized Gibbs sampler" behind PyMC's
   ``proposal="proportional"``).
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from .diagnostics import arviz_notice_ignored
from .exact import exact_marginals
from .network import BayesianNetwork

__all__ = [
    "PEER_SAMPLERS",
    "PGMPY_MAX_STATES",
    "PeerNotBuilt",
    "PeerRun",
    "SamplerInfo",
    "counterpart",
    "joint_state_count",
    "describe_state_count",
    "mean_hellinger",
    "start_state",
    "to_pyagrum",
    "pyagrum_available",
    "pyagrum_exact_marginals",
    "to_pymc",
    "to_pgmpy_gibbs",
    "pgmpy_nan_rows",
    "pgmpy_random_start",
    "run_pgmpy_gibbs",
    "run_pyagrum_gibbs",
    "pyagrum_default_gibbs",
    "run_pymc",
    "run_prunelab",
    "run_sampler",
    "pymc_categorical_draws",
    "pymc_categorical_frequencies",
    "metropolized_gibbs_as_coded",
    "metropolized_gibbs_liu",
]

PGMPY_MAX_STATES = 2**16
"""Largest joint state space (free variables) for which pgmpy's Gibbs sampler is built.

Its constructor reduces one factor per variable and per configuration of all the
other variables: ``sum_v S / |v|`` reductions for ``S`` joint states, about 0.1 ms
each (``block_chain``, ``4**10`` states, took 280 s). ``2**16`` keeps it under a
minute.
"""

PYAGRUM_UNLIMITED_ITERATIONS = 10**12
"""``setMaxIter`` under a time budget: never reached."""

PILOT_SECONDS = 0.05
"""Target length of the pilot run that measures a sampler's rate before a budget run."""

MAX_CHUNKS = 6
"""Most continuation chunks used to fill a budget (see :func:`_fill_budget`)."""

CHUNK_SHARE = 0.7
"""Share of the remaining budget each chunk aims at, so a rate misjudged by the pilot
(draw storage, other load) overshoots the budget little."""


class PeerNotBuilt(RuntimeError):
    """A peer sampler that is refused before construction (too large) or cannot be built."""


class SamplerInfo(NamedTuple):
    """What a sampler name means: its library, what one step is, and its prunelab counterpart."""

    library: str
    step_unit: str
    counterpart: str


PEER_SAMPLERS: dict[str, SamplerInfo] = {
    "pgmpy-gibbs": SamplerInfo("pgmpy", "sweep", "prunelab-gibbs"),
    "pyagrum-gibbs": SamplerInfo("pyagrum", "sweep", "prunelab-gibbs"),
    "pymc-cgm-uniform": SamplerInfo("pymc", "sweep", "prunelab-gibbs"),
    "pymc-cgm-proportional": SamplerInfo("pymc", "sweep", "prunelab-gibbs"),
    "pymc-metropolis": SamplerInfo("pymc", "sweep", "prunelab-metropolis"),
    "prunelab-gibbs": SamplerInfo("prunelab", "sweep", "prunelab-gibbs"),
    "prunelab-metropolis": SamplerInfo("prunelab", "sweep", "prunelab-metropolis"),
    "prunelab-prune": SamplerInfo("prunelab", "step", "prunelab-prune"),
}
"""Every sampler :func:`run_sampler` knows, in the order tables list them."""


def counterpart(sampler: str) -> str:
    """The prunelab sampler a peer's figures are divided by (Gibbs for Gibbs, ...)."""
    return _info(sampler).counterpart


def _info(sampler: str) -> SamplerInfo:
    try:
        return PEER_SAMPLERS[sampler]
    except KeyError:
        raise ValueError(f"unknown sampler {sampler!r}; known: {list(PEER_SAMPLERS)}") from None


class PeerRun(NamedTuple):
    """One chain of one sampler on one network and evidence.

    Attributes
    ----------
    sampler : str
        A key of :data:`PEER_SAMPLERS`.
    status : str
        ``"ok"``; ``"not built"`` (refused or failed before sampling: see ``note``);
        ``"crashed"`` (raised while sampling); ``"not installed"``.
    n_steps : int
        Sweeps (or steps, see :data:`PEER_SAMPLERS`) done; 0 unless ``status == "ok"``.
    seconds : float
        Sampling time of those steps (NaN when none ran).
    setup_seconds : float
        Building, compiling and pilot time, not part of ``seconds``.
    marginals : dict of str to numpy.ndarray, or None
        Estimated ``P(X | e)`` of every free variable (empirical frequencies of the
        draws; pyAgrum's own estimate for ``pyagrum-gibbs``).
    move_rate : float
        Share of steps after which the state differs from the one before (NaN
        where the draws are not seen, i.e. pyAgrum).
    note : str
        What went wrong, or what the reader should know (e.g. pgmpy's NaN rows).
    warnings : tuple of str
        Runtime and user warnings the peer raised during the run (recorded here
        rather than shown; deprecation warnings are passed on).
    """

    sampler: str
    status: str
    n_steps: int = 0
    seconds: float = math.nan
    setup_seconds: float = math.nan
    marginals: dict | None = None
    move_rate: float = math.nan
    note: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def steps_per_second(self) -> float:
        """``n_steps / seconds`` (NaN when nothing ran)."""
        if self.status != "ok" or not self.seconds > 0:
            return math.nan
        return self.n_steps / self.seconds

    def mean_hellinger(self, exact: Mapping[str, np.ndarray]) -> float:
        """Mean over free variables of the Hellinger distance to ``exact`` (NaN if no estimate)."""
        if self.marginals is None:
            return math.nan
        return mean_hellinger(self.marginals, exact)


# --------------------------------------------------------------------------- helpers
def mean_hellinger(estimates: Mapping[str, np.ndarray], exact: Mapping[str, np.ndarray]) -> float:
    """Average Hellinger distance over the free variables: ``mean_X H(estimate_X, P(X | e))``.

    Parameters
    ----------
    estimates, exact : mapping of str to array
        Keyed by the free variables (``exact`` decides which); states in network order.

    Examples
    --------
    >>> import numpy as np
    >>> mean_hellinger({"A": np.array([1.0, 0.0])}, {"A": np.array([0.0, 1.0])})
    1.0
    """
    from .indicators import hellinger

    return float(np.mean([hellinger(np.asarray(estimates[v], float), exact[v]) for v in exact]))


def joint_state_count(bn: BayesianNetwork, evidence: Mapping | None = None) -> int:
    """Number of joint states of the free variables (an exact Python int).

    Examples
    --------
    >>> from prunelab import load_network
    >>> joint_state_count(load_network("asia"))
    256
    >>> joint_state_count(load_network("asia"), {"lung": "yes"})
    128
    """
    observed = {bn.variables[i] for i in bn.evidence_indices(evidence)}
    return math.prod(len(bn.states[v]) for v in bn.variables if v not in observed)


def describe_state_count(count: int) -> str:
    """``2^k`` for a power of two, else ``2^k.k`` (log2 to one decimal).

    Examples
    --------
    >>> describe_state_count(2**37), describe_state_count(3 * 2**10)
    ('2^37', '2^11.6')
    """
    if count > 0 and count & (count - 1) == 0:
        return f"2^{count.bit_length() - 1}"
    return f"2^{math.log2(count):.1f}"


def start_state(bn: BayesianNetwork, evidence: Mapping | None = None, seed=None) -> np.ndarray:
    """A feasible start (``P(x, e) > 0``) by prunelab's forward sampling: one per seed.

    The comparison gives this same start to every sampler that accepts one (pgmpy,
    PyMC, prunelab); pyAgrum draws its own (forward sampling with the evidence
    clamped, which may be infeasible).

    Returns
    -------
    numpy.ndarray of int64, state indices in ``bn.variables`` order, evidence set.
    """
    from .samplers.init import initial_state

    return np.asarray(initial_state(np.random.default_rng(seed), bn, evidence=evidence), dtype=np.int64)


def _seed_int(seed, salt: int) -> int:
    """A positive 31-bit integer seed for a peer that takes one, from ``(seed, salt)``."""
    return int(np.random.SeedSequence(seed, spawn_key=(salt,)).generate_state(1)[0] % (2**31 - 2)) + 1


class _Tally:
    """Running counts of the free variables' states over consecutive chunks of one chain."""

    def __init__(self, bn: BayesianNetwork, free: list[str], start: np.ndarray):
        self.columns = [bn.index(v) for v in free]
        self.free = free
        self.counts = [np.zeros(len(bn.states[v]), dtype=np.int64) for v in free]
        self.last = np.asarray(start, dtype=np.int64)
        self.n_steps = 0
        self.n_moves = 0
        self.seconds = 0.0

    def add(self, draws: np.ndarray, seconds: float) -> None:
        """``draws``: (n, n_variables) state indices in network order, following ``self.last``."""
        if draws.shape[0] == 0:
            return
        for counts, c in zip(self.counts, self.columns):
            counts += np.bincount(draws[:, c].astype(np.intp), minlength=counts.size)
        self.n_moves += int(np.any(draws[0] != self.last))
        self.n_moves += int(np.count_nonzero(np.any(draws[1:] != draws[:-1], axis=1)))
        self.n_steps += int(draws.shape[0])
        self.last = np.asarray(draws[-1], dtype=np.int64)
        self.seconds += float(seconds)

    def marginals(self) -> dict[str, np.ndarray]:
        return {v: c / c.sum() for v, c in zip(self.free, self.counts)}

    @property
    def move_rate(self) -> float:
        return self.n_moves / self.n_steps if self.n_steps else math.nan


def _fill_budget(draw, tally: _Tally, n_steps, seconds, pilot_start: int) -> float:
    """Draw ``n_steps``, or fill a time budget, through ``draw(n, start, salt) -> (draws, seconds)``.

    Under a budget, pilots of growing size (from ``pilot_start`` draws, not
    counted) measure the rate until one lasts :data:`PILOT_SECONDS`; then chunks
    of ``CHUNK_SHARE * rate * remaining`` draws continue the chain from its last
    state until at least 90 % of the budget is spent (at most :data:`MAX_CHUNKS`
    chunks; the rate is re-measured after each). Returns the setup time: pilots,
    and time outside the sampler's own clock.
    """
    t_start = time.perf_counter()
    if n_steps is not None:
        draws, elapsed = draw(int(n_steps), tally.last, 0)
        tally.add(draws, elapsed)
        return time.perf_counter() - t_start - tally.seconds
    n_pilot, salt = pilot_start, 1
    while True:
        _, pilot_seconds = draw(n_pilot, tally.last, salt)
        salt += 1
        if pilot_seconds >= PILOT_SECONDS or n_pilot >= 10**8:
            break
        n_pilot *= 8
    rate = n_pilot / max(pilot_seconds, 1e-9)
    for _ in range(MAX_CHUNKS):
        remaining = float(seconds) - tally.seconds
        if remaining <= 0.1 * float(seconds):
            break
        draws, elapsed = draw(max(1, round(CHUNK_SHARE * rate * remaining)), tally.last, salt)
        salt += 1
        tally.add(draws, elapsed)
        rate = draws.shape[0] / max(elapsed, 1e-9)
    return time.perf_counter() - t_start - tally.seconds


def _check_budget(n_steps, seconds) -> None:
    if (n_steps is None) == (seconds is None):
        raise ValueError("give exactly one of n_steps and seconds")
    if n_steps is not None and int(n_steps) < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}")
    if seconds is not None and not float(seconds) > 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")


@contextmanager
def _recording_warnings(sink: list[str]):
    """Record runtime/user warnings into ``sink``; pass deprecation warnings on."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, module=_module_of(w.filename))
        else:
            sink.append(f"{w.category.__name__}: {w.message}")


def _module_of(filename: str) -> str:
    """Dotted module name of a file under site-packages (so warning filters by module still apply)."""
    path = filename.replace("\\", "/")
    tail = path.split("site-packages/")[-1] if "site-packages/" in path else path.rsplit("/", 1)[-1]
    return tail.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


@contextmanager
def _quiet_loggers(*names: str, level: int = logging.ERROR):
    loggers = [logging.getLogger(n) for n in names]
    before = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(level)
    try:
        yield
    finally:
        for lg, lvl in zip(loggers, before):
            lg.setLevel(lvl)


def _unique(messages: list[str], limit: int = 5) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    for m in messages:
        seen[m] = seen.get(m, 0) + 1
    return tuple(f"{m} (x{k})" if k > 1 else m for m, k in list(seen.items())[:limit])


def _crash_note(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"[:300]


# --------------------------------------------------------------------------- pyAgrum
def _import_pyagrum():
    try:
        with warnings.catch_warnings():
            # pyAgrum's SWIG types warn at import; raised as errors (-W error) they
            # crash the extension's initialisation with a segmentation fault.
            warnings.filterwarnings("ignore", r"builtin type \w+ has no __module__ attribute", DeprecationWarning)
            import pyagrum as gum
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("pyAgrum is an optional peer: pip install 'prunelab[peers]'") from exc
    return gum


def pyagrum_available() -> bool:
    """Whether pyAgrum can be imported (the optional extra ``prunelab[peers]``).

    Without it, :func:`run_pyagrum_gibbs` and :func:`pyagrum_default_gibbs` return a
    run with status ``"not installed"``, and :func:`to_pyagrum` raises ``ImportError``.

    Examples
    --------
    >>> pyagrum_available() in (True, False)
    True
    """
    try:
        _import_pyagrum()
    except ImportError:
        return False
    return True


def to_pyagrum(bn: BayesianNetwork):
    """Convert to a ``pyagrum.BayesNet`` with the same names, states and CPTs.

    pyAgrum orders a CPT's variables as ``(child, parent_1, ..., parent_k)`` and its
    array view (``toarray``/``fillWith``) in the reverse of that order, while a
    prunelab CPT is ``(parent_1, ..., parent_k, child)``; each table is transposed
    by variable name, not by position.

    Examples
    --------
    >>> from prunelab import load_network
    >>> g = to_pyagrum(load_network("blood_pressure"))  # doctest: +SKIP
    >>> g.cpt("BloodPressure").names                   # doctest: +SKIP
    ('BloodPressure', 'Kidney', 'Lifestyle')
    """
    gum = _import_pyagrum()
    net = gum.BayesNet(bn.name)
    for v in bn.variables:
        net.add(gum.LabelizedVariable(v, v, list(bn.states[v])))
    for v in bn.variables:
        for p in bn.parents[v]:
            net.addArc(p, v)
    for v in bn.variables:
        table = net.cpt(v)
        axes = [*bn.parents[v], v]
        target = list(reversed(table.names))
        if sorted(target) != sorted(axes):
            raise RuntimeError(f"pyAgrum CPT of {v!r} has variables {table.names}, expected {axes}")
        table.fillWith(np.ascontiguousarray(np.transpose(bn.cpts[v], [axes.index(n) for n in target])))
    return net


def pyagrum_exact_marginals(bn: BayesianNetwork, evidence: Mapping | None = None) -> dict[str, np.ndarray]:
    """Exact ``P(X | e)`` of every free variable by ``pyagrum.LazyPropagation`` (a cross-check)."""
    gum = _import_pyagrum()
    inference = gum.LazyPropagation(to_pyagrum(bn))
    ev = bn.evidence_names(evidence)
    if ev:
        inference.setEvidence(dict(ev))
    inference.makeInference()
    return {v: np.asarray(inference.posterior(v).toarray(), float) for v in bn.variables if v not in ev}


def run_pyagrum_gibbs(bn: BayesianNetwork, evidence: Mapping | None = None, *, n_steps: int | None = None,
                      seconds: float | None = None, burn_in: int = 0, seed=None) -> PeerRun:
    """pyAgrum's ``GibbsSampling`` for a fixed number of sweeps or seconds, no early stop.

    One iteration is made a systematic sweep (``setNbrDrawnVar(n_free)``,
    ``setDrawnAtRandom(False)``; pyAgrum's default draws ``1 + n/2`` variables at
    random per iteration). The convergence rules are checked once per period, and
    ``setEpsilon(0)`` alone does not switch them off (a chain that has not moved
    has width ``0 <= 0``); so the epsilon and rate thresholds are 0 *and* the
    period is the whole run: only ``setMaxIter`` or ``setMaxTime`` stops it.
    The start is pyAgrum's own: forward sampling with the evidence clamped.

    Parameters
    ----------
    n_steps, seconds : exactly one of them
        Sweeps (``setMaxIter``) or a time limit (``setMaxTime``).
    burn_in : int, default 0
        ``setBurnIn``: sweeps not counted in the estimate (nor in ``n_steps``).
    seed : int, optional
        Seeds pyAgrum's global generator (``pyagrum.initRandom``).
    """
    _check_budget(n_steps, seconds)
    try:
        gum = _import_pyagrum()
    except ImportError as exc:
        return PeerRun("pyagrum-gibbs", "not installed", note=str(exc))
    ev = bn.evidence_names(evidence)
    free = [v for v in bn.variables if v not in ev]
    t0 = time.perf_counter()
    net = to_pyagrum(bn)
    gum.initRandom(_seed_int(seed, 1))
    inference = gum.GibbsSampling(net)
    if ev:
        inference.setEvidence(dict(ev))
    inference.setVerbosity(False)
    inference.setEpsilon(0.0)
    inference.setMinEpsilonRate(0.0)
    inference.setBurnIn(int(burn_in))
    inference.setNbrDrawnVar(len(free))
    inference.setDrawnAtRandom(False)
    # epsilon = 0 is not off: a chain that has not moved has width 0 <= 0 and stops at
    # the first check. Checks (epsilon, rate and maxIter) run once per period, the
    # time limit at every iteration; so the period is the whole run.
    if n_steps is not None:
        inference.setMaxIter(max(2, int(n_steps)))  # pyAgrum refuses maxIter <= 1
        inference.setPeriodSize(max(2, int(n_steps)))
        inference.setMaxTime(1e9)
    else:
        inference.setMaxIter(PYAGRUM_UNLIMITED_ITERATIONS)
        inference.setPeriodSize(PYAGRUM_UNLIMITED_ITERATIONS)
        inference.setMaxTime(float(seconds))
    setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    inference.makeInference()
    elapsed = time.perf_counter() - t0
    marginals = {v: np.asarray(inference.posterior(v).toarray(), float) for v in free}
    return PeerRun(
        "pyagrum-gibbs", "ok", int(inference.nbrIterations()), elapsed, setup, marginals,
        note=f"pyAgrum: {inference.messageApproximationScheme()}",
    )


def pyagrum_default_gibbs(bn: BayesianNetwork, evidence: Mapping | None = None, seed=None) -> PeerRun:
    """pyAgrum's ``GibbsSampling`` exactly as constructed: its own stopping rules decide.

    The default rule stops when the estimator's "epsilon" (a confidence width
    computed as if draws were independent) falls below ``exp(-1.6)`` or changes too
    slowly; autocorrelation is ignored, so a chain trapped in one state of
    ``deterministic_pair`` (``B = A``) has width 0 and is declared converged with
    ``P(A) = (1, 0)`` where the truth is ``(0.5, 0.5)``.

    Examples
    --------
    >>> from prunelab import load_network, exact_marginals
    >>> bn = load_network("deterministic_pair")
    >>> run = pyagrum_default_gibbs(bn, seed=0)            # doctest: +SKIP
    >>> run.marginals["A"], run.note                         # doctest: +SKIP
    (array([0., 1.]), 'pyAgrum: stopped with epsilon=0.2019')
    """
    try:
        gum = _import_pyagrum()
    except ImportError as exc:
        return PeerRun("pyagrum-gibbs", "not installed", note=str(exc))
    ev = bn.evidence_names(evidence)
    net = to_pyagrum(bn)
    gum.initRandom(_seed_int(seed, 2))
    inference = gum.GibbsSampling(net)
    if ev:
        inference.setEvidence(dict(ev))
    t0 = time.perf_counter()
    inference.makeInference()
    elapsed = time.perf_counter() - t0
    marginals = {v: np.asarray(inference.posterior(v).toarray(), float) for v in bn.variables if v not in ev}
    return PeerRun("pyagrum-gibbs", "ok", int(inference.nbrIterations()), elapsed, 0.0, marginals,
                   note=f"pyAgrum default rules: {inference.messageApproximationScheme()}")


# --------------------------------------------------------------------------- pgmpy
def _check_pgmpy_size(bn: BayesianNetwork, evidence: Mapping | None, max_states: int) -> None:
    count = joint_state_count(bn, evidence)
    if count > max_states:
        raise PeerNotBuilt(f"not built: {describe_state_count(count)} states (limit {describe_state_count(max_states)})")


def to_pgmpy_gibbs(bn: BayesianNetwork, evidence: Mapping | None = None, max_states: int = PGMPY_MAX_STATES):
    """pgmpy's ``GibbsSampling`` for ``bn`` given ``evidence``, refused when too large.

    pgmpy's constructor tabulates, for every variable, its conditional given *each*
    joint state of all the other variables (not of its Markov blanket), so time and
    memory grow like the joint state space. The size is checked first and a
    :class:`PeerNotBuilt` is raised, without building anything, above ``max_states``.

    pgmpy's Gibbs sampler takes no evidence. With evidence, every CPD factor is
    reduced by it and the sampler is built on the resulting Markov network of the
    free variables (pgmpy's ``DiscreteMarkovNetwork`` path; same kernel).

    Raises
    ------
    PeerNotBuilt
        ``"not built: 2^k states"`` when the free variables have more than
        ``max_states`` joint states.
    """
    _check_pgmpy_size(bn, evidence, max_states)
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork
    from pgmpy.sampling import GibbsSampling

    from .io import to_pgmpy

    ev = bn.evidence_indices(evidence)
    if not ev:
        return GibbsSampling(to_pgmpy(bn))
    observed = {bn.variables[i]: s for i, s in ev.items()}
    factors = []
    for v in bn.variables:  # each CPT reduced by the evidence, as a factor over its free variables
        scope = [*bn.parents[v], v]
        table = bn.cpts[v][tuple(observed.get(u, slice(None)) for u in scope)]
        free_scope = [u for u in scope if u not in observed]
        if free_scope:  # state indices as state names: pgmpy's kernel builder reduces by index
            factors.append(DiscreteFactor(free_scope, list(table.shape), np.ascontiguousarray(table).ravel()))
    free = [v for v in bn.variables if v not in observed]
    markov = DiscreteMarkovNetwork()
    markov.add_nodes_from(free)
    for factor in factors:
        scope = factor.scope()
        markov.add_edges_from((a, b) for i, a in enumerate(scope) for b in scope[i + 1:])
    markov.add_factors(*factors)
    return GibbsSampling(markov)


def pgmpy_nan_rows(gibbs) -> tuple[int, int]:
    """``(rows with NaN, rows)`` of a pgmpy Gibbs sampler's transition tables.

    A row is NaN where all states of the variable have probability zero given the
    other variables (``0 / 0``): on networks with deterministic CPTs, at every
    infeasible configuration of the others. A chain that visits one crashes
    (``ValueError: probabilities contain NaN``).
    """
    nan = total = 0
    for kernel in gibbs.transition_models.values():
        for row in kernel.values():
            total += 1
            nan += bool(np.isnan(np.asarray(row, float)).any())
    return nan, total


def _pgmpy_build(bn, evidence, max_states, sink):
    _check_pgmpy_size(bn, evidence, max_states)  # before importing pgmpy: refusing is instant
    import pgmpy.models  # noqa: F401 - import-time deprecations go to the usual filters, not the sink
    import pgmpy.sampling  # noqa: F401

    with _recording_warnings(sink), _quiet_loggers("pgmpy"):
        return to_pgmpy_gibbs(bn, evidence, max_states)


def pgmpy_random_start(bn: BayesianNetwork, evidence: Mapping | None = None, n_steps: int = 50, seed=None,
                       max_states: int = PGMPY_MAX_STATES) -> PeerRun:
    """pgmpy's Gibbs sampler from its own default start (uniformly random): does it run?

    On networks with determinism the random start is usually infeasible and the
    first NaN row it meets raises ``ValueError``; the run is then ``"crashed"``.
    """
    sink: list[str] = []
    try:
        gibbs = _pgmpy_build(bn, evidence, max_states, sink)
    except PeerNotBuilt as exc:
        return PeerRun("pgmpy-gibbs", "not built", note=str(exc))
    np.random.seed(_seed_int(seed, 3))  # pgmpy draws from numpy's global generator
    try:
        with _recording_warnings(sink), _quiet_loggers("pgmpy"):
            states = [tuple(s for _, s in st) for st in gibbs.generate_sample(size=n_steps, include_latents=True)]
    except Exception as exc:  # noqa: BLE001 - the crash is the finding
        return PeerRun("pgmpy-gibbs", "crashed", note="random start: " + _crash_note(exc), warnings=_unique(sink))
    return PeerRun("pgmpy-gibbs", "ok", len(states), note="random start ran", warnings=_unique(sink))


def run_pgmpy_gibbs(bn: BayesianNetwork, evidence: Mapping | None = None, *, n_steps: int | None = None,
                    seconds: float | None = None, seed=None, start=None,
                    max_states: int = PGMPY_MAX_STATES, cache: dict | None = None) -> PeerRun:
    """pgmpy's ``GibbsSampling`` from a feasible start, for sweeps or seconds.

    Driven through ``generate_sample`` (``sample`` always shows a progress bar); the
    adapter's clock stops it between sweeps. One warm-up sweep is neither timed
    nor counted. pgmpy draws from numpy's *global* generator, which is seeded
    here from ``seed``.

    Parameters
    ----------
    start : array_like of int, optional
        State indices in ``bn.variables`` order (default: :func:`start_state`).
    max_states : int
        See :func:`to_pgmpy_gibbs`; above it the run is ``"not built"``.
    cache : dict, optional
        Keeps the built sampler between calls on the same network and evidence.
    """
    _check_budget(n_steps, seconds)
    ev = bn.evidence_names(evidence)
    free = [v for v in bn.variables if v not in ev]
    x0 = start_state(bn, evidence, seed) if start is None else np.asarray(start, dtype=np.int64)
    sink: list[str] = []
    key = ("pgmpy", id(bn), tuple(sorted(ev.items())), max_states)
    if cache is not None and key in cache:
        gibbs, setup = cache[key]
    else:
        t0 = time.perf_counter()
        try:
            gibbs = _pgmpy_build(bn, evidence, max_states, sink)
        except PeerNotBuilt as exc:
            return PeerRun("pgmpy-gibbs", "not built", note=str(exc))
        setup = time.perf_counter() - t0
        if cache is not None:
            cache[key] = (gibbs, setup)
    nan, total = pgmpy_nan_rows(gibbs)
    note = f"{nan} of {total} transition rows are NaN"
    from pgmpy.factors.discrete import State

    order = [str(v) for v in gibbs.variables]
    columns = np.array([bn.index(v) for v in order])
    np.random.seed(_seed_int(seed, 3))  # pgmpy draws from numpy's global generator
    size = int(n_steps) if n_steps is not None else 2**62
    limit = math.inf if seconds is None else float(seconds)
    rows: list[tuple[int, ...]] = []
    try:
        with _recording_warnings(sink), _quiet_loggers("pgmpy"):
            generator = gibbs.generate_sample(
                start_state=[State(v, int(x0[bn.index(v)])) for v in order], size=size + 1, include_latents=True)
            first = next(generator)  # warm-up sweep (lazy imports, first lookups), not timed or counted
            x0 = x0.copy()
            x0[columns] = [s for _, s in first]
            t0 = time.perf_counter()
            for sweep in generator:
                rows.append(tuple(s for _, s in sweep))
                if time.perf_counter() - t0 >= limit:
                    break
            elapsed = time.perf_counter() - t0
    except Exception as exc:  # noqa: BLE001 - a crash is reported, not raised
        return PeerRun("pgmpy-gibbs", "crashed", setup_seconds=setup, note=f"{note}; {_crash_note(exc)}",
                       warnings=_unique(sink))
    draws = np.tile(x0, (len(rows), 1))
    draws[:, columns] = np.asarray(rows, dtype=np.int64).reshape(len(rows), len(order))
    tally = _Tally(bn, free, x0)
    tally.add(draws, elapsed)
    return PeerRun("pgmpy-gibbs", "ok", tally.n_steps, elapsed, setup, tally.marginals(), tally.move_rate, note,
                   _unique(sink))


# --------------------------------------------------------------------------- PyMC
def _pymc():
    """PyMC, imported without ArviZ's once-a-day notice (PyMC imports ArviZ)."""
    with arviz_notice_ignored():
        import pymc

    return pymc


PYMC_STEPS = {
    "pymc-cgm-uniform": "uniform",
    "pymc-cgm-proportional": "proportional",
    "pymc-metropolis": "metropolis",
}


def to_pymc(bn: BayesianNetwork, evidence: Mapping | None = None):
    """A PyMC model: one ``pm.Categorical`` per variable, ``p`` indexed by the parents.

    Variable ``X`` with parents ``(P1, ..., Pk)`` is
    ``pm.Categorical("X", p=cpt[P1, ..., Pk])`` with ``cpt`` a pytensor constant of
    shape ``(|P1|, ..., |Pk|, |X|)``; observed variables get ``observed=`` their
    state index. Parent values are clipped into range before indexing: a proposal
    outside a parent's support (``pm.Metropolis`` rounds a normal step) then gets
    ``logp = -inf`` from the parent's own term instead of an ``IndexError`` in the
    child's; inside the support the clip changes nothing.

    Returns
    -------
    pymc.Model
        Its ``logp`` at a full state is ``log P(x)`` (with evidence, ``log P(x, e)``).
    """
    pm = _pymc()
    import pytensor.tensor as pt

    ev = bn.evidence_names(evidence)
    with pm.Model(name="") as model:
        nodes = {}
        for v in bn.variables:
            table = pt.constant(np.asarray(bn.cpts[v], dtype=np.float64))
            index = tuple(pt.clip(nodes[p], 0, len(bn.states[p]) - 1) for p in bn.parents[v])
            p = table[index] if index else table
            observed = bn.states[v].index(ev[v]) if v in ev else None
            nodes[v] = pm.Categorical(v, p=p, observed=observed)
    return model


def _pymc_step(model, kind: str):
    pm = _pymc()

    with model:
        if kind == "metropolis":
            return pm.Metropolis(model.free_RVs)
        return pm.CategoricalGibbsMetropolis(model.free_RVs, proposal=kind)


def _pymc_draws(model, step, bn, x0, n_draws, seed) -> tuple[np.ndarray, float]:
    """(draws (n_draws, n_variables) in network order, PyMC's ``sampling_time``) from ``x0``."""
    pm = _pymc()

    free = [v.name for v in model.free_RVs]
    with model:
        idata = pm.sample(draws=int(n_draws), tune=0, step=step, chains=1, cores=1, random_seed=seed,
                          initvals={v: np.int64(x0[bn.index(v)]) for v in free},
                          progressbar=False, compute_convergence_checks=False)
    posterior = idata.posterior
    draws = np.tile(np.asarray(x0, dtype=np.int64), (int(n_draws), 1))
    for v in free:
        draws[:, bn.index(v)] = np.asarray(posterior[v].values[0], dtype=np.int64)
    return draws, float(posterior.attrs["sampling_time"])


def run_pymc(bn: BayesianNetwork, evidence: Mapping | None = None, sampler: str = "pymc-cgm-uniform", *,
             n_steps: int | None = None, seconds: float | None = None, seed=None, start=None,
             cache: dict | None = None) -> PeerRun:
    """A PyMC step method on :func:`to_pymc`'s model: ``pm.sample(chains=1, tune=0)``.

    Parameters
    ----------
    sampler : {"pymc-cgm-uniform", "pymc-cgm-proportional", "pymc-metropolis"}
    n_steps, seconds : exactly one of them
        Draws, or a budget filled by pilot-measured chunks that continue the chain
        from its last draw (see :func:`_fill_budget`); ``seconds`` adds up PyMC's
        own ``sampling_time`` of the counted chunks.
    start : array_like of int, optional
        Passed as ``initvals`` (default :func:`start_state`). PyMC's own initial
        point (each variable's mode given its parents' modes) can be infeasible.
    cache : dict, optional
        Keeps the compiled model and step between calls on the same network,
        evidence and sampler (e.g. across budgets); ``setup_seconds`` is then
        the compile time of the first call.

    Notes
    -----
    Compiling the step (in ``setup_seconds``) is not timed: ``pm.Metropolis`` builds
    one step method, and compiles one ``logp`` difference, per variable.
    """
    if sampler not in PYMC_STEPS:
        raise ValueError(f"unknown PyMC sampler {sampler!r}; known: {list(PYMC_STEPS)}")
    _check_budget(n_steps, seconds)
    ev = bn.evidence_names(evidence)
    free = [v for v in bn.variables if v not in ev]
    x0 = start_state(bn, evidence, seed) if start is None else np.asarray(start, dtype=np.int64)
    sink: list[str] = []
    key = ("pymc", id(bn), tuple(sorted(ev.items())), sampler)
    if cache is not None and key in cache:
        model, step, setup = cache[key]
    else:
        t0 = time.perf_counter()
        _pymc()  # import-time deprecations go to the usual filters, not the sink

        try:
            with _recording_warnings(sink), _quiet_loggers("pymc", "pytensor"):
                model = to_pymc(bn, evidence)
                step = _pymc_step(model, PYMC_STEPS[sampler])
        except Exception as exc:  # noqa: BLE001
            return PeerRun(sampler, "not built", setup_seconds=time.perf_counter() - t0, note=_crash_note(exc),
                           warnings=_unique(sink))
        setup = time.perf_counter() - t0
        if cache is not None:
            cache[key] = (model, step, setup)
    tally = _Tally(bn, free, x0)

    def draw(n, start_from, salt):
        return _pymc_draws(model, step, bn, start_from, n, _seed_int(seed, 100 + salt))

    try:
        with _recording_warnings(sink), _quiet_loggers("pymc", "pytensor"):
            setup += _fill_budget(draw, tally, n_steps, seconds, pilot_start=5)
    except Exception as exc:  # noqa: BLE001 - a crash is reported, not raised
        return PeerRun(sampler, "crashed", setup_seconds=setup, note=_crash_note(exc), warnings=_unique(sink))
    return PeerRun(sampler, "ok", tally.n_steps, tally.seconds, setup, tally.marginals(), tally.move_rate,
                   warnings=_unique(sink))


# --------------------------------------------------------------------------- prunelab
def run_prunelab(bn: BayesianNetwork, evidence: Mapping | None = None, sampler: str = "prunelab-gibbs", *,
                 n_steps: int | None = None, seconds: float | None = None, seed=None, start=None) -> PeerRun:
    """prunelab's own sampler through :func:`prunelab.sample`, one chain, same interface.

    Under a budget, pilot-measured chunks continue the chain from its last draw
    (see :func:`_fill_budget`); ``seconds`` adds up the chunks' ``sample_seconds``
    (the chain only: compiling the network and the sampler's plan for each call
    is in ``setup_seconds``).
    """
    from .samplers import get_method
    from .sampling import sample

    method = sampler.removeprefix("prunelab-")
    if f"prunelab-{method}" not in PEER_SAMPLERS:
        raise ValueError(f"unknown prunelab sampler {sampler!r}")
    _check_budget(n_steps, seconds)
    ev = bn.evidence_names(evidence)
    free = [v for v in bn.variables if v not in ev]
    x0 = start_state(bn, evidence, seed) if start is None else np.asarray(start, dtype=np.int64)
    options = {}
    if getattr(get_method(method), "RAO_BLACKWELL", False):
        options["rb_checkpoints"] = np.zeros(0, dtype=np.int64)  # plain frequencies: no running sums

    def draw(n, start_from, salt):
        result = sample(bn, method, int(n), evidence=evidence, init=start_from, seed=_seed_int(seed, 200 + salt),
                        traps="off", **options)  # chunks of one chain: a trap check per chunk means nothing
        return result.draws[0], float(result.sample_seconds.sum())

    t0 = time.perf_counter()
    draw(1, x0, 99)  # numba compile and warm-up, outside the timing
    warm = time.perf_counter() - t0
    tally = _Tally(bn, free, x0)
    setup = warm + _fill_budget(draw, tally, n_steps, seconds, pilot_start=100)
    return PeerRun(sampler, "ok", tally.n_steps, tally.seconds, setup, tally.marginals(), tally.move_rate)


# --------------------------------------------------------------------------- dispatch
def run_sampler(sampler: str, bn: BayesianNetwork, evidence: Mapping | None = None, *, n_steps: int | None = None,
                seconds: float | None = None, seed=None, start=None, cache: dict | None = None) -> PeerRun:
    """Run any sampler of :data:`PEER_SAMPLERS` by name (one chain); see the runners.

    ``cache`` (a dict the caller keeps) lets pgmpy and PyMC reuse what they built
    for the same network, evidence and sampler; the others ignore it.

    Examples
    --------
    >>> from prunelab import load_network, exact_marginals
    >>> bn = load_network("blood_pressure")
    >>> run = run_sampler("prunelab-gibbs", bn, n_steps=2000, seed=1)
    >>> run.status, run.n_steps
    ('ok', 2000)
    >>> run.mean_hellinger(exact_marginals(bn)) < 0.05
    True
    """
    library = _info(sampler).library
    if library == "prunelab":
        return run_prunelab(bn, evidence, sampler, n_steps=n_steps, seconds=seconds, seed=seed, start=start)
    if library == "pymc":
        return run_pymc(bn, evidence, sampler, n_steps=n_steps, seconds=seconds, seed=seed, start=start, cache=cache)
    if library == "pgmpy":
        return run_pgmpy_gibbs(bn, evidence, n_steps=n_steps, seconds=seconds, seed=seed, start=start, cache=cache)
    return run_pyagrum_gibbs(bn, evidence, n_steps=n_steps, seconds=seconds, seed=seed)


# --------------------------------------------------------------------------- PyMC's proportional proposal
def pymc_categorical_draws(p, n_draws: int = 5000, proposal: str = "proportional", seed: int = 0,
                           initval: int | None = None) -> np.ndarray:
    """Draws of ``CategoricalGibbsMetropolis`` on a single ``pm.Categorical("x", p)``.

    Returns
    -------
    numpy.ndarray of int64, shape (n_draws,)

    See Also
    --------
    pymc_categorical_frequencies
    """
    pm = _pymc()

    p = np.asarray(p, dtype=np.float64)
    with _quiet_loggers("pymc"), pm.Model():
        x = pm.Categorical("x", p=p)
        step = pm.CategoricalGibbsMetropolis([x], proposal=proposal)
        idata = pm.sample(draws=int(n_draws), tune=0, step=step, chains=1, cores=1, random_seed=seed,
                          initvals=None if initval is None else {"x": np.int64(initval)},
                          progressbar=False, compute_convergence_checks=False)
    return np.asarray(idata.posterior["x"].values[0], dtype=np.int64)


def pymc_categorical_frequencies(p, n_draws: int = 5000, proposal: str = "proportional", seed: int = 0) -> np.ndarray:
    """Share of each category among PyMC's draws of one ``Categorical(p)``: should be ``p``.

    A minimal reproduction, without any network, of what we found in
    ``CategoricalGibbsMetropolis(proposal="proportional")`` on pymc 5.28.5: the
    chain does not target ``p``. For ``p = [0.5, 0.5]`` it never moves; for
    ``p = [0.6, 0.3, 0.1]`` it samples about ``[0.48, 0.41, 0.11]``.
    ``proposal="uniform"`` gives ``p``. Standalone::

        import numpy as np, pymc as pm

        for p in ([0.5, 0.5], [0.6, 0.3, 0.1]):
            for proposal in ("proportional", "uniform"):
                with pm.Model():
                    x = pm.Categorical("x", p=np.array(p))
                    step = pm.CategoricalGibbsMetropolis([x], proposal=proposal)
                    idata = pm.sample(draws=5000, tune=0, step=step, chains=1, cores=1,
                                      random_seed=0, progressbar=False,
                                      compute_convergence_checks=False)
                draws = idata.posterior["x"].values.ravel()
                print(p, proposal, np.bincount(draws, minlength=len(p)) / draws.size)

    The cause, in ``CategoricalGibbsMetropolis.metropolis_proportional``: the
    proposal is Liu's (1996) Metropolized Gibbs sampler, ``j != i`` with
    probability ``p_j / (1 - p_i)``, to be accepted with ``(1 - p_i) / (1 - p_j)``.
    The code renormalises ``probs`` in place before computing the ratio, so it
    uses ``1 - p_j / (1 - p_i)`` instead of ``1 - p_j``. With two categories that
    denominator is 0, the ratio is infinite, and ``not np.isfinite`` rejects every
    proposal; with three it converges to :func:`metropolized_gibbs_as_coded`'s
    stationary distribution. Keeping ``p_j`` before renormalising fixes it. When
    the current category has probability 1 (a deterministic conditional), the
    renormalisation divides by zero and ``rng.choice`` raises "Probabilities
    contain NaN".

    Returns
    -------
    numpy.ndarray
        Frequencies of the categories (length ``len(p)``).
    """
    draws = pymc_categorical_draws(p, n_draws, proposal, seed)
    return np.bincount(draws, minlength=len(p)) / draws.size


def _metropolized_gibbs(p, as_coded: bool) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=np.float64)
    k = p.size
    transition = np.zeros((k, k))
    for i in range(k):
        q = p.copy()
        q[i] = 0.0
        q /= 1.0 - p[i]
        for j in range(k):
            if j == i:
                continue
            denominator = 1.0 - (q[j] if as_coded else p[j])
            ratio = (1.0 - p[i]) / denominator if denominator > 0 else math.inf
            transition[i, j] = q[j] * (min(1.0, ratio) if math.isfinite(ratio) else 0.0)
        transition[i, i] = 1.0 - transition[i].sum()
    values, vectors = np.linalg.eig(transition.T)
    stationary = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    return transition, stationary / stationary.sum()


def metropolized_gibbs_as_coded(p) -> tuple[np.ndarray, np.ndarray]:
    """Transition matrix and stationary distribution of PyMC 5.28.5's ``proportional`` step.

    The kernel as the code computes it (acceptance ``(1 - p_i) / (1 - q_j)`` with
    ``q`` the renormalised proposal, and an infinite ratio rejected). Its
    stationary distribution is not ``p``: for ``[0.6, 0.3, 0.1]`` it is about
    ``[0.480, 0.408, 0.112]``; for two categories the kernel is the identity.

    Examples
    --------
    >>> _, s = metropolized_gibbs_as_coded([0.6, 0.3, 0.1])
    >>> s.round(3).tolist()
    [0.48, 0.408, 0.112]
    >>> metropolized_gibbs_as_coded([0.5, 0.5])[0].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _metropolized_gibbs(p, as_coded=True)


def metropolized_gibbs_liu(p) -> tuple[np.ndarray, np.ndarray]:
    """Transition matrix and stationary distribution of Liu's (1996) Metropolized Gibbs sampler.

    The kernel ``CategoricalGibbsMetropolis(proposal="proportional")`` means to
    implement; its stationary distribution is ``p``.

    Examples
    --------
    >>> _, s = metropolized_gibbs_liu([0.6, 0.3, 0.1])
    >>> s.round(12).tolist()
    [0.6, 0.3, 0.1]
    """
    return _metropolized_gibbs(p, as_coded=False)

