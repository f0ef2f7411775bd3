"""The feasible states of a tiny network (or of weighted clauses) and their probabilities, by listing them."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..clauses import WeightedClauses, satisfied_weight
from ..compiled import CompiledNetwork, compile_network, state_labels
from ..network import BayesianNetwork, EvidenceError

__all__ = ["MAX_STATES", "as_compiled", "clause_states", "enumerate_pruned_set", "feasible_states"]


MAX_STATES = 1 << 16
"""Largest joint state space (product of cardinalities) the brute-force listing accepts."""


def _all_states(net: CompiledNetwork, max_states: int = MAX_STATES) -> np.ndarray:
    """Every state agreeing with the evidence, lexicographic in topological order."""
    card = [int(c) if e < 0 else 1 for c, e in zip(net.cardinality, net.evidence_value)]
    total = int(np.prod(card, dtype=object))
    if total > max_states:
        raise ValueError(
            f"the network has {total} evidence-consistent states; exact matrices are for tiny "
            f"networks (at most {max_states})"
        )
    states = np.indices(card).reshape(len(card), -1).T.astype(np.int64)
    observed = net.evidence_value >= 0
    states[:, observed] = net.evidence_value[observed]
    return states


def as_compiled(bn, evidence) -> CompiledNetwork:
    """``bn`` compiled with ``evidence``; a CompiledNetwork as it is (its evidence is already in it)."""
    if isinstance(bn, CompiledNetwork):
        if evidence:
            raise ValueError("pass evidence to compile_network, not with a CompiledNetwork")
        return bn
    return compile_network(bn, evidence)


def feasible_states(bn: BayesianNetwork, evidence: Mapping | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The feasible states that agree with the evidence, and their posterior.

    Parameters
    ----------
    bn : BayesianNetwork or CompiledNetwork
    evidence : mapping of str to state, optional

    Returns
    -------
    states : int64 (k, n)
        Full states (topological order, evidence included) with ``P(x, e) > 0``,
        lexicographic.
    p : float64 (k,)
        ``P(x | e)``.

    Raises
    ------
    EvidenceError
        If ``P(e) = 0``.
    ValueError
        If the state space exceeds :data:`MAX_STATES`.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory import feasible_states
    >>> states, p = feasible_states(load_network("deterministic_pair"))
    >>> states.tolist(), p.tolist()
    ([[0, 0], [1, 1]], [0.5, 0.5])
    """
    net = as_compiled(bn, evidence)
    states = _all_states(net)
    joint = net.cpt[state_labels(net, states)].prod(axis=1)
    keep = joint > 0
    if not keep.any():
        raise EvidenceError("the evidence has probability zero: no feasible state agrees with it")
    return states[keep], joint[keep] / joint[keep].sum()


def enumerate_pruned_set(net: CompiledNetwork, kept) -> np.ndarray:
    """The pruned set ``S`` by brute force over all states (a test reference).

    Parameters
    ----------
    net : CompiledNetwork
        The network and its evidence.
    kept : bool array (n_labels,)
        Surviving labels.

    Returns
    -------
    int64 array (|S|, n)
        Every evidence-consistent state all of whose labels are kept,
        lexicographic in topological order.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.theory import enumerate_pruned_set
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> enumerate_pruned_set(net, net.cpt > 0).tolist()
    [[0, 0], [1, 1]]
    """
    kept = np.asarray(kept, dtype=bool)
    if kept.shape != (net.n_labels,):
        raise ValueError(f"kept must have shape ({net.n_labels},), got {kept.shape}")
    states = _all_states(net)
    return states[kept[state_labels(net, states)].all(axis=1)]


def clause_states(clauses: WeightedClauses, max_states: int = MAX_STATES) -> tuple[np.ndarray, np.ndarray]:
    """The states that satisfy every hard clause, and MC-SAT's target on them.

    Parameters
    ----------
    clauses : WeightedClauses
        Over at most ``max_states`` joint states.
    max_states : int, default :data:`MAX_STATES`

    Returns
    -------
    states : int64 (k, n)
        Lexicographic.
    p : float64 (k,)
        ``exp(sum of w over the soft clauses satisfied) / Z``.

    Raises
    ------
    EvidenceError
        No state satisfies the hard clauses.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses
    >>> from prunelab.theory import clause_states
    >>> states, p = clause_states(network_clauses(compile_network(load_network("deterministic_pair"))))
    >>> states.tolist(), p.tolist()
    ([[0, 0], [1, 1]], [0.5, 0.5])
    """
    card = [int(c) for c in clauses.cardinality]
    total = int(np.prod(card, dtype=object))
    if total > max_states:
        raise ValueError(f"the clauses range over {total} states; exact matrices are for at most {max_states}")
    states = np.indices(card).reshape(len(card), -1).T.astype(np.int64)
    log_weight = satisfied_weight(clauses, states)
    keep = np.isfinite(log_weight)
    if not keep.any():
        raise EvidenceError("no state satisfies every hard clause")
    weight = np.exp(log_weight[keep] - log_weight[keep].max())
    return states[keep], weight / weight.sum()
