"""Prune sampling on large networks: every BIF pgmpy ships, its peers at equal budgets, grids past exact inference.

The experiment behind the chapter "Prune sampling on large networks" (issue 13).
It is made of *runs* of four kinds, each one task that returns one flat record:

==========  ==========================================================================
kind        one run, one record
==========  ==========================================================================
``network`` a pgmpy network without and with its frozen 25 % evidence: size,
            treewidth, share of deterministic CPT entries, exact inference seconds,
            prune set-up seconds (or the refusal and its reason), then two prune chains
            checked against the exact marginals with the tolerance their ESS gives,
            steps per second, mean ``|S|``, which uniform method drew
``budget``  one sampler on one network with its 25 % evidence for a wall-clock budget:
            AHD over all free variables and the count of variables off by more than
            :data:`OFF_THRESHOLD`, or how the sampler failed
``mixing``  slow mixing, measured: chains of one variant (prune, prune from many
            short restarts, prune mixed with Gibbs sweeps, Gibbs) on
            :attr:`LargeProfile.mixing_network`, followed through one variable: its
            Hellinger distance, longest stay, stay probability per value
``grid``    a Sang-Beame-Kautz grid (:func:`prunelab.grids.make_grid`) of one side and
            determinism: treewidth, exact and prune set-up seconds or refusals, four
            chains from different starts (R-hat, ESS, move rate, AHD where exact works)
==========  ==========================================================================

Storage and resumption. Each finished run is one JSON file,
``<out>/runs/<kind>/<run id>.json``, written atomically by the parent process
(:func:`prunelab.experiments.store.write_json_atomic`); a killed sweep resumes with
nothing lost or doubled. ``sweep.json`` records the profile and root seed, and a
resumed sweep with other settings is refused (:class:`~prunelab.experiments.SweepMismatchError`).
At the end the records become ``networks.parquet``, ``budget.parquet``,
``mixing.parquet`` and ``grids.parquet`` and ``provenance.json`` is written
(command, version, git commit, seed, dates, machine, load, library versions).

Seeds. Run ``r`` gets ``SeedSequence(root_seed, spawn_key=(crc32(r.id),))``: the
same numbers however many workers run the sweep and in whatever order.

Command line::

    python -m prunelab large --profile paper --jobs 2        # data/results/large
    python -m prunelab large --profile smoke --out /tmp/x    # seconds
    python -m prunelab large --freeze-evidence               # data/evidence/<name>-25.json

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", 2017 (conclusion:
   "for large BNs ... standard methods still perform better").
.. [2] T. Sang, P. Beame and H. Kautz, "Solving Bayesian networks by weighted model
   counting", AAAI 2005 (the grids).
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import platform
import re
import shlex
import sys
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..catalogue import data_dir, pgmpy_example_path
from ..compiled import compile_network
from ..elimination import TablesTooLargeError
from ..evidence import random_evidence
from ..exact import exact_marginals, treewidth
from ..grids import make_grid
from ..indicators import hellinger
from ..io import read_bif
from ..network import BayesianNetwork
from . import store
from .specs import DEFAULT_ROOT_SEED

__all__ = [
    "BUDGET_SAMPLERS",
    "EVIDENCE_FRACTION",
    "LARGE_PROFILES",
    "LONG_BUDGET_NETWORKS",
    "LargeProfile",
    "LargeRun",
    "MIXING_VARIANTS",
    "OFF_THRESHOLD",
    "freeze_evidence",
    "large_results_dir",
    "load_large",
    "growth_fit",
    "large_results_for",
    "load_large_results",
    "network_table",
    "pgmpy_networks",
    "plan_runs",
    "run_large",
    "run_peer_guarded",
    "simulate_large_run",
]

EVIDENCE_FRACTION = 0.25
"""The book's rule: a quarter of the variables observed, set from one forward sample."""

OFF_THRESHOLD = 0.1
"""A variable counts as *off* when some state's estimate misses the exact marginal by more."""

BUDGET_SAMPLERS = (
    "prunelab-prune", "prunelab-gibbs", "pyagrum-gibbs", "pyagrum-lbp", "pyagrum-importance", "pyagrum-weighted",
)
"""Samplers compared at equal wall-clock budgets (keys of :data:`prunelab.peers.PEER_SAMPLERS`)."""

LONG_BUDGET_NETWORKS = ("barley", "diabetes", "hailfinder", "link", "mildew", "munin", "pathfinder", "pigs")
"""Networks also run at a 60 s budget: the six large ones the paper's open question is about
(pathfinder, pigs, link, munin, diabetes, mildew) and the two where no sampler reached an AHD of
0.01 at 10 s in the first frozen run (barley, hailfinder)."""

MIXING_VARIANTS = ("prune", "prune-restarts", "prune-exact-restarts", "prune+gibbs", "prune-tempered", "gibbs")
"""What the mixing study compares, each at the same number of steps in all:

* ``prune``: :attr:`LargeProfile.mixing_chains` chains from forward starts;
* ``prune-restarts``: ten times as many chains, each a tenth as long, from forward
  starts (with evidence clamped, not weighted: they follow the prior of a root such as
  hailfinder's ``Scenario``, not its posterior);
* ``prune-exact-restarts``: the same from exact posterior draws (sequential exact
  conditioning, the initialiser's fallback): every chain is stationary from its first
  step, so pooling them is unbiased even where each chain is stuck;
* ``prune+gibbs``: blocks of :data:`MIXED_PRUNE_STEPS` prune steps and one Gibbs sweep;
* ``prune-tempered``: parallel tempering with prune moves (:mod:`prunelab.samplers.tempering`),
  its default ladder (4 replicas, geometric down to beta = 0.2), forward starts; the beta = 1
  replica's draws, one a step (the record adds ``betas`` and ``swap_acceptance`` per pair);
* ``gibbs``: prunelab's Gibbs sampler, one draw a sweep.
"""

