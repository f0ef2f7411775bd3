"""Exact answers by weighted model counting: against the junction tree, past the circuit, and at the caps.

Counts are compared with the junction tree on networks it handles (to 1e-9, both
exact); ``P(e)`` far below the double's range is compared in log space; the caps
refuse by a rule that does not depend on timing (a cap of zero seconds or one byte).
"""

import math
import multiprocessing as mp
import os
import signal
import sys
import time
import warnings

import numpy as np
import pytest

from prunelab import BayesianNetwork, make_grid
from prunelab.circuit import CountTooHardError, counting, encode_network, log_counts
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, log_probability_of_evidence, probability_of_evidence
from prunelab.network import EvidenceError
from prunelab.workers import usable_cores
from tests.helpers import CIRCUIT_CASES, LOG_EXACT, circuit_case_network, multi_valued_network


@pytest.mark.parametrize(("name", "evidence"), CIRCUIT_CASES)
def test_counted_marginals_equal_the_junction_tree(name, evidence):
    bn = circuit_case_network(name)
    got = exact_marginals(bn, evidence, method="counter")
    want = exact_marginals(bn, evidence, method="junction_tree")
    assert got.method == "counter"
    assert list(got) == list(want)
    for v, p in want.items():
        np.testing.assert_allclose(got[v], p, rtol=0, atol=LOG_EXACT, err_msg=v)
    if evidence:
        assert log_probability_of_evidence(bn, evidence, method="counter") == pytest.approx(
            log_probability_of_evidence(bn, evidence, method="junction_tree"), abs=LOG_EXACT)


@pytest.mark.parametrize("method", ["junction_tree", "circuit", "counter"])
def test_variables_choose_the_posteriors_and_their_order(method):
    bn = multi_valued_network()
    full = exact_marginals(bn, {"B": "b2"}, method="junction_tree")
    got = exact_marginals(bn, {"B": "b2"}, method=method, variables=["C", "A"])
    assert list(got) == ["C", "A"]
    for v in got:
        np.testing.assert_allclose(got[v], full[v], rtol=0, atol=LOG_EXACT)


@pytest.mark.parametrize(("variables", "error", "message"), [
    (["A", "Z"], ValueError, r"'Z' is not a variable of network 'multi'"),
    (["B"], ValueError, r"'B' is observed"),
    (["A", "A"], ValueError, r"'A' is named twice"),
    ("A", TypeError, r"a sequence of variable names, not str"),
])
def test_bad_variables_are_refused_by_name(variables, error, message):
    with pytest.raises(error, match=message):
        exact_marginals(multi_valued_network(), {"B": "b1"}, method="counter", variables=variables)


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
    assert probability_of_evidence(bn, {"A": "1", "C": "1"}, method="counter") == pytest.approx(0.6, abs=LOG_EXACT)


def test_all_observed_counts_the_one_state():
    bn = _copy_chain()
    evidence = {"A": "1", "B": "1", "C": "1"}
    assert log_probability_of_evidence(bn, evidence, method="counter") == pytest.approx(math.log(0.6), abs=LOG_EXACT)


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
    np.testing.assert_allclose(got, [1 / 3, 2 / 3], rtol=0, atol=LOG_EXACT)


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
    assert np.logaddexp(positive, negative) == pytest.approx(total, abs=LOG_EXACT)


def test_the_counter_writes_nothing_to_the_standard_output(capfd):
    """Ganak prints a line for a zero count; the counting process sends its standard output to /dev/null."""
    assert log_probability_of_evidence(_copy_chain(), {"A": "0", "C": "1"}, method="counter") == -math.inf
    assert capfd.readouterr().out == ""


# ---- the counter's children: caps checked first, children that die with their parent, parallel counts ----

def _asia():
    from prunelab import load_network

    net = compile_network(load_network("asia"), {"dysp": "yes"})
    return encode_network(net), net


@pytest.mark.parametrize(("caps", "error", "message"), [
    ({"max_seconds": float("nan")}, ValueError, r"max_seconds must be a finite number of seconds, 0 or more, got nan"),
    ({"max_seconds": float("inf")}, ValueError, r"max_seconds must be a finite number .* got inf"),
    ({"max_seconds": -1}, ValueError, r"max_seconds must be a finite number of seconds, 0 or more, got -1.0"),
    ({"max_seconds": "10"}, TypeError, r"max_seconds must be a number of seconds, got a str \('10'\)"),
    ({"max_bytes": float("nan")}, TypeError, r"max_bytes must be an integer number of bytes, got a float \(nan\)"),
    ({"max_bytes": -5}, ValueError, r"max_bytes must be 0 or more bytes, got -5"),
    ({"max_bytes": True}, TypeError, r"max_bytes must be an integer number of bytes, got a bool"),
    ({"n_jobs": 0}, ValueError, r"n_jobs must be a non-zero integer"),
    ({"n_jobs": 1.5}, TypeError, r"n_jobs must be a non-zero integer, got a float"),
])
def test_caps_of_the_wrong_type_or_value_are_refused_by_name_before_a_child_starts(monkeypatch, caps, error, message):
    def no_fork(*args, **kwargs):
        raise AssertionError("a child was started")

    enc, net = _asia()
    n_jobs = caps.pop("n_jobs", 1)
    monkeypatch.setattr(counting.mp, "get_context", no_fork)
    with pytest.raises(error, match=message):
        log_counts(enc, net, [[]], n_jobs=n_jobs, **caps)
    with pytest.raises(error, match=message):
        counting.count_inference(["x"] * len(net.cardinality), net, None, n_jobs=n_jobs, **caps)


