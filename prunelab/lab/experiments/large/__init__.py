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
(:func:`prunelab.lab.experiments.store.write_json_atomic`); a killed sweep resumes with
nothing lost or doubled. ``sweep.json`` records the profile and root seed, and a
resumed sweep with other settings is refused (:class:`~prunelab.lab.experiments.SweepMismatchError`).
At the end the records become ``networks.parquet``, ``budget.parquet``,
``mixing.parquet`` and ``grids.parquet`` and ``provenance.json`` is written
(command, version, git commit, seed, dates, machine, load, library versions).

Seeds. Run ``r`` gets ``SeedSequence(root_seed, spawn_key=(crc32(r.id),))``: the
same numbers however many workers run the sweep and in whatever order.

Command line::

    python -m prunelab run large --profile paper --jobs 2        # data/results/large
    python -m prunelab run large --profile smoke --out /tmp/x    # seconds
    python -m prunelab run large --freeze-evidence               # data/evidence/<name>-25.json

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", 2017 (conclusion:
   "for large BNs ... standard methods still perform better").
.. [2] T. Sang, P. Beame and H. Kautz, "Solving Bayesian networks by weighted model
   counting", AAAI 2005 (the grids).

Modules
-------
==============  ===================================================================
module          job
==============  ===================================================================
``networks``    the pgmpy networks and their frozen 25 % evidence
``profiles``    :class:`LargeProfile`, :data:`LARGE_PROFILES`, :class:`LargeRun`,
                :func:`plan_runs`, :data:`MIXING_VARIANTS`
``measures``    what the runs measure: AHD, variables off, the ESS check, timings
``guard``       a pyAgrum run in a child process, stopped if it overruns
``kinds``       the four kinds of run (``_mixing_chains`` draws the mixing
                variants), :func:`simulate_large_run`
``sweep``       :data:`LARGE`, the experiment (run by :func:`prunelab.lab.experiments.sweep`)
``tables``      the chapter's :func:`network_table` and :func:`growth_fit`
==============  ===================================================================
"""

from .guard import GUARDED_SAMPLERS, PEER_GRACE_SECONDS, run_peer_guarded
from .kinds import simulate_large_run
from .measures import CHECK_FALSE_ALARM, OFF_THRESHOLD
from .networks import EVIDENCE_FRACTION, evidence_seed, freeze_evidence, load_large, pgmpy_networks
from .profiles import (
    BUDGET_SAMPLERS,
    LARGE_PROFILES,
    LONG_BUDGET_NETWORKS,
    MIXING_VARIANTS,
    LargeProfile,
    LargeRun,
    get_large_profile,
    plan_runs,
)
from .sweep import LARGE
from .tables import common_budget, growth_fit, network_table

__all__ = [
    "BUDGET_SAMPLERS",
    "LARGE",
    "CHECK_FALSE_ALARM",
    "EVIDENCE_FRACTION",
    "GUARDED_SAMPLERS",
    "LARGE_PROFILES",
    "LONG_BUDGET_NETWORKS",
    "LargeProfile",
    "LargeRun",
    "MIXING_VARIANTS",
    "OFF_THRESHOLD",
    "PEER_GRACE_SECONDS",
    "common_budget",
    "evidence_seed",
    "freeze_evidence",
    "get_large_profile",
    "growth_fit",
    "load_large",
    "network_table",
    "pgmpy_networks",
    "plan_runs",
    "run_peer_guarded",
    "simulate_large_run",
]
