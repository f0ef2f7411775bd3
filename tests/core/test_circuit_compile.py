"""Compiling circuits: the ways to conjoin, the elimination-order vtree, the vectorised encoding, the hard caps.

Every compilation strategy must give the same function; for one vtree an SDD is
canonical, so the circuits must be equal array for array. The encoding is checked
against a row-by-row reference written out here, and the answers of the
elimination-order vtree against the junction tree (to 1e-9, as in
``test_circuit.py``).
"""

import multiprocessing as mp
import time

import numpy as np
import pytest

from prunelab import BayesianNetwork, load_network, make_grid
from prunelab.circuit import (
    CircuitTooLargeError,
    circuit_inference,
    compile_circuit,
    compile_cnf,
    encode_network,
    log_count,
    passes_for,
)
from prunelab.circuit.compiler import CONJOIN
from prunelab.circuit.inference import VTREES
from prunelab.circuit.vtree import dissection_vtree, elimination_vtree
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, log_probability_of_evidence
from tests.helpers import LOG_EXACT



def _multi_valued() -> BayesianNetwork:
    """Three- and four-state variables, zeros and ones in the CPTs, a free variable between observed ones."""
    return BayesianNetwork(
        states={"A": ["a0", "a1", "a2"], "B": ["b0", "b1", "b2", "b3"], "C": ["c0", "c1", "c2"], "D": ["d0", "d1"]},
        parents={"B": ["A"], "C": ["A", "B"], "D": ["C"]},
        cpts={
            "A": [0.2, 0.5, 0.3],
            "B": [[0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]],
            "C": np.array([[[0.3, 0.3, 0.4], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.2, 0.0, 0.8]]] * 3),
            "D": [[0.9, 0.1], [0.0, 1.0], [0.5, 0.5]],
        },
        name="multi",
    )


CASES = [
    ("asia", None),
    ("asia", {"dysp": "yes", "smoke": "no"}),
    ("alarm", {"HR": "HIGH", "PRESS": "LOW"}),
    ("multi", None),
    ("multi", {"A": "a2", "D": "d1"}),
    ("grid", None),
    ("grid", {"v_6_6": "T", "v_2_5": "F"}),
]


def _network(name: str) -> BayesianNetwork:
    if name == "grid":
        return make_grid(6, 0.75, seed=3)
    if name == "multi":
        return _multi_valued()
    return load_network(name)


def _reference_encoding(net):
    """The encoding written row by row from the module docstring's definition: clauses, theta labels, owners."""
    card, ev = net.cardinality, net.evidence_value
    owner, state, clauses = [-1], {}, []
    for i in range(net.n_variables):
        if ev[i] >= 0:
            continue
        k = 1 if card[i] == 2 else int(card[i])
        members = list(range(len(owner), len(owner) + k))
        owner.extend([i] * k)
        state[i] = members
        if k > 1:
            clauses.append(members)
            clauses.extend([-a, -b] for j, a in enumerate(members) for b in members[j + 1:])

    def literal(j, v):
        return (state[j][0] if v == 1 else -state[j][0]) if card[j] == 2 else state[j][v]

    theta_label, log_constant = [-1] * len(owner), 0.0
    for i in range(net.n_variables):
        family = [*net.parent_index[net.parent_ptr[i]:net.parent_ptr[i + 1]].tolist(), i]
        for r, values in enumerate(np.ndindex(*(int(card[j]) for j in family))):  # row-major, the child last
            label, c = int(net.cpt_offset[i]) + r, float(net.cpt[int(net.cpt_offset[i]) + r])
            if c == 1.0 or any(ev[j] >= 0 and ev[j] != v for j, v in zip(family, values)):
                continue
            condition = [literal(j, v) for j, v in zip(family, values) if ev[j] < 0]
            if c == 0.0:
                clauses.append([-lit for lit in condition])
            elif not condition:
                log_constant += np.log(c)
            else:
                theta = len(owner)
                owner.append([j for j in family if ev[j] < 0][-1])
                theta_label.append(label)
                clauses.extend([-theta, lit] for lit in condition)
                clauses.append([*(-lit for lit in condition), theta])
    return clauses, theta_label, owner, log_constant


@pytest.mark.parametrize(("name", "evidence"), CASES)
def test_vectorised_encoding_equals_the_row_by_row_definition(name, evidence):
    net = compile_network(_network(name), evidence)
    enc = encode_network(net)
    clauses, theta_label, owner, log_constant = _reference_encoding(net)
    assert [enc.clause(k).tolist() for k in range(enc.n_clauses)] == clauses
    assert enc.theta_label.tolist() == theta_label and enc.owner.tolist() == owner
    assert enc.n_booleans == len(owner) - 1
    assert enc.log_constant == pytest.approx(log_constant, abs=1e-12)


