"""prunelab beside pgmpy, pyAgrum and PyMC at equal wall-clock budgets, and what the peers do with their defaults.

Two kinds of run, each a flat record (:func:`prunelab.lab.experiments.framework.sweep`):

``comparison``
    one (case, budget, sampler): the sampler of :data:`prunelab.lab.peers.PEER_SAMPLERS`
    runs one chain for ``budget`` seconds of its own sampling time (setup excluded) from
    the case's feasible start (one per case, shared by every sampler that takes a start;
    pyAgrum draws its own), and is scored by its sweeps (or steps) per second and by the
    average Hellinger distance (AHD: mean over the free variables) of its estimate to the
    exact marginals. A sampler that cannot run (pgmpy too large, pyAgrum not installed,
    a crash) gives a row with that ``status`` and NaN figures;
``check``
    one behaviour checked on the side, on one case: pyAgrum's default stopping rule,
    pgmpy from its own random start, PyMC's default initial point, PyMC's
    ``proportional`` and ``uniform`` proposals on a single ``Categorical``.

A case is a network name, or ``name+ev`` with its frozen 25 % evidence
(:func:`load_case`). The ratios to the prunelab counterpart (:func:`add_ratios`) are
not stored: :func:`comparison_table` computes them from the consolidated table, from
rows of the same case and budget::

    from prunelab.lab.experiments import EXPERIMENTS, results
    from prunelab.lab.experiments.peers import comparison_table
    table = comparison_table(results(EXPERIMENTS["peers"], "smoke"))

or ``python -m prunelab run peers --profile paper`` (about 70 minutes on two cores,
mostly PyMC compiling one step method per variable). To rerun some runs, delete
their records (``runs/<kind>/<id>.json``) and run the same command again.
"""

from __future__ import annotations

import functools
import math
import re
import time
import warnings
from dataclasses import asdict, dataclass

import numpy as np

from .framework import run_seed_sequence
from prunelab.catalogue import load_evidence, load_network
from prunelab.exact import exact_marginals
from prunelab.lab import peers
import os
import ast

__all__ = [
    "ALL_CASES", "CHECKS", "COLUMNS", "EVIDENCE_NETWORKS", "PEERS", "PEERS_PROFILES", "PeersProfile", "PeersRun",
    "add_ratios", "comparison_table", "load_case",
]

EVIDENCE_NETWORKS = ("asia", "alarm", "win95pts")
"""Networks with a frozen evidence set, i.e. those with a ``name+ev`` case."""

ALL_CASES = ("asia", "asia+ev", "alarm", "alarm+ev", "win95pts", "win95pts+ev", "grid-3x3", "grid-5x5", "grid-8x8")
"""The cases of the ``paper`` profile."""

RATIO_COLUMNS = ("counterpart_steps_per_s", "speed_ratio", "counterpart_ahd", "ahd_ratio", "prune_ahd")
"""The columns :func:`add_ratios` computes (not stored in a run's record)."""

COLUMNS = [
    "case", "network", "evidence", "n_free", "log2_states", "deterministic", "budget_s", "sampler", "library",
    "step_unit", "counterpart", "status", "n_steps", "seconds", "setup_seconds", "steps_per_s", "ahd",
    "move_rate", "counterpart_steps_per_s", "speed_ratio", "counterpart_ahd", "ahd_ratio", "prune_ahd",
    "note", "warnings", "seed", "load_1min",
]
"""Columns of :func:`comparison_table`: ``speed_ratio`` = counterpart steps/s / peer
steps/s; ``ahd_ratio`` = peer AHD / counterpart AHD; ``prune_ahd`` = prunelab-prune's
AHD in the same case and budget; ``seed`` the sampler's seed."""

CHECKS = {
    "pyagrum-default": "pyagrum default stopping rule",
    "pgmpy-random-start": "pgmpy from its random start",
    "pymc-initial-point": "pymc default initial point",
    "pymc-categorical": "pymc Categorical",
}
"""The side checks a profile may run: ``key: label`` (the ``check`` column; the
Categorical check gives one row per proposal and distribution)."""

CATEGORICALS = ((0.5, 0.5), (0.6, 0.3, 0.1))
"""The distributions of the ``pymc-categorical`` check."""

CATEGORICAL_DRAWS = 5000


@dataclass(frozen=True)
class PeersProfile:
    """How much the peer comparison runs: its cases, wall-clock budgets (s), samplers and side checks."""

    name: str
    cases: tuple[str, ...]
    budgets: tuple[float, ...]
    samplers: tuple[str, ...]
    checks: tuple[str, ...]

    def to_dict(self) -> dict:
        """The spec as plain JSON-ready values."""
        return asdict(self)


