"""The weighted-clause form of a network: one clause "not l" per CPT label, evidence as unit clauses.

Checked by brute force over every state of small networks: a state satisfies the
clause of label ``l`` exactly when it does not use ``l``, and ``exp`` of the
satisfied weight is proportional to ``P(x | e)``, zero exactly where ``P(x, e) = 0``.
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_network
from prunelab.clauses import WeightedClauses, network_clauses, satisfied_clauses, satisfied_weight
from prunelab.compiled import compile_network
from prunelab.samplers.samplesat import clause_index
from prunelab.compiled import state_labels
from prunelab.theory import feasible_states
from prunelab.theory.states import _all_states
from tests.helpers import EXACT


CASES = {
    "pair": ("deterministic_pair", {}, None),
    "blood_pressure": ("blood_pressure", {}, None),
    "blood_pressure|m_e": ("blood_pressure", {}, {"Measurement": "m_e"}),
    "asia|xray,dysp": ("asia", {}, {"xray": "yes", "dysp": "no"}),
    "block_chain-3": ("block_chain", {"n": 3}, None),
}


def _net(key):
    name, options, evidence = CASES[key]
    bn = load_network(name, **options)
    return bn, evidence, compile_network(bn, evidence)


def test_pair_encoding_clause_by_clause():
    clauses = network_clauses(compile_network(load_network("deterministic_pair")))
    # A(1), A(2) have c = 1/2: soft; B's entries 0 (labels 3, 4) hard; its ones: no clause
    assert clauses.label.tolist() == [0, 1, 3, 4]
    np.testing.assert_allclose(clauses.weight[:2], np.log(2.0), rtol=EXACT)
    assert np.isinf(clauses.weight[2:]).all() and clauses.hard.tolist() == [False, False, True, True]
    literals = [list(zip(clauses.literal_var[a:b].tolist(), clauses.literal_value[a:b].tolist()))
                for a, b in zip(clauses.clause_ptr[:-1], clauses.clause_ptr[1:])]
    assert literals == [[(0, 0)], [(0, 1)], [(1, 1), (0, 0)], [(1, 0), (0, 1)]]
    assert not clauses.literal_equal.any()


@pytest.mark.parametrize("key", list(CASES))
def test_a_state_satisfies_a_label_clause_iff_it_does_not_use_the_label(key):
    _, _, net = _net(key)
    clauses = network_clauses(net)
    states = _all_states(net)
    used = np.zeros((len(states), net.n_labels), dtype=bool)
    np.put_along_axis(used, state_labels(net, states), True, axis=1)
    label_clauses = clauses.label >= 0
    satisfied = satisfied_clauses(clauses, states)
    assert (satisfied[:, label_clauses] == ~used[:, clauses.label[label_clauses]]).all()
    # one clause per label with c < 1, nothing for c = 1
    assert sorted(clauses.label[label_clauses].tolist()) == np.flatnonzero(net.cpt < 1.0).tolist()


@pytest.mark.parametrize("key", list(CASES))
def test_satisfied_weight_is_the_log_posterior_up_to_a_constant(key):
    bn, evidence, net = _net(key)
    clauses = network_clauses(net)
    states = _all_states(net)
    log_weight = satisfied_weight(clauses, states)
    joint = net.cpt[state_labels(net, states)].prod(axis=1)
    assert (np.isinf(log_weight) == (joint == 0)).all()
    feasible, p = feasible_states(bn, evidence)
    w = np.exp(log_weight[joint > 0] - log_weight[joint > 0].max())
    np.testing.assert_allclose(w / w.sum(), p, rtol=0, atol=EXACT)
    assert (states[joint > 0] == feasible).all()


def test_evidence_is_a_unit_hard_clause():
    _, _, net = _net("blood_pressure|m_e")
    clauses = network_clauses(net)
    evidence = np.flatnonzero(clauses.label < 0)
    (observed,) = np.flatnonzero(net.evidence_value >= 0)
    assert len(evidence) == 1 and np.isinf(clauses.weight[evidence]).all()
    a, b = clauses.clause_ptr[evidence[0]], clauses.clause_ptr[evidence[0] + 1]
    assert (b - a, clauses.literal_var[a], clauses.literal_value[a]) == (1, observed, net.evidence_value[observed])
    assert clauses.literal_equal[a]


def test_wrong_state_length_is_refused():
    clauses = network_clauses(compile_network(load_network("deterministic_pair")))
    with pytest.raises(ValueError, match="states have 3 variables, the clauses 2"):
        satisfied_clauses(clauses, [0, 0, 0])


def test_clause_index_refuses_a_variable_twice_in_a_clause():
    clauses = WeightedClauses(
        np.array([2, 2]), np.array([0, 2]), np.array([0, 0]), np.array([0, 1]), np.array([False, False]),
        np.array([1.0]), np.array([0]),
    )
    with pytest.raises(ValueError, match="clause 0 mentions a variable twice"):
        clause_index(clauses)
