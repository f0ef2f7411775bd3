"""The CPT-entry labels of :mod:`prunelab.compiled`: by names, by state, and back, one arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_network
from prunelab.compiled import compile_network, entry_label, label_entry, state_labels


@pytest.mark.parametrize("name", ["deterministic_pair", "blood_pressure", "asia", "alarm"])
def test_every_label_names_its_entry_and_back(name):
    bn = load_network(name)
    net = compile_network(bn)
    variables = []
    for label in range(net.n_labels):
        entry = label_entry(net, label)
        v = bn.variables[entry.variable]
        parents = bn.parents[v]
        given = {p: bn.states[p][s] for p, s in zip(parents, entry.parent_states)}
        assert entry_label(bn, net, v, bn.states[v][entry.state], given) == label
        assert net.cpt[label] == bn.cpts[v][(*entry.parent_states, entry.state)]
        shape = tuple(len(bn.states[p]) for p in parents)
        assert entry.row == (int(np.ravel_multi_index(entry.parent_states, shape)) if shape else 0)
        variables.append(entry.variable)
    assert variables == sorted(variables) and set(variables) == set(range(bn.n_variables))


def test_the_labels_of_a_full_state_are_its_entries(rng):
    bn = load_network("alarm")
    net = compile_network(bn)
    x = np.array([rng.integers(len(bn.states[v])) for v in bn.variables])
    names = {v: bn.states[v][s] for v, s in zip(bn.variables, x)}
    expected = [entry_label(bn, net, v, names[v], names) for v in bn.variables]
    assert state_labels(net, x).tolist() == expected


def test_the_paper_figure_2_labels():
    """BloodPressure's CPT entries of the state (k_g, l_b, b_e, s_y, m_e) multiply to 0.5 * 0.5 * 0.8 * 0.2 * 0.9."""
    bn = load_network("blood_pressure")
    net = compile_network(bn)
    state = {"Kidney": "k_g", "Lifestyle": "l_b", "BloodPressure": "b_e", "Sports": "s_y", "Measurement": "m_e"}
    labels = [entry_label(bn, net, v, state[v], state) for v in bn.variables]
    assert sorted(net.cpt[labels].tolist()) == sorted([0.5, 0.5, 0.8, 0.2, 0.9])


def test_bad_entries_and_labels_are_refused():
    bn = load_network("blood_pressure")
    net = compile_network(bn)
    with pytest.raises(KeyError, match=r"needs a state of its parent\(s\) \['Kidney', 'Lifestyle'\]"):
        entry_label(bn, net, "BloodPressure", "b_e")
    with pytest.raises(ValueError, match=f"label {net.n_labels} is not one of the network's {net.n_labels} labels"):
        label_entry(net, net.n_labels)
    with pytest.raises(ValueError, match="label -1"):
        label_entry(net, -1)
