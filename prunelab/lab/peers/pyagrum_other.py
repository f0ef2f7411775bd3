"""pyAgrum's other approximate inferences: loopy belief propagation and importance sampling.

What a practitioner picks instead of MCMC on a large network:

========================  =====================================================================
sampler                   what runs, and what one step is
========================  =====================================================================
``pyagrum-lbp``           ``pyagrum.LoopyBeliefPropagation``: one step is one round of
                          messages; it stops at its own convergence rule (message change
                          below pyAgrum's default epsilon) or at the time budget, and says
                          which (a loop that did not converge is reported in ``note``)
``pyagrum-importance``    ``pyagrum.ImportanceSampling``: one step is one weighted sample
                          drawn from a proposal that pyAgrum builds from a loopy pass
``pyagrum-weighted``      ``pyagrum.WeightedSampling``: likelihood weighting (forward samples
                          with the evidence clamped, weighted by ``P(e | parents)``)
========================  =====================================================================

The sampling ones run for a number of samples or seconds with the epsilon and rate
rules off, as :func:`~prunelab.lab.peers.pyagrum.run_pyagrum_gibbs` does. A sampler
that cannot give an estimate (pyAgrum raises, e.g. when every weight is zero) is
returned with status ``"crashed"`` and pyAgrum's message in ``note``; a posterior
with NaN entries (0/0 weights) is reported as ``"crashed"`` too, never as numbers.
pyAgrum is an optional extra (``pip install prunelab[peers]``): without it the
runners return status ``"not installed"``.

References
----------
.. [1] K. Murphy, Y. Weiss and M. Jordan, "Loopy belief propagation for approximate
   inference: an empirical study", UAI 1999.
.. [2] R. Fung and K.-C. Chang, "Weighing and integrating evidence for stochastic
   simulation in Bayesian networks", UAI 1989 (likelihood weighting).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from prunelab.network import BayesianNetwork
from .budget import check_budget, peer_seed
from .convert import import_pyagrum, to_pyagrum
from .pyagrum import PYAGRUM_UNLIMITED_ITERATIONS
from .run import PeerRun

__all__ = ["PYAGRUM_OTHER", "run_pyagrum_other"]

PYAGRUM_OTHER = {
    "pyagrum-lbp": "LoopyBeliefPropagation",
    "pyagrum-importance": "ImportanceSampling",
    "pyagrum-weighted": "WeightedSampling",
}
"""Sampler name -> pyAgrum class run by :func:`run_pyagrum_other`."""


def run_pyagrum_other(bn: BayesianNetwork, evidence: Mapping | None = None, sampler: str = "pyagrum-lbp", *,
                      n_steps: int | None = None, seconds: float | None = None, seed=None) -> PeerRun:
    """Run one of :data:`PYAGRUM_OTHER` for ``n_steps`` iterations or ``seconds``.

    Parameters
    ----------
    sampler : str
        ``"pyagrum-lbp"``, ``"pyagrum-importance"`` or ``"pyagrum-weighted"``.
    n_steps, seconds : exactly one of them
        Iterations (``setMaxIter``) or a time limit (``setMaxTime``). Loopy belief
        propagation keeps its own convergence rule and may stop earlier.
    seed : int, optional
        Seeds pyAgrum's global generator (``pyagrum.initRandom``).

    Returns
    -------
    PeerRun
        ``note`` holds pyAgrum's stopping message (``"stopped with epsilon=..."``:
        converged; ``"stopped with timeout"`` or ``"max iterations"``: did not).

    Examples
    --------
    >>> from prunelab import load_network, exact_marginals
    >>> bn = load_network("asia")
    >>> run = run_pyagrum_other(bn, {"lung": "yes"}, "pyagrum-weighted", n_steps=20_000, seed=1)  # doctest: +SKIP
    >>> run.mean_hellinger(exact_marginals(bn, {"lung": "yes"})) < 0.02                      # doctest: +SKIP
    True
    """
    if sampler not in PYAGRUM_OTHER:
        raise ValueError(f"unknown pyAgrum sampler {sampler!r}; known: {list(PYAGRUM_OTHER)}")
    check_budget(n_steps, seconds)
    try:
        gum = import_pyagrum()
    except ImportError as exc:
        return PeerRun(sampler, "not installed", note=str(exc))
    ev = bn.evidence_names(evidence)
    free = [v for v in bn.variables if v not in ev]
    t0 = time.perf_counter()
    gum.initRandom(peer_seed(seed, 3))
    inference = getattr(gum, PYAGRUM_OTHER[sampler])(to_pyagrum(bn))
    if ev:
        inference.setEvidence(dict(ev))
    inference.setVerbosity(False)
    sampling = sampler != "pyagrum-lbp"
    if sampling:  # no early stop: only the iterations or the clock end the run
        inference.setEpsilon(0.0)
        inference.setMinEpsilonRate(0.0)
    if n_steps is not None:
        inference.setMaxIter(max(2, int(n_steps)))  # pyAgrum refuses maxIter <= 1
        if sampling:
            inference.setPeriodSize(max(2, int(n_steps)))
        inference.setMaxTime(1e9)
    else:
        inference.setMaxIter(PYAGRUM_UNLIMITED_ITERATIONS)
        if sampling:
            inference.setPeriodSize(PYAGRUM_UNLIMITED_ITERATIONS)
        inference.setMaxTime(float(seconds))
    setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        inference.makeInference()
        marginals = {v: np.asarray(inference.posterior(v).toarray(), float) for v in free}
    except Exception as exc:  # pyAgrum's own errors (gum.GumException and subclasses)  # noqa: BLE001
        return PeerRun(sampler, "crashed", seconds=time.perf_counter() - t0, setup_seconds=setup,
                       note=f"pyAgrum {type(exc).__name__}: {exc}")
    elapsed = time.perf_counter() - t0
    message = f"pyAgrum: {inference.messageApproximationScheme()}"
    bad = [v for v, m in marginals.items() if not np.all(np.isfinite(m)) or not m.sum() > 0]
    if bad:
        return PeerRun(sampler, "crashed", int(inference.nbrIterations()), elapsed, setup,
                       note=f"{message}; no estimate (NaN or zero posterior) for {len(bad)} variable(s), "
                            f"e.g. {bad[0]!r}: every sample had weight 0")
    return PeerRun(sampler, "ok", int(inference.nbrIterations()), elapsed, setup, marginals, note=message)
