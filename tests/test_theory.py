"""Exact transition matrices: the paper's theorems checked to machine precision.

Prune sampling must be a stochastic matrix, reversible with respect to
``P(x | e)`` (detailed balance), hence stationary, and regular. Gibbs sampling on
a deterministic network must be reducible (the paper's Example 1). The dynamic
programme behind :func:`prune_transition_matrix` is checked against the naive sum
over all ``2^m`` pruning patterns where that is small.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from prunelab import load_network, make_grid
from prunelab.compiled import compile_network
from prunelab.theory import (
    communicating_classes,
    enumerate_pruned_set,
    feasible_states,
    gibbs_transition_matrix,
    is_irreducible,
    is_regular,
    metropolis_transition_matrix,
    prune_transition_matrix,
    stationary_check,
)

EXACT = 1e-12
"""Tolerance for identities that hold exactly in real arithmetic."""

GRID_SEED = 5
"""``make_grid(3, seed=5)``: 32 feasible states (the catalogue's grid-3x3 has 64,
whose exact matrix takes minutes; it is tested with evidence instead)."""

CASES = {
    "deterministic_pair": (lambda: load_network("deterministic_pair"), None),
    "block_chain-3": (lambda: load_network("block_chain", n=3), None),
    "blood_pressure": (lambda: load_network("blood_pressure"), None),
    "blood_pressure|m_e": (lambda: load_network("blood_pressure"), {"Measurement": "m_e"}),
    "blood_pressure|l_g,m_n": (lambda: load_network("blood_pressure"), {"Lifestyle": "l_g", "Measurement": "m_n"}),
    "grid-3x3(seed 5)": (lambda: make_grid(3, seed=GRID_SEED), None),
    "grid-3x3|e": (lambda: load_network("grid-3x3"), {"v_2_2": "F", "v_3_1": "F", "v_3_2": "T"}),
}


@pytest.fixture(scope="module")
def matrices():
    out = {}
    for key, (make, evidence) in CASES.items():
        bn = make()
        states, R = prune_transition_matrix(bn, evidence)
        _, p = feasible_states(bn, evidence)
        out[key] = (bn, evidence, states, R, p)
    return out


def test_deterministic_pair_matches_the_paper():
    """From (0, 0): stay unless A(2) survives (1/2) and then the draw picks (1, 1) (1/2)."""
    states, R = prune_transition_matrix(load_network("deterministic_pair"))
    assert states.tolist() == [[0, 0], [1, 1]]
    assert R[0, 0] == 0.75 and R[0, 1] == 0.25
    assert R.tolist() == [[0.75, 0.25], [0.25, 0.75]]


@pytest.mark.parametrize("key", list(CASES))
def test_prune_chain_is_reversible_stationary_and_regular(matrices, key):
    bn, evidence, states, R, p = matrices[key]
    check = stationary_check(states, R, p)
    assert check["negative"] == 0.0
    assert check["row_sum"] < EXACT
    assert check["detailed_balance"] < EXACT
    assert check["stationarity"] < EXACT
    assert is_regular(R) and is_irreducible(R)
    # every feasible state agrees with the evidence and has P > 0
    net = compile_network(bn, evidence)
    assert len(enumerate_pruned_set(net, net.cpt > 0)) == len(states)


@pytest.mark.parametrize("key", [k for k in CASES if not k.startswith("grid-3x3(")])
def test_joint_programme_equals_row_by_row_definition(matrices, key):
    """'joint' (one programme, conditioned on x in S) equals pruning around each x."""
    bn, evidence, states, R, p = matrices[key]
    _, R_rows = prune_transition_matrix(bn, evidence, method="rows")
    assert np.abs(R_rows - R).max() < EXACT
    # the row-by-row matrix is not symmetric-by-construction: detailed balance is a result
    assert stationary_check(states, R_rows, p)["detailed_balance"] < EXACT


def naive_prune_matrix(bn, evidence):
    """Sum over every pruning pattern of the random labels (tiny cases only).

    No grouping, no dynamic programme: for every state ``x`` and every pattern of
    the labels outside ``C_x`` with ``0 < c < 1`` that some feasible state uses
    (all ``2^m``, vectorised; the other labels cannot change ``S``, whose members
    are found by brute force), the surviving states share the pattern's probability.
    """
    net = compile_network(bn, evidence)
    states, _ = feasible_states(bn, evidence)
    labels = net.cpt_offset[:-1] + states
    for i in range(net.n_variables):
        lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
        labels[:, i] += states[:, net.parent_index[lo:hi]] @ net.parent_stride[lo:hi]
    k = len(states)
    used = sorted(set(labels.ravel().tolist()))
    R = np.zeros((k, k))
    for a in range(k):
        random = [lab for lab in used if 0 < net.cpt[lab] < 1 and lab not in labels[a]]
        assert len(random) <= 16, "too many patterns for the naive sum"
        patterns = np.array(list(itertools.product((False, True), repeat=len(random))), dtype=bool)
        patterns = patterns.reshape(-1, len(random))
        kept = np.tile(net.cpt > 0, (len(patterns), 1))
        kept[:, random] = patterns
        kept[:, labels[a]] = True
        c = net.cpt[random]
        prob = np.where(patterns, c, 1 - c).prod(axis=1)
        survive = kept[:, labels].all(axis=2)  # (patterns, k)
        R[a] = (prob / survive.sum(axis=1)) @ survive
    return states, R


@pytest.mark.parametrize(
    "key", ["deterministic_pair", "blood_pressure|m_e", "blood_pressure|l_g,m_n", "grid-3x3|e"]
)
def test_dynamic_programme_equals_naive_pattern_sum(matrices, key):
    bn, evidence, states, R, p = matrices[key]
    states_naive, R_naive = naive_prune_matrix(bn, evidence)
    assert states_naive.tolist() == states.tolist()
    assert np.abs(R_naive - R).max() < EXACT


def test_gibbs_is_reducible_on_deterministic_networks():
    """The paper's Example 1: Gibbs never leaves (0, 0); prune sampling does."""
    for bn in (load_network("deterministic_pair"), load_network("block_chain", n=3)):
        states, G = gibbs_transition_matrix(bn)
        classes = communicating_classes(G)
        assert len(classes) > 1 and not is_irreducible(G) and not is_regular(G)
        _, p = feasible_states(bn)
        assert stationary_check(states, G, p)["stationarity"] < EXACT  # P is stationary, not unique
        _, R = prune_transition_matrix(bn)
        assert is_irreducible(R)
    states, G = gibbs_transition_matrix(load_network("deterministic_pair"))
    assert G.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert [c.tolist() for c in communicating_classes(G)] == [[0], [1]]