MIXED_PRUNE_STEPS = 20
"""Prune steps between two Gibbs sweeps in the ``prune+gibbs`` variant."""

GUARDED_SAMPLERS = ("pyagrum-gibbs", "pyagrum-importance", "pyagrum-weighted")
"""Peers run in a child process that is stopped if it overruns (see :func:`run_peer_guarded`);
loopy belief propagation checks its clock at every message round and runs in the worker."""

PEER_GRACE_SECONDS = 60.0
"""A pyAgrum run is given its budget plus this long (process start, conversion) before it is stopped."""

CHECK_FALSE_ALARM = 0.01
"""Family-wise false-alarm rate of the ESS check of a network's prune chains (Bonferroni over variables)."""


def pgmpy_networks() -> tuple[str, ...]:
    """Names of the ``.bif.gz`` networks the installed pgmpy wheel ships, sorted.

    Examples
    --------
    >>> {"asia", "munin", "link"} <= set(pgmpy_networks())
    True
    """
    folder = pgmpy_example_path("asia").parent
    return tuple(sorted(p.name[: -len(".bif.gz")] for p in Path(folder).glob("*.bif.gz")))


def evidence_seed(name: str) -> int:
    """Seed of a network's frozen evidence set: the CRC-32 of its name (stable, recorded in the file)."""
    return zlib.crc32(f"evidence:{name}".encode())


@functools.lru_cache(maxsize=64)
def load_large(name: str, evidence: bool) -> tuple[BayesianNetwork, dict | None]:
    """A pgmpy network (rows rescaled to sum to 1) and, if ``evidence``, its frozen 25 % evidence.

    Raises
    ------
    FileNotFoundError
        No frozen evidence file for ``name``: ``python -m prunelab large --freeze-evidence`` writes it.
    """
    from ..catalogue import load_evidence

    bn = read_bif(pgmpy_example_path(name), name=name, normalize=True)
    return bn, (load_evidence(name, EVIDENCE_FRACTION) if evidence else None)


def freeze_evidence(names=None, folder=None, overwrite: bool = False) -> list[Path]:
    """Write ``<data>/evidence/<name>-25.json`` for every pgmpy network that lacks one.

    The evidence is ``random_evidence(bn, 0.25, seed=evidence_seed(name))`` on the
    network with rows rescaled (as :func:`load_large` reads it); the file records
    its provenance (command, version, seed, date, Python, generator) like
    ``data/make_networks.py`` does. Files already there (asia, alarm and win95pts,
    frozen by ``data/make_networks.py`` with the query variable excluded) are kept
    unless ``overwrite``.

    Returns
    -------
    list of Path
        The files written.
    """
    from .. import __version__

    folder = Path(folder) if folder is not None else data_dir() / "evidence"
    written = []
    for name in pgmpy_networks() if names is None else names:
        path = folder / f"{name}-{round(100 * EVIDENCE_FRACTION)}.json"
        if path.exists() and not overwrite:
            continue
        bn = read_bif(pgmpy_example_path(name), name=name, normalize=True)
        seed = evidence_seed(name)
        record = {
            "command": "python -m prunelab large --freeze-evidence",
            "prunelab_version": __version__,
            "seed": seed,
            "date": _dt.date.today().isoformat(),
            "python": platform.python_version(),
            "generator": (f"random_evidence(read_bif(pgmpy_example_path({name!r}), normalize=True), "
                          f"fraction={EVIDENCE_FRACTION}, seed={seed})"),
            "network": name,
            "evidence": random_evidence(bn, EVIDENCE_FRACTION, seed=seed),
        }
        store.write_json_atomic(record, path)
        written.append(path)
    return written


# ----------------------------------------------------------------------------- profiles and runs
@dataclass(frozen=True)
class LargeProfile:
    """How much the large-network experiment runs.

    Parameters
    ----------
    name : str
        Results go to ``data/results/large`` for ``"paper"``, ``large-<name>`` otherwise.
    networks : tuple of str or None
        pgmpy networks; ``None``: every one (:func:`pgmpy_networks`).
    budgets : tuple of float
        Wall-clock budgets (seconds) of the ``budget`` runs, every network.
    long_budget : float or None
        A longer budget run on ``long_networks`` only.
    long_networks : tuple of str
        The networks of the ``long_budget`` runs.
    samplers : tuple of str
        Samplers of the ``budget`` runs.
    check_seconds : float
        Target sampling seconds of each of the two checked prune chains of a ``network`` run.
    check_max_steps : int
        At most this many steps per checked chain.
    mixing_network, mixing_variable : str
        Where the mixing study runs (with the network's frozen 25 % evidence) and the
        variable it follows.
    mixing_chains, mixing_steps : int
        Chains and steps per chain of the ``prune`` variant (every variant draws
        ``mixing_chains * mixing_steps`` in all).
    grid_sides, grid_determinism : tuple
        The grids: every side with every share of deterministic nodes.
    grid_seconds : float
        Target sampling seconds per grid chain (four chains).
    """

    name: str
    networks: tuple[str, ...] | None
    budgets: tuple[float, ...]
    long_budget: float | None = None
    long_networks: tuple[str, ...] = ()
    samplers: tuple[str, ...] = BUDGET_SAMPLERS
    check_seconds: float = 5.0
    check_max_steps: int = 200_000
    mixing_network: str = "hailfinder"
    mixing_variable: str = "Scenario"
    mixing_chains: int = 4
    mixing_steps: int = 50_000
    grid_sides: tuple[int, ...] = (10, 14, 18, 20, 22, 24, 28, 32)
    grid_determinism: tuple[float, ...] = (0.5, 0.75, 0.9)
    grid_seconds: float = 3.0

    def to_dict(self) -> dict:
        """The spec as plain JSON-ready values."""
        return asdict(self)


