"""What the paper's sweep runs: case specs, profiles, and what every run of a case shares.

A *case* is one sampler on one benchmark (a network, with or without its frozen
evidence set) followed through one query variable. A *profile* says how much to
run: how many independent runs per case, how many draws per run, at which
checkpoints the running estimates are recorded. A *run* is one chain of ``T``
draws from its own initial state.

Every run of a case needs the case's network, its exact marginals, its query state
and fixed start (:func:`prepare_case`); they are cached once per process (workers
reuse them across runs). A profile records what its cases are computed on
(:func:`case_sha1`), so that a resumed sweep never mixes runs made on a network that
has changed since.

Seeds
-----
Run ``r`` of case ``c`` is replicate ``r`` of the case's series:
``run_seed_sequence(c.id, root_seed, replicate=r)``
(:func:`~prunelab.lab.experiments.framework.run_seed_sequence`), that is
``SeedSequence(root_seed, spawn_key=(case_key(c), r))``. The fixed start of a case
and the bootstrap of its alpha are two reserved replicates of the same series
(:data:`FIXED_START_SPAWN`, :data:`~prunelab.lab.experiments.tables.BOOTSTRAP_SPAWN`).
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import zlib
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from prunelab.catalogue import load_evidence, load_network, query_variable
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.indicators import log_checkpoints
from prunelab.samplers.init import INITS, initial_state, start_state_from
from ..paper_numbers import PAPER_SAMPLERS
from . import store
from .framework import DEFAULT_ROOT_SEED, run_seed_sequence

__all__ = [
    "BENCHMARKS",
    "CASES",
    "CASE_INITS",
    "CaseSpec",
    "FIXED_START_SPAWN",
    "PAPER_SAMPLERS",
    "PROFILES",
    "Profile",
    "case_exact_marginals",
    "case_fingerprint",
    "case_key",
    "case_sha1",
    "load_case_network",
    "prepare_case",
    "select_cases",
]

CASE_INITS = (*INITS, "fixed")
"""``init`` of a case: an initialiser of :func:`prunelab.sample`, or ``"fixed"``: all runs
of the case start from one state (:attr:`CaseSpec.start`, or one forward draw keyed by
the case, see :data:`FIXED_START_SPAWN`)."""

FIXED_START_SPAWN = 2**32 - 1
"""The replicate of a case's seed series that draws its fixed start state (no run has it)."""

BENCHMARKS = {
    # benchmark id: (network, evidence name)
    "deterministic_pair": ("deterministic_pair", None),
    "block_chain": ("block_chain", None),
    "asia_ev0": ("asia", None),
    "alarm_ev0": ("alarm", None),
    "win95pts_ev0": ("win95pts", None),
    "asia_ev25": ("asia", "ev25"),
    "alarm_ev25": ("alarm", "ev25"),
    "win95pts_ev25": ("win95pts", "ev25"),
    "grid-3x3": ("grid-3x3", None),
    "grid-5x5": ("grid-5x5", None),
    "grid-8x8": ("grid-8x8", None),
}
"""The eleven benchmarks: the two toy networks and the paper's nine (Figure "results1")."""


