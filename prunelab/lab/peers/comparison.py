"""prunelab beside its peers at equal wall-clock budgets: one table, one row per run.

For every case (a network, with or without its frozen evidence) and budget, each
sampler of :data:`prunelab.lab.peers.PEER_SAMPLERS` runs one chain from the same
feasible start (pyAgrum draws its own) and is scored by its sweeps (or steps) per
second and by the average Hellinger distance (AHD: mean over the free variables) of
its estimate to the exact marginals. Each peer's figures are set beside those of its
prunelab counterpart in the same table, as ratios.

:func:`compare_peers` is what the book's chapter and ``benchmarks/compare_peers.py``
run; the command adds side checks, targets, provenance and files around it.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable

import pandas as pd

from .. import peers
from prunelab.catalogue import load_evidence, load_network
from prunelab.exact import exact_marginals
from prunelab.network import BayesianNetwork

__all__ = ["COLUMNS", "EVIDENCE_NETWORKS", "add_ratios", "compare_peers", "load_case"]

EVIDENCE_NETWORKS = ("asia", "alarm", "win95pts")
"""Networks with a frozen evidence set, i.e. those with a ``name+ev`` case."""

COLUMNS = [
    "case", "network", "evidence", "n_free", "log2_states", "deterministic", "budget_s", "sampler", "library",
    "step_unit", "counterpart", "status", "n_steps", "seconds", "setup_seconds", "steps_per_s", "ahd",
    "move_rate", "counterpart_steps_per_s", "speed_ratio", "counterpart_ahd", "ahd_ratio", "prune_ahd",
    "note", "warnings", "seed", "load_1min",
]
"""Columns of :func:`compare_peers`'s table: ``speed_ratio`` = counterpart steps/s / peer
steps/s; ``ahd_ratio`` = peer AHD / counterpart AHD; ``prune_ahd`` = prunelab-prune's
AHD in the same case and budget."""


def load_case(case: str) -> tuple[BayesianNetwork, dict | None, str]:
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


def _load_1min() -> float:
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):  # pragma: no cover - no load average (Windows)
        return math.nan


def _run_case(case: str, budgets, samplers, seed: int, log: Callable[[str], None]) -> list[dict]:
    """All samplers and budgets on one case: a list of table rows (ratio columns not yet filled)."""
    bn, evidence, label = load_case(case)
    exact = exact_marginals(bn, evidence)
    start = peers.start_state(bn, evidence, seed)
    count = peers.joint_state_count(bn, evidence)
    deterministic = any(bool((c == 1.0).any()) for c in bn.cpts.values())  # a CPT row with a certain outcome
    cache: dict = {}
    rows = []
    for budget in budgets:
        for sampler in samplers:
            t0 = time.perf_counter()
            run = peers.run_sampler(sampler, bn, evidence, seconds=budget, seed=seed, start=start, cache=cache)
            info = peers.sampler_info(sampler)
            rows.append({
                "case": case, "network": bn.name, "evidence": label, "n_free": len(exact),
                "log2_states": round(math.log2(count), 2), "deterministic": deterministic, "budget_s": float(budget),
                "sampler": sampler, "library": info.library, "step_unit": info.step_unit,
                "counterpart": info.counterpart, "status": run.status, "n_steps": run.n_steps,
                "seconds": run.seconds, "setup_seconds": run.setup_seconds, "steps_per_s": run.steps_per_second,
                "ahd": run.mean_hellinger(exact), "move_rate": run.move_rate, "note": run.note,
                "warnings": " | ".join(run.warnings), "seed": seed, "load_1min": _load_1min(),
            })
            log(f"  {case:12s} {budget:6.2f}s {sampler:22s} {run.status:9s} {run.steps_per_second:12.1f}/s "
                f"AHD {rows[-1]['ahd']:.4f}  ({time.perf_counter() - t0:.1f}s) {run.note[:60]}")
    return rows


def add_ratios(table: pd.DataFrame) -> pd.DataFrame:
    """Fill the counterpart and ratio columns from rows of the same case and budget.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows as :func:`compare_peers` makes them (the ratio columns, if present,
        are recomputed), e.g. tables of several runs concatenated case by case.

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


def compare_peers(cases: Iterable[str], budgets: Iterable[float], samplers: Iterable[str] | None = None,
                  seed: int = 0, *, log: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Run every sampler on every case for every wall-clock budget: the comparison table.

    Each case gets one feasible start (:func:`prunelab.lab.peers.start_state` with
    ``seed``), shared by all samplers that accept a start, and its exact marginals;
    each sampler then runs one chain per budget (:func:`prunelab.lab.peers.run_sampler`
    with ``seconds=budget``). A sampler that cannot run (pgmpy too large, pyAgrum
    not installed, a crash) gets a row with that ``status`` and NaN figures.

    Parameters
    ----------
    cases : iterable of str
        Case names, see :func:`load_case`.
    budgets : iterable of float
        Seconds of sampling per run (setup excluded).
    samplers : iterable of str, optional
        Keys of :data:`prunelab.lab.peers.PEER_SAMPLERS`; default all of them. A
        peer's ratios need its counterpart (:func:`prunelab.lab.peers.counterpart`)
        among them.
    seed : int, default 0
        Seeds the start state and every sampler.
    log : callable, optional
        Called with one line of text per run (e.g. ``print``); default silent.

    Returns
    -------
    pandas.DataFrame
        One row per case, budget and sampler, in that order; columns
        :data:`COLUMNS` (see :func:`add_ratios` for the ratios).

    Raises
    ------
    ValueError
        For an unknown case or sampler (before anything runs), or nothing to run.

    Examples
    --------
    >>> table = compare_peers(["deterministic_pair"], [0.02], ["prunelab-gibbs", "prunelab-prune"], seed=1)
    >>> table[["sampler", "status", "counterpart"]].to_numpy().tolist()
    [['prunelab-gibbs', 'ok', 'prunelab-gibbs'], ['prunelab-prune', 'ok', 'prunelab-prune']]
    >>> table["case"].unique().tolist()
    ['deterministic_pair']
    >>> float(table.loc[0, "speed_ratio"]), bool(table.loc[0, "ahd"] > table.loc[1, "ahd"])  # Gibbs is trapped
    (1.0, True)
    """
    cases = list(cases)
    budgets = [float(b) for b in budgets]
    samplers = list(peers.PEER_SAMPLERS) if samplers is None else list(samplers)
    if not (cases and budgets and samplers):
        raise ValueError("give at least one case, one budget and one sampler")
    for sampler in samplers:
        peers.sampler_info(sampler)  # fail early on a bad name
    for case in cases:
        load_case(case)
    log = log or (lambda line: None)
    rows = []
    for case in cases:
        rows += _run_case(case, budgets, samplers, seed, log)
    return add_ratios(pd.DataFrame(rows))