LARGE_PROFILES = {
    "paper": LargeProfile("paper", networks=None, budgets=(10.0, 1.0), long_budget=60.0,
                          long_networks=LONG_BUDGET_NETWORKS, check_seconds=2.0,
                          grid_sides=(10, 14, 18, 20, 24, 28), grid_seconds=2.0),
    "smoke": LargeProfile(
        "smoke", networks=("cancer", "asia"), budgets=(0.2,), check_seconds=0.2, check_max_steps=5_000,
        mixing_chains=2, mixing_steps=2_000, grid_sides=(4, 6), grid_determinism=(0.5, 0.9), grid_seconds=0.1,
    ),
}
"""``paper``: every pgmpy network, budgets 10 s and 1 s, 60 s on :data:`LONG_BUDGET_NETWORKS`
(about 75 min on 2 cores, see ``provenance.json``); ``smoke``: two small networks and tiny grids (seconds, for the
book's smoke build and the tests)."""


@dataclass(frozen=True)
class LargeRun:
    """One run of the experiment (see the module docstring for the kinds).

    Examples
    --------
    >>> LargeRun("budget", "link", True, sampler="pyagrum-lbp", budget=10.0).id
    'budget.link.ev25.pyagrum-lbp.10s'
    >>> LargeRun("grid", "grid-20x20", False, side=20, determinism=0.9).id
    'grid.grid-20x20.d90'
    """

    kind: str
    network: str
    evidence: bool
    sampler: str = ""
    budget: float = 0.0
    side: int = 0
    determinism: float = 0.0

    @property
    def id(self) -> str:
        """The run's id: kind, network, evidence and the kind's own settings."""
        parts = [self.kind, self.network]
        if self.kind != "grid":
            parts.append("ev25" if self.evidence else "ev0")
        if self.sampler:
            parts.append(self.sampler)
        if self.budget:
            parts.append(f"{self.budget:g}s")
        if self.kind == "grid":
            parts.append(f"d{round(100 * self.determinism)}")
        return ".".join(parts)

    def seed(self, root_seed: int) -> np.random.SeedSequence:
        """``SeedSequence(root_seed, spawn_key=(crc32(id),))``."""
        return np.random.SeedSequence(int(root_seed), spawn_key=(zlib.crc32(self.id.encode()),))


def get_large_profile(profile) -> LargeProfile:
    """A :class:`LargeProfile` by name (or the profile itself)."""
    if isinstance(profile, LargeProfile):
        return profile
    try:
        return LARGE_PROFILES[profile]
    except KeyError:
        raise KeyError(f"unknown large-network profile {profile!r}; profiles are {sorted(LARGE_PROFILES)}") from None


def plan_runs(profile) -> tuple[LargeRun, ...]:
    """Every run of a profile, cheapest kinds first: networks, budgets (largest budget first), mixing, grids."""
    prof = get_large_profile(profile)
    names = prof.networks if prof.networks is not None else pgmpy_networks()
    runs = [LargeRun("network", n, ev) for n in names for ev in (True, False)]
    runs += [LargeRun("budget", n, True, sampler=s, budget=float(b))
             for b in prof.budgets for n in names for s in prof.samplers]
    if prof.long_budget:
        runs += [LargeRun("budget", n, True, sampler=s, budget=float(prof.long_budget))
                 for n in prof.long_networks if n in names for s in prof.samplers]
    runs += [LargeRun("mixing", prof.mixing_network, True, sampler=v) for v in MIXING_VARIANTS]
    runs += [LargeRun("grid", f"grid-{n}x{n}", False, side=n, determinism=d)
             for d in prof.grid_determinism for n in prof.grid_sides]
    return tuple(runs)


# ----------------------------------------------------------------------------- helpers of the runs
@functools.lru_cache(maxsize=64)
def _exact(name: str, evidence: bool):
    """``(exact marginals, None)`` or ``(None, reason)`` for a pgmpy network, once per process."""
    bn, ev = load_large(name, evidence)
    try:
        return exact_marginals(bn, ev), None
    except TablesTooLargeError as exc:
        return None, str(exc)


def _deterministic_share(bn: BayesianNetwork) -> float:
    """Share of all CPT entries that are 0 or 1."""
    total = sum(bn.cpts[v].size for v in bn.variables)
    hard = sum(int(np.count_nonzero((bn.cpts[v] == 0.0) | (bn.cpts[v] == 1.0))) for v in bn.variables)
    return hard / total


def _timed(f, *args, **kwargs):
    """``(seconds, result, refusal)``: a :class:`TablesTooLargeError` is a refusal, not a crash."""
    tic = time.perf_counter()
    try:
        out = f(*args, **kwargs)
    except TablesTooLargeError as exc:
        return time.perf_counter() - tic, None, str(exc)
    return time.perf_counter() - tic, out, None


@functools.lru_cache(maxsize=1)
def _warm_up() -> None:
    """Compile the numba kernels of exact inference, the prune plan and the chains once per process.

    Kernels are cached on disk, but loading them costs tenths of a second: without
    this the first network a worker times would carry it in its set-up seconds.
    """
    from ..sampling import sample

    bn = make_grid(3, 0.5, seed=0)
    exact_marginals(bn)
    sample(bn, "prune", 10, seed=0, traps="off")
    sample(bn, "prune", 10, evidence={"v_3_3": "T"}, seed=0, traps="off")


def _fresh_exact(bn, evidence):
    """:func:`exact_marginals` timed from scratch: the network's compiled junction trees are dropped first."""
    from .. import exact

    exact._compiled.pop(bn, None)  # the cache the exact tests also reset; timing must include compilation
    return _timed(exact_marginals, bn, evidence)