def _fingerprint(circuit, rng) -> tuple:
    """Size, node count and the weighted count under random weights (an SDD is canonical for its vtree)."""
    work = passes_for(circuit)
    work.log_true[1:] = np.log(rng.uniform(0.1, 1.0, size=work.log_true.shape[0] - 1))
    work.log_false[1:] = np.log(rng.uniform(0.1, 1.0, size=work.log_false.shape[0] - 1))
    return circuit.size, circuit.n_nodes, log_count(circuit, work)


@pytest.mark.parametrize(("name", "evidence"), CASES)
def test_every_way_to_conjoin_gives_the_same_circuit(name, evidence):
    net = compile_network(_network(name), evidence)
    enc = encode_network(net)
    vt = dissection_vtree(net, enc)
    seed = 20261126
    size, n_nodes, log_wmc = _fingerprint(compile_cnf(enc, vt, conjoin=CONJOIN[0]), np.random.default_rng(seed))
    others = [compile_cnf(enc, vt, conjoin=conjoin) for conjoin in CONJOIN[1:]]
    others.append(compile_cnf(enc, vt, isolate=False))  # compiled in this process rather than a forked child
    for circuit in others:
        again = _fingerprint(circuit, np.random.default_rng(seed))
        assert again[:2] == (size, n_nodes)
        assert again[2] == pytest.approx(log_wmc, abs=LOG_EXACT)


def _check_vtree(net, enc, vt):
    n = enc.n_booleans
    assert vt.n_nodes == 2 * n - 1 and sorted(vt.leaf_boolean.tolist()) == list(range(1, n + 1))
    internal = np.flatnonzero(vt.left >= 0)
    assert (vt.left[internal] < internal).all() and (internal < vt.right[internal]).all()  # in-order positions
    ranges = {(int(vt.leaf_lo[u]), int(vt.leaf_hi[u])) for u in range(vt.n_nodes)}
    rank = np.empty(n + 1, dtype=np.int64)
    rank[vt.leaf_boolean] = np.arange(n)
    for i in net.free.tolist():  # a variable's Booleans are exactly the leaves of one vtree node
        r = np.sort(rank[np.flatnonzero(enc.owner == i)])
        assert r[-1] - r[0] + 1 == r.shape[0] and (int(r[0]), int(r[-1]) + 1) in ranges


@pytest.mark.parametrize(("name", "evidence"), CASES)
def test_elimination_vtree_answers_equal_the_junction_tree(name, evidence):
    bn = _network(name)
    net = compile_network(bn, evidence)
    enc = encode_network(net)
    _check_vtree(net, enc, elimination_vtree(net, enc))
    log_p, marginals = circuit_inference(bn, net, compile_circuit(net, vtree="elimination"))
    assert log_p == pytest.approx(log_probability_of_evidence(bn, evidence), abs=LOG_EXACT)
    exact = exact_marginals(bn, evidence)
    assert set(marginals) == set(exact)
    for v, p in exact.items():
        np.testing.assert_allclose(marginals[v], p, atol=LOG_EXACT, rtol=0)


def test_unknown_options_are_refused_by_name():
    net = compile_network(load_network("asia"))
    enc = encode_network(net)
    with pytest.raises(ValueError, match=r"conjoin must be one of \('family', 'clause'\), got 'row'"):
        compile_cnf(enc, dissection_vtree(net, enc), conjoin="row")
    with pytest.raises(ValueError, match=rf"vtree must be one of {VTREES!r}".replace("(", r"\(").replace(")", r"\)")):
        compile_circuit(net, vtree="metis")


def test_time_cap_is_a_hard_stop_that_names_the_size_and_leaves_no_process():
    net = compile_network(make_grid(12, 0.5, seed=1))
    with pytest.raises(CircuitTooLargeError, match=r"grid-12 into a decision diagram stopped at [\d,]+ elements alive "
                                                   r"after [\d.]+ s \(caps: 100,000,000 elements, 0 s\)"):
        compile_circuit(net, max_seconds=0.0, what="grid-12")
    assert mp.active_children() == []


def test_size_cap_reached_in_the_child_is_refused_with_its_message():
    net = compile_network(make_grid(8, 0.5, seed=1))
    with pytest.raises(CircuitTooLargeError, match=r"stopped at [\d,]+ elements alive .*\(caps: 50 elements.* of its "
                                                   r"Booleans compiled"):
        compile_circuit(net, max_size=50, what="grid-8x8")
    assert mp.active_children() == []


