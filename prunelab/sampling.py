"""The front door: :func:`sample` runs chains of any registered sampler.

It owns what the kernels do not: seeds, initial states, parallelism over chains,
timing, and the result object. The kernels stay pure (see
:mod:`prunelab.samplers`).

Seeds
-----
``np.random.SeedSequence(seed).spawn(n_chains)`` gives one child per chain, and
each child spawns two: the first seeds the initial state, the second the chain.
A chain's numbers therefore depend on ``(seed, chain index)`` only, never on
``n_jobs`` or on the order in which workers finish.

A seed may be an int, a SeedSequence (copied, not advanced), a Generator (one child
is spawned from it, so the generator moves on) or None; see
:func:`prunelab.evidence.as_seed_sequence`, which :func:`prunelab.random_evidence`
uses too.

Traps
-----
Gibbs and Metropolis change one variable at a time; on deterministic networks they
can be trapped (the paper's Figures 1-2). :func:`sample` looks for two signs and
reports them in :attr:`SampleResult.trap` and, with ``traps="warn"`` (the default), in one
:class:`~prunelab.diagnostics.SamplerTrappedWarning` that names the variables:

* a free variable never changed in any chain although a state with another value
  and ``P(x, e) > 0`` exists, and no single-site move could have changed it from
  any state visited (so it is not bad luck in a short run, and not a variable the
  evidence fixes);
* chains disagree beyond what their ESS allows, among the chains in which the
  variable moves at all (:func:`~prunelab.diagnostics.chain_disagreement`: the chain means against the
  ESS that the chains' own moves imply, a chi-square test, with a Bonferroni bound over all
  tested indicators so that a healthy run warns with probability below
  :data:`~prunelab.diagnostics.TRAP_FALSE_ALARM`).

Memory
------
Before anything is allocated, the size of the result (draws, per-draw statistics,
Rao-Blackwell sums) and of the per-chain buffers is checked against ``max_bytes``
(default :data:`MAX_BYTES`).

Rao-Blackwell estimates
-----------------------
For samplers with ``RAO_BLACKWELL = True`` (Gibbs) the running sums of the
conditionals ``P(x_i | x_-i^(t))`` (the paper's eq. (1)) are recorded at
``rb_checkpoints`` only, by default :data:`DEFAULT_N_CHECKPOINTS` log-spaced draw
counts ending at ``n_samples`` (:func:`prunelab.checkpoints.log_checkpoints`). Memory:
``n_chains * len(rb_checkpoints) * sum(cardinalities) * 8`` bytes, 30 MB for 100
chains of win95pts. Pass ``rb_checkpoints=np.arange(1, n + 1)`` for every draw if
you can afford it; the empirical estimator always has every draw.
"""

from __future__ import annotations

import importlib
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .checkpoints import checked_checkpoints, log_checkpoints
from .compiled import CompiledNetwork, compile_network
from .deprecation import warn_renamed
from .diagnostics import TRAP_FALSE_ALARM, SamplerTrappedWarning, TrapReport, chain_disagreement
from .evidence import as_evidence, as_seed_sequence
from . import indicators
from .network import BayesianNetwork, EvidenceError
from .samplers import get_method
from .samplers.init import (
    INIT_METHODS,
    MAX_RESTARTS,
    can_take,
    hybrid_forward_kernel,
    initial_state,
    single_site_frozen,
    start_state_from,
)

__all__ = ["sample", "SampleResult", "default_checkpoints", "DEFAULT_N_CHECKPOINTS", "MAX_BYTES"]

DEFAULT_N_CHECKPOINTS = 200
"""Number of log-spaced Rao-Blackwell checkpoints recorded by default."""

MAX_BYTES = 4 * 2**30
"""Default cap (4 GiB) on the memory :func:`sample` plans to use; pass ``max_bytes`` to change it."""

_BYTES_PER_CHAIN = 4096
"""Bookkeeping per chain (seeds, job, timings, result dict), counted against ``max_bytes``."""

_STAT_BYTES_PER_DRAW = 16
"""Per-draw sampler statistics assumed per chain and draw (Metropolis: 8, prune: 9)."""

_TRAP_SPAWN = 2**32 - 1
"""Last spawn-key entry of the seed of the trap check's witness search (no chain has it)."""

_RESERVED_FIELDS = ("draws", "rb_checkpoints", "rb_sums")


