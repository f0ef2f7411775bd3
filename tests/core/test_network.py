"""The network model: construction, validation errors, evidence handling."""

import numpy as np
import pytest
from hypothesis import given, settings

from prunelab import BayesianNetwork, EvidenceError, NetworkError, load_network
from tests.helpers import random_network


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


@settings(max_examples=60, deadline=None)
@given(random_network())
def test_any_valid_network_is_topologically_ordered(bn):
    pos = {v: i for i, v in enumerate(bn.variables)}
    for v in bn.variables:
        assert all(pos[p] < pos[v] for p in bn.parents[v])
        assert np.allclose(bn.cpts[v].sum(-1), 1.0)


# ------------------------------------------------------------ topological order
def rounds_order(names, parents):
    """The order before construction was linear: place, round after round, every
    variable (in the given order) whose parents were all placed in earlier rounds."""
    order, placed, remaining = [], set(), list(names)
    while remaining:
        ready = [v for v in remaining if set(parents[v]) <= placed]
        order += ready
        placed |= set(ready)
        remaining = [v for v in remaining if v not in placed]
    return tuple(order)


@settings(max_examples=60, deadline=None)
@given(random_network())
def test_order_is_the_round_by_round_order(bn):
    rng = np.random.default_rng(len(bn.variables))  # a function of hypothesis's example, so a failure replays
    shuffled = [bn.variables[i] for i in rng.permutation(bn.n_variables)]
    again = BayesianNetwork(
        states={v: bn.states[v] for v in shuffled},
        parents={v: bn.parents[v] for v in shuffled},
        cpts={v: bn.cpts[v] for v in shuffled},
    )
    assert again.variables == rounds_order(shuffled, bn.parents)


@pytest.mark.parametrize("name", ["alarm", "win95pts", "grid-8x8"])
def test_order_of_real_networks_is_the_round_by_round_order(name, rng):
    bn = load_network(name)
    assert bn.variables == rounds_order(bn.variables, bn.parents)
    for _ in range(3):
        shuffled = [bn.variables[i] for i in rng.permutation(bn.n_variables)]
        again = BayesianNetwork(
            states={v: bn.states[v] for v in shuffled},
            parents={v: bn.parents[v] for v in shuffled},
            cpts={v: bn.cpts[v] for v in shuffled},
        )
        assert again.variables == rounds_order(shuffled, bn.parents)


def chain(n, cycle=False):
    names = [f"X{i}" for i in range(n)]
    parents = {v: [names[i - 1]] if i or cycle else [] for i, v in enumerate(names)}
    cpts = {v: [[0.5, 0.5], [0.5, 0.5]] if parents[v] else [0.5, 0.5] for v in names}
    return BayesianNetwork(states={v: ["0", "1"] for v in names}, parents=parents, cpts=cpts)


def test_long_cycle_message_is_cut():
    with pytest.raises(NetworkError, match=r"cycle: (X\d+ -> ){10}\.\.\. \(5000 variables\)$"):
        chain(5000, cycle=True)


def test_long_name_lists_are_cut():
    with pytest.raises(NetworkError, match=r"unknown parent 'Z'; variables are \['X0', .*'X9', \.\.\.\] \(51 in all\)$"):
        BayesianNetwork(
            states={**{f"X{i}": ["0"] for i in range(50)}, "Y": ["0"]},
            parents={"Y": ["Z"]},
            cpts={**{f"X{i}": [1.0] for i in range(50)}, "Y": [1.0]},
        )


# ---------------------------------------------------------------- bad names
@pytest.mark.parametrize(
    "over, message",
    [
        ({"states": {1: ["0", "1"], "B": ["0", "1"]}, "parents": {"B": [1]}, "cpts": {1: [0.5, 0.5], "B": [[1, 0], [0, 1]]}},
         r"the network: variable name 1 has type int, not str"),
        ({"states": {"A": [0, 1], "B": ["0", "1"]}}, r"variable 'A': state name 0 has type int, not str"),
        ({"states": {"A": "01", "B": ["0", "1"]}}, r"variable 'A': state names must be an ordered list of strings, found '01'"),
        ({"states": {"A": {"0", "1"}, "B": ["0", "1"]}}, r"variable 'A': state names must be an ordered list"),
        ({"states": {"A": ["0", "1", "0"], "B": ["0", "1"]}}, r"variable 'A' has repeated state names: '0' in \['0', '1', '0'\]"),
        ({"states": {"A": [], "B": ["0", "1"]}}, r"variable 'A' has no states"),
        ({"parents": {"A": [], "B": "A"}}, r"variable 'B': parent names must be an ordered list of strings, found 'A'"),
        ({"parents": {"A": [], "B": ["A", "A"]}}, r"variable 'B' has repeated parent names: 'A'"),
        ({"parents": {"A": ["A"], "B": ["A"]}}, r"variable 'A' is its own parent"),
        ({"parents": [("B", "A")]}, r"parents must be a mapping keyed by variable name, found list"),
    ],
)
def test_bad_names_are_errors(over, message):
    with pytest.raises(NetworkError, match=message):
        pair(**over)


def test_uai_round_trip_needs_no_coercion_of_names(tmp_path):
    # numpy string scalars are strings: accepted, stored as plain str
    from prunelab import read_uai, write_uai

    bn = pair(states={"A": list(np.array(["0", "1"])), "B": ["0", "1"]})
    assert all(type(s) is str for s in bn.states["A"])
    assert read_uai(write_uai(bn, tmp_path / "pair.uai")) == bn


