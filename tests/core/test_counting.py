"""Exact answers by weighted model counting: against the junction tree, past the circuit, and at the caps.

Counts are compared with the junction tree on networks it handles (to 1e-9, both
exact); ``P(e)`` far below the double's range is compared in log space; the caps
refuse by a rule that does not depend on timing (a cap of zero seconds or one byte).
"""

import math

import numpy as np
import pytest

from prunelab import BayesianNetwork, make_grid
from prunelab.circuit import CountTooHardError, encode_network, log_counts
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, log_probability_of_evidence, probability_of_evidence
from prunelab.network import EvidenceError
from tests.core.test_circuit import CASES, EXACT, _multi_valued, _network


@pytest.mark.parametrize(("name", "evidence"), CASES)
def test_counted_marginals_equal_the_junction_tree(name, evidence):
    bn = _network(name)
    got = exact_marginals(bn, evidence, method="counter")
    want = exact_marginals(bn, evidence, method="junction_tree")
    assert got.method == "counter"
    assert list(got) == list(want)
    for v, p in want.items():
        np.testing.assert_allclose(got[v], p, rtol=0, atol=EXACT, err_msg=v)
    if evidence:
        assert log_probability_of_evidence(bn, evidence, method="counter") == pytest.approx(
            log_probability_of_evidence(bn, evidence, method="junction_tree"), abs=EXACT)


@pytest.mark.parametrize("method", ["junction_tree", "circuit", "counter"])
def test_variables_choose_the_posteriors_and_their_order(method):
    bn = _multi_valued()
    full = exact_marginals(bn, {"B": "b2"}, method="junction_tree")
    got = exact_marginals(bn, {"B": "b2"}, method=method, variables=["C", "A"])
    assert list(got) == ["C", "A"]
    for v in got:
        np.testing.assert_allclose(got[v], full[v], rtol=0, atol=EXACT)


@pytest.mark.parametrize(("variables", "error", "message"), [
    (["A", "Z"], ValueError, r"'Z' is not a variable of network 'multi'"),
    (["B"], ValueError, r"'B' is observed"),
    (["A", "A"], ValueError, r"'A' is named twice"),
    ("A", TypeError, r"a sequence of variable names, not str"),
])
def test_bad_variables_are_refused_by_name(variables, error, message):
    with pytest.raises(error, match=message):
        exact_marginals(_multi_valued(), {"B": "b1"}, method="counter", variables=variables)


def _copy_chain() -> BayesianNetwork:
    """A -> B -> C, each a copy of its parent: A = 0 with C = 1 is impossible only through the free B."""
    copy = [[1.0, 0.0], [0.0, 1.0]]
    return BayesianNetwork(states={v: ["0", "1"] for v in "ABC"}, parents={"B": ["A"], "C": ["B"]},
                           cpts={"A": [0.4, 0.6], "B": copy, "C": copy}, name="copies")


def test_evidence_impossible_through_a_free_variable_counts_zero():
    bn = _copy_chain()
    assert log_probability_of_evidence(bn, {"A": "0", "C": "1"}, method="counter") == -math.inf
    assert probability_of_evidence(bn, {"A": "0", "C": "1"}, method="counter") == 0.0
    with pytest.raises(EvidenceError, match="impossible"):
        exact_marginals(bn, {"A": "0", "C": "1"}, method="counter")
    assert probability_of_evidence(bn, {"A": "1", "C": "1"}, method="counter") == pytest.approx(0.6, abs=EXACT)


def test_all_observed_counts_the_one_state():
    bn = _copy_chain()
    evidence = {"A": "1", "B": "1", "C": "1"}
    assert log_probability_of_evidence(bn, evidence, method="counter") == pytest.approx(math.log(0.6), abs=EXACT)


def test_probability_of_evidence_below_the_double_range_stays_exact_in_log_space():
    """400 coins, each with an observed child of probability 1e-3 either way: P(e) = 1e-1200, shifted into range."""
    n = 400
    states = {f"A{i}": ["0", "1"] for i in range(n)} | {f"B{i}": ["0", "1"] for i in range(n)}
    parents = {f"B{i}": [f"A{i}"] for i in range(n)}
    cpts = {f"A{i}": [0.5, 0.5] for i in range(n)} | {f"B{i}": [[0.999, 0.001], [0.998, 0.002]] for i in range(n)}
    bn = BayesianNetwork(states=states, parents=parents, cpts=cpts, name="faint")
    evidence = {f"B{i}": "1" for i in range(n)}
    want = log_probability_of_evidence(bn, evidence, method="junction_tree")
    assert want == pytest.approx(n * math.log(0.0015), rel=1e-12)  # far below log(2**-1074)
    assert log_probability_of_evidence(bn, evidence, method="counter") == pytest.approx(want, rel=1e-12)
    got = exact_marginals(bn, evidence, method="counter", variables=["A7"])["A7"]
    np.testing.assert_allclose(got, [1 / 3, 2 / 3], rtol=0, atol=EXACT)


def test_the_caps_refuse_naming_the_counts_done():
    bn = make_grid(6, 0.75, seed=11)
    net = compile_network(bn)
    enc = encode_network(net, bn.variables)
    queries = [[], [1], [-1]]
    with pytest.raises(CountTooHardError, match=r"counting grid-6 reached its cap of 0 s after .* with 0 of its 3 "
                                                r"weighted counts done"):
        log_counts(enc, net, queries, max_seconds=0.0, what="grid-6")
    with pytest.raises(CountTooHardError, match=r"cap of 9.31323e-10 GiB of memory .* 0 of its 3 weighted counts"):
        log_counts(enc, net, queries, max_bytes=1, what="grid-6")
    with pytest.raises(ValueError, match=r"query literal 0 is not a signed Boolean"):
        log_counts(enc, net, [[0]])
    with pytest.raises(ValueError, match=rf"query literal -{enc.n_booleans + 1} is not a signed Boolean"):
        log_counts(enc, net, [[-(enc.n_booleans + 1)]])


def test_counts_of_a_literal_and_its_negation_sum_to_the_count():
    bn = make_grid(6, 0.75, seed=11)
    net = compile_network(bn, {"v_6_6": "T"})
    enc = encode_network(net, bn.variables)
    total, positive, negative = log_counts(enc, net, [[], [3], [-3]])
    assert np.logaddexp(positive, negative) == pytest.approx(total, abs=EXACT)


def test_the_counter_writes_nothing_to_the_standard_output(capfd):
    """Ganak prints a line for a zero count; the counting process sends its standard output to /dev/null."""
    assert log_probability_of_evidence(_copy_chain(), {"A": "0", "C": "1"}, method="counter") == -math.inf
    assert capfd.readouterr().out == ""
