"""The theorem's test networks and Gibbs's query classes (sigma_inf): exact answers on tiny networks."""

import numpy as np
import pytest

from prunelab import BayesianNetwork, load_network, theory
from prunelab.theory import THEOREM_CASES, query_classes
from tests.helpers import EXACT


def or_network():
    """C = A or B, P(A = 1) = 0.3, P(B = 1) = 0.2: two Gibbs classes, {C = 0} and {C = 1}."""
    return BayesianNetwork(
        states={"A": ["0", "1"], "B": ["0", "1"], "C": ["0", "1"]},
        parents={"A": [], "B": [], "C": ["A", "B"]},
        cpts={"A": [0.7, 0.3], "B": [0.8, 0.2], "C": [[[1, 0], [0, 1]], [[0, 1], [0, 1]]]},
    )


def test_query_classes_of_the_or_network_by_hand():
    qc = query_classes(or_network(), "A", 1)
    # classes: {(0,0,0)} with P = 0.56, where A = 1 never; the rest with P = 0.44, P(A = 1 | C = 1) = 0.3 / 0.44
    order = np.argsort(qc.mass)[::-1]
    assert np.allclose(qc.mass[order], [0.56, 0.44], atol=EXACT, rtol=0)
    assert np.allclose(qc.level[order], [0.0, 0.3 / 0.44], atol=EXACT, rtol=0)
    assert abs(qc.p_query - 0.3) < EXACT
    by_hand = np.sqrt(0.56 * 0.3**2 + 0.44 * (0.3 / 0.44 - 0.3) ** 2)
    assert abs(qc.sigma_infinity - by_hand) < EXACT
    assert sorted(len(m) for m in qc.classes) == [1, 3] and len(qc.states) == 4


def test_one_class_leaves_no_spread():
    qc = query_classes(load_network("blood_pressure"), "Kidney", 0, evidence={"Measurement": "m_e"})
    assert len(qc.classes) == 1 and qc.sigma_infinity < EXACT and abs(qc.level[0] - qc.p_query) < EXACT


def test_query_classes_refuse_a_state_the_query_does_not_have():
    with pytest.raises(ValueError, match="state 2 is not a state index of 'A'"):
        query_classes(or_network(), "A", 2)
    with pytest.raises(KeyError):
        query_classes(or_network(), "D", 0)


def test_theorem_cases_load_and_name_themselves():
    labels = [case.label for case in THEOREM_CASES]
    assert len(set(labels)) == len(labels) == 6
    assert "block_chain (n = 3)" in labels and "blood_pressure | Measurement = m_e" in labels
    for case in THEOREM_CASES:
        bn, evidence = case.load()
        assert evidence is None or set(evidence) <= set(bn.variables)
        assert len(theory.feasible_states(bn, evidence)[0]) >= 2  # something to move between