def _grandchild_ended(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in "ZX"  # a zombie is dead, waiting to be reaped
    except FileNotFoundError:
        return True


def _children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(p) for p in f.read().split()]
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return found


_HANG = """
import sys, time
import prunelab.circuit.counting as counting
import prunelab.circuit.compiler as compiler
from prunelab import load_network
from prunelab.compiled import compile_network
from prunelab.circuit import compile_circuit, encode_network

def forever(*args):
    time.sleep(3600)

counting._log_count = forever  # the forked child inherits it: it counts forever
compiler._compile_regions = forever
net = compile_network(load_network("asia"))
if sys.argv[1] == "counter":
    counting.log_counts(encode_network(net), net, [[]])
else:
    compile_circuit(net, race=False)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the child")
@pytest.mark.parametrize(("which", "signum"), [("counter", signal.SIGKILL), ("counter", signal.SIGTERM),
                                                ("compiler", signal.SIGKILL)])
def test_the_child_dies_with_its_parent(which, signum):
    """The parent is killed (no ``finally`` runs); its child, counting or compiling forever, must end too."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    parent = subprocess.Popen([sys.executable, "-c", _HANG, which], env=env)
    child = None
    try:
        for _ in range(1200):  # up to 120 s for the parent to import and fork (an event that must come)
            assert parent.poll() is None, "the parent ended by itself"
            found = _children(parent.pid)
            if found:
                child = found[0]
                break
            time.sleep(0.1)
        assert child is not None, "the parent never started its child"
        parent.send_signal(signum)
        parent.wait()
        for _ in range(300):  # up to 30 s for the child to be gone
            if _grandchild_ended(child):
                break
            time.sleep(0.1)
        assert _grandchild_ended(child), f"the {which}'s child {child} outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and not _grandchild_ended(child):
            os.kill(child, signal.SIGKILL)


def test_the_child_has_caps_of_its_own(monkeypatch):
    import resource

    def limits(n_booleans, clauses, weights, units):  # reports the child's own limits in place of a count
        return float(resource.getrlimit(resource.RLIMIT_AS if units else resource.RLIMIT_CPU)[0])

    enc, net = _asia()
    monkeypatch.setattr(counting, "_log_count", limits)
    cpu, address = log_counts(enc, net, [[], [1]], max_seconds=5, max_bytes=3 * 2**30)
    assert cpu == 6  # the wall cap plus a second: a child's CPU time is at most its wall time
    assert 3 * 2**30 < address < 3 * 2**30 + 64 * 2**30  # what it inherited plus its share, not unlimited (-1)


@pytest.mark.skipif(usable_cores() < 2, reason="two cores")
def test_counts_are_the_same_whatever_n_jobs():
    bn = make_grid(6, 0.75, seed=11)
    net = compile_network(bn, {"v_6_6": "T"})
    free = net.free.tolist()
    one = counting.count_inference(bn.variables, net, free, n_jobs=1)
    two = counting.count_inference(bn.variables, net, free, n_jobs=2)
    assert one[0] == two[0]
    assert list(one[1]) == list(two[1])
    for v in one[1]:
        np.testing.assert_array_equal(one[1][v], two[1][v], err_msg=v)
    want = exact_marginals(bn, {"v_6_6": "T"}, method="junction_tree")
    for v in want:
        np.testing.assert_allclose(two[1][v], want[v], rtol=0, atol=LOG_EXACT, err_msg=v)


def _rare_states() -> BayesianNetwork:
    """The review's network: a state of prior 1e-300, one of prior 0, a child almost sure of its parent."""
    return BayesianNetwork(
        states={"A": ["a0", "a1", "a2"], "B": ["b0", "b1"], "C": ["c0", "c1"], "D": ["d0", "d1"]},
        parents={"A": [], "B": ["A"], "C": ["A", "B"], "D": ["C"]},
        cpts={"A": [1e-300, 1 - 1e-300, 0.0], "B": [[1 - 1e-12, 1e-12], [0.5, 0.5], [0, 1]],
              "C": [[[1, 0], [0, 1]], [[1e-200, 1 - 1e-200], [1, 0]], [[0.5, 0.5], [0.5, 0.5]]],
              "D": [[1 - 1e-9, 1e-9], [0.3, 0.7]]},
        name="rare")