def test_an_error_inside_the_compilers_process_is_raised_as_such(monkeypatch):
    import prunelab.circuit.compiler as compiler

    def broken(*args):
        raise ValueError("boom")

    monkeypatch.setattr(compiler, "_compile_regions", broken)  # the forked child inherits it
    net = compile_network(load_network("asia"))
    with pytest.raises(RuntimeError, match=r"compiling asia failed in the compiler's process: ValueError: boom"):
        compile_circuit(net, what="asia")
    assert mp.active_children() == []


@pytest.mark.parametrize(("name", "evidence"), [("grid", None), ("asia", {"dysp": "yes", "smoke": "no"})])
def test_a_race_of_vtrees_returns_the_circuit_of_the_vtree_that_won(name, evidence):
    bn = make_grid(10, 0.9, seed=2) if name == "grid" else load_network(name)
    net = compile_network(bn, evidence)
    enc = encode_network(net)
    straight, turned = dissection_vtree(net, enc), dissection_vtree(net, enc, turn_root=True)
    seed = 20261126
    alone = [_fingerprint(compile_cnf(enc, vt), np.random.default_rng(seed)) for vt in (straight, turned)]
    raced = compile_cnf(enc, straight, rivals=[turned], race_after=0.0)  # both start at once
    won = [k for k, vt in enumerate((straight, turned))
           if (vt.left == raced.vtree.left).all() and (vt.leaf_boolean == raced.vtree.leaf_boolean).all()]
    assert len(won) >= 1
    again = _fingerprint(raced, np.random.default_rng(seed))
    assert again[:2] == alone[won[0]][:2]
    assert again[2] == pytest.approx(alone[won[0]][2], abs=LOG_EXACT)
    assert mp.active_children() == []
    log_p, marginals = circuit_inference(bn, net, raced)
    assert log_p == pytest.approx(log_probability_of_evidence(bn, evidence), abs=LOG_EXACT)
    for v, p in exact_marginals(bn, evidence).items():
        np.testing.assert_allclose(marginals[v], p, atol=LOG_EXACT, rtol=0)


def test_compile_circuit_races_the_turned_dissection_and_answers_as_the_junction_tree():
    bn = make_grid(12, 0.9, seed=3)
    net = compile_network(bn)
    circuit = compile_circuit(net)
    enc = encode_network(net)
    candidates = [dissection_vtree(net, enc, turn_root=t) for t in (False, True)]
    assert any((vt.left == circuit.vtree.left).all() and (vt.leaf_boolean == circuit.vtree.leaf_boolean).all()
               for vt in candidates)
    # a rival starts only once the running compilation has gone race_after seconds without finishing
    first = compile_cnf(enc, candidates[0], rivals=candidates[1:], race_after=1e6)
    assert (first.vtree.left == candidates[0].left).all()
    assert (first.vtree.leaf_boolean == candidates[0].leaf_boolean).all()
    sink = bn.variables[-1]
    assert circuit_inference(bn, net, circuit)[1][sink][1] == pytest.approx(exact_marginals(bn)[sink][1], abs=LOG_EXACT)
    # without the race, the default vtree is used
    plain = compile_circuit(net, race=False)
    assert (plain.vtree.left == candidates[0].left).all()
    assert (plain.vtree.leaf_boolean == candidates[0].leaf_boolean).all()


def test_racers_that_both_reach_the_size_cap_are_refused_naming_each_size():
    net = compile_network(make_grid(8, 0.5, seed=1))
    enc = encode_network(net)
    straight, turned = dissection_vtree(net, enc), dissection_vtree(net, enc, turn_root=True)
    with pytest.raises(CircuitTooLargeError) as err:
        compile_cnf(enc, straight, rivals=[turned], race_after=0.0, max_size=50, what="grid-8x8")
    assert str(err.value).count("grid-8x8 into a decision diagram stopped at") == 2
    assert mp.active_children() == []


# ---- the compiler's child: caps checked first, vtrees built under the cap, evidence on every variable ----

