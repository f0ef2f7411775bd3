"""The one "did not mix" verdict: each branch of the rule forced, and the reason it gives."""

import math

import pytest

from prunelab.lab.mixing import MARKS, RHAT_LIMIT, mixing_verdict


def row(**values):
    base = {"exact_query": 0.5, "rhat": 1.0, "constant_chains": 0, "query_stuck_runs": 0, "n_runs": 100}
    base.update(values)
    return base


@pytest.mark.parametrize(
    ("values", "mark", "reason"),
    [
        ({}, "", ""),
        ({"rhat": RHAT_LIMIT}, "", ""),  # the threshold itself passes
        ({"rhat": 1.02}, "‡", "R-hat 1.02 > 1.01: the runs disagree"),
        ({"constant_chains": 3}, "†", "3 of 100 runs never change the query"),
        ({"query_stuck_runs": 2}, "†", "the query is stuck in 2 of 100 runs"),
        ({"rhat": math.inf}, "†", "R-hat is infinite"),
        ({"rhat": math.nan}, "†", "R-hat is undefined"),
        ({"rhat": None}, "†", "R-hat is undefined"),
        ({"query_stuck_runs": None}, "", ""),  # no trap record for this case: nothing found stuck
        ({"query_stuck_runs": math.nan}, "", ""),
        # a drift and a trap: the trap is the mark, both reasons are kept
        ({"rhat": math.inf, "constant_chains": 100, "query_stuck_runs": 100}, "†",
         "100 of 100 runs never change the query; the query is stuck in 100 of 100 runs; R-hat is infinite"),
        # the evidence fixes the query: nothing to estimate, whatever the diagnostics say
        ({"exact_query": 1.0, "rhat": math.nan, "constant_chains": 100}, "", "the evidence fixes the query"),
        ({"exact_query": 0.0, "rhat": math.inf}, "", "the evidence fixes the query"),
    ],
)
def test_each_branch_of_the_rule(values, mark, reason):
    verdict = mixing_verdict(row(**values))
    assert verdict == (mark, reason)
    assert mark == "" or mark in MARKS


def test_diagnostics_of_ones_own_need_no_trap_record_or_run_count():
    assert mixing_verdict({"exact_query": 0.5, "rhat": 1.0, "constant_chains": 2}) == ("†", "2 runs never change "
                                                                                         "the query")
    assert mixing_verdict({"exact_query": 0.5, "constant_chains": 0}).reason == "R-hat is undefined"


def test_a_row_without_the_exact_answer_is_refused():
    with pytest.raises(KeyError, match="exact_query"):
        mixing_verdict({"rhat": 1.0, "constant_chains": 0})