def default_checkpoints(n_draws: int, n_points: int = DEFAULT_N_CHECKPOINTS) -> np.ndarray:
    """Deprecated: :func:`prunelab.checkpoints.log_checkpoints` with ``n_points=DEFAULT_N_CHECKPOINTS``."""
    warn_renamed("prunelab.sampling.default_checkpoints", "prunelab.checkpoints.log_checkpoints(n_draws, n_points)")
    return log_checkpoints(n_draws, n_points)


def _distinct_rows(rows: np.ndarray) -> np.ndarray:
    """The distinct rows of a 2-d integer array (compared as raw bytes, so in any order)."""
    rows = np.ascontiguousarray(rows)
    if rows.shape[0] == 0:
        return rows
    keep = np.ones(rows.shape[0], dtype=bool)
    keep[1:] = np.any(rows[1:] != rows[:-1], axis=1)  # runs of one state first: cheap, and common
    rows = np.ascontiguousarray(rows[keep])
    as_bytes = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first = np.unique(as_bytes, return_index=True)
    return rows[np.sort(first)]


def _draw_dtype(cardinality: np.ndarray):
    top = int(cardinality.max())
    for dtype in (np.int8, np.int16, np.int32):
        if top - 1 <= np.iinfo(dtype).max:
            return dtype
    return np.int64