@pytest.mark.parametrize(("caps", "error", "message"), [
    ({"max_size": "10"}, TypeError, r"max_size must be an integer number of elements, got a str \('10'\)"),
    ({"max_size": -1}, ValueError, r"max_size must be 0 or more elements, got -1"),
    ({"max_seconds": float("nan")}, ValueError, r"max_seconds must be a finite number of seconds, 0 or more, got nan"),
    ({"max_seconds": -1}, ValueError, r"max_seconds must be a finite number of seconds, 0 or more, got -1.0"),
    ({"max_seconds": None}, TypeError, r"max_seconds must be a number of seconds, got a NoneType"),
])
def test_compile_caps_of_the_wrong_type_or_value_are_refused_by_name_before_anything_forks(monkeypatch, caps, error,
                                                                                           message):
    import prunelab.circuit.compiler as compiler
    import prunelab.circuit.inference as inference

    def never(*args, **kwargs):
        raise AssertionError("reached the encoding or the compiler's children")

    net = compile_network(load_network("asia"))
    enc = encode_network(net)
    vt = dissection_vtree(net, enc)
    monkeypatch.setattr(compiler, "_supervise", never)
    with pytest.raises(error, match=message):
        compile_cnf(enc, vt, **caps)
    monkeypatch.setattr(inference, "encode_network", never)
    with pytest.raises(error, match=message):
        compile_circuit(net, **caps)


def test_the_time_cap_counts_the_vtrees_building(monkeypatch):
    """The vtree is built in the capped child: a builder that takes 20 s is stopped at a 0.5 s cap, and named."""
    import prunelab.circuit.inference as inference

    def slow(*args, **kwargs):
        time.sleep(20)
        return dissection_vtree(*args, **kwargs)

    monkeypatch.setattr(inference, "dissection_vtree", slow)
    net = compile_network(make_grid(6, 0.9, seed=1))
    with pytest.raises(CircuitTooLargeError, match=r"grid-6 into a decision diagram stopped at 0 elements alive .*"
                                                   r"\(caps: 100,000,000 elements, 0.5 s\).*: the cap passed while "
                                                   r"its vtree was built"):
        compile_circuit(net, max_seconds=0.5, what="grid-6")
    assert mp.active_children() == []


@pytest.mark.parametrize("isolate", [True, False])
def test_a_vtree_built_in_the_child_gives_the_circuit_of_the_vtree_given(isolate):
    from functools import partial

    net = compile_network(make_grid(7, 0.9, seed=4), {"v_7_7": "T"})
    enc = encode_network(net)
    vt = dissection_vtree(net, enc, turn_root=True)
    given = compile_cnf(enc, vt, isolate=isolate)
    built = compile_cnf(enc, partial(dissection_vtree, net, enc, turn_root=True), isolate=isolate)
    for a, b in zip(given, built):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(given.vtree, built.vtree):
        np.testing.assert_array_equal(a, b)


def test_the_compilers_child_has_caps_of_its_own(monkeypatch):
    import resource

    import prunelab.circuit.compiler as compiler

    def limits(*args):
        cpu, address = (resource.getrlimit(r)[0] for r in (resource.RLIMIT_CPU, resource.RLIMIT_AS))
        raise ValueError(f"cpu {cpu} address {address}")

    monkeypatch.setattr(compiler, "_compile_regions", limits)  # the forked child inherits it
    net = compile_network(load_network("asia"))
    with pytest.raises(RuntimeError, match=r"ValueError: cpu 11 address \d+") as err:
        compile_circuit(net, max_seconds=10, max_size=1000, race=False)
    address = int(str(err.value).rsplit(" ", 1)[1])
    assert 2**30 < address < 2**30 + 1000 * 128 + 64 * 2**30  # inherited + 1 GiB + 128 B per element: not unlimited


def test_evidence_on_every_variable_is_answered_by_the_circuit_as_by_the_other_methods():
    bn = BayesianNetwork(states={"A": ["a0", "a1", "a2"], "B": ["b0", "b1"], "C": ["c0", "c1"]},
                         parents={"A": [], "B": ["A"], "C": ["A", "B"]},
                         cpts={"A": [1e-300, 1 - 1e-300, 0.0], "B": [[1 - 1e-12, 1e-12], [0.5, 0.5], [0, 1]],
                               "C": [[[1, 0], [0, 1]], [[1e-200, 1 - 1e-200], [1, 0]], [[0.5, 0.5], [0.5, 0.5]]]},
                         name="observed")
    evidence = {"A": "a1", "B": "b0", "C": "c1"}
    want = log_probability_of_evidence(bn, evidence, method="junction_tree")
    assert want == pytest.approx(np.log(0.5), abs=LOG_EXACT)
    assert log_probability_of_evidence(bn, evidence, method="circuit") == pytest.approx(want, abs=LOG_EXACT)
    got = exact_marginals(bn, evidence, method="circuit")
    assert dict(got) == {} and got.method == "circuit"
    net = compile_network(bn, evidence)
    circuit = compile_circuit(net)
    from prunelab.circuit import posterior_state

    assert posterior_state(np.random.default_rng(0), net, circuit).tolist() == [1, 0, 1]