def test_k_minus_one_counts_per_variable_and_the_rare_last_states_counted_too(monkeypatch):
    bn = _rare_states()
    evidence = {"C": "c0"}
    net = compile_network(bn, evidence)
    calls = []
    run = counting._Counts.run
    monkeypatch.setattr(counting._Counts, "run", lambda self, queries, bar: calls.append(len(queries))
                        or run(self, queries, bar))
    free = net.free.tolist()
    log_p, got = counting.count_inference(bn.variables, net, free)
    want = exact_marginals(bn, evidence, method="junction_tree")
    assert log_p == pytest.approx(log_probability_of_evidence(bn, evidence, method="junction_tree"), abs=LOG_EXACT)
    # P(e), then A: 2, B: 1, D: 1; then the last states below RECOUNT_BELOW: A's a2 (0) and D's d1 (1e-9);
    # B's b1 is all but 1 (its b0 is about 1e-200, counted in the first round)
    assert calls == [1 + 2 + 1 + 1, 2]
    for v, p in want.items():
        np.testing.assert_allclose(got[v], p, rtol=1e-9, atol=0, err_msg=v)  # relative: the rare states too
    assert got["A"][2] == 0.0
    assert 0 < got["D"][1] < 1e-8  # the share 1 - P(d0) would have kept about 7 of its digits


@pytest.mark.skipif(usable_cores() < 2, reason="two cores")
def test_the_round_of_rare_last_states_does_not_warn_that_it_lowered_n_jobs():
    bn = _rare_states()
    net = compile_network(bn, {"C": "c0"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 3 counts, then a round of 1 (A's a2): below n_jobs, not the caller's doing
        _, got = counting.count_inference(bn.variables, net, [bn.index("A")], n_jobs=2)
        assert got["A"][2] == 0.0  # the second round ran
    too_many = usable_cores() + 1
    with pytest.warns(UserWarning, match=f"n_jobs={too_many} lowered"):  # the call's own n_jobs still is heard
        counting.count_inference(bn.variables, net, net.free.tolist(), n_jobs=too_many)


def test_progress_bar_goes_to_the_standard_error_and_nothing_is_written_without_it(capfd):
    enc, net = _asia()
    log_counts(enc, net, [[], [1], [-1]])
    assert capfd.readouterr() == ("", "")
    log_counts(enc, net, [[], [1], [-1]], progress=True)
    out, err = capfd.readouterr()
    assert out == "" and "weighted counts" in err and "3/3" in err


def test_no_queries_count_nothing():
    enc, net = _asia()
    assert log_counts(enc, net, []) == []


@pytest.mark.skipif(usable_cores() < 2, reason="two cores")
def test_parallel_counts_refuse_at_the_caps_naming_the_counts_done():
    bn = make_grid(6, 0.75, seed=11)
    net = compile_network(bn, {"v_6_6": "T"})
    variables = net.free.tolist()[:3]  # P(e) and one count each
    with pytest.raises(CountTooHardError, match=r"counting grid-6 reached its cap of 9.31323e-10 GiB of memory .* "
                                                r"with 0 of its 4 weighted counts done"):
        counting.count_inference(bn.variables, net, variables, max_bytes=1, n_jobs=2, what="grid-6")
    with pytest.raises(CountTooHardError, match=r"cap of 0 s after .* with 0 of its 4 weighted counts done"):
        counting.count_inference(bn.variables, net, variables, max_seconds=0, n_jobs=2, what="grid-6")
    assert mp.active_children() == []


def _rival(*said):
    """A rival whose messages are waiting before the counts start (or, with none, that has gone)."""
    reader, writer = mp.Pipe(duplex=False)
    for message in said:
        writer.send(message)
    writer.close()
    return counting.Rival(lambda: reader)


def test_a_rivals_answer_stops_the_counts():
    bn = make_grid(5, 0.9, seed=1)
    net = compile_network(bn, {})
    with pytest.raises(counting.RivalAnswered) as stopped:
        counting.count_inference(bn.variables, net, [0, 1, 2], rival=_rival(("answer", -1.5, {})))
    assert stopped.value.answer == ("answer", -1.5, {})
    assert not mp.active_children()  # the counting process was stopped


@pytest.mark.parametrize(("said", "kept"), [((("refused", "too large"),), ("refused", "too large")), ((), ("gone",))])
def test_a_rival_that_gives_up_leaves_the_counts_to_answer(said, kept):
    bn = make_grid(5, 0.9, seed=1)
    net = compile_network(bn, {})
    rival = _rival(*said)
    got = counting.count_inference(bn.variables, net, [0, 3], rival=rival)
    want = counting.count_inference(bn.variables, net, [0, 3])
    assert rival.said == kept
    assert got[0] == want[0] and all(np.array_equal(got[1][v], want[1][v]) for v in want[1])
