"""The exact-inference planner: which method answers, why, and that every choice gives the same answer.

The planner's choices depend on table sizes, the question and the installed
packages; a race depends on time only through its budget, which the tests set so
that the outcome is decided by rule (a budget of zero refuses at once, an
unbounded one lets the rival finish). The caps are lowered with monkeypatch so that
a network of a few dozen variables plays one past the junction tree.
"""

import math
import multiprocessing as mp
import time

import numpy as np
import pytest

from prunelab import load_network, make_grid
from prunelab import planner
from prunelab.circuit import CircuitTooLargeError, CountTooHardError, inference
from prunelab.circuit import counting
from prunelab.elimination import TablesTooLargeError
from prunelab.exact import exact_marginals, log_probability_of_evidence, probability_of_evidence
from prunelab.extras import MissingExtraError
from prunelab.planner import ExactPlan, draw_method
from prunelab.samplers.init import exact_posterior_state
from tests.helpers import LOG_EXACT


EVIDENCE = {"v_7_7": "T"}


def _grid():
    """A new 90 % 7 x 7 grid: junction trees are cached per network object."""
    return make_grid(7, 0.9, seed=2)


@pytest.fixture(scope="module")
def truth():
    return exact_marginals(_grid(), EVIDENCE, method="junction_tree")


def _tables_refuse(monkeypatch):
    import prunelab.elimination as elimination

    monkeypatch.setattr(elimination, "MAX_CLIQUE_ENTRIES", 4)


def _circuit_refuses(monkeypatch):
    def refuse(*args, **kwargs):
        raise CircuitTooLargeError("compiling stopped (a refusal made by the test)")

    monkeypatch.setattr(inference, "circuit_for", refuse)


def _no_circuit_beside(monkeypatch):
    """Past the tables a circuit compiles beside the counts; with no time for one (no margin), none starts."""
    monkeypatch.setattr(planner, "TRY_SECONDS", 0.0)


def _circuit_beside_at_once(monkeypatch, seconds=3600.0):
    """The circuit beside the counts starts with them, with a margin of ``seconds``."""
    monkeypatch.setattr(planner, "TRY_SECONDS", seconds)
    monkeypatch.setattr(planner, "BESIDE_AFTER_SECONDS", 0.0)


def _counts_never_finish(monkeypatch):
    """Every count blocks (in the counting processes, which the planner stops): a rival beside them answers first."""
    monkeypatch.setattr(counting, "_log_count", lambda *args: time.sleep(3600))


def _counts_after_the_circuit(monkeypatch, tmp_path):
    """Each count waits until the counts have heard the circuit beside them, so that they do whatever the timing."""
    heard, hear, count = tmp_path / "heard", counting._Counts._hear_rival, counting._log_count

    def hear_and_say(self):
        try:
            hear(self)
        finally:
            heard.touch()

    def after_it(*args):
        while not heard.exists():
            time.sleep(0.01)
        return count(*args)

    monkeypatch.setattr(counting._Counts, "_hear_rival", hear_and_say)
    monkeypatch.setattr(counting, "_log_count", after_it)


def _agrees(got, want):
    assert set(got) <= set(want)
    for v in got:
        np.testing.assert_allclose(got[v], want[v], rtol=0, atol=LOG_EXACT, err_msg=v)


def test_small_tables_go_to_the_junction_tree_and_say_so():
    got = exact_marginals(load_network("asia"), {"dysp": "yes"})
    assert got.method == "junction_tree" == got.plan.method
    assert got.plan.rule == "small tables" and got.plan.reason.startswith("the junction tree is small")
    assert got.plan.facts.fits and got.plan.facts.table_entries <= planner.QUICK_TABLE_ENTRIES
    assert got.log_probability == pytest.approx(math.log(probability_of_evidence(load_network("asia"),
                                                                                 {"dysp": "yes"})), abs=1e-12)


