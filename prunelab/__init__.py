"""prunelab: prune sampling for discrete and deterministic Bayesian networks."""

from .diagnostics import SamplerTrappedWarning
from .catalogue import NETWORKS, load_evidence, load_network, query_variable
from .evidence import random_evidence
from .exact import exact_marginals, probability_of_evidence
from .grids import make_grid
from .deprecation import module_getattr
from .indicators import (
    fit_alpha,
    hellinger,
    mean_hellinger_over_chains,
    mean_hellinger_over_variables,
    sigma_t,
    time_to_sigma,
)
from .io import FileFormatError, from_pgmpy, read_bif, read_network, read_uai, to_pgmpy, write_uai
from .network import BayesianNetwork, EvidenceError, NetworkError
from .sampling import SampleResult, sample

__version__ = "0.1.0"

__getattr__ = module_getattr(__name__, {
    "average_hellinger": "mean_hellinger_over_chains", "mean_hellinger_over_runs": "mean_hellinger_over_chains",
})

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
    "read_network",
    "read_uai",
    "to_pgmpy",
    "write_uai",
    "__version__",
]