def _off_figures(marginals: dict, exact: dict) -> dict:
    """AHD, the count of variables off by more than :data:`OFF_THRESHOLD`, the worst variable."""
    h = {v: float(hellinger(np.asarray(marginals[v], float), exact[v])) for v in exact}
    off = [v for v in exact if float(np.max(np.abs(np.asarray(marginals[v], float) - exact[v]))) > OFF_THRESHOLD]
    worst = max(h, key=h.get)
    return {"ahd": float(np.mean(list(h.values()))), "n_off": len(off), "n_free": len(exact),
            "worst_variable": worst, "worst_hellinger": h[worst]}


def _marginals_of(draws: np.ndarray, bn: BayesianNetwork, variables) -> dict:
    """Empirical marginals of ``variables`` from ``(chain, draw, variable)`` draws, pooled."""
    return {v: np.bincount(draws[:, :, bn.index(v)].ravel(), minlength=len(bn.states[v])) / draws[:, :, 0].size
            for v in variables}


def _ess_check(draws: np.ndarray, bn: BayesianNetwork, exact: dict) -> dict:
    """Agreement of pooled chains with the exact marginals, within the tolerance their ESS gives.

    For every free variable ``X`` with most probable exact state ``s`` (``p = P(X = s | e)``),
    the indicator ``1{X = s}`` of the chains has bulk ESS ``n_eff`` (arviz) and the
    estimate ``p_hat``; ``z = (p_hat - p) / sqrt(p (1 - p) / n_eff)``. The chains agree
    when every ``|z|`` stays below the Bonferroni bound for :data:`CHECK_FALSE_ALARM`
    over the variables; a variable whose chains never move off one value and whose
    estimate is wrong counts as a failure (no ESS to excuse it).
    """
    from scipy.stats import norm

    z_bound = float(norm.isf(CHECK_FALSE_ALARM / (2 * max(len(exact), 1))))
    zs, rhats, failed = {}, [], []
    for v, p_exact in exact.items():
        s = int(np.argmax(p_exact))
        p = float(p_exact[s])
        indicator = (draws[:, :, bn.index(v)] == s).astype(np.float64)
        p_hat = float(indicator.mean())
        if p >= 1.0 - 1e-12:
            zs[v] = 0.0 if p_hat == 1.0 else math.inf
        else:
            summary = _convergence_summary(indicator)
            n_eff = summary["ess_bulk"]
            if not np.isfinite(n_eff):
                zs[v] = 0.0 if abs(p_hat - p) <= OFF_THRESHOLD / 10 else math.inf
            else:
                zs[v] = abs(p_hat - p) / math.sqrt(p * (1 - p) / max(n_eff, 1.0))
                rhats.append(summary["rhat"])
        if zs[v] > z_bound:
            failed.append(v)
    worst = max(zs, key=zs.get)
    return {"z_bound": z_bound, "z_max": zs[worst], "z_worst_variable": worst, "n_z_failed": len(failed),
            "z_failed": ",".join(failed[:10]), "rhat_max": max((r for r in rhats if np.isfinite(r)), default=math.nan)}


def _convergence_summary(indicator) -> dict:
    """:func:`prunelab.diagnostics.convergence_summary`, arviz's 0/0 warning silenced.

    On split chains that do not vary, arviz warns and gives a NaN R-hat; the NaN stays
    (such variables are counted, not hidden).
    """
    import warnings

    from ..diagnostics import convergence_summary as summary

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "invalid value encountered in scalar divide", RuntimeWarning)
        return summary(indicator)


def _steps_for(seconds: float, probe_steps: int, probe_seconds: float, max_steps: int) -> int:
    """Steps that take about ``seconds`` at the probe's rate, within ``[20, max_steps]``."""
    rate = probe_steps / max(probe_seconds, 1e-9)
    return int(np.clip(round(seconds * rate), 20, max_steps))


def _probe_prune(bn, evidence, seed) -> tuple[int, float]:
    """Steps and seconds of a short prune run (numba compiled and plan cached first)."""
    from ..sampling import sample

    n = 10
    while True:
        result = sample(bn, "prune", n, evidence=evidence, seed=seed, traps="off")
        seconds = float(result.sample_seconds[0])
        if seconds >= 0.05 or n >= 10**6:
            return n, seconds
        n *= 10


# ----------------------------------------------------------------------------- the four kinds of run
def _network_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:
    from ..samplers import prune
    from ..samplers.uniform import METHOD_NAMES
    from ..sampling import sample

    _warm_up()
    bn = read_bif(pgmpy_example_path(run.network), name=run.network, normalize=True)  # a fresh object
    _, evidence = load_large(run.network, run.evidence)
    net = compile_network(bn, evidence)
    record = {
        "n_variables": bn.n_variables, "n_free": bn.n_variables - len(evidence or {}),
        "n_arcs": sum(len(bn.parents[v]) for v in bn.variables),
        "max_states": max(len(bn.states[v]) for v in bn.variables),
        "n_cpt_entries": int(sum(bn.cpts[v].size for v in bn.variables)),
        "deterministic_share": _deterministic_share(bn),
        "treewidth": int(treewidth(bn, evidence)),
    }
    exact_s, exact, exact_refusal = _fresh_exact(bn, evidence)
    setup_s, plan, setup_refusal = _timed(prune.compile_prune_plan, net)
    record.update(exact_seconds=exact_s, exact_refused=exact_refusal or "", setup_seconds=setup_s,
                  setup_refused=setup_refusal or "", setup_ratio=setup_s / exact_s if exact is not None else math.nan)
    if plan is None:
        return record
    seed = run.seed(root_seed)
    probe_steps, probe_seconds = _probe_prune(bn, evidence, seed.spawn(1)[0])
    n = _steps_for(prof.check_seconds, probe_steps, probe_seconds, prof.check_max_steps)
    result = sample(bn, "prune", n, n_chains=2, evidence=evidence, seed=seed, traps="record")
    methods = result.stats["method"].ravel()
    record.update(
        check_steps=n,
        steps_per_second=float(2 * n / result.sample_seconds.sum()),
        init_seconds=float(result.init_seconds.mean()),
        init_methods=",".join(result.init_methods),
        mean_size=float(result.stats["size"].mean()),
        method_shares=json.dumps({METHOD_NAMES[m]: float(np.mean(methods == m)) for m in np.unique(methods)}),
        move_rate=float(np.mean(np.any(result.draws[:, 1:] != result.draws[:, :-1], axis=2))),
    )
    if exact is not None:
        free = list(exact)
        record.update({f"check_{k}": v for k, v in _off_figures(_marginals_of(result.draws, bn, free), exact).items()})
        record.update(_ess_check(result.draws, bn, exact))
    return record