# ------------------------------------------------------------------ the result
@dataclass(frozen=True, eq=False)
class SampleResult:
    """Draws of several chains and what is needed to read them.

    Attributes
    ----------
    draws : int array (chain, draw, variable)
        State indices in ``variables`` order, evidence variables fixed. The dtype
        is the smallest signed integer that holds every state index (usually
        ``int8``), to keep 100 chains of 25 000 draws in memory.
    variables : tuple of str
        ``bn.variables`` (topological order).
    states : mapping of str to tuple of str
        State names per variable.
    evidence : dict of str to str
        The evidence, states by name.
    method : str
    init_seconds, sample_seconds : float64 (chain,)
        Wall time of the initial state and of the chain, per chain, numba compile
        time excluded.
    initial_states : int64 (chain, variable)
        The start of each chain (not among ``draws``: draw 1 is after one sweep).
    init_methods : tuple of str
        Per chain: the initialiser used (``"exact"`` when forward sampling ran out
        of restarts, ``"given"`` for an explicit start).
    rb_checkpoints : int64 (checkpoint,) or None
        Draw counts at which Rao-Blackwell sums were recorded.
    rb_sums : float64 (chain, checkpoint, sum of cardinalities) or None
        Running sums of the conditionals; see :meth:`running_marginals`.
    stats : dict of str to array (chain, draw, ...)
        Per-draw sampler statistics, e.g. Metropolis ``n_accepted``.
    extras : dict of str to list (chain,)
        Other per-chain outputs of the sampler.
    seed_entropy : int
        Entropy of the root ``SeedSequence``; ``sample(..., seed=seed_entropy)``
        reproduces the run when the seed was an int or None.
    seed_spawn_key : tuple of int
        Spawn key of the root ``SeedSequence`` (not empty when the seed was a
        Generator or a spawned SeedSequence): ``seed=np.random.SeedSequence(
        seed_entropy, spawn_key=seed_spawn_key)`` reproduces the run.
    trap : TrapReport
        Variables stuck or disagreeing across chains; see
        :class:`~prunelab.diagnostics.TrapReport`. With :attr:`n_changes`,
        :attr:`n_distinct_states`, :attr:`move_rate`, :attr:`acceptance_rate` and
        :meth:`rhat`, what a user needs to notice a trapped sampler.
    backend : str
    options : dict
        Sampler options as passed.

    See Also
    --------
    sample : makes it.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.sampling import sample
    >>> result = sample(load_network("asia"), "prune", 500, n_chains=2, seed=0)
    >>> result.draws.shape, result.draws.dtype.name
    ((2, 500, 8), 'int8')
    >>> result.running_marginals("lung", checkpoints=[100, 500]).shape
    (2, 2, 2)
    >>> result.trap.trapped, int(result.n_distinct_states.min()) > 10
    (False, True)
    """

    draws: np.ndarray
    variables: tuple[str, ...]
    states: Mapping[str, tuple[str, ...]]
    evidence: dict[str, str]
    method: str
    init_seconds: np.ndarray
    sample_seconds: np.ndarray
    initial_states: np.ndarray
    init_methods: tuple[str, ...] = ()
    rb_checkpoints: np.ndarray | None = None
    rb_sums: np.ndarray | None = None
    stats: dict[str, np.ndarray] = field(default_factory=dict)
    extras: dict[str, list] = field(default_factory=dict)
    seed_entropy: int | None = None
    backend: str = "numba"
    options: dict[str, Any] = field(default_factory=dict)
    seed_spawn_key: tuple[int, ...] = ()
    trap: TrapReport = TrapReport()

    # ------------------------------------------------------------ shape
    @property
    def n_chains(self) -> int:
        """Number of chains (the first axis of :attr:`draws`)."""
        return int(self.draws.shape[0])

    @property
    def n_draws(self) -> int:
        """Draws per chain (the second axis of :attr:`draws`)."""
        return int(self.draws.shape[1])

    @property
    def free_variables(self) -> tuple[str, ...]:
        """Variables without evidence, in ``variables`` order."""
        return tuple(v for v in self.variables if v not in self.evidence)

    @property
    def state_offsets(self) -> np.ndarray:
        """Start of each variable's block in the last axis of :attr:`rb_sums`."""
        cards = [len(self.states[v]) for v in self.variables]
        return np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)

    # ------------------------------------------------------------ mixing
    @property
    def n_changes(self) -> np.ndarray:
        """int64 (chain, variable): draws at which each variable differs from the draw before.

        The first draw is compared with the start state, so a variable with 0 never
        moved in that chain; evidence variables are always 0.
        """
        out = np.zeros((self.n_chains, len(self.variables)), dtype=np.int64)
        for j in range(len(self.variables)):
            column = self.draws[:, :, j]
            out[:, j] = np.count_nonzero(np.diff(column, axis=1), axis=1) + (column[:, 0] != self.initial_states[:, j])
        return out

    @property
    def n_distinct_states(self) -> np.ndarray:
        """int64 (chain,): distinct full states among each chain's draws (1 for a chain that never moved)."""
        return np.array([_distinct_rows(chain).shape[0] for chain in self.draws], dtype=np.int64)

    @property
    def move_rate(self) -> np.ndarray:
        """float64 (chain,): share of draws that differ from the draw before (any sampler)."""
        moved = np.any(np.diff(self.draws, axis=1) != 0, axis=2).sum(axis=1)
        moved = moved + np.any(self.draws[:, 0, :] != self.initial_states, axis=1)
        return moved / self.n_draws

    @property
    def acceptance_rate(self) -> np.ndarray | None:
        """float64 (chain,): accepted share of single-site proposals, or None if the sampler has none.

        From the per-draw statistic ``n_accepted`` (Metropolis), out of one
        proposal per free variable with more than one state per sweep.
        """
        accepted = self.stats.get("n_accepted")
        if accepted is None:
            return None
        n_proposals = sum(len(self.states[v]) > 1 for v in self.free_variables)
        if n_proposals == 0:
            return np.full(self.n_chains, np.nan)
        return accepted.sum(axis=1) / (self.n_draws * n_proposals)

    def rhat(self) -> dict[str, float]:
        """Rank-normalised split R-hat of every free variable: the largest over its states' indicators.

        From :func:`prunelab.diagnostics.convergence_summary` (ArviZ): ``inf`` when
        chains never change but sit in different states, ``nan`` when every chain
        sits in the same state throughout. Needs at least 4 draws.

        Examples
        --------
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("deterministic_pair"), "gibbs", 10, n_chains=2, init=[[0, 0], [1, 1]],
        ...                 seed=0, traps="record")
        >>> result.rhat()
        {'A': inf, 'B': inf}
        """
        from .diagnostics import convergence_summary

        out = {}
        for v in self.free_variables:
            column = self.draws[:, :, self._column(v)]
            values = [convergence_summary(column == s)["rhat"] for s in range(len(self.states[v]))]
            out[v] = float(np.nan if all(np.isnan(values)) else np.nanmax(values))
        return out

    def _column(self, variable: str) -> int:
        try:
            return self.variables.index(variable)
        except ValueError:
            raise KeyError(f"unknown variable {variable!r}; variables are {list(self.variables)}") from None

    # ------------------------------------------------------------ estimates
    def running_marginals(self, variable: str, checkpoints=None, estimator: str = "empirical") -> np.ndarray:
        """Estimates of ``P(variable | e)`` after ``t`` draws, for each chain and checkpoint ``t``.

        Parameters
        ----------
        variable : str
        checkpoints : array_like of int, optional
            Draw counts ``t`` in ``1..n_draws``. Default: every draw for
            ``"empirical"``, the recorded :attr:`rb_checkpoints` for
            ``"rao_blackwell"`` (other counts are not available there).
        estimator : {"empirical", "rao_blackwell"}
            The share of the first ``t`` draws in each state, or the paper's eq. (1)
            ``(1/t) sum_{t' <= t} P(x_i | x_-i^(t'))`` (Gibbs only).

        Returns
        -------
        float64 array (chain, checkpoint, n_states)

        Examples
        --------
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("deterministic_pair"), "gibbs", 4, init=[0, 0], seed=1, traps="record")
        >>> result.running_marginals("A", checkpoints=[1, 4]).tolist()
        [[[1.0, 0.0], [1.0, 0.0]]]
        >>> result.trap.stuck  # Gibbs cannot leave (0, 0): see SampleResult.trap
        ('A', 'B')
        """
        i = self._column(variable)
        card = len(self.states[variable])
        if estimator == "empirical":
            cps = self._checked(checkpoints, np.arange(1, self.n_draws + 1))
            return indicators.running_marginals(self.draws[:, :, i], card, cps)
        if estimator == "rao_blackwell":
            if self.rb_sums is None:
                raise ValueError(f"method {self.method!r} recorded no Rao-Blackwell sums; use estimator='empirical'")
            recorded = self.rb_checkpoints
            cps = self._checked(checkpoints, recorded)
            where = np.searchsorted(recorded, cps)
            ok = (where < recorded.size) & (recorded[np.minimum(where, recorded.size - 1)] == cps)
            if not ok.all():
                raise ValueError(
                    f"Rao-Blackwell sums exist only at the recorded checkpoints; {cps[~ok][:5].tolist()} "
                    "are not among them (pass rb_checkpoints to sample)"
                )
            lo = self.state_offsets[i]
            return self.rb_sums[:, where, lo:lo + card] / cps[None, :, None]
        raise ValueError(f"unknown estimator {estimator!r}; choose 'empirical' or 'rao_blackwell'")

    def _checked(self, checkpoints, default: np.ndarray) -> np.ndarray:
        if checkpoints is None:
            return np.asarray(default, dtype=np.int64)
        return checked_checkpoints(checkpoints, self.n_draws)

    def marginals(self, estimator: str = "empirical") -> dict[str, np.ndarray]:
        """Pooled estimate of ``P(X | e)`` for every free variable, all chains and draws.

        Parameters
        ----------
        estimator : {"empirical", "rao_blackwell"}
            For ``"rao_blackwell"`` the last recorded checkpoint is used.

        Returns
        -------
        dict of str to float64 array
            Keyed like :func:`prunelab.exact.exact_marginals` (observed variables omitted).

        Examples
        --------
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("deterministic_pair"), "gibbs", 10, init=[1, 1], seed=1, traps="record")
        >>> result.marginals()["A"].tolist()
        [0.0, 1.0]
        """
        out = {}
        for v in self.free_variables:
            if estimator == "rao_blackwell":
                if self.rb_checkpoints is None or self.rb_checkpoints.size == 0:
                    raise ValueError(f"method {self.method!r} recorded no Rao-Blackwell sums")
                last = [int(self.rb_checkpoints[-1])]
                out[v] = self.running_marginals(v, last, estimator)[:, 0, :].mean(axis=0)
            elif estimator == "empirical":
                column = self.draws[:, :, self._column(v)].ravel()
                out[v] = np.bincount(column, minlength=len(self.states[v])) / column.size
            else:
                raise ValueError(f"unknown estimator {estimator!r}; choose 'empirical' or 'rao_blackwell'")
        return out

    def __repr__(self) -> str:
        return (
            f"SampleResult(method={self.method!r}, chains={self.n_chains}, draws={self.n_draws}, "
            f"variables={len(self.variables)}, evidence={len(self.evidence)})"
        )


