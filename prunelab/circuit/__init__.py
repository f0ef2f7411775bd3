"""Compiled circuits: exact inference and exact uniform pruned draws past the junction tree's reach.

A network with its evidence is encoded as a CNF over state and label indicators
that exploits determinism (:mod:`~prunelab.circuit.encoding`), compiled into a
sentential decision diagram for a vtree that follows the network's structure
(:mod:`~prunelab.circuit.vtree`, :mod:`~prunelab.circuit.compiler`), and read into
flat arrays over which our own numba passes count, marginalise and draw in log
space (:mod:`~prunelab.circuit.passes`). Exact inference
(:mod:`~prunelab.circuit.inference`) weighs the label indicators by their CPT
values; prune sampling weighs them 1 (kept) or 0 (pruned) and draws uniformly from
the pruned set. Where no diagram can be built in time, a weighted model counter
answers single questions over the same CNF (:mod:`~prunelab.circuit.counting`).
"""

from .compiler import MAX_CIRCUIT_SIZE, MAX_COMPILE_SECONDS, Circuit, CircuitTooLargeError, compile_cnf
from .counting import (
    MAX_COUNT_BYTES,
    MAX_COUNT_SECONDS,
    CountTooHardError,
    count_inference,
    log_counts,
)
from .encoding import CircuitEncoding, ImpossibleEvidenceError, encode_network
from .inference import (
    AUTO_COMPILE_SECONDS,
    VTREES,
    CircuitPasses,
    check_vtree_choice,
    circuit_for,
    circuit_inference,
    compile_circuit,
    exact_weights,
    log_count,
    passes_for,
    posterior_state,
)
from .vtree import Vtree, dissection_vtree

__all__ = [
    "AUTO_COMPILE_SECONDS",
    "MAX_CIRCUIT_SIZE",
    "MAX_COMPILE_SECONDS",
    "MAX_COUNT_BYTES",
    "MAX_COUNT_SECONDS",
    "Circuit",
    "CircuitEncoding",
    "CircuitPasses",
    "CircuitTooLargeError",
    "CountTooHardError",
    "ImpossibleEvidenceError",
    "VTREES",
    "Vtree",
    "check_vtree_choice",
    "circuit_for",
    "circuit_inference",
    "compile_circuit",
    "compile_cnf",
    "count_inference",
    "dissection_vtree",
    "encode_network",
    "exact_weights",
    "log_count",
    "log_counts",
    "passes_for",
    "posterior_state",
]