PEERS_PROFILES = {
    "paper": PeersProfile(
        "paper", ALL_CASES, (1.0, 10.0),
        ("pgmpy-gibbs", "pyagrum-gibbs", "pymc-cgm-uniform", "pymc-cgm-proportional", "pymc-metropolis",
         "prunelab-gibbs", "prunelab-metropolis", "prunelab-prune"),
        tuple(CHECKS)),
    "smoke": PeersProfile(
        "smoke", ("asia", "alarm", "grid-3x3"), (0.03, 0.3),
        ("pgmpy-gibbs", "pyagrum-gibbs", "prunelab-gibbs", "prunelab-metropolis", "prunelab-prune"),
        ("pyagrum-default", "pgmpy-random-start")),
    "quick": PeersProfile(
        "quick", ("asia", "asia+ev", "grid-3x3"), (0.1,),
        ("pgmpy-gibbs", "pyagrum-gibbs", "pymc-cgm-uniform", "pymc-cgm-proportional", "pymc-metropolis",
         "prunelab-gibbs", "prunelab-metropolis", "prunelab-prune"),
        tuple(CHECKS)),
}
"""``paper``: the frozen comparison (about 70 minutes on two cores); ``smoke``: seconds,
small budgets, three cases and no PyMC (whose compilation alone outlasts the budgets);
``quick``: every sampler and check, PyMC's included, on three small cases at 0.1 s (CI's run
of the comparison, a few minutes)."""


def _slug(text: str) -> str:
    """Text as part of a file name: ``"p=[0.5, 0.5]"`` -> ``"p=0.5-0.5"``."""
    return re.sub(r"[^A-Za-z0-9.=+]+", "-", text.replace("[", "").replace("]", "")).strip("-")


@dataclass(frozen=True)
class PeersRun:
    """One run: a ``comparison`` of ``sampler`` on ``case`` for ``budget`` seconds, or a ``check`` on ``case``.

    Examples
    --------
    >>> PeersRun("comparison", "asia+ev", 0.3, "prunelab-gibbs").id
    'comparison.asia+ev.0.3s.prunelab-gibbs'
    >>> PeersRun("check", "p=[0.5, 0.5]", check="pymc-categorical", proposal="uniform").id
    'check.pymc-categorical-uniform.p=0.5-0.5'
    """

    kind: str
    case: str
    budget: float = math.nan
    sampler: str = ""
    check: str = ""
    proposal: str = ""

    @property
    def id(self) -> str:
        """``comparison.<case>.<budget>s.<sampler>`` or ``check.<check>[-<proposal>].<case slug>``."""
        if self.kind == "comparison":
            return f"comparison.{self.case}.{self.budget:g}s.{self.sampler}"
        return f"check.{self.check}{'-' + self.proposal if self.proposal else ''}.{_slug(self.case)}"


def load_case(case: str):
    """The network, evidence and evidence label of a case name.

    Parameters
    ----------
    case : str
        A network name (:data:`prunelab.NETWORKS`), without evidence, or
        ``name+ev`` for a network of :data:`EVIDENCE_NETWORKS` with its frozen
        25 % evidence (:func:`prunelab.load_evidence`).

    Returns
    -------
    bn : BayesianNetwork
    evidence : dict or None
        ``None`` without evidence.
    label : str
        ``"none"`` or ``"25%"``, the ``evidence`` column of the table.

    Raises
    ------
    ValueError
        For a suffix other than ``+ev``, or ``+ev`` on a network without frozen evidence.

    Examples
    --------
    >>> bn, evidence, label = load_case("asia+ev")
    >>> bn.name, label, evidence is not None
    ('asia', '25%', True)
    >>> load_case("asia")[1:]
    (None, 'none')
    """
    name, _, flag = case.partition("+")
    if flag not in ("", "ev"):
        raise ValueError(f"unknown case {case!r}: use a network name, or name+ev")
    if flag and name not in EVIDENCE_NETWORKS:
        raise ValueError(f"{name!r} has no frozen evidence; cases with +ev: {EVIDENCE_NETWORKS}")
    bn = load_network(name)
    evidence = load_evidence(name) if flag else None
    return bn, evidence, ("25%" if flag else "none")


def _seed(run_id: str, root_seed: int) -> int:
    """A run's integer seed (the peers take integers): the first word of :func:`run_seed_sequence`."""
    return int(run_seed_sequence(run_id, root_seed).generate_state(1)[0])


