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

from collections.abc import Mapping

from ..network import BayesianNetwork
from .convert import PGMPY_MAX_STATES, _pymc, to_pgmpy_gibbs, to_pyagrum, to_pymc
from .pgmpy import pgmpy_nan_rows, pgmpy_random_start, run_pgmpy_gibbs
from .prunelab import run_prunelab
from .pyagrum import pyagrum_available, pyagrum_default_gibbs, pyagrum_exact_marginals, run_pyagrum_gibbs
from .pymc import (
    metropolized_gibbs_as_coded,
    metropolized_gibbs_liu,
    pymc_categorical_draws,
    pymc_categorical_frequencies,
    run_pymc,
)
from .run import (
    PEER_SAMPLERS,
    PeerNotBuilt,
    PeerRun,
    SamplerInfo,
    _info,
    counterpart,
    describe_state_count,
    joint_state_count,
    mean_hellinger,
    start_state,
)

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