# ------------------------------------------------------------------ one chain
def _warm_init_kernel(net: CompiledNetwork) -> None:
    """Compile (or load from the cache) the init kernel outside the timed region."""
    scratch = np.zeros(net.n_variables, dtype=np.int64)
    hybrid_forward_kernel(
        np.random.default_rng(0), net.cardinality, net.parent_ptr, net.parent_index, net.parent_stride,
        net.cpt_offset, net.cpt, net.evidence_value, 0.5, 1, scratch,
    )


def _reference_chain(module, rng, net, x0, n_draws, rb_checkpoints, options):
    """``n_draws`` calls of ``module.step``, collected like ``run_chain`` output."""
    state = module.init(net, x0)
    draws = np.empty((n_draws, net.n_variables), dtype=np.int64)
    stats: dict[str, list] = {}
    running = None
    rb_sums = None
    if rb_checkpoints is not None:
        rb_sums = np.zeros((rb_checkpoints.size, int(np.sum(net.cardinality))))
    next_cp = 0
    for t in range(n_draws):
        state, info = module.step(rng, net, state, **options)
        draws[t] = state.x
        for name, value in info._asdict().items():
            if name == "conditionals":
                if rb_sums is None:
                    continue
                running = value.copy() if running is None else running + value
                while next_cp < rb_checkpoints.size and rb_checkpoints[next_cp] == t + 1:
                    rb_sums[next_cp] = running
                    next_cp += 1
            elif np.ndim(value) == 0:
                stats.setdefault(name, []).append(value)
    out = {"draws": draws, **{k: np.asarray(v) for k, v in stats.items()}}
    if rb_sums is not None:
        out["rb_checkpoints"] = rb_checkpoints
        out["rb_sums"] = rb_sums
    return out