@functools.lru_cache(maxsize=1)
def _case(case: str, root_seed: int) -> dict:
    """What a case's runs share in a process: network, evidence, exact marginals, start, built models."""
    bn, evidence, label = load_case(case)
    return {
        "bn": bn, "evidence": evidence, "label": label, "exact": exact_marginals(bn, evidence),
        "start": peers.start_state(bn, evidence, _seed(f"start.{case}", root_seed)),
        "count": peers.joint_state_count(bn, evidence),
        "deterministic": any(bool((c == 1.0).any()) for c in bn.cpts.values()),  # a CPT row with a certain outcome
        "cache": {},  # models pgmpy and PyMC built, reused by the case's other budgets
    }


def _load_1min() -> float:

    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):  # pragma: no cover - no load average (Windows)
        return math.nan


def _comparison_run(run: PeersRun, root_seed: int) -> dict:

    case = _case(run.case, root_seed)
    seed = _seed(run.id, root_seed)
    result = peers.run_sampler(run.sampler, case["bn"], case["evidence"], seconds=run.budget, seed=seed,
                               start=case["start"], cache=case["cache"])
    info = peers.sampler_info(run.sampler)
    return {
        "case": run.case, "network": case["bn"].name, "evidence": case["label"], "n_free": len(case["exact"]),
        "log2_states": round(math.log2(case["count"]), 2), "deterministic": case["deterministic"],
        "budget_s": float(run.budget), "sampler": run.sampler, "library": info.library, "step_unit": info.step_unit,
        "counterpart": info.counterpart, "status": result.status, "n_steps": result.n_steps,
        "seconds": result.seconds, "setup_seconds": result.setup_seconds, "steps_per_s": result.steps_per_second,
        "ahd": result.mean_hellinger(case["exact"]), "move_rate": result.move_rate, "note": result.note,
        "warnings": " | ".join(result.warnings), "seed": seed, "load_1min": _load_1min(),
    }


def _check_run(run: PeersRun, root_seed: int) -> dict:

    seed = _seed(run.id, root_seed)
    value, detail = math.nan, ""
    if run.check == "pymc-categorical":
        p = list(categorical_p(run.case))
        _, as_coded = peers.metropolized_gibbs_as_coded(p)
        with warnings.catch_warnings(record=True) as caught:  # the divide-by-zero is part of the finding
            warnings.simplefilter("always")
            freq = peers.pymc_categorical_frequencies(p, n_draws=CATEGORICAL_DRAWS, proposal=run.proposal,
                                                      seed=seed % 2**31)
        seen = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
        value = float(CATEGORICAL_DRAWS * np.sum((freq - p) ** 2 / np.asarray(p)))
        result = "frequencies " + np.array2string(freq, precision=3)
        detail = (f"Pearson chi2 vs p over {CATEGORICAL_DRAWS} draws; as-coded stationary "
                  f"{np.round(as_coded, 3).tolist()}" + (f"; warnings: {seen}" if seen else ""))
        return {"check": f"{CHECKS[run.check]} {run.proposal}", "case": run.case, "result": result,
                "value": value, "detail": detail}
    bn, evidence, _ = load_case(run.case)
    if run.check == "pyagrum-default":
        out = peers.pyagrum_default_gibbs(bn, evidence, seed=seed)
        result, detail = out.status, out.note
        if out.status == "ok":
            result, value = f"stopped after {out.n_steps} it.", out.mean_hellinger(exact_marginals(bn, evidence))
            detail = f"AHD after its own stop; {out.note}"
    elif run.check == "pgmpy-random-start":
        out = peers.pgmpy_random_start(bn, evidence, seed=seed)
        result, detail = out.status, out.note
    else:  # pymc-initial-point
        tic = time.perf_counter()
        model = peers.to_pymc(bn, evidence)
        value = float(model.compile_logp()(model.initial_point()))
        result = "feasible" if np.isfinite(value) else "infeasible (logp = -inf)"
        detail = f"compile {time.perf_counter() - tic:.1f}s"
    return {"check": CHECKS[run.check], "case": run.case, "result": result, "value": value, "detail": detail}


def categorical_p(text: str) -> tuple[float, ...]:
    """The distribution of a Categorical check's case: ``"p=[0.5, 0.5]"`` -> ``(0.5, 0.5)``.

    Examples
    --------
    >>> categorical_p("p=[0.6, 0.3, 0.1]")
    (0.6, 0.3, 0.1)
    """
    return tuple(float(x) for x in ast.literal_eval(text.removeprefix("p=")))