def test_past_the_tables_named_posteriors_and_p_e_are_counted(monkeypatch, truth):
    _tables_refuse(monkeypatch)
    _circuit_refuses(monkeypatch)  # were the circuit asked for all posteriors, this would raise
    _no_circuit_beside(monkeypatch)
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_6_7", "v_1_1"])
    assert got.method == "counter" and got.plan.rule == "tables do not fit: counter"
    assert got.plan.tried[0].startswith("junction_tree: ")
    assert got.plan.tried[1].startswith("circuit: no time for one beside the counts (the planner spent ")
    assert got.plan.race_budget == 0.0
    assert got.plan.facts.counts == 3 and not got.plan.facts.fits
    _agrees(got, truth)
    calls = []
    run = counting._Counts.run
    monkeypatch.setattr(counting._Counts, "run", lambda self, queries, bar: calls.append(queries) or run(self, queries, bar))
    assert log_probability_of_evidence(_grid(), EVIDENCE) == pytest.approx(truth.log_probability, abs=LOG_EXACT)
    assert calls == [[[]]]  # P(e): one count, of the CNF itself


def test_past_the_tables_a_circuit_beside_the_counts_answers_when_it_is_first(monkeypatch, truth):
    _tables_refuse(monkeypatch)
    _counts_never_finish(monkeypatch)
    monkeypatch.setattr(planner, "TRY_SECONDS", 3600.0)  # it starts after BESIDE_AFTER_SECONDS, as it would
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_6_7", "v_1_1"])
    assert got.method == "circuit" and got.plan.rule == "beside the counts: circuit" in planner.PLAN_RULES
    assert got.plan.reason.endswith("a circuit compiled beside the counts answered first")
    assert [t.split(":")[0] for t in got.plan.tried] == ["junction_tree", "counter"]
    assert got.plan.tried[1].startswith("counter: stopped when the circuit answered")
    assert list(got) == ["v_6_7", "v_1_1"] and got.plan.race_budget > 3000.0
    _agrees(got, truth)
    assert log_probability_of_evidence(_grid(), EVIDENCE) == pytest.approx(truth.log_probability, abs=LOG_EXACT)
    assert not mp.active_children()  # the counting processes stopped


def test_past_the_tables_a_circuit_still_compiling_is_stopped_when_the_counts_are_done(monkeypatch, truth):
    _tables_refuse(monkeypatch)
    _circuit_beside_at_once(monkeypatch)
    monkeypatch.setattr(inference, "compile_circuit", lambda *args, **kwargs: time.sleep(3600))
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
    assert got.method == "counter" and got.plan.rule == "tables do not fit: counter"
    assert got.plan.tried[1].startswith("circuit: stopped when the counts were done")
    _agrees(got, truth)
    assert not mp.active_children()  # the circuit's process ended, on SIGTERM


def test_past_the_tables_no_circuit_starts_where_the_counts_are_done_first(monkeypatch, truth):
    _tables_refuse(monkeypatch)
    monkeypatch.setattr(planner, "BESIDE_AFTER_SECONDS", 3600.0)
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
    assert got.method == "counter" and got.plan.tried[1] == "circuit: not started, the counts were done within 3600 s"
    _agrees(got, truth)


def test_past_the_tables_a_circuit_that_fails_beside_the_counts_leaves_them_to_answer(monkeypatch, truth, tmp_path):
    _tables_refuse(monkeypatch)
    _circuit_beside_at_once(monkeypatch, planner.TRY_SECONDS)

    def fail(*args, **kwargs):
        raise RuntimeError("a failure made by the test")

    monkeypatch.setattr(inference, "compile_circuit", fail)
    _counts_after_the_circuit(monkeypatch, tmp_path)
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
    assert got.method == "counter"
    assert got.plan.tried[1] == "circuit: failed: RuntimeError: a failure made by the test"
    _agrees(got, truth)


@pytest.mark.parametrize(("cores", "n_jobs", "counts", "stretch"), [
    (2, 1, 3, 1.0),  # a core each for the counts and the circuit
    (1, 1, 3, 2.0),  # one core shared by two processes
    (2, 2, 3, 1.5),  # three processes on two cores
    (2, 4, 1, 1.0),  # one count: one counting process whatever n_jobs
    (4, -1, 9, 1.25),  # every core counts, and the circuit beside them
])
def test_the_budget_beside_the_counts_is_stretched_by_the_processes_per_core(monkeypatch, cores, n_jobs, counts,
                                                                            stretch):
    monkeypatch.setattr(planner, "usable_cores", lambda: cores)
    facts = planner.PlanFacts(10, counts, math.inf, math.inf, False, 0.5, slowdown=3.0)
    cpu = 2 * (planner.TRY_SECONDS - 0.25 - planner.BESIDE_START_SECONDS) + planner.BESIDE_AFTER_SECONDS
    assert planner._beside_budget(facts, n_jobs, 0.25) == pytest.approx(cpu * 3.0 * stretch)


