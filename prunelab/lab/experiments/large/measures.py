"""What the runs of the large-network experiment measure, and the timing helpers they share.

Exact marginals or the refusal, timed calls (a refusal of
:class:`~prunelab.elimination.TablesTooLargeError` is a finding, not a crash), the
AHD and the variables off by more than :data:`OFF_THRESHOLD`, the check of pooled
chains against the exact marginals within their ESS (:func:`ess_check`), and the
probe that sizes a chain to a target number of seconds.
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np

from prunelab.elimination import TablesTooLargeError
from prunelab.exact import exact_marginals
from prunelab.grids import make_grid
from prunelab.indicators import hellinger, mean_hellinger_over_variables
from prunelab.junction_tree import forget_junction_trees
from prunelab.network import BayesianNetwork
from .networks import load_large
from prunelab.sampling import sample
import warnings
from prunelab.diagnostics import convergence_summary

__all__ = [
    "CHECK_FALSE_ALARM", "OFF_THRESHOLD", "deterministic_share", "ess_check", "exact_or_refusal", "fresh_exact",
    "longest_stay", "off_figures", "pooled_marginals", "probe_prune", "quiet_convergence_summary", "steps_for",
    "timed", "warm_up",
]


OFF_THRESHOLD = 0.1
"""A variable counts as *off* when some state's estimate misses the exact marginal by more."""


CHECK_FALSE_ALARM = 0.01
"""Family-wise false-alarm rate of the ESS check of a network's prune chains (Bonferroni over variables)."""


@functools.lru_cache(maxsize=64)
def exact_or_refusal(name: str, evidence: bool):
    """``(exact marginals, None)`` or ``(None, reason)`` for a pgmpy network, once per process."""
    bn, ev = load_large(name, evidence)
    try:
        return exact_marginals(bn, ev, method="junction_tree"), None
    except TablesTooLargeError as exc:
        return None, str(exc)


def deterministic_share(bn: BayesianNetwork) -> float:
    """Share of all CPT entries that are 0 or 1."""
    total = sum(bn.cpts[v].size for v in bn.variables)
    hard = sum(int(np.count_nonzero((bn.cpts[v] == 0.0) | (bn.cpts[v] == 1.0))) for v in bn.variables)
    return hard / total


def timed(f, *args, **kwargs):
    """``(seconds, result, refusal)``: a :class:`TablesTooLargeError` is a refusal, not a crash."""
    tic = time.perf_counter()
    try:
        out = f(*args, **kwargs)
    except TablesTooLargeError as exc:
        return time.perf_counter() - tic, None, str(exc)
    return time.perf_counter() - tic, out, None


@functools.lru_cache(maxsize=1)
def warm_up() -> None:
    """Compile the numba kernels of exact inference, the prune plan and the chains once per process.

    Kernels are cached on disk, but loading them costs tenths of a second: without
    this the first network a worker times would carry it in its set-up seconds.
    """
    bn = make_grid(3, 0.5, seed=0)
    exact_marginals(bn)
    sample(bn, "prune", 10, seed=0, traps="off")
    sample(bn, "prune", 10, evidence={"v_3_3": "T"}, seed=0, traps="off")


def fresh_exact(bn, evidence):
    """:func:`exact_marginals` by the junction tree, timed from scratch: its compiled trees are dropped first.

    The junction tree by name: this experiment measures where tables reach (the
    circuit past them is measured on its own).
    """
    forget_junction_trees(bn)  # timing must include compilation
    return timed(exact_marginals, bn, evidence, method="junction_tree")


def off_figures(marginals: dict, exact: dict) -> dict:
    """AHD, the count of variables off by more than :data:`OFF_THRESHOLD`, the worst variable."""
    h = {v: float(hellinger(np.asarray(marginals[v], float), exact[v])) for v in exact}
    off = [v for v in exact if float(np.max(np.abs(np.asarray(marginals[v], float) - exact[v]))) > OFF_THRESHOLD]
    worst = max(h, key=h.get)
    return {"ahd": float(mean_hellinger_over_variables(marginals, exact)), "n_off": len(off), "n_free": len(exact),
            "worst_variable": worst, "worst_hellinger": h[worst]}


def pooled_marginals(draws: np.ndarray, bn: BayesianNetwork, variables) -> dict:
    """Empirical marginals of ``variables`` from ``(chain, draw, variable)`` draws, pooled."""
    return {v: np.bincount(draws[:, :, bn.index(v)].ravel(), minlength=len(bn.states[v])) / draws[:, :, 0].size
            for v in variables}


def ess_check(draws: np.ndarray, bn: BayesianNetwork, exact: dict) -> dict:
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
            summary = quiet_convergence_summary(indicator)
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


def quiet_convergence_summary(indicator) -> dict:
    """:func:`prunelab.diagnostics.convergence_summary`, arviz's 0/0 warning silenced.

    On split chains that do not vary, arviz warns and gives a NaN R-hat; the NaN stays
    (such variables are counted, not hidden).
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "invalid value encountered in scalar divide", RuntimeWarning)
        return convergence_summary(indicator)


def steps_for(seconds: float, probe_steps: int, probe_seconds: float, max_steps: int) -> int:
    """Steps that take about ``seconds`` at the probe's rate, within ``[20, max_steps]``."""
    rate = probe_steps / max(probe_seconds, 1e-9)
    return int(np.clip(round(seconds * rate), 20, max_steps))


def probe_prune(bn, evidence, seed) -> tuple[int, float]:
    """Steps and seconds of a short prune run (numba compiled and plan cached first)."""
    n = 10
    while True:
        result = sample(bn, "prune", n, evidence=evidence, seed=seed, traps="off")
        seconds = float(result.sample_seconds[0])
        if seconds >= 0.05 or n >= 10**6:
            return n, seconds
        n *= 10


def longest_stay(series: np.ndarray) -> int:
    """Longest run of one value in a 1-d series."""
    change = np.flatnonzero(np.diff(series) != 0)
    bounds = np.concatenate([[-1], change, [series.size - 1]])
    return int(np.max(np.diff(bounds)))
