"""Exact transition matrices: the paper's theorems checked to machine precision.

Prune sampling must be a stochastic matrix, reversible with respect to
``P(x | e)`` (detailed balance), hence stationary, and regular. Gibbs sampling on
a deterministic network must be reducible (the paper's Example 1). The dynamic
programme behind :func:`prune_transition_matrix` is checked against the naive sum
over all ``2^m`` pruning patterns where that is small, and its numba kernel
(``k <= 64``, the default) against the pure-Python reference path.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from prunelab import load_network, make_grid
from prunelab import theory
from prunelab.theory import pruned_sets
from prunelab.compiled import compile_network, state_labels
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
from tests.helpers import EXACT


SAME_SUM = 1e-12
"""Relative tolerance between the numba and reference paths: the same probabilities
added in a different order (measured: at most 3e-13 on the full grid-3x3)."""

GRID_SEED = 5
"""``make_grid(3, seed=5)``: 32 feasible states (the catalogue's grid-3x3 has 64;
its exact matrix takes 5 s with the numba kernel, 5 minutes on the reference path)."""

GRID_FIRST_ROW = {"v_1_1": "T", "v_1_2": "T", "v_1_3": "T"}
"""The catalogue's grid-3x3 with its first row observed as in the book's chapter
"The theorem, checked" (16 feasible states)."""

CASES = {
    "deterministic_pair": (lambda: load_network("deterministic_pair"), None),
    "block_chain-3": (lambda: load_network("block_chain", n=3), None),
    "blood_pressure": (lambda: load_network("blood_pressure"), None),
    "blood_pressure|m_e": (lambda: load_network("blood_pressure"), {"Measurement": "m_e"}),
    "blood_pressure|l_g,m_n": (lambda: load_network("blood_pressure"), {"Lifestyle": "l_g", "Measurement": "m_n"}),
    "grid-3x3(seed 5)": (lambda: make_grid(3, seed=GRID_SEED), None),
    "grid-3x3|e": (lambda: load_network("grid-3x3"), {"v_2_2": "F", "v_3_1": "F", "v_3_2": "T"}),
    "grid-3x3|first row": (lambda: load_network("grid-3x3"), GRID_FIRST_ROW),
    "grid-3x3": (lambda: load_network("grid-3x3"), None),  # k = 64: about 5 s
}
LARGE = {"grid-3x3(seed 5)", "grid-3x3"}
"""Cases too slow for ``method="rows"`` (k programmes) or the reference path."""


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


@pytest.mark.parametrize("key", [k for k in CASES if k not in LARGE])
def test_joint_programme_equals_row_by_row_definition(matrices, key):
    """'joint' (one programme, conditioned on x in S) equals pruning around each x."""
    bn, evidence, states, R, p = matrices[key]
    _, R_rows = prune_transition_matrix(bn, evidence, method="rows")
    assert np.abs(R_rows - R).max() < EXACT
    # the row-by-row matrix is not symmetric-by-construction: detailed balance is a result
    assert stationary_check(states, R_rows, p)["detailed_balance"] < EXACT


@pytest.mark.parametrize(
    "key",
    ["deterministic_pair", "block_chain-3", "blood_pressure", "blood_pressure|m_e",
     "grid-3x3(seed 5)", "grid-3x3|first row"],
)
def test_kernel_equals_reference_path(matrices, key):
    """The numba kernel (the default for k <= 64) and the dict programme agree."""
    bn, evidence, states, R, p = matrices[key]
    states_ref, R_ref = prune_transition_matrix(bn, evidence, reference=True)
    assert states_ref.tolist() == states.tolist()
    np.testing.assert_allclose(R, R_ref, rtol=SAME_SUM, atol=0)
    if key not in LARGE:
        _, R_rows = prune_transition_matrix(bn, evidence, method="rows")
        _, R_rows_ref = prune_transition_matrix(bn, evidence, method="rows", reference=True)
        np.testing.assert_allclose(R_rows, R_rows_ref, rtol=SAME_SUM, atol=0)


@pytest.mark.parametrize("key", ["blood_pressure", "blood_pressure|m_e", "grid-3x3|first row"])
def test_kernel_surviving_sets_equal_the_dict(matrices, key):
    """Same sets, same probabilities; with the empty set's they add up to 1."""
    bn, evidence, states, R, p = matrices[key]
    net = compile_network(bn, evidence)
    labels = state_labels(net, states)
    groups = pruned_sets.label_groups(labels, net.cpt)
    k = len(states)
    reference = pruned_sets.surviving_sets(groups, (1 << k) - 1)
    uses, keep = pruned_sets._ordered_groups(groups)
    keys, values, empty, capacity = pruned_sets._surviving_sets_nb(
        uses, keep, np.uint64((1 << k) - 1), theory.MAX_SETS_KERNEL
    )
    assert sorted(int(key) for key in keys) == sorted(reference)
    assert 10 * len(keys) <= 7 * capacity  # the tables stay at most 70 % full
    kernel = dict(zip((int(key) for key in keys), values.tolist()))
    for mask, prob in reference.items():
        assert abs(kernel[mask] - prob) <= SAME_SUM * prob
    assert abs(values.sum() + empty - 1.0) < EXACT
    assert abs(sum(reference.values()) + empty - 1.0) < EXACT