def _run_one_chain(module_name, bn, evidence, start, p, max_restarts, seeds,
                   n_draws, backend, rb_checkpoints, options):
    """Initial state and chain for one chain; runs in a worker or in-process."""
    module = importlib.import_module(module_name)
    net = compile_network(bn, evidence)
    init_seed, run_seed = seeds
    init_rng = np.random.default_rng(init_seed)
    run_rng = np.random.default_rng(run_seed)
    if isinstance(start, str):
        _warm_init_kernel(net)
        tic = time.perf_counter()
        x0, info = initial_state(init_rng, bn, start, p=p, evidence=evidence,
                                 max_restarts=max_restarts, return_info=True)
        init_seconds = time.perf_counter() - tic
        init_method = info.method
    else:
        x0, init_seconds, init_method = np.asarray(start, dtype=np.int64), 0.0, "given"
    rb_kw = {} if rb_checkpoints is None else {"rb_checkpoints": rb_checkpoints}
    if backend == "numba":
        warm_kw = {} if rb_checkpoints is None else {"rb_checkpoints": np.ones(1, dtype=np.int64)}
        module.run_chain(np.random.default_rng(0), net, x0, 1, **warm_kw, **options)
        tic = time.perf_counter()
        output = module.run_chain(run_rng, net, x0, n_draws, **rb_kw, **options)._asdict()
        sample_seconds = time.perf_counter() - tic
    else:
        tic = time.perf_counter()
        output = _reference_chain(module, run_rng, net, x0, n_draws, rb_checkpoints, options)
        sample_seconds = time.perf_counter() - tic
    output["draws"] = np.asarray(output["draws"]).astype(_draw_dtype(net.cardinality), copy=False)
    return {
        "output": output,
        "x0": x0,
        "init_seconds": init_seconds,
        "sample_seconds": sample_seconds,
        "init_method": init_method,
    }


def _explicit_starts(bn, net, init, n_chains) -> list[np.ndarray] | None:
    """Per-chain start states from ``init`` when it is not an initialiser name."""
    if isinstance(init, str):
        return None
    if isinstance(init, Mapping):
        return [start_state_from(bn, net, init)] * n_chains
    if isinstance(init, Sequence) and init and isinstance(init[0], Mapping):
        per_chain = list(init)
    else:
        arr = np.asarray(init)
        if arr.ndim == 1:
            return [start_state_from(bn, net, arr)] * n_chains
        if arr.ndim != 2:
            raise ValueError(f"init must be a name, a state, or one state per chain; got shape {arr.shape}")
        per_chain = list(arr)
    if len(per_chain) != n_chains:
        raise ValueError(f"init gives {len(per_chain)} start states for {n_chains} chains")
    return [start_state_from(bn, net, s) for s in per_chain]


