"""Exact draws from a compiled circuit: ``posterior_state``, and the initialiser's fallback to it past the tree."""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import BayesianNetwork, EvidenceError, exact_marginals, load_network
from prunelab.circuit import compile_circuit, passes_for, posterior_state
from prunelab.compiled import compile_network
from prunelab.compiled import state_labels
from prunelab.samplers.init import exact_posterior_state
from prunelab.theory import feasible_states


def test_posterior_state_draws_the_posterior():
    bn = load_network("asia")
    evidence = {"xray": "yes", "dysp": "no"}
    net = compile_network(bn, evidence)
    circuit, rng = compile_circuit(net), np.random.default_rng(7)
    work = passes_for(circuit)
    states, p = feasible_states(bn, evidence)
    n = 20_000
    draws = np.stack([posterior_state(rng, net, circuit, work) for _ in range(n)])
    index = {tuple(s): k for k, s in enumerate(states.tolist())}
    counts = np.bincount([index[tuple(d)] for d in draws.tolist()], minlength=len(states))  # KeyError: infeasible
    # each state's count is binomial(n, p): 5 standard errors, Bonferroni-safe over these few states
    assert np.all(np.abs(counts - n * p) <= 5 * np.sqrt(n * p * (1 - p)) + 1)


def test_posterior_state_refuses_evidence_that_only_the_count_shows_impossible():
    from prunelab.circuit import ImpossibleEvidenceError

    copy = np.eye(2)  # A -> B -> C, each a copy of its parent: A = 0 and C = 1 cannot both hold
    bn = BayesianNetwork(states={v: ("0", "1") for v in "ABC"}, parents={"A": (), "B": ("A",), "C": ("B",)},
                         cpts={"A": [0.5, 0.5], "B": copy, "C": copy})
    net = compile_network(bn, {"A": "0", "C": "1"})
    with pytest.raises(ImpossibleEvidenceError, match="P\\(e\\) = 0"):
        posterior_state(np.random.default_rng(0), net, compile_circuit(net))


def test_the_initialiser_falls_back_on_the_circuit_when_the_tree_refuses(monkeypatch):
    import prunelab.elimination as elimination

    bn = load_network("alarm")
    evidence = {"HRBP": "HIGH", "CO": "LOW", "BP": "HIGH"}
    monkeypatch.setattr(elimination, "MAX_CLIQUE_ENTRIES", 4)  # no junction tree fits now
    with pytest.raises(ValueError, match="clique"):
        exact_marginals(bn, evidence, method="junction_tree")
    x = exact_posterior_state(np.random.default_rng(3), bn, evidence, 1)  # the tree refuses: the circuit draws
    assert all(x[bn.index(v)] == bn.states[v].index(s) for v, s in evidence.items())
    assert compile_network(bn, evidence).cpt[state_labels(compile_network(bn, evidence), x)].min() > 0
    copy = np.eye(2)  # A -> B -> C copies: A = 0 and C = 1 is impossible, found by the circuit's count
    chain = BayesianNetwork(states={v: ("0", "1") for v in "ABC"}, parents={"A": (), "B": ("A",), "C": ("B",)},
                            cpts={"A": [0.5, 0.5], "B": copy, "C": copy})
    monkeypatch.setattr(elimination, "MAX_CLIQUE_ENTRIES", 1)
    with pytest.raises(ValueError, match="clique"):
        exact_marginals(chain, {"A": "0"}, method="junction_tree")
    with pytest.raises(EvidenceError, match="impossible"):
        exact_posterior_state(np.random.default_rng(3), chain, {"A": "0", "C": "1"}, 1)