@pytest.mark.parametrize("spent", [0.0, 0.4, 0.9, 1.5])
def test_a_circuit_beside_the_counts_keeps_auto_within_its_margin_for_any_count_time(monkeypatch, spent):
    monkeypatch.setattr(planner, "usable_cores", lambda: 2)
    facts = planner.PlanFacts(10, 3, math.inf, math.inf, False, 0.5)
    b, d, r = planner._beside_budget(facts, 1, spent), planner.BESIDE_AFTER_SECONDS, planner.BESIDE_START_SECONDS
    for t in np.linspace(0.0, 30.0, 3001):  # counts of t seconds; the circuit starts at d, stops at b of its own
        cost = spent + t + (r + min(t - d, b) if t > d and b > 0 else 0.0)
        assert cost <= 1.5 * t + planner.TRY_SECONDS + 1e-9, (t, b)
    t = d + b  # where the margin binds: b is the largest budget that keeps it
    assert b == 0.0 or spent + t + r + b == pytest.approx(1.5 * t + planner.TRY_SECONDS)


def test_past_the_tables_every_posterior_goes_to_the_circuit(monkeypatch, truth):
    _tables_refuse(monkeypatch)
    got = exact_marginals(_grid(), EVIDENCE)
    assert got.method == "circuit"
    assert got.plan.rule == "tables do not fit: circuit" and "every posterior at once" in got.plan.reason
    _agrees(got, truth)


def test_past_the_circuit_every_posterior_is_counted(monkeypatch, truth):
    _tables_refuse(monkeypatch)
    _circuit_refuses(monkeypatch)
    got = exact_marginals(_grid(), EVIDENCE)
    assert got.method == "counter" and got.plan.rule == "past the circuit: counter"
    assert [t.split(":")[0] for t in got.plan.tried] == ["junction_tree", "circuit"]
    assert list(got) == list(truth)
    _agrees(got, truth)


def test_a_refusal_past_all_three_names_all_three(monkeypatch):
    _tables_refuse(monkeypatch)
    _circuit_refuses(monkeypatch)
    monkeypatch.setattr(counting, "MAX_COUNT_SECONDS", 0.0)
    with pytest.raises(CountTooHardError, match=r"junction_tree: .*MAX_CLIQUE_ENTRIES.*; circuit: compiling stopped "
                                                r".*; counter: counting network .* cap of 0 s"):
        exact_marginals(_grid(), EVIDENCE)


def test_a_race_the_rival_wins_answers_by_the_rival(monkeypatch, truth):
    monkeypatch.setattr(planner, "QUICK_TABLE_ENTRIES", 0.0)
    monkeypatch.setattr(planner, "TRY_SECONDS", 1e6)  # the rival always finishes
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
    assert got.method == "counter"
    assert got.plan.rule == "race: counter" and "won a race against the junction tree" in got.plan.reason
    _agrees(got, truth)
    everything = exact_marginals(_grid(), EVIDENCE)
    assert everything.method == "circuit" and everything.plan.rule == "race: circuit"  # every posterior: its rival
    _agrees(everything, truth)


def test_a_race_the_rival_loses_answers_by_the_junction_tree(monkeypatch, truth):
    monkeypatch.setattr(planner, "QUICK_TABLE_ENTRIES", 0.0)
    monkeypatch.setattr(planner, "TRY_SECONDS", 0.0)
    monkeypatch.setattr(planner, "SECONDS_PER_TABLE_ENTRY", 0.0)  # a budget of 0 s: refused by rule
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
    assert got.method == "junction_tree" and got.plan.rule == "race: junction tree" and got.plan.race_budget == 0.0
    assert got.plan.tried and got.plan.tried[0].startswith("counter: not done within its budget of 0 s")
    _agrees(got, truth)


def test_no_race_where_nothing_is_deterministic(monkeypatch):
    monkeypatch.setattr(planner, "QUICK_TABLE_ENTRIES", 0.0)
    monkeypatch.setattr(planner, "TRY_SECONDS", 0.0)
    monkeypatch.setattr(planner, "SECONDS_PER_TABLE_ENTRY", 0.0)
    bn = make_grid(4, 0.0, seed=1)  # no deterministic nodes: its CPTs hold no 0 or 1
    got = exact_marginals(bn)
    assert bn and got.plan.facts.deterministic_share == 0.0
    assert got.plan.rule == "no determinism" and got.plan.reason.startswith("no deterministic entries")