@dataclass(frozen=True)
class CaseSpec:
    """One sampler on one benchmark, followed through one query variable.

    Parameters
    ----------
    benchmark : str
        Id of the benchmark (a key of :data:`BENCHMARKS`, or any label for a custom case).
    network : str
        Catalogue name, for :func:`prunelab.load_network`.
    sampler : str
        Sampler name for :func:`prunelab.sample`: ``"gibbs"``, ``"metropolis"``, ``"prune"``.
    evidence : str or None
        ``None`` for no evidence, or ``"ev<pct>"`` for the frozen evidence set of
        ``pct`` percent (:func:`prunelab.load_evidence`).
    query : str or None
        Query variable; ``None`` means :func:`prunelab.query_variable` of the network.
    init : str
        One of :data:`CASE_INITS`. ``"fixed"``: every run starts from the same state.
    start : tuple of (variable, state) pairs, optional
        The start state for ``init="fixed"``. ``None``: one forward draw seeded by
        ``(case key, FIXED_START_SPAWN)``, the same for every run.
    options : tuple of (name, value) pairs
        Extra keyword options for :func:`prunelab.sample` (a tuple, so the spec is hashable).

    Examples
    --------
    >>> case = CaseSpec("grid-8x8", "grid-8x8", "prune")
    >>> case.id, case.query_variable
    ('grid-8x8.prune', 'v_8_8')
    >>> replace(case, init="fixed").id
    'grid-8x8.prune.fixed'
    """

    benchmark: str
    network: str
    sampler: str
    evidence: str | None = None
    query: str | None = None
    init: str = "forward"
    start: tuple[tuple[str, str], ...] | None = None
    options: tuple[tuple[str, object], ...] = field(default=())

    def __post_init__(self):
        if self.init not in CASE_INITS:
            raise ValueError(f"init must be one of {CASE_INITS}, got {self.init!r}")
        if self.start is not None and self.init != "fixed":
            raise ValueError("a start state is only used with init='fixed'")
        if self.evidence is not None and not (self.evidence.startswith("ev") and self.evidence[2:].isdigit()):
            raise ValueError(f"evidence must be None or 'ev<percent>', e.g. 'ev25'; got {self.evidence!r}")

    @property
    def id(self) -> str:
        """``<benchmark>.<sampler>``, with ``.<init>`` when not forward and ``.<options>`` when set.

        Used as the directory name of the case's runs and as its seed key.
        """
        parts = [self.benchmark, self.sampler]
        if self.init != "forward":
            parts.append(self.init)
        if self.start is not None:
            parts.append("start-" + "-".join(f"{v}={s}" for v, s in self.start))
        if self.options:
            parts.append("-".join(f"{k}={v}" for k, v in self.options))
        return ".".join(parts)

    @property
    def query_variable(self) -> str:
        """The query variable (the spec's, or the catalogue's default for the network)."""
        return self.query if self.query is not None else query_variable(self.network)

    @property
    def evidence_fraction(self) -> float:
        """Fraction of variables observed (0 without evidence)."""
        return 0.0 if self.evidence is None else int(self.evidence[2:]) / 100

    def load(self):
        """``(bn, evidence)``: the network and its evidence dict (``None`` without evidence)."""
        bn = load_network(self.network)
        evidence = None if self.evidence is None else load_evidence(self.network, self.evidence_fraction)
        return bn, evidence

    def to_dict(self) -> dict:
        """A JSON-able description (for provenance)."""
        d = asdict(self)
        d["id"] = self.id
        d["query"] = self.query_variable
        d["start"] = None if self.start is None else dict(self.start)
        d["options"] = {k: v for k, v in self.options}
        return d


def _default_cases() -> tuple[CaseSpec, ...]:
    return tuple(
        CaseSpec(benchmark, network, sampler, evidence)
        for benchmark, (network, evidence) in BENCHMARKS.items()
        for sampler in PAPER_SAMPLERS
    )


CASES = _default_cases()
"""The 33 default cases: 11 benchmarks times 3 samplers, forward initial states."""


def case_key(case: CaseSpec | str) -> int:
    """Stable 32-bit key of a case: the CRC-32 of its id (a spawn-key entry of its seeds).

    Examples
    --------
    >>> case_key("asia_ev0.gibbs") == case_key(CaseSpec("asia_ev0", "asia", "gibbs"))
    True
    """
    text = case if isinstance(case, str) else case.id
    return zlib.crc32(text.encode("utf-8"))


