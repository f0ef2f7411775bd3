"""The network model: construction, validation errors, evidence handling."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunelab import BayesianNetwork, EvidenceError, NetworkError, load_network


def pair(**over):
    spec = dict(
        states={"A": ["0", "1"], "B": ["0", "1"]},
        parents={"A": [], "B": ["A"]},
        cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [0.0, 1.0]]},
    )
    spec.update(over)
    return BayesianNetwork(**spec)


def test_topological_order_whatever_the_input_order():
    bn = BayesianNetwork(
        states={"C": ["c0", "c1"], "B": ["b0", "b1"], "A": ["a0", "a1"]},
        parents={"C": ["B"], "B": ["A"]},
        cpts={"A": [0.3, 0.7], "B": [[0.9, 0.1], [0.2, 0.8]], "C": [[1, 0], [0, 1]]},
    )
    assert bn.variables == ("A", "B", "C")
    assert bn.children("A") == ("B",)
    assert bn.cardinalities.tolist() == [2, 2, 2]
    assert bn.n_parameters == 10


def test_cpts_are_read_only():
    bn = pair()
    with pytest.raises(ValueError):
        bn.cpts["A"][0] = 1.0
    with pytest.raises(TypeError):
        bn.cpts["A"] = np.zeros(2)


def test_cycle_is_named():
    with pytest.raises(NetworkError, match=r"cycle: .*A.*B|cycle: .*B.*A"):
        BayesianNetwork(
            states={"A": ["0", "1"], "B": ["0", "1"]},
            parents={"A": ["B"], "B": ["A"]},
            cpts={"A": [[0.5, 0.5]] * 2, "B": [[0.5, 0.5]] * 2},
        )


def test_wrong_shape_names_variable_and_expected_shape():
    with pytest.raises(NetworkError, match=r"CPT of 'B' has shape \(2,\), expected \(2, 2\)"):
        pair(cpts={"A": [0.5, 0.5], "B": [0.5, 0.5]})


def test_entry_outside_unit_interval_names_configuration():
    with pytest.raises(NetworkError, match=r"'B' has entry 1.5 outside \[0, 1\] at B=0 given A=1"):
        pair(cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [1.5, -0.5]]})


def test_row_not_summing_to_one_names_parent_configuration():
    with pytest.raises(NetworkError, match=r"'B' does not sum to 1 given A=1: sum is 0.9"):
        pair(cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [0.4, 0.5]]})


def test_normalize_rescales_rows_printed_to_few_digits():
    bn = pair(cpts={"A": [0.33, 0.67], "B": [[0.3333, 0.6666], [0.0, 1.0]]}, normalize=True)
    np.testing.assert_allclose(bn.cpts["B"][0], [1 / 3, 2 / 3], rtol=1e-3)
    assert np.allclose(bn.cpts["B"].sum(-1), 1.0, atol=1e-15)
    with pytest.raises(NetworkError, match="all-zero row given A=0"):
        pair(cpts={"A": [0.5, 0.5], "B": [[0.0, 0.0], [0.0, 1.0]]}, normalize=True)


def test_tolerance_is_one_in_a_million():
    pair(cpts={"A": [0.5, 0.5 + 9e-7], "B": [[1.0, 0.0], [0.0, 1.0]]})
    with pytest.raises(NetworkError):
        pair(cpts={"A": [0.5, 0.5 + 2e-6], "B": [[1.0, 0.0], [0.0, 1.0]]})


@pytest.mark.parametrize(
    "over, message",
    [
        ({"parents": {"B": ["Z"]}}, r"'B' has unknown parent 'Z'; variables are \['A', 'B'\]"),
        ({"parents": {"Z": []}}, r"unknown variable\(s\) \['Z'\]"),
        ({"cpts": {"A": [0.5, 0.5]}}, r"variable 'B' has no CPT"),
        ({"states": {"A": ["0", "0"], "B": ["0", "1"]}}, r"'A' has repeated state names"),
        ({"cpts": {"A": ["x", 0.5], "B": [[1, 0], [0, 1]]}}, r"CPT of 'A' is not numeric"),
        ({"cpts": {"A": [0.5, 0.5], "B": [1, 0, 0, 1]}}, r"CPT of 'B' is flat with 4 entries"),
    ],
)
def test_bad_structure_errors(over, message):
    with pytest.raises(NetworkError, match=message):
        pair(**over)


def test_evidence_unknown_names_list_valid_ones():
    bn = load_network("blood_pressure")
    with pytest.raises(EvidenceError, match=r"unknown variable 'Kidny'.*'Kidney'"):
        bn.evidence_indices({"Kidny": "k_b"})
    with pytest.raises(EvidenceError, match=r"unknown state 'k_x' of variable 'Kidney'; states are \['k_b', 'k_g'\]"):
        bn.evidence_indices({"Kidney": "k_x"})
    with pytest.raises(EvidenceError, match=r"unknown state 5"):
        bn.evidence_indices({"Kidney": 5})
    assert bn.evidence_indices({"Kidney": "k_g", "Sports": 0}) == {0: 1, 3: 0}
    assert bn.evidence_names({"Sports": 1}) == {"Sports": "s_y"}


def test_log_probability_is_the_product_of_the_state_labels():
    bn = load_network("blood_pressure")
    # (k_g, l_b, b_e, s_y, m_e): 0.5 * 0.5 * 0.8 * 0.2 * 0.9, Figure 2 of the paper
    assert np.isclose(np.exp(bn.log_probability([1, 0, 1, 1, 1])), 0.5 * 0.5 * 0.8 * 0.2 * 0.9, rtol=1e-14)
    assert load_network("deterministic_pair").log_probability([0, 1]) == -np.inf


def test_equality_compares_content():
    assert pair() == pair()
    assert pair() != pair(cpts={"A": [0.4, 0.6], "B": [[1.0, 0.0], [0.0, 1.0]]})


@st.composite
def random_network(draw):
    n = draw(st.integers(1, 6))
    cards = [draw(st.integers(1, 3)) for _ in range(n)]
    parents = {f"V{i}": [f"V{j}" for j in range(i) if draw(st.booleans())][:3] for i in range(n)}
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    cpts = {}
    for i in range(n):
        shape = [cards[int(p[1:])] for p in parents[f"V{i}"]] + [cards[i]]
        table = rng.random(shape) * (rng.random(shape) < 0.8)
        table[..., 0] += 1e-3
        cpts[f"V{i}"] = table / table.sum(-1, keepdims=True)
    order = list(rng.permutation(n))
    return BayesianNetwork(
        states={f"V{i}": [f"s{k}" for k in range(cards[i])] for i in order},
        parents={f"V{i}": parents[f"V{i}"] for i in order},
        cpts={f"V{i}": cpts[f"V{i}"] for i in order},
    )


@settings(max_examples=60, deadline=None)
@given(random_network())
def test_any_valid_network_is_topologically_ordered(bn):
    pos = {v: i for i, v in enumerate(bn.variables)}
    for v in bn.variables:
        assert all(pos[p] < pos[v] for p in bn.parents[v])
        assert np.allclose(bn.cpts[v].sum(-1), 1.0)
