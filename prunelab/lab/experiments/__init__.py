"""Experiments: case specs, profiles, the resumable parallel runner, the results store.

::

    from prunelab.lab.experiments import reproduce, load_results
    report = reproduce("smoke")                 # data/results/smoke/
    tables = load_results("smoke")              # curves, runs, final_marginals, summary

or from a shell: ``python -m prunelab reproduce --profile paper``.

=================  ==========================================================
module             job
=================  ==========================================================
``specs``          :class:`CaseSpec`, :class:`Profile`, the 33 cases, seeds
``cases``          what a case's runs share (network, exact marginals, start), results folder
``runner``         :func:`reproduce`, :func:`simulate_run` (one run)
``store``          run files (atomic), resumption, ``sweep.json``
``tables``         tidy tables, per-case summary, Tables 2-3 beside the paper's
``framework``      :func:`sweep` any experiment of :data:`EXPERIMENTS`, :func:`results` for a chapter
``large``          the large-network experiment (:data:`~.large.LARGE`)
``frontier``       grids past the junction tree (:data:`~.frontier.FRONTIER`)
``families``       the literature's deterministic benchmarks (:data:`~.families.FAMILIES`)
``mcsat``          what SampleSAT costs MC-SAT (:data:`~.mcsat.MCSAT`)
``peers``          prunelab beside pgmpy, pyAgrum and PyMC (:data:`~.peers.PEERS`)
=================  ==========================================================
"""

from .cases import case_fingerprint, prepare_case, results_dir
from .runner import ReproduceReport, SweepInterrupted, check_root_seed, reproduce, simulate_run
from .specs import (
    BENCHMARKS,
    CASE_INITS,
    CASES,
    DEFAULT_ROOT_SEED,
    PAPER_SAMPLERS,
    PROFILES,
    CaseSpec,
    Profile,
    case_key,
    get_profile,
    run_seed,
    select_cases,
)
from .store import SweepMismatchError
from .framework import PROVENANCE_KEYS, Experiment, load_folder, results, results_folder, sweep
from .families import FAMILIES
from .frontier import FRONTIER
from .large import LARGE
from .mcsat import MCSAT
from .peers import PEERS
from .reach import REACH
from .tables import (
    by_benchmark,
    consolidate,
    estimator_table,
    format_paper_tables,
    forward_cases,
    load_results,
    paper_table,
    printed_table,
    summarise_case,
)

EXPERIMENTS = {"large": LARGE, "frontier": FRONTIER, "mcsat": MCSAT, "peers": PEERS, "families": FAMILIES,
               "reach": REACH}
"""The experiments :func:`sweep` runs by name (``python -m prunelab run NAME``)."""

__all__ = [
    "BENCHMARKS",
    "EXPERIMENTS",
    "Experiment",
    "PROVENANCE_KEYS",
    "load_folder",
    "results",
    "results_folder",
    "sweep",
    "CASE_INITS",
    "CASES",
    "CaseSpec",
    "DEFAULT_ROOT_SEED",
    "PAPER_SAMPLERS",
    "PROFILES",
    "Profile",
    "ReproduceReport",
    "SweepInterrupted",
    "SweepMismatchError",
    "check_root_seed",
    "case_fingerprint",
    "case_key",
    "consolidate",
    "estimator_table",
    "format_paper_tables",
    "forward_cases",
    "by_benchmark",
    "printed_table",
    "get_profile",
    "load_results",
    "paper_table",
    "prepare_case",
    "reproduce",
    "results_dir",
    "run_seed",
    "select_cases",
    "simulate_run",
    "summarise_case",
]