def select_cases(patterns=None, cases=CASES, init: str | None = None) -> tuple[CaseSpec, ...]:
    """Cases whose id matches any of ``patterns`` (shell wildcards), in catalogue order.

    A pattern matches an id ``benchmark.sampler[...]`` itself or as a prefix before a
    dot, so ``"asia_ev0"`` selects its three samplers and ``"*.prune"`` every prune
    case. ``CaseSpec`` objects in ``patterns`` are taken as they are.

    Parameters
    ----------
    patterns : iterable of str or CaseSpec, optional
        ``None`` selects all of ``cases``.
    cases : sequence of CaseSpec
        What patterns are matched against (default :data:`CASES`).
    init : str, optional
        Replace every selected case's ``init`` (e.g. ``"fixed"``).

    Raises
    ------
    ValueError
        If a pattern matches nothing (the message lists the ids).

    Examples
    --------
    >>> [c.id for c in select_cases(["grid-3x3.g*", "*pair.prune"])]
    ['deterministic_pair.prune', 'grid-3x3.gibbs']
    """
    if patterns is None:
        chosen = list(cases)
    else:
        if isinstance(patterns, str | CaseSpec):
            patterns = [patterns]
        explicit = [p for p in patterns if isinstance(p, CaseSpec)]
        texts = [p for p in patterns if not isinstance(p, CaseSpec)]
        for p in texts:
            if not any(fnmatch.fnmatchcase(c.id, p) or fnmatch.fnmatchcase(c.id, p + ".*") for c in cases):
                raise ValueError(f"case pattern {p!r} matches nothing; case ids are {[c.id for c in cases]}")
        chosen = [
            c for c in cases if any(fnmatch.fnmatchcase(c.id, p) or fnmatch.fnmatchcase(c.id, p + ".*") for p in texts)
        ]
        chosen += [c for c in explicit if c not in chosen]
    if init is not None:
        chosen = [replace(c, init=init) for c in chosen]
    ids = [c.id for c in chosen]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"two different cases share the id(s) {duplicates}")
    return tuple(chosen)


@dataclass(frozen=True)
class Profile:
    """How much to run.

    Parameters
    ----------
    name : str
        Also the results folder, ``data/results/<name>``.
    n_runs : int
        Independent runs per case (the paper: 100); each run is one chain.
    n_draws : int
        Draws per run, ``T`` (the paper: 25 000).
    n_checkpoints : int
        Log-spaced checkpoints asked of :func:`prunelab.indicators.log_checkpoints`.
    cases : tuple of str or CaseSpec, optional
        The case patterns (see :func:`select_cases`); ``None``: all of :data:`CASES`.
    t_min : int
        Checkpoints below are ignored by the alpha fits (the paper drops ``t < 10``).
    delta : float
        The fixed exponent of the paper's construction of alpha (0.9).
    target : float
        The sigma_t of the time-consumption indicator (0.01).
    init : str, optional
        Replace every case's ``init``; ``"fixed"`` starts all runs of a case from one
        state (its case ids get a ``.fixed`` suffix, so they sit beside the forward ones).

    Examples
    --------
    >>> profile = PROFILES["smoke"].only(["asia_ev25.prune"])
    >>> [c.id for c in profile.selected()], profile.to_dict()["cases"]
    (['asia_ev25.prune'], ['asia_ev25.prune'])
    """

    name: str
    n_runs: int
    n_draws: int
    n_checkpoints: int = 60
    cases: tuple | None = None
    t_min: int = 10
    delta: float = 0.9
    target: float = 0.01
    init: str | None = None

    @property
    def checkpoints(self) -> np.ndarray:
        """The draw counts at which running estimates are recorded."""
        return log_checkpoints(self.n_draws, self.n_checkpoints)

    def selected(self) -> tuple[CaseSpec, ...]:
        """The profile's cases (:func:`select_cases` of :attr:`cases`, with :attr:`init`)."""
        return select_cases(self.cases, init=self.init)

    def only(self, cases) -> Profile:
        """The same profile on other cases (ids, patterns or :class:`CaseSpec`)."""
        return replace(self, cases=tuple([cases] if isinstance(cases, str | CaseSpec) else cases))

    def to_dict(self) -> dict:
        """The profile as stored (``sweep.json``, provenance): its checkpoints, case ids and :func:`case_sha1`."""
        d = {k: v for k, v in asdict(self).items() if k != "cases"}
        cases = self.selected()
        d["checkpoints"] = self.checkpoints.tolist()
        d["cases"] = [c.id for c in cases]
        d["networks"] = [case_sha1(c) for c in cases]
        return d


