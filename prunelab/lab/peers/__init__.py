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
``pyagrum-lbp``,          pyAgrum's loopy belief propagation, importance sampling and
``pyagrum-importance``,   likelihood weighting (:mod:`prunelab.lab.peers.pyagrum_other`); not
``pyagrum-weighted``      MCMC, compared with prune sampling at equal budgets.
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

pyAgrum and PyMC are optional extras (``pip install prunelab[peers]``): without
them their runs return status ``"not installed"``; pgmpy is a core dependency.
This package is prunelab's edge: it imports the peers lazily and returns plain
numpy values.

Where things are
----------------
=====================  =====================================================================
module                 what it holds
=====================  =====================================================================
``peers.run``          :data:`PEER_SAMPLERS`, :class:`PeerRun`, :class:`PeerNotBuilt`, the
                       shared start (:func:`start_state`) and figures (:meth:`PeerRun.mean_hellinger`,
                       :func:`joint_state_count`)
``peers.convert``      a network as each peer's model (:func:`to_pyagrum`,
                       :func:`to_pgmpy_gibbs`, :func:`to_pymc`) and the lazy imports
                       (:func:`import_pymc` is the one way the package imports PyMC)
``peers.budget``       the budget loop (pilots, then chunks that continue the chain) and the
                       per-chunk seeds
``peers.capture``      a peer's warnings, log records and crashes captured; numpy's global
                       generator seeded for a run and restored after it
``peers.pgmpy``        :func:`run_pgmpy_gibbs`, :func:`pgmpy_random_start`, :func:`pgmpy_nan_rows`
``peers.pyagrum``      :func:`run_pyagrum_gibbs`, :func:`pyagrum_default_gibbs`,
                       :func:`pyagrum_exact_marginals`
``peers.pyagrum_other`` :func:`run_pyagrum_other` (loopy belief propagation, importance sampling)
``peers.pymc``         :func:`run_pymc` and the ``proportional`` proposal's bug
                       (:func:`pymc_categorical_frequencies`, :func:`metropolized_gibbs_as_coded`)
``peers.prunelab``     :func:`run_prunelab`, prunelab's samplers behind the same interface
this module            :func:`run_sampler`, any of them by name
=====================  =====================================================================

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

from collections.abc import Mapping

from prunelab.network import BayesianNetwork
from .convert import PGMPY_MAX_STATES, import_pyagrum, import_pymc, to_pgmpy_gibbs, to_pyagrum, to_pymc
from .pgmpy import pgmpy_nan_rows, pgmpy_random_start, run_pgmpy_gibbs
from .prunelab import run_prunelab
from .pyagrum import pyagrum_available, pyagrum_default_gibbs, pyagrum_exact_marginals, run_pyagrum_gibbs
from .pyagrum_other import PYAGRUM_OTHER, run_pyagrum_other
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
    counterpart,
    describe_state_count,
    joint_state_count,
    sampler_info,
    start_state,
)

__all__ = [
    "PEER_SAMPLERS",
    "PGMPY_MAX_STATES",
    "PeerNotBuilt",
    "PeerRun",
    "SamplerInfo",
    "counterpart",
    "sampler_info",
    "joint_state_count",
    "describe_state_count",
    "start_state",
    "import_pyagrum",
    "import_pymc",
    "to_pyagrum",
    "pyagrum_available",
    "pyagrum_exact_marginals",
    "to_pymc",
    "to_pgmpy_gibbs",
    "pgmpy_nan_rows",
    "pgmpy_random_start",
    "run_pgmpy_gibbs",
    "run_pyagrum_gibbs",
    "run_pyagrum_other",
    "PYAGRUM_OTHER",
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
    library = sampler_info(sampler).library
    if library == "prunelab":
        return run_prunelab(bn, evidence, sampler, n_steps=n_steps, seconds=seconds, seed=seed, start=start)
    if library == "pymc":
        return run_pymc(bn, evidence, sampler, n_steps=n_steps, seconds=seconds, seed=seed, start=start, cache=cache)
    if library == "pgmpy":
        return run_pgmpy_gibbs(bn, evidence, n_steps=n_steps, seconds=seconds, seed=seed, start=start, cache=cache)
    if sampler in PYAGRUM_OTHER:
        return run_pyagrum_other(bn, evidence, sampler, n_steps=n_steps, seconds=seconds, seed=seed)
    return run_pyagrum_gibbs(bn, evidence, n_steps=n_steps, seconds=seconds, seed=seed)