def test_without_the_extras_the_planner_uses_what_is_installed(monkeypatch, truth):
    _tables_refuse(monkeypatch)
    monkeypatch.setattr(planner, "available", lambda package: package != "pyganak")
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
    assert got.method == "circuit" and "the counter is not installed" in got.plan.reason
    assert got.plan.rule == "tables do not fit: circuit"
    _agrees(got, truth)
    monkeypatch.setattr(planner, "available", lambda package: False)
    with pytest.raises(MissingExtraError, match=r"MAX_CLIQUE_ENTRIES.*pip install 'prunelab\[circuit,counter\]'"):
        exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])


def test_variables_empty_asks_for_p_e_only(truth):
    got = exact_marginals(_grid(), EVIDENCE, variables=[])
    assert got == {} and got.log_probability == pytest.approx(truth.log_probability, abs=LOG_EXACT)


@pytest.mark.parametrize(("n_jobs", "error"), [(0, ValueError), (1.5, TypeError), (True, TypeError), ("2", TypeError)])
def test_n_jobs_is_checked_before_any_work(n_jobs, error):
    with pytest.raises(error, match=r"n_jobs must be a non-zero integer"):
        exact_marginals(_grid(), EVIDENCE, n_jobs=n_jobs)


def test_a_named_method_is_run_alone():
    bn = _grid()
    for method in ("junction_tree", "circuit", "counter"):
        got = exact_marginals(bn, EVIDENCE, method=method, variables=["v_1_1"])
        assert got.plan == ExactPlan(method, "named", "asked for by name")
    with pytest.raises(ValueError, match=r"unknown exact inference method 'fast'"):
        exact_marginals(bn, EVIDENCE, method="fast")


def test_draws_come_from_the_tables_where_they_fit_else_from_a_circuit(monkeypatch):
    assert draw_method(_grid(), EVIDENCE)[:2] == ("junction_tree", "draw: tables")
    _tables_refuse(monkeypatch)
    bn = _grid()
    plan = draw_method(bn, EVIDENCE)
    assert plan[:2] == ("circuit", "draw: circuit") and plan.tried[0].startswith("junction_tree: ")
    with pytest.raises(TablesTooLargeError):
        exact_marginals(bn, EVIDENCE, method="junction_tree")
    x = exact_posterior_state(np.random.default_rng(1), bn, EVIDENCE, 10)
    assert x[bn.variables.index("v_7_7")] == bn.states["v_7_7"].index("T")


def test_an_order_search_past_its_work_cap_counts_as_tables_that_do_not_fit(monkeypatch, truth):
    monkeypatch.setattr(planner, "ORDER_SEARCH_WORK", 1.0)
    _no_circuit_beside(monkeypatch)
    got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
    assert got.method == "counter"
    assert got.plan.tried[0].startswith("junction_tree: the search for an elimination order of ")
    _agrees(got, truth)
    assert exact_marginals(_grid(), EVIDENCE, method="junction_tree").method == "junction_tree"  # by name: no cap


def test_a_race_budget_is_stretched_by_the_slowdown_the_order_search_measured(monkeypatch):
    monkeypatch.setattr(planner, "QUICK_TABLE_ENTRIES", 0.0)
    monkeypatch.setattr(planner, "TRY_SECONDS", 0.0)
    monkeypatch.setattr(planner, "SECONDS_PER_TABLE_ENTRY", 1.0)  # budgets of hours: the rival finishes by rule
    budgets, measure = {}, planner._slowdown
    for slowdown in (1.0, 4.0):
        monkeypatch.setattr(planner, "_slowdown", lambda wall, cpu, s=slowdown: s)
        got = exact_marginals(_grid(), EVIDENCE, variables=["v_1_1"])
        assert got.method == "counter" and got.plan.facts.slowdown == slowdown
        budgets[slowdown] = 0.5 * got.plan.facts.table_entries * slowdown
        assert got.plan.rule == "race: counter" and got.plan.race_budget == pytest.approx(budgets[slowdown])
        assert "load" not in got.plan.reason and f"{got.plan.race_budget:.3g}" not in got.plan.reason
    assert budgets[4.0] == 4 * budgets[1.0]
    assert measure(3.0, 1.0) == 3.0 and measure(0.5, 1.0) == 1.0  # never below a core's own
    assert measure(9.0, planner.MEASURE_CPU_SECONDS / 2) == 1.0  # too short to tell