def _integer(value, name: str, minimum: int | None = 1) -> int:
    """``value`` as an int if it is one (numpy integers too, bools not); no silent rounding or parsing."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"need {name} >= {minimum}, got {value}")
    return int(value)


def _planned_bytes(bn, n_chains, n_samples, n_checkpoints, n_workers) -> dict[str, int]:
    """Bytes :func:`sample` will hold at its peak, by what holds them."""
    n = bn.n_variables
    itemsize = np.dtype(_draw_dtype(bn.cardinalities)).itemsize
    return {
        # per-chain draws, then np.stack copies them into the result
        "draws": 2 * n_chains * n_samples * n * itemsize,
        "chain buffers": n_workers * n_samples * n * 8,  # int64 draws of a running chain
        "statistics": 2 * n_chains * n_samples * _STAT_BYTES_PER_DRAW,
        "Rao-Blackwell sums": 2 * n_chains * n_checkpoints * int(bn.cardinalities.sum()) * 8,
        "bookkeeping": n_chains * _BYTES_PER_CHAIN,
    }


def _posterior_or_empty(bn, net) -> dict:
    """Exact posterior marginals given ``net``'s evidence, or ``{}`` if the network is too wide.

    A positive entry proves the state possible; a zero (exact: deterministic zeros
    propagate exactly) proves it impossible. Without them nothing is claimed.
    """
    from . import exact

    evidence = {bn.variables[i]: int(s) for i, s in enumerate(net.evidence_value) if s >= 0}
    try:
        return exact.exact_marginals(bn, evidence)
    except EvidenceError:
        raise
    except ValueError:  # too wide for exact inference
        return {}


def _trap_report(bn, net, draws, initial_states, seed, single_site: bool) -> TrapReport:
    """Stuck and disagreeing free variables (see :class:`~prunelab.diagnostics.TrapReport`).

    Stuck variables are looked for only for ``single_site`` samplers: a sampler with
    larger moves (prune) that leaves a variable alone in a short run has met an
    improbable state, not a wall.
    """
    n_chains, n_draws = draws.shape[:2]
    starts = initial_states.astype(draws.dtype)
    candidates = [
        int(i) for i in net.free
        if single_site and np.all(draws[:, :, i] == starts[:, i, None])
    ]
    stuck = []
    if candidates:
        visited = _distinct_rows(np.concatenate([starts, draws.reshape(-1, net.n_variables)]))
        rng = np.random.default_rng(seed)
        posterior = None
        for i in np.asarray(candidates)[single_site_frozen(net, visited, candidates)]:
            values = np.unique(starts[:, i])
            others = [s for s in range(int(net.cardinality[i])) if s != values[0]]
            if values.size == 1:
                if posterior is None:  # one calibration answers for every variable
                    posterior = _posterior_or_empty(bn, net)
                if posterior:
                    possible = bool(np.any(posterior[bn.variables[i]][others] > 0.0))
                else:  # too wide for exact inference: look for a witness state
                    possible = any(can_take(rng, net, i, s) for s in others)
            else:
                possible = True  # chains hold it at two values: both are possible
            if possible:
                stuck.append(bn.variables[i])
    p_values = {}
    n_tests = 0
    for i in net.free:
        column = draws[:, :, i]
        # a chain in which the variable never moved tells nothing of how fast it mixes
        column = column[np.any(column != column[:, :1], axis=1)]
        if column.shape[0] < 2:
            continue
        present = np.flatnonzero(np.bincount(column.ravel(), minlength=int(net.cardinality[i])))
        tested = present[:-1] if present.size == 2 else present  # two states: one indicator says it all
        p_values[bn.variables[i]] = min(chain_disagreement(column == s) for s in tested)
        n_tests += tested.size
    threshold = TRAP_FALSE_ALARM / max(n_tests, 1)
    disagreeing = tuple(v for v, p in p_values.items() if p < threshold)
    return TrapReport(tuple(stuck), disagreeing, p_values, threshold)


def sample(
    bn: BayesianNetwork,
    method: str,
    n_samples: int,
    n_chains: int = 1,
    evidence: Mapping | None = None,
    init="forward",
    seed=None,
    n_jobs: int = 1,
    backend: str = "numba",
    progress: bool = False,
    *,
    init_p: float = 0.5,
    max_restarts: int = MAX_RESTARTS,
    rb_checkpoints=None,
    traps: str = "warn",
    max_bytes: int = MAX_BYTES,
    **options,
) -> SampleResult:
    """Run ``n_chains`` independent chains of a sampler on ``bn`` given ``evidence``.

    Parameters
    ----------
    bn : BayesianNetwork
    method : str
        A registered sampler: ``"gibbs"``, ``"metropolis"``, ``"prune"``
        (see :func:`prunelab.samplers.register_method`).
    n_samples : int
        Draws per chain; one draw is one sweep (Gibbs, Metropolis) or one step.
        No burn-in and no thinning, as in the paper: slice ``draws`` for those.
        An integer (numpy integers too): ``2.7``, ``"5"`` or ``True`` are refused.
    n_chains : int, default 1
    evidence : mapping of str to state, or pandas Series, optional
        See :func:`prunelab.evidence.as_evidence`; a list, string or set is refused.
    init : str, mapping, or array_like, default "forward"
        ``"forward"``, ``"random_forward"`` or ``"hybrid"`` (with ``init_p``):
        the paper's initialisers, see :func:`prunelab.samplers.init.initial_state`.
        Or an explicit start: a dict of state names (evidence may be left out), an
        int array in ``bn.variables`` order, or one of those per chain (a list or
        a ``(n_chains, n)`` array). A start with ``P(x, e) = 0`` is an error
        that names the state; so is one with non-integer indices.
    seed : int, SeedSequence, Generator, or None
        Root of ``SeedSequence(seed).spawn(n_chains)``; results do not depend on
        ``n_jobs``. A Generator is accepted: one child is spawned from it
        (:func:`prunelab.evidence.as_seed_sequence`), so the generator moves on
        and two calls with it give different draws; a SeedSequence is copied, not
        advanced.
    n_jobs : int, default 1
        Worker processes (joblib, loky backend) over chains; -1 for all cores.
        Workers load the numba kernels from the on-disk cache (``cache=True``).
    backend : {"numba", "numpy"}
        The compiled ``run_chain`` or the reference ``step`` loop (slow; same draws).
    progress : bool, default False
        A tqdm bar over finished chains.
    init_p : float, default 0.5
        ``p`` of hybrid forward sampling.
    max_restarts : int, default 10 000
        Forward-sampling tries before the exact fallback of the initialiser.
    rb_checkpoints : array_like of int, optional
        For Rao-Blackwell samplers (Gibbs): draw counts at which running sums of
        the conditionals are kept; default ``log_checkpoints(n_samples, DEFAULT_N_CHECKPOINTS)``
        (:func:`prunelab.checkpoints.log_checkpoints`).
    traps : {"warn", "record", "off"}, default "warn"
        ``"warn"``: look for signs of a trapped sampler (see Traps in
        :mod:`prunelab.sampling`), record them in ``result.trap`` and warn
        (:class:`~prunelab.diagnostics.SamplerTrappedWarning`) if there are any;
        ``"record"``: the same without the warning (the experiment runner);
        ``"off"``: no check (pieces of one longer chain, where a check of each
        piece means nothing); ``result.trap`` is then empty.
    max_bytes : int, default :data:`MAX_BYTES` (4 GiB)
        Refuse at once, before allocating anything, a run whose draws, per-draw
        statistics, Rao-Blackwell sums and chain buffers would need more.
    **options
        Passed to the sampler's ``run_chain`` and ``step``.

    Returns
    -------
    SampleResult

    Raises
    ------
    TypeError
        A count that is not an integer, evidence that is not a mapping or Series,
        a seed of another type.
    EvidenceError
        Unknown or impossible evidence, or an explicit start that disagrees with it.
    InfeasibleStateError
        An explicit start state with probability zero.
    MemoryError
        The run would need more than ``max_bytes``; the message gives the sizes.

    Warns
    -----
    SamplerTrappedWarning
        Some free variable is stuck, or the chains disagree beyond their ESS
        (with ``traps="warn"``); see :class:`~prunelab.diagnostics.TrapReport`.

    See Also
    --------
    prunelab.samplers.gibbs, prunelab.samplers.metropolis, prunelab.samplers.prune

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
       technique for discrete and deterministic Bayesian networks", 2017.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.sampling import sample
    >>> bn = load_network("blood_pressure")
    >>> result = sample(bn, "gibbs", 1000, n_chains=2, evidence={"Measurement": "m_e"}, seed=42)
    >>> result.draws.shape
    (2, 1000, 5)
    >>> sorted(result.marginals())
    ['BloodPressure', 'Kidney', 'Lifestyle', 'Sports']
    """
    if not isinstance(bn, BayesianNetwork):
        raise TypeError(f"bn must be a BayesianNetwork, got {type(bn).__name__}")
    module = get_method(method)
    n_samples = _integer(n_samples, "n_samples")
    n_chains = _integer(n_chains, "n_chains")
    n_jobs = _integer(n_jobs, "n_jobs", minimum=None)
    if n_jobs == 0:
        raise ValueError("n_jobs must be a positive number of workers or negative (-1: all cores), not 0")
    max_restarts = _integer(max_restarts, "max_restarts")
    if isinstance(init_p, (bool, np.bool_)) or not isinstance(init_p, (int, float, np.integer, np.floating)):
        raise TypeError(f"init_p must be a number in [0, 1], got {type(init_p).__name__} {init_p!r}")
    if backend not in ("numba", "numpy"):
        raise ValueError(f"unknown backend {backend!r}; choose 'numba' or 'numpy'")
    if isinstance(init, str) and init not in INIT_METHODS:
        raise ValueError(f"unknown init {init!r}; choose one of {list(INIT_METHODS)} or give a start state")
    if traps not in ("warn", "record", "off"):
        raise ValueError(f"traps must be 'warn', 'record' or 'off', got {traps!r}")
    evidence = as_evidence(evidence)
    root = as_seed_sequence(seed)
    if getattr(module, "RAO_BLACKWELL", False):
        if rb_checkpoints is None:
            cps = log_checkpoints(n_samples, DEFAULT_N_CHECKPOINTS)
        else:
            cps = checked_checkpoints(rb_checkpoints, n_samples, name="rb_checkpoints", increasing=True)
    elif rb_checkpoints is not None:
        raise ValueError(f"method {method!r} has no Rao-Blackwell estimate; drop rb_checkpoints")
    else:
        cps = None
    n_workers = 1 if n_jobs == 1 else min(n_chains, os.cpu_count() or 1) if n_jobs < 0 else min(n_chains, n_jobs)
    planned = _planned_bytes(bn, n_chains, n_samples, 0 if cps is None else cps.size, n_workers)
    if sum(planned.values()) > max_bytes:
        detail = ", ".join(f"{name} {size / 2**20:,.0f} MiB" for name, size in planned.items() if size)
        raise MemoryError(
            f"sample() would need about {sum(planned.values()) / 2**20:,.0f} MiB for n_chains={n_chains} x "
            f"n_samples={n_samples} x {bn.n_variables} variables ({detail}), more than "
            f"max_bytes={max_bytes:,}; use fewer chains or draws, or pass a larger max_bytes"
        )
    net = compile_network(bn, evidence)  # checks the evidence names early
    evidence_names = bn.evidence_names(evidence)
    starts = _explicit_starts(bn, net, init, n_chains)

    seeds = [tuple(child.spawn(2)) for child in root.spawn(n_chains)]
    parallel = n_jobs != 1 and n_chains > 1
    jobs = [
        (module.__name__, bn, evidence_names, init if starts is None else starts[c], init_p,
         max_restarts, seeds[c], n_samples, backend, cps, options)
        for c in range(n_chains)
    ]
    from tqdm import tqdm  # the text bar: tqdm.auto warns in kernels without ipywidgets

    with tqdm(total=n_chains, disable=not progress, desc=f"{method} chains") as bar:
        if parallel:
            from joblib import Parallel, delayed

            runner = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator")
            results = []
            for res in runner(delayed(_run_one_chain)(*job) for job in jobs):
                results.append(res)
                bar.update()
        else:
            results = []
            for job in jobs:
                results.append(_run_one_chain(*job))
                bar.update()

    outputs = [r["output"] for r in results]
    stats, extras = {}, {}
    for name in outputs[0]:
        if name in _RESERVED_FIELDS:
            continue
        values = [o[name] for o in outputs]
        if all(isinstance(v, np.ndarray) and v.ndim >= 1 and v.shape[0] == n_samples for v in values):
            stats[name] = np.stack(values)
        else:
            extras[name] = values
    rb_sums = None
    if outputs[0].get("rb_sums") is not None:
        rb_sums = np.stack([o["rb_sums"] for o in outputs])
    draws = np.stack([o["draws"] for o in outputs])
    del outputs
    initial_states = np.stack([r["x0"] for r in results]).astype(np.int64)
    trap = TrapReport()
    if traps != "off":
        trap = _trap_report(
            bn, net, draws, initial_states,
            np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, _TRAP_SPAWN)),
            single_site=bool(getattr(module, "SINGLE_SITE", False)),
        )
    if trap.trapped and traps == "warn":
        warnings.warn(trap.message(method, n_chains), SamplerTrappedWarning, stacklevel=2)
    return SampleResult(
        draws=draws,
        variables=bn.variables,
        states=dict(bn.states),
        evidence=evidence_names,
        method=method,
        init_seconds=np.array([r["init_seconds"] for r in results]),
        sample_seconds=np.array([r["sample_seconds"] for r in results]),
        initial_states=initial_states,
        init_methods=tuple(r["init_method"] for r in results),
        rb_checkpoints=cps if rb_sums is not None else None,
        rb_sums=rb_sums,
        stats=stats,
        extras=extras,
        seed_entropy=root.entropy,
        backend=backend,
        options=dict(options),
        seed_spawn_key=tuple(root.spawn_key),
        trap=trap,
    )