def test_members_kernel_lists_the_bits(rng):
    masks = [1, 1 << 63, (1 << 64) - 1] + [int(m) for m in rng.integers(1, 1 << 63, 50)]
    masks += [m | (1 << 63) for m in masks[3:]]
    out = np.empty(64, np.int64)
    for mask in masks:
        size = pruned_sets._members_nb(np.uint64(mask), pruned_sets._DE_BRUIJN_BIT, out)
        assert out[:size].tolist() == pruned_sets.set_members(mask)


@pytest.mark.parametrize("tail", [0, 1, 5, 100])
def test_unmerged_tail_does_not_change_the_matrix(monkeypatch, matrices, tail):
    """Applying the last groups while accumulating (equal sets not merged) is exact."""
    bn, evidence, states, R, p = matrices["blood_pressure"]
    monkeypatch.setattr(pruned_sets, "UNMERGED_TAIL", tail)
    _, R_tail = prune_transition_matrix(bn, evidence)
    np.testing.assert_allclose(R_tail, R, rtol=SAME_SUM, atol=0)


def test_large_k_runs_the_reference_path(monkeypatch, matrices):
    """Above MAX_KERNEL_STATES the dict programme runs: bit for bit the reference."""
    bn, evidence, states, R, p = matrices["blood_pressure|m_e"]
    monkeypatch.setattr(theory.matrices, "MAX_KERNEL_STATES", len(states) - 1)
    _, R_large = prune_transition_matrix(bn, evidence)
    _, R_ref = prune_transition_matrix(bn, evidence, reference=True)
    assert np.array_equal(R_large, R_ref)


def naive_prune_matrix(bn, evidence):
    """Sum over every pruning pattern of the random labels (tiny cases only).

    No grouping, no dynamic programme: for every state ``x`` and every pattern of
    the labels outside ``C_x`` with ``0 < c < 1`` that some feasible state uses
    (all ``2^m``, vectorised; the other labels cannot change ``S``, whose members
    are found by brute force), the surviving states share the pattern's probability.
    """
    net = compile_network(bn, evidence)
    states, _ = feasible_states(bn, evidence)
    labels = state_labels(net, states)
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


@pytest.mark.parametrize("reference", [False, True])
def test_too_many_surviving_sets_is_an_error_not_an_exhausted_memory(monkeypatch, reference):
    """Both paths stop with a MemoryError naming the limit once the sets outgrow it."""
    bn = load_network("blood_pressure")  # 1.8e4 distinct sets
    monkeypatch.setattr(pruned_sets, "MAX_SETS_REFERENCE" if reference else "MAX_SETS_KERNEL", 1_000)
    with pytest.raises(MemoryError, match="more than 1,000 distinct surviving sets on these 32 feasible states"):
        theory.prune_transition_matrix(bn, reference=reference)