class _Peers:
    """The experiment (:class:`prunelab.lab.experiments.framework.Experiment`)."""

    name = "peers"
    profiles = PEERS_PROFILES
    tables = {"comparison": "comparison", "check": "checks"}
    libraries = ("pyAgrum", "pymc", "pytensor")

    def plan(self, profile: PeersProfile) -> tuple[PeersRun, ...]:
        """Every (case, budget, sampler) in the profile's order, then the side checks; names checked first.

        Examples
        --------
        >>> runs = PEERS.plan(PEERS_PROFILES["smoke"])
        >>> len([r for r in runs if r.kind == "comparison"]), runs[0].id
        (30, 'comparison.asia.0.03s.pgmpy-gibbs')
        """
        for sampler in profile.samplers:
            peers.sampler_info(sampler)  # an unknown sampler fails here, before anything runs
        for case in profile.cases:
            load_case(case)
        unknown = sorted(set(profile.checks) - set(CHECKS))
        if unknown:
            raise ValueError(f"unknown check(s) {unknown}; checks are {list(CHECKS)}")
        if not (profile.cases and profile.budgets and profile.samplers):
            raise ValueError("a profile needs at least one case, one budget and one sampler")
        bad = [b for b in profile.budgets if not (math.isfinite(b) and b > 0)]
        if bad:
            raise ValueError(f"budgets must be positive, finite numbers of seconds, got {bad}")
        runs = [PeersRun("comparison", c, float(b), s) for c in profile.cases for b in profile.budgets
                for s in profile.samplers]
        for check in profile.checks:
            if check == "pymc-categorical":
                runs += [PeersRun("check", f"p={list(p)}", check=check, proposal=proposal)
                         for p in CATEGORICALS for proposal in ("proportional", "uniform")]
            else:
                extra = ("deterministic_pair", "block_chain") if check == "pyagrum-default" else ()
                runs += [PeersRun("check", c, check=check) for c in dict.fromkeys((*extra, *profile.cases))]
        return tuple(runs)

    def run(self, run: PeersRun, profile: PeersProfile, root_seed: int) -> dict:
        """One run's record; its seed comes from its id, the case's start from the case."""
        tic = time.perf_counter()
        body = _comparison_run if run.kind == "comparison" else _check_run
        record = {"id": run.id, **body(run, root_seed)}
        record["wall_seconds"] = time.perf_counter() - tic
        return record


PEERS = _Peers()
"""The peer comparison experiment."""


def add_ratios(table):
    """Fill the counterpart and ratio columns from rows of the same case and budget.

    Parameters
    ----------
    table : pandas.DataFrame
        Comparison rows (the ratio columns, if present, are recomputed).

    Returns
    -------
    pandas.DataFrame
        A copy with the columns :data:`COLUMNS`, in that order. A ratio is NaN
        where the counterpart is not in the table for that case and budget.
    """
    table = table.copy()
    keyed = table.set_index(["case", "budget_s", "sampler"])

    def lookup(row, sampler, column):
        key = (row["case"], row["budget_s"], sampler)
        return keyed[column].get(key, math.nan) if key in keyed.index else math.nan

    table["counterpart_steps_per_s"] = [lookup(r, r["counterpart"], "steps_per_s") for _, r in table.iterrows()]
    table["counterpart_ahd"] = [lookup(r, r["counterpart"], "ahd") for _, r in table.iterrows()]
    table["prune_ahd"] = [lookup(r, "prunelab-prune", "ahd") for _, r in table.iterrows()]
    table["speed_ratio"] = table["counterpart_steps_per_s"] / table["steps_per_s"]
    table["ahd_ratio"] = table["ahd"] / table["counterpart_ahd"]
    return table[COLUMNS]


def comparison_table(tables: dict):
    """The comparison of a results folder (:func:`~prunelab.lab.experiments.results`) with its ratios.

    Rows are in the order of the profile that made them (case, budget, sampler),
    read from the folder's provenance; the ratios are :func:`add_ratios`.

    Parameters
    ----------
    tables : dict
        As :func:`prunelab.lab.experiments.load_folder` returns it.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`.

    Examples
    --------
    >>> from prunelab.lab.experiments import PEERS, results
    >>> table = comparison_table(results(PEERS, "paper"))
    >>> table.columns.tolist() == list(COLUMNS), table.loc[0, ["case", "sampler", "counterpart"]].tolist()
    (True, ['asia', 'pgmpy-gibbs', 'prunelab-gibbs'])
    """
    profile = PeersProfile(**{k: tuple(v) if isinstance(v, list) else v
                              for k, v in tables["provenance"]["profile"].items()})
    order = {r.id: i for i, r in enumerate(PEERS.plan(profile))}
    table = tables["comparison"]
    table = table.iloc[np.argsort([order.get(i, len(order)) for i in table["id"]], kind="stable")]
    return add_ratios(table.reset_index(drop=True))