PROFILES = {
    "smoke": Profile(
        "smoke",
        n_runs=4,
        n_draws=500,
        n_checkpoints=20,
        cases=("deterministic_pair", "block_chain", "asia_ev25", "grid-3x3"),
    ),
    "quick": Profile("quick", n_runs=20, n_draws=5_000, n_checkpoints=40),
    "paper": Profile("paper", n_runs=100, n_draws=25_000, n_checkpoints=60),
}
"""``smoke`` (seconds, for CI: 4 benchmarks x 3 samplers), ``quick`` (minutes, all cases),
``paper`` (100 runs of 25 000 draws, as in the paper)."""


@functools.lru_cache(maxsize=32)
def load_case_network(case: CaseSpec):
    """``(bn, evidence)`` of a case, once per process (workers reuse it across runs)."""
    return case.load()


@functools.lru_cache(maxsize=32)
def case_exact_marginals(case: CaseSpec) -> dict:
    """The exact marginals of a case's free variables, once per process."""
    bn, evidence = load_case_network(case)
    return exact_marginals(bn, evidence)


def prepare_case(case: CaseSpec, root_seed: int = DEFAULT_ROOT_SEED) -> dict:
    """What every run of a case shares: exact marginals, query state, fixed start state.

    Returns
    -------
    dict
        ``exact`` (free variable -> exact marginal), ``query_state`` (the state of
        the query whose probability the alpha fits follow: the most probable one,
        the paper's "most common state"; ties go to the first), ``start`` (int64 state
        for ``init="fixed"``, else ``None``).
    """
    bn, evidence = load_case_network(case)
    exact = case_exact_marginals(case)
    query = case.query_variable
    if query not in exact:
        raise ValueError(
            f"case {case.id}: the query variable {query!r} is observed in the evidence "
            f"{case.evidence}; give the case another query (CaseSpec(..., query=...))"
        )
    start = None
    if case.init == "fixed":
        if case.start is not None:
            start = start_state_from(bn, compile_network(bn, evidence), dict(case.start))
        else:
            seed = run_seed_sequence(case.id, root_seed, replicate=FIXED_START_SPAWN)
            start = initial_state(np.random.default_rng(seed), bn, "forward", evidence=evidence)
    return {"exact": exact, "query_state": int(np.argmax(exact[query])), "start": start}


def case_fingerprint(case: CaseSpec) -> dict:
    """What a case's runs were computed on: the spec, the evidence set, a hash of the network.

    A profile stores its hash (:func:`case_sha1`); a resumed sweep refuses to mix runs
    made on a network or evidence set that has changed since (e.g. a regenerated grid).
    """
    bn, evidence = load_case_network(case)
    digest = hashlib.sha1()
    for v in bn.variables:
        digest.update(repr((v, tuple(bn.states[v]), tuple(bn.parents[v]))).encode())
        digest.update(np.ascontiguousarray(bn.cpts[v], dtype=np.float64).tobytes())
    return {**case.to_dict(), "evidence_set": dict(evidence or {}), "network_sha1": digest.hexdigest()}


def case_sha1(case: CaseSpec) -> str:
    """``<case id>:<sha1>`` of what a case's runs are computed on (:func:`case_fingerprint`).

    Examples
    --------
    >>> case_sha1(CaseSpec("asia_ev0", "asia", "gibbs")).split(":")[0]
    'asia_ev0.gibbs'
    """
    text = json.dumps(store.plain_json(case_fingerprint(case)), sort_keys=True)
    return f"{case.id}:{hashlib.sha1(text.encode()).hexdigest()}"
