"""pyAgrum's Gibbs sampler (C++), run for sweeps or seconds, and with its own stopping rules.

pyAgrum is an optional extra (``pip install prunelab[peers]``): without it the
runners return a run with status ``"not installed"``. pyAgrum draws from its own
global generator, seeded by ``pyagrum.initRandom`` from the run's seed (pyAgrum
offers no way to read that state and give it back).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from prunelab.network import BayesianNetwork
from .budget import check_budget, peer_seed
from .convert import import_pyagrum, to_pyagrum
from .run import PeerRun

__all__ = [
    "PYAGRUM_UNLIMITED_ITERATIONS",
    "pyagrum_available",
    "pyagrum_default_gibbs",
    "pyagrum_exact_marginals",
    "run_pyagrum_gibbs",
]

PYAGRUM_UNLIMITED_ITERATIONS = 10**12
"""``setMaxIter`` under a time budget: never reached."""


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
        import_pyagrum()
    except ImportError:
        return False
    return True


def pyagrum_exact_marginals(bn: BayesianNetwork, evidence: Mapping | None = None) -> dict[str, np.ndarray]:
    """Exact ``P(X | e)`` of every free variable by ``pyagrum.LazyPropagation`` (a cross-check)."""
    gum = import_pyagrum()
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
    check_budget(n_steps, seconds)
    try:
        gum = import_pyagrum()
    except ImportError as exc:
        return PeerRun("pyagrum-gibbs", "not installed", note=str(exc))
    ev = bn.evidence_names(evidence)
    free = [v for v in bn.variables if v not in ev]
    t0 = time.perf_counter()
    net = to_pyagrum(bn)
    gum.initRandom(peer_seed(seed, 1))
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
        gum = import_pyagrum()
    except ImportError as exc:
        return PeerRun("pyagrum-gibbs", "not installed", note=str(exc))
    ev = bn.evidence_names(evidence)
    net = to_pyagrum(bn)
    gum.initRandom(peer_seed(seed, 2))
    inference = gum.GibbsSampling(net)
    if ev:
        inference.setEvidence(dict(ev))
    t0 = time.perf_counter()
    inference.makeInference()
    elapsed = time.perf_counter() - t0
    marginals = {v: np.asarray(inference.posterior(v).toarray(), float) for v in bn.variables if v not in ev}
    return PeerRun("pyagrum-gibbs", "ok", int(inference.nbrIterations()), elapsed, 0.0, marginals,
                   note=f"pyAgrum default rules: {inference.messageApproximationScheme()}")