def _budget_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:
    from ..peers import run_sampler, sampler_info

    bn, evidence = load_large(run.network, run.evidence)
    exact, refusal = _exact(run.network, run.evidence)
    seed = int(run.seed(root_seed).generate_state(1)[0])
    try:
        if run.sampler in GUARDED_SAMPLERS:
            peer = run_peer_guarded(run.sampler, bn, evidence, run.budget, seed, run.budget + PEER_GRACE_SECONDS)
        else:
            peer = run_sampler(run.sampler, bn, evidence, seconds=run.budget, seed=seed)
    except Exception as exc:  # a peer that raises is a finding, not the end of the sweep  # noqa: BLE001
        record = {"status": "crashed", "note": f"{type(exc).__name__}: {exc}"[:500], "n_steps": 0}
    else:
        record = {"status": peer.status, "note": peer.note[:500], "n_steps": int(peer.n_steps),
                  "seconds": float(peer.seconds), "setup_seconds": float(peer.setup_seconds),
                  "steps_per_second": float(peer.steps_per_second), "move_rate": float(peer.move_rate),
                  "n_warnings": len(peer.warnings)}
        if peer.marginals is not None and exact is not None:
            record.update(_off_figures(peer.marginals, exact))
    record.update(step_unit=sampler_info(run.sampler).step_unit, exact_refused=refusal or "")
    return record


def _peer_child() -> None:
    """Body of :func:`run_peer_guarded`'s child: pickled arguments on stdin, the pickled result to a file."""
    import pickle

    from ..peers import run_sampler

    out, sampler, bn, evidence, seconds, seed = pickle.load(sys.stdin.buffer)
    try:
        result = run_sampler(sampler, bn, evidence, seconds=seconds, seed=seed)
    except Exception as exc:  # sent to the parent, which raises it  # noqa: BLE001
        result = exc
    Path(out).write_bytes(pickle.dumps(result))