def test_cpt_size_is_capped_before_anything_is_built():
    from prunelab.network import MAX_CPT_ENTRIES

    names = [f"P{i}" for i in range(40)]
    with pytest.raises(NetworkError, match=rf"CPT of 'C' would have {2**41} entries \(shape \(2, 2, .*\)\), more than MAX_CPT_ENTRIES = {MAX_CPT_ENTRIES}"):
        BayesianNetwork(
            states={**{p: ["0", "1"] for p in names}, "C": ["0", "1"]},
            parents={"C": names},
            cpts={**{p: [0.5, 0.5] for p in names}, "C": [0.5, 0.5]},
        )


def test_normalize_refuses_rows_that_overflow():
    with pytest.raises(NetworkError, match=r"CPT of 'A' cannot be normalized given \(no parents\): its row \[1e\+308, 1e\+308\] sums past the largest float"):
        pair(cpts={"A": [1e308, 1e308], "B": [[1.0, 0.0], [0.0, 1.0]]}, normalize=True)
    # large but summable rows are rescaled exactly
    bn = pair(cpts={"A": [1e307, 3e307], "B": [[1.0, 0.0], [0.0, 1.0]]}, normalize=True)
    assert bn.cpts["A"].tolist() == [0.25, 0.75]


# ------------------------------------------------------------------ hashing
def test_equal_networks_hash_equal():
    a, b = pair(), pair(name="other")
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    signed_zero = pair(cpts={"A": [0.5, 0.5], "B": [[1.0, -0.0], [0.0, 1.0]]})
    assert signed_zero == a and hash(signed_zero) == hash(a)
    c = pair(cpts={"A": [0.25, 0.75], "B": [[1.0, 0.0], [0.0, 1.0]]})
    assert c != a and hash(c) != hash(a)
    assert len({a, b, c, signed_zero}) == 2


def test_exact_cache_is_shared_by_equal_networks_only():
    from prunelab import exact_marginals
    from prunelab.junction_tree import junction_tree

    a, b = pair(), pair(name="copy")
    c = pair(cpts={"A": [0.25, 0.75], "B": [[1.0, 0.0], [0.0, 1.0]]})
    none = frozenset()
    assert junction_tree(a, none) is junction_tree(b, none)  # b finds a's compiled tree
    assert junction_tree(c, none) is not junction_tree(a, none)
    np.testing.assert_allclose(exact_marginals(a)["B"], [0.5, 0.5])
    np.testing.assert_allclose(exact_marginals(b)["B"], [0.5, 0.5])
    np.testing.assert_allclose(exact_marginals(c)["B"], [0.25, 0.75])


# ---------------------------------------------------------------- construction is linear in the names
class CountedName(str):
    """A name that counts its comparisons (``==``) and hashes, and refuses to go past a budget."""

    calls = 0
    budget = float("inf")  # until a test sets one

    def _count(self):
        CountedName.calls += 1
        if CountedName.calls > CountedName.budget:
            raise AssertionError(f"more than {CountedName.budget} name comparisons")

    def __eq__(self, other):
        self._count()
        return str.__eq__(self, other)

    def __hash__(self):
        self._count()
        return str.__hash__(self)


def test_a_20k_chain_builds_in_a_number_of_name_comparisons_linear_in_its_size(monkeypatch):
    n = 20_000
    names = [CountedName(f"X{i}") for i in range(n)]
    states = {v: ["0", "1"] for v in names}
    parents = {v: [names[i - 1]] if i else [] for i, v in enumerate(names)}
    cpts = {v: [[0.9, 0.1], [0.2, 0.8]] if i else [0.5, 0.5] for i, v in enumerate(names)}
    monkeypatch.setattr(CountedName, "calls", 0)
    monkeypatch.setattr(CountedName, "budget", 50 * n)  # a pairwise check would need n^2 / 2 = 2e8
    bn = BayesianNetwork(states, parents, cpts)
    assert bn.n_variables == n and bn.parents["X7"] == ("X6",)
    assert CountedName.calls <= 50 * n


@pytest.mark.parametrize("first, second", [
    ("\u212a", "K"),  # KELVIN SIGN: its NFC form is the ASCII letter
    ("A\u030a", "\u212b"),  # A + ring and ANGSTROM SIGN: neither is NFC, both are U+00C5 in NFC
    ("caf\u00e9", "cafe\u0301"),
])
def test_names_that_differ_only_in_normalization_are_refused_whichever_is_ascii(first, second):
    with pytest.raises(NetworkError, match="differ only in their Unicode normalization"):
        BayesianNetwork(states={first: ["0", "1"], second: ["0", "1"]}, parents={},
                        cpts={first: [0.5, 0.5], second: [0.5, 0.5]})
    with pytest.raises(NetworkError, match=r"variable 'A'.*state names .* differ only"):
        BayesianNetwork(states={"A": [first, second]}, parents={}, cpts={"A": [0.5, 0.5]})


def test_of_two_faulty_cpts_the_first_in_order_is_the_error():
    states = {v: ["0", "1"] for v in "ABC"}
    parents = {"A": [], "B": ["A"], "C": ["B"]}
    with pytest.raises(NetworkError, match=r"CPT of 'B' does not sum to 1"):
        BayesianNetwork(states, parents, {"A": [0.5, 0.5], "B": [[0.5, 0.6], [0, 1]], "C": [0.5, 0.5]})
    with pytest.raises(NetworkError, match=r"CPT of 'C' has shape \(2,\)"):
        BayesianNetwork(states, parents, {"A": [0.5, 0.5], "B": [[0.5, 0.5], [0, 1]], "C": [0.5, 0.5]})
    with pytest.raises(NetworkError, match=r"CPT of 'A' has entry nan"):
        BayesianNetwork(states, parents, {"A": [np.nan, 0.5], "B": [[0.5, 0.5], [0, 1]], "C": [0.5, 0.5]})