def test_block_chain_gibbs_classes_are_the_blocks():
    bn = load_network("block_chain", n=3)
    states, G = gibbs_transition_matrix(bn)
    classes = communicating_classes(G)
    assert len(classes) == 2
    for c in classes:  # one block {0, 1} or {2, 3} for every variable
        assert len({int(v) // 2 for v in states[c].ravel()}) == 1


@pytest.mark.parametrize("key", ["blood_pressure", "blood_pressure|m_e", "grid-3x3(seed 5)"])
def test_gibbs_and_metropolis_sweeps_are_stationary(matrices, key):
    """Systematic scans keep P stationary (a sweep is not reversible in general)."""
    bn, evidence, states, R, p = matrices[key]
    for matrix in (gibbs_transition_matrix, metropolis_transition_matrix):
        s, K = matrix(bn, evidence)
        assert s.tolist() == states.tolist()
        check = stationary_check(s, K, p)
        assert check["row_sum"] < EXACT and check["stationarity"] < EXACT
        assert check["negative"] == 0.0


def test_regularity_helpers():
    flip = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert is_irreducible(flip) and not is_regular(flip)
    assert is_regular(np.array([[0.5, 0.5], [1.0, 0.0]]))
    assert [c.tolist() for c in communicating_classes(np.eye(3))] == [[0], [1], [2]]


def test_too_large_and_impossible_inputs():
    from prunelab import EvidenceError

    with pytest.raises(ValueError, match="tiny networks"):
        feasible_states(load_network("alarm"))
    with pytest.raises(EvidenceError):
        feasible_states(load_network("deterministic_pair"), {"A": "0", "B": "1"})
    with pytest.raises(ValueError, match="unknown method"):
        prune_transition_matrix(load_network("deterministic_pair"), method="brute")