def run_peer_guarded(sampler: str, bn: BayesianNetwork, evidence, seconds: float, seed: int, timeout: float):
    """:func:`prunelab.peers.run_sampler` in a child process, stopped after ``timeout`` seconds.

    pyAgrum checks its time limit between samples, and its likelihood weighting
    draws again a sample whose weight is zero: on evidence that forward samples
    almost never meet, one sample never ends and ``setMaxTime`` is not enforced. The
    child (a fresh interpreter, which works inside joblib's workers too) is then
    killed and the run is returned with status ``"timed out"``.

    Returns
    -------
    PeerRun

    Raises
    ------
    Exception
        What the sampler raised in the child.
    """
    import os
    import pickle
    import subprocess
    import tempfile

    from ..peers import PeerRun

    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    code = "from prunelab.experiments.large import _peer_child; _peer_child()"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.pickle"
        child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, env=env)
        try:
            _, err = child.communicate(pickle.dumps((str(out), sampler, bn, evidence, seconds, seed)), timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return PeerRun(sampler, "timed out", note=(
                f"no result {timeout:g} s after the start of a {seconds:g} s budget: pyAgrum checks its time "
                "limit only between samples, and one sample did not end (likelihood weighting draws again a "
                "sample whose weight is zero)"))
        if not out.exists():  # the child died without a word (a crash in the C++ library)
            last = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
            return PeerRun(sampler, "crashed", note=f"the peer's process ended with exit code {child.returncode}: "
                                                    f"{last[0][:300]}")
        result = pickle.loads(out.read_bytes())
    if isinstance(result, Exception):
        raise result
    return result


def _mixing_chains(variant: str, bn, evidence, prof: LargeProfile, seed):
    """``(draws (chain, draw, variable), sizes or None, seconds, extra record fields)`` of one mixing variant."""
    from ..samplers import gibbs, prune
    from ..samplers.init import initial_state
    from ..sampling import sample

    total = prof.mixing_chains * prof.mixing_steps
    if variant == "prune-tempered":
        from ..samplers.tempering import DEFAULT_BETAS, swap_rates

        result = sample(bn, variant, prof.mixing_steps, n_chains=prof.mixing_chains, evidence=evidence,
                        init="forward", seed=seed, traps="off")
        swaps = {"betas": DEFAULT_BETAS.tolist(), "swap_acceptance": swap_rates(result.stats["swapped"]).tolist()}
        return result.draws.astype(np.int64), result.stats["size"], float(result.sample_seconds.sum()), swaps
    if variant in ("prune", "prune-restarts", "prune-exact-restarts", "gibbs"):
        chains = prof.mixing_chains * (10 if variant.endswith("restarts") else 1)
        method = "gibbs" if variant == "gibbs" else "prune"
        options = {"rb_checkpoints": np.zeros(0, dtype=np.int64)} if method == "gibbs" else {}
        init = "forward"
        if variant == "prune-exact-restarts":
            from ..samplers.init import exact_posterior_state  # the initialiser's exact fallback

            rng = np.random.default_rng(seed.spawn(1)[0])
            init = np.stack([exact_posterior_state(rng, bn, evidence, 0) for _ in range(chains)])
        result = sample(bn, method, total // chains, n_chains=chains, evidence=evidence, init=init, seed=seed,
                        traps="off", **options)
        sizes = result.stats["size"] if method == "prune" else None
        return result.draws.astype(np.int64), sizes, float(result.sample_seconds.sum()), {}
    net = compile_network(bn, evidence)
    plan = prune.prune_plan(net)
    draws, sizes, seconds = [], [], 0.0
    for chain_seed in seed.spawn(prof.mixing_chains):
        rng = np.random.default_rng(chain_seed)
        x = initial_state(rng, bn, "forward", evidence=evidence)
        prune.run_chain(rng, net, x, 1, plan=plan)  # compiled before the clock starts
        gibbs.run_chain(rng, net, x, 1)
        rows, size_rows, tic = [], [], time.perf_counter()
        while sum(len(r) for r in rows) < prof.mixing_steps:
            out = prune.run_chain(rng, net, x, MIXED_PRUNE_STEPS, plan=plan)
            sweep = gibbs.run_chain(rng, net, out.draws[-1], 1).draws
            rows += [out.draws, sweep]
            size_rows += [out.size, np.full(1, np.nan)]
            x = sweep[-1]
        seconds += time.perf_counter() - tic
        draws.append(np.concatenate(rows)[: prof.mixing_steps])
        sizes.append(np.concatenate(size_rows)[: prof.mixing_steps])
    return np.stack(draws), np.stack(sizes), seconds, {}


def _longest_stay(series: np.ndarray) -> int:
    """Longest run of one value in a 1-d series."""
    change = np.flatnonzero(np.diff(series) != 0)
    bounds = np.concatenate([[-1], change, [series.size - 1]])
    return int(np.max(np.diff(bounds)))


def _mixing_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:
    bn, evidence = load_large(run.network, True)
    exact, _ = _exact(run.network, True)
    draws, sizes, seconds, extra = _mixing_chains(run.sampler, bn, evidence, prof, run.seed(root_seed))
    var = prof.mixing_variable
    column = draws[:, :, bn.index(var)]
    p = exact[var]
    estimate = np.bincount(column.ravel(), minlength=p.size) / column.size
    stay, dwell_size = [], []
    for value in range(p.size):
        now = column[:, :-1] == value
        n_at = int(now.sum())
        stay.append(float((now & (column[:, 1:] == value)).sum() / n_at) if n_at else math.nan)
        if sizes is not None and n_at:
            dwell_size.append(float(np.nanmean(sizes[:, :-1][now])))
        else:
            dwell_size.append(math.nan)
    top = int(np.argmax(p))
    summary = _convergence_summary((column == top).astype(float))
    record = {
        "variable": var, "n_chains": int(draws.shape[0]), "steps_per_chain": int(draws.shape[1]),
        "seconds": seconds, "hellinger": float(hellinger(estimate, p)),
        "longest_stay": max(_longest_stay(c) for c in column),
        "rhat": float(summary["rhat"]), "ess_bulk": float(summary["ess_bulk"]),
        "move_rate": float(np.mean(np.any(draws[:, 1:] != draws[:, :-1], axis=2))),
        "states": list(bn.states[var]), "exact": p.tolist(), "estimate": estimate.tolist(),
        "stay_probability": stay, "mean_size_at_value": dwell_size,
        "start_values": [bn.states[var][int(c[0])] for c in column],
        "n_children": sum(var in bn.parents[v] for v in bn.variables),
    }
    record.update(_off_figures(_marginals_of(draws, bn, list(exact)), exact), **extra)
    return record


def _grid_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:
    from ..samplers import prune
    from ..sampling import sample

    _warm_up()
    seed = run.seed(root_seed)
    structure, chains_seed, probe_seed = seed.spawn(3)
    bn = make_grid(run.side, run.determinism, seed=structure)
    net = compile_network(bn)
    record = {"side": run.side, "determinism": run.determinism, "n_variables": bn.n_variables,
              "treewidth": int(treewidth(bn)), "deterministic_share": _deterministic_share(bn)}
    exact_s, exact, exact_refusal = _fresh_exact(bn, None)
    setup_s, plan, setup_refusal = _timed(prune.compile_prune_plan, net)
    record.update(exact_seconds=exact_s, exact_refused=exact_refusal or "", setup_seconds=setup_s,
                  setup_refused=setup_refusal or "")
    if plan is None:
        return record
    probe_steps, probe_seconds = _probe_prune(bn, None, probe_seed)
    n = _steps_for(prof.grid_seconds, probe_steps, probe_seconds, 200_000)
    result = sample(bn, "prune", n, n_chains=4, init="random_forward", seed=chains_seed, traps="off")
    draws = result.draws.astype(np.int64)
    rhats, esses = [], []
    for i in range(bn.n_variables):
        summary = _convergence_summary(draws[:, :, i] == 1)
        if np.isfinite(summary["ess_bulk"]) and np.isfinite(summary["rhat"]):
            rhats.append(summary["rhat"])
            esses.append(summary["ess_bulk"])
    record.update(
        steps=n, steps_per_second=float(4 * n / result.sample_seconds.sum()),
        mean_size=float(result.stats["size"].mean()),
        move_rate=float(np.mean(np.any(draws[:, 1:] != draws[:, :-1], axis=2))),
        rhat_max=float(max(rhats)) if rhats else math.nan, ess_min=float(min(esses)) if esses else math.nan,
        n_constant=bn.n_variables - len(rhats),
    )
    if exact is not None:
        record.update(_off_figures(_marginals_of(draws, bn, list(exact)), exact))
    return record


_RUNNERS = {"network": _network_run, "budget": _budget_run, "mixing": _mixing_run, "grid": _grid_run}


def simulate_large_run(run: LargeRun, profile, root_seed: int = DEFAULT_ROOT_SEED) -> dict:
    """Compute one run and return its record (the run's fields, its figures, seconds and load).

    Nothing is written: :func:`run_large` writes the records as they arrive.
    """
    from .runner import quiet_worker

    quiet_worker()
    prof = get_large_profile(profile)
    tic = time.perf_counter()
    figures = _RUNNERS[run.kind](run, prof, root_seed)
    return {"id": run.id, **asdict(run), **figures, "wall_seconds": time.perf_counter() - tic,
            "load_average": _load()}


def _load() -> float:
    import os

    try:
        return float(os.getloadavg()[0])
    except OSError:
        return math.nan


# ----------------------------------------------------------------------------- the sweep
def large_results_dir(profile) -> Path:
    """``<data>/results/large`` for the paper profile, ``<data>/results/large-<name>`` otherwise."""
    from .runner import results_dir

    name = get_large_profile(profile).name
    return results_dir("large" if name == "paper" else f"large-{name}")


def _record_path(out: Path, run_id: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_.=+-]+", run_id):
        raise ValueError(f"run id {run_id!r} is not a safe file name")
    return Path(out) / "runs" / run_id.split(".", 1)[0] / f"{run_id}.json"


def _check_settings(out: Path, settings: dict) -> None:
    """Record the settings in ``sweep.json`` or refuse to mix runs made with others."""
    settings = json.loads(json.dumps(settings))  # tuples as the lists read back
    path = Path(out) / "sweep.json"
    if path.exists() and any((Path(out) / "runs").glob("*/*.json")):
        old = json.loads(path.read_text())
        diffs = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
        if diffs:
            raise store.SweepMismatchError(
                f"{out} holds runs made with other settings ({', '.join(diffs)}); "
                "choose another output folder or delete this one"
            )
    store.write_json_atomic(settings, path)


def run_large(profile="paper", out=None, n_jobs: int = 1, root_seed: int = DEFAULT_ROOT_SEED,
              kinds=None, progress: bool = False, command: str | None = None) -> dict:
    """Run (or resume) the large-network experiment and write its tables and provenance.

    Parameters
    ----------
    profile : str or LargeProfile
        ``"paper"`` or ``"smoke"`` (:data:`LARGE_PROFILES`).
    out : path, optional
        Default :func:`large_results_dir`.
    n_jobs : int, default 1
        Worker processes (joblib, loky); runs in flight compete for the cores, so
        the timed budgets are fairest with one worker per free core.
    root_seed : int
    kinds : iterable of str, optional
        Only these kinds of run (``"network"``, ``"budget"``, ``"mixing"``, ``"grid"``).
    progress : bool
        A line per finished run on stderr.
    command : str, optional
        Recorded in the provenance (default: ``sys.argv``).

    Returns
    -------
    dict
        The provenance, also written to ``<out>/provenance.json``.
    """
    from joblib import Parallel, delayed

    from .runner import (
        check_root_seed, git_commit, library_versions, machine_info, package_version, previous_sessions, utc_now,
    )

    root_seed = check_root_seed(root_seed)
    prof = get_large_profile(profile)
    out = Path(out) if out is not None else large_results_dir(prof)
    runs = [r for r in plan_runs(prof) if kinds is None or r.kind in set(kinds)]
    _check_settings(out, {"profile": prof.to_dict(), "root_seed": str(root_seed)})
    for tmp in (out / "runs").glob("*/.*.tmp"):
        tmp.unlink(missing_ok=True)
    todo = [r for r in runs if not _record_path(out, r.id).exists()]
    tic, started, load_start, git = time.perf_counter(), utc_now(), _load(), git_commit()  # the code that ran
    tasks = (delayed(simulate_large_run)(r, prof, root_seed) for r in todo)
    results = (t[0](*t[1], **t[2]) for t in tasks) if n_jobs == 1 else Parallel(
        n_jobs=n_jobs, return_as="generator_unordered")(tasks)
    n_done = 0
    for record in results:
        store.write_json_atomic(record, _record_path(out, record["id"]))
        n_done += 1
        if progress:
            print(f"[{n_done}/{len(todo)}] {record['id']} {record['wall_seconds']:.1f} s", file=sys.stderr, flush=True)
    sweep_seconds = time.perf_counter() - tic
    tables = consolidate_large(out)
    report = {
        "command": command if command is not None else " ".join(shlex.quote(a) for a in sys.argv),
        "regenerate": f"python -m prunelab large --profile {prof.name} --jobs {n_jobs}",
        "prunelab_version": package_version(), "git": git, "root_seed": str(root_seed),
        "profile": prof.to_dict(), "out": str(out), "n_jobs": n_jobs, "n_runs": len(runs), "n_done": n_done,
        "n_skipped": len(runs) - len(todo), "rows": {k: len(t) for k, t in tables.items()},
        "runs_wall_seconds": float(sum(t["wall_seconds"].sum() for t in tables.values())),
        "missing": [r.id for r in plan_runs(prof) if not _record_path(out, r.id).exists()],
        "start_time": started, "end_time": utc_now(), "sweep_seconds": sweep_seconds,
        "machine": {**machine_info(), "load_average_start": load_start},
        "libraries": {**library_versions(), **_peer_versions()},
        "previous_sessions": previous_sessions(out / "provenance.json"),
    }
    store.write_json_atomic(report, out / "provenance.json")
    return report


def _peer_versions() -> dict:
    from importlib import metadata

    try:
        return {"pyagrum": metadata.version("pyagrum")}
    except metadata.PackageNotFoundError:
        return {"pyagrum": None}


def consolidate_large(out: Path) -> dict:
    """One parquet table per kind of run from the run files (``<kind>.parquet``, plural for networks, grids)."""
    import pandas as pd
    import pyarrow as pa

    tables = {}
    for kind, name in (("network", "networks"), ("budget", "budget"), ("mixing", "mixing"), ("grid", "grids")):
        files = sorted((Path(out) / "runs" / kind).glob("*.json"))
        if not files:
            continue
        frame = pd.DataFrame([json.loads(p.read_text()) for p in files]).sort_values("id", kind="stable")
        store.write_table_atomic(pa.Table.from_pandas(frame, preserve_index=False), Path(out) / f"{name}.parquet")
        tables[name] = frame
    return tables


def load_large_results(out) -> dict:
    """The tables written by :func:`run_large` (pandas DataFrames) and ``provenance``."""
    import pandas as pd

    out = Path(out)
    results = {p.stem: pd.read_parquet(p) for p in sorted(out.glob("*.parquet"))}
    results["provenance"] = json.loads((out / "provenance.json").read_text())
    return results


def large_results_for(profile: str) -> dict:
    """The chapter's results: frozen at the paper profile, else the smoke profile run now in a temporary folder.

    Parameters
    ----------
    profile : str
        The book profile (:func:`prunelab.notebook.setup`): ``"paper"`` reads
        ``data/results/large`` (``python -m prunelab large --profile paper``
        regenerates it); any other runs :data:`LARGE_PROFILES` ``["smoke"]`` on one core.

    Returns
    -------
    dict
        As :func:`load_large_results`.
    """
    import tempfile

    if profile == "paper":
        written = large_results_dir("paper")  # a rerun's, where it writes (the user's folder for a wheel)
        if (written / "provenance.json").is_file():
            return load_large_results(written)
        return load_large_results(data_dir() / "results" / "large")  # the frozen results shipped
    with tempfile.TemporaryDirectory() as tmp:
        run_large("smoke", out=tmp, n_jobs=1, command="large_results_for('smoke')")
        return load_large_results(tmp)


# ----------------------------------------------------------------------------- tables for the chapter
def network_table(results: dict, budget: float | None = None):
    """One row per network: size, treewidth, determinism, set-up, speed, ``|S|``, ESS check, AHD per sampler.

    Set-up and speed columns are given without evidence (``_ev0``) and with the
    frozen 25 % evidence (``_ev25``); the ESS check and the AHD columns
    (``ahd_<sampler>``, at ``budget`` seconds, default the largest budget every network ran) are
    with evidence. A sampler that gave no estimate has its status instead
    (``status_<sampler>``) and a NaN AHD.
    """
    import pandas as pd

    nets = results["networks"]
    keep = ["n_variables", "n_arcs", "max_states", "deterministic_share", "treewidth", "exact_seconds",
            "setup_seconds", "setup_ratio", "setup_refused", "steps_per_second", "mean_size", "init_seconds",
            "check_steps", "n_z_failed", "check_ahd", "check_n_off", "rhat_max", "z_failed", "n_free"]
    keep = [c for c in keep if c in nets]
    wide = []
    for ev, suffix in ((False, "_ev0"), (True, "_ev25")):
        part = nets[nets["evidence"] == ev].set_index("network")[keep]
        wide.append(part.add_suffix(suffix))
    table = pd.concat(wide, axis=1)
    table = table.rename(columns={"n_variables_ev0": "n_variables", "n_arcs_ev0": "n_arcs",
                                  "max_states_ev0": "max_states", "deterministic_share_ev0": "deterministic_share"})
    table = table.drop(columns=[c for c in table if c.endswith("_ev25") and c.replace("_ev25", "") in
                                ("n_variables", "n_arcs", "max_states", "deterministic_share")])
    if "budget" in results:
        runs = results["budget"]
        if budget is None:
            networks_at = runs.groupby("budget")["network"].nunique()
            budget = networks_at[networks_at == networks_at.max()].index.max()
        at = runs[runs["budget"] == budget]
        for sampler, rows in at.groupby("sampler", sort=False):
            rows = rows.set_index("network")
            table[f"ahd_{sampler}"] = rows["ahd"] if "ahd" in rows else np.nan
            table[f"off_{sampler}"] = rows["n_off"] if "n_off" in rows else np.nan
            table[f"status_{sampler}"] = rows["status"]
    return table.sort_values("n_variables", kind="stable")


def growth_fit(grids) -> dict:
    """Least-squares lines ``log2(seconds) = a + b * side`` per determinism, for set-up and for one step.

    Returns
    -------
    dict
        ``{determinism: {"setup": (a, b), "step": (a, b)}}`` over the grids that ran
        (refusals excluded); ``b`` is the doubling rate per unit of side.
    """
    fits = {}
    for d, rows in grids[grids["setup_refused"] == ""].groupby("determinism"):
        fit = {}
        for name, seconds in (("setup", rows["setup_seconds"]), ("step", 1.0 / rows.get("steps_per_second"))):
            ok = np.isfinite(seconds.to_numpy(float)) & (seconds.to_numpy(float) > 0)
            if ok.sum() >= 2:
                b, a = np.polyfit(rows["side"].to_numpy(float)[ok], np.log2(seconds.to_numpy(float)[ok]), 1)
                fit[name] = (float(a), float(b))
        fits[float(d)] = fit
    return fits
