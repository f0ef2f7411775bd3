"""Experiments: every frozen result is an experiment run by one framework, and read by one reader.

::

    from prunelab.lab.experiments import EXPERIMENTS, PAPER, results, sweep
    report = sweep(PAPER, "smoke")              # data/results/paper-smoke/
    tables = results(PAPER, "paper")            # the frozen curves, runs, final_marginals, summary

or from a shell: ``python -m prunelab run paper --profile paper``.

=================  ==========================================================
module             job
=================  ==========================================================
``framework``      :func:`sweep` any experiment of :data:`EXPERIMENTS`, :func:`results` for a chapter, seeds
``store``          atomic files, strict JSON, the errors that name a bad file
``provenance``     the one schema of ``provenance.json``
``paper``          the paper's sweep (:data:`~.paper.PAPER`): one run is one chain of a case
``specs``          :class:`CaseSpec`, :class:`Profile`, the 33 cases, what a case's runs share
``tables``         the paper's four tables, per-case summary, Tables 2-3 beside the paper's
``large``          the large-network experiment (:data:`~.large.LARGE`)
``frontier``       grids past the junction tree (:data:`~.frontier.FRONTIER`)
``families``       the literature's deterministic benchmarks (:data:`~.families.FAMILIES`)
``mcsat``          what SampleSAT costs MC-SAT (:data:`~.mcsat.MCSAT`)
``peers``          prunelab beside pgmpy, pyAgrum and PyMC (:data:`~.peers.PEERS`)
=================  ==========================================================
"""

from .framework import (
    DEFAULT_ROOT_SEED,
    PROVENANCE_KEYS,
    Experiment,
    SweepInterrupted,
    check_root_seed,
    load_folder,
    results,
    results_dir,
    results_folder,
    run_seed_sequence,
    sweep,
)
from .specs import (
    BENCHMARKS,
    CASE_INITS,
    CASES,
    PAPER_SAMPLERS,
    PROFILES,
    CaseSpec,
    Profile,
    case_fingerprint,
    case_key,
    prepare_case,
    select_cases,
)
from .store import SweepMismatchError
from .families import FAMILIES
from .frontier import FRONTIER
from .large import LARGE
from .mcsat import MCSAT
from .paper import PAPER, simulate_run
from .peers import PEERS
from .reach import REACH
from .tables import (
    by_benchmark,
    estimator_table,
    format_paper_tables,
    forward_cases,
    paper_table,
    printed_table,
    summarise_case,
)

EXPERIMENTS = {"paper": PAPER, "large": LARGE, "frontier": FRONTIER, "mcsat": MCSAT, "peers": PEERS,
               "families": FAMILIES, "reach": REACH}
"""The experiments :func:`sweep` runs by name (``python -m prunelab run NAME``)."""

__all__ = [
    "BENCHMARKS",
    "CASE_INITS",
    "CASES",
    "CaseSpec",
    "DEFAULT_ROOT_SEED",
    "EXPERIMENTS",
    "Experiment",
    "PAPER",
    "PAPER_SAMPLERS",
    "PROFILES",
    "PROVENANCE_KEYS",
    "Profile",
    "SweepInterrupted",
    "SweepMismatchError",
    "by_benchmark",
    "case_fingerprint",
    "case_key",
    "check_root_seed",
    "estimator_table",
    "format_paper_tables",
    "forward_cases",
    "load_folder",
    "paper_table",
    "prepare_case",
    "printed_table",
    "results",
    "results_dir",
    "results_folder",
    "run_seed_sequence",
    "select_cases",
    "simulate_run",
    "summarise_case",
    "sweep",
]
