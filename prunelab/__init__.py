"""prunelab: prune sampling for discrete and deterministic Bayesian networks.

Where things are. Data flows down the list: a network is compiled into flat arrays,
a sampler runs chains on them, :func:`sample` returns a :class:`SampleResult`, the
indicators measure it, and the lab turns many results into the tables and figures of
the book's chapters (``notebooks/``). The library never imports the lab::

    library  network         BayesianNetwork: variables, states, CPTs, checked when built
    library  io/             networks in and out: BIF, UAI, Hugin, Netica, GeNIe, BIFXML, pgmpy;
                             evidence in: Ace .inst files
    library  catalogue       the paper's networks, frozen grids and evidence sets by name
    library  grids           grid networks with determinism (Sang, Beame & Kautz)
    library  inverse_cdf     the inverse-CDF draw that never lands on a zero weight (samplers, evidence)
    library  evidence        evidence and seeds as they enter; seeded random evidence
    library  smoothing       networks without determinism (0/1 entries moved by epsilon)
    library  compiled        a network with evidence as read-only flat arrays; CPT-entry labels;
                             PlanCache: every plan compiled once per (network, evidence)
    library  clauses         a network as weighted clauses (MC-SAT)
    library  elimination     elimination orders, for exact inference and counting
    library  junction_tree   the junction tree, compiled once, calibrated per evidence
    library  circuit/        compiled circuits and weighted model counts: past the junction tree's reach
    library  planner         which exact method answers: junction tree, circuit or counter, and why
    library  exact           exact marginals and P(e): the ground truth
    library  theory/         exact transition matrices and pruned sets on tiny networks
    library  samplers/       one module per sampler (init/step/run_chain, register_sampler);
                             samplers/init: start states and the start of every chain
    library  samplers/prune/ prune sampling's wing: its samplers (sampler, tempered, with_gibbs), the
                             pruning, the plans; draws/: every uniform draw from the pruned set, named
                             in draws/registry.DRAWS (a new draw: a module in draws/ and an entry there)
    library  sampling        sample(bn, sampler, n_draws, ...): the front door
    library  chain_job       one chain of sample(), in a worker or in-process
    library  workers         worker processes: how many, and stopping them
    library  checkpoints     the draw counts t at which running estimates are read
    library  sample_result   SampleResult: draws (chain, draw, variable), marginals, Rao-Blackwell
    library  traps           did the chains mix? SamplerTrappedWarning, TrapReport, the checks
    library  indicators/     Hellinger, AHD(t), sigma_t, fit_alpha, time_to_sigma
    library  diagnostics     R-hat and ESS through ArviZ
    library  extras          optional packages: available(), require() naming the extra that installs one
    lab      lab/experiments/        every frozen result: one framework (sweep, store, reader), the paper's sweep
    lab      lab/experiments/large/  every pgmpy network, its peers, grids
    lab      lab/experiments/families  the literature's deterministic benchmarks, answered exactly
    lab      lab/peers/      pgmpy, pyAgrum and PyMC samplers, and the comparison with ours
    lab      lab/ahd         AHD(t) over runs, from the results' curves
    lab      lab/plots/      the book's figures and the display of its tables
    lab      lab/paper_numbers   every transcription of the paper: Tables 1-3, Figures 2 and 6
    lab      lab/mixing      the one "did not mix" verdict of a case: a mark and its reason
    lab      lab/scorecard   each figure, table and claim of the paper beside ours
    lab      lab/notebook    what every chapter calls: setup, glue, watermark
    lab      lab/registry    our samplers, from samplers' registry, and prune's uniform draws, for the lab
    cli      __main__        python -m prunelab run EXPERIMENT|tables|cases (runs the lab)

A new sampler goes in ``samplers/`` (named in ``samplers.BUILT_IN``), a new uniform draw
from the pruned set in ``samplers/prune/draws/`` (named in ``draws/registry.DRAWS``), a new
experiment in ``lab/experiments/``, a new figure in ``lab/plots/``, a new chapter helper in
``lab/notebook.py``.
"""

from importlib import metadata as _metadata

from .traps import SamplerTrappedWarning
from .catalogue import NETWORKS, load_evidence, load_network, query_variable
from .evidence import random_evidence
from .exact import exact_marginals, probability_of_evidence
from .grids import make_grid
from .indicators import (
    fit_alpha,
    hellinger,
    mean_hellinger_over_chains,
    mean_hellinger_over_variables,
    sigma_t,
    time_to_sigma,
)
from .io import FileFormatError, from_pgmpy, read_bif, read_instantiation, read_network, read_uai, to_pgmpy, write_uai
from .network import BayesianNetwork, EvidenceError, NetworkError
from .sampling import SampleResult, sample

try:  # the one version is pyproject.toml's; the Makefile installs the package (editable), so it is known
    __version__ = _metadata.version("prunelab")
except _metadata.PackageNotFoundError:  # a plain checkout that was never installed
    __version__ = "0+unknown"
del _metadata

__all__ = [
    "BayesianNetwork",
    "EvidenceError",
    "FileFormatError",
    "NETWORKS",
    "NetworkError",
    "exact_marginals",
    "fit_alpha",
    "hellinger",
    "mean_hellinger_over_chains",
    "mean_hellinger_over_variables",
    "sigma_t",
    "time_to_sigma",
    "from_pgmpy",
    "load_evidence",
    "load_network",
    "make_grid",
    "probability_of_evidence",
    "query_variable",
    "random_evidence",
    "sample",
    "SampleResult",
    "SamplerTrappedWarning",
    "read_bif",
    "read_instantiation",
    "read_network",
    "read_uai",
    "to_pgmpy",
    "write_uai",
    "__version__",
]
