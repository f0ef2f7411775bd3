"""The scorecard's verdicts: computed from the results, each rule forced both ways."""

import numpy as np
import pandas as pd
import pytest

from prunelab.lab import paper_numbers, scorecard
from prunelab.lab.experiments import by_benchmark
from prunelab.lab.mixing import mixing_verdict
from prunelab.lab.scorecard import (
    VERDICTS,
    accuracy_rows,
    alpha_rows,
    example_rows,
    figure6_rows,
    network_rows,
    theory_rows,
    time_rows,
)

PAPER_SAMPLERS = ("gibbs", "metropolis", "prune")


def case(benchmark, sampler, **values):
    """One forward-start case of an experiment summary: a mixing sampler unless told otherwise."""
    row = {"case": f"{benchmark}.{sampler}", "benchmark": benchmark, "sampler": sampler, "init": "forward",
           "query_state": 1, "exact_query": 0.5, "estimate_query": 0.5, "sigma_T": 0.01, "n_runs": 100,
           "n_draws": 1000, "rhat": 1.0, "constant_chains": 0, "alpha": 0.5, "alpha_low": 0.45,
           "alpha_high": 0.55, "ahd_query": 0.01, "seconds_per_draw": 1e-6, "seconds_to_target": 1.0,
           "ess_bulk": 1000.0}
    row.update(values)
    if "alpha" in values and "alpha_low" not in values:
        row["alpha_low"], row["alpha_high"] = values["alpha"] - 0.01, values["alpha"] + 0.01
    row["mark"], row["mark_reason"] = mixing_verdict(row)  # as the summary stores it
    return row


def summary_of(*rows):
    return pd.DataFrame(list(rows))


def test_the_stored_mark_is_what_the_scorecard_reads():
    # the same rhat and constant runs, but the stored mark says the runs disagree: the row follows the mark
    rows = [case("alarm_ev0", m, alpha=a) for m, a in zip(PAPER_SAMPLERS, (0.4, 0.4, 0.8))]
    assert alpha_rows(summary_of(*rows), ["alarm_ev0"])[1].verdict == "reproduced"
    rows[0]["mark"] = "‡"
    assert alpha_rows(summary_of(*rows), ["alarm_ev0"])[1].verdict == "not testable"


@pytest.mark.parametrize(
    ("ahd", "verdict"),
    [
        ({"gibbs": 0.01, "metropolis": 0.01, "prune": 0.02}, "reproduced"),
        ({"gibbs": 0.02, "metropolis": 0.03, "prune": 0.01}, "reversed"),
        ({"gibbs": 0.01, "metropolis": 0.03, "prune": 0.02}, "differs"),
        # within the 10 % tie band of the largest: not "less accurate"
        ({"gibbs": 0.0100, "metropolis": 0.0050, "prune": 0.0105}, "differs"),
    ],
)
def test_accuracy_verdicts(ahd, verdict):
    summary = summary_of(*(case("asia_ev0", m, ahd_query=ahd[m]) for m in PAPER_SAMPLERS))
    (row,) = accuracy_rows(summary, ["asia_ev0"])
    assert row.verdict == verdict
    assert row.item == "Figure 5 (a) Asia_ev0"
    assert f"prune {ahd['prune']:.4f}" in row.ours


def test_a_reversal_says_when_it_comes_from_baselines_that_do_not_mix():
    ahd = {"gibbs": 0.02, "metropolis": 0.03, "prune": 0.01}
    clean = summary_of(*(case("asia_ev0", m, ahd_query=ahd[m]) for m in PAPER_SAMPLERS))
    assert accuracy_rows(clean, ["asia_ev0"])[0].note == ""
    one = summary_of(*(case("asia_ev0", m, ahd_query=ahd[m], rhat=1.05 if m == "gibbs" else 1.0)
                       for m in PAPER_SAMPLERS))
    assert accuracy_rows(one, ["asia_ev0"])[0].note == "Gibbs does not mix"
    both = summary_of(*(case("asia_ev0", m, ahd_query=ahd[m], constant_chains=0 if m == "prune" else 7)
                        for m in PAPER_SAMPLERS))
    row = accuracy_rows(both, ["asia_ev0"])[0]
    assert row.verdict == "reversed" and row.note == "Gibbs and Metropolis do not mix"
    # a trapped baseline says nothing when prune sampling is not the better one
    worse = summary_of(*(case("asia_ev0", m, ahd_query={"prune": 0.05}.get(m, 0.01), rhat=1.05 if m == "gibbs" else 1.0)
                         for m in PAPER_SAMPLERS))
    assert accuracy_rows(worse, ["asia_ev0"])[0].note == ""


def test_accuracy_fixed_query_and_missing_case():
    fixed = summary_of(*(case("asia_ev25", m, exact_query=1.0, ahd_query=0.0) for m in PAPER_SAMPLERS))
    assert accuracy_rows(fixed, ["asia_ev25"])[0].verdict == "not testable"
    partial = summary_of(case("alarm_ev0", "gibbs"))
    (row,) = accuracy_rows(partial, ["alarm_ev0"])
    assert row.verdict == "not testable" and "not in these results" in row.ours


def test_summary_without_a_needed_column_is_refused():
    summary = summary_of(case("asia_ev0", "gibbs")).drop(columns="ahd_query")
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['ahd_query'\]"):
        accuracy_rows(summary, ["asia_ev0"])


def test_duplicate_cases_are_refused():
    summary = summary_of(case("asia_ev0", "gibbs"), case("asia_ev0", "gibbs"))
    with pytest.raises(ValueError, match="more than one forward-start case"):
        accuracy_rows(summary, ["asia_ev0"])


def test_examples_trapped_gibbs_and_converging_prune():
    trapped = case("deterministic_pair", "gibbs", rhat=float("inf"), constant_chains=100)
    good = case("deterministic_pair", "prune", estimate_query=0.503, sigma_T=0.05)  # 0.6 standard errors
    biased = case("deterministic_pair", "prune", estimate_query=0.53, sigma_T=0.05)  # 6 standard errors
    mixing = case("deterministic_pair", "gibbs")
    assert example_rows(summary_of(trapped, good))[0].verdict == "reproduced"
    assert example_rows(summary_of(trapped, biased))[0].verdict == "differs"
    assert example_rows(summary_of(mixing, good))[0].verdict == "differs"
    assert example_rows(summary_of(trapped, good))[1].verdict == "not testable"  # no block chain


def test_alpha_claim_counts_only_benchmarks_where_all_three_mix():
    rows = [case("alarm_ev0", "gibbs", alpha=2.0, ess_bulk=100.0), case("alarm_ev0", "metropolis", alpha=2.5),
            case("alarm_ev0", "prune", alpha=0.85, ess_bulk=700.0),
            # a trapped Gibbs: the benchmark does not count for the claim
            case("grid-8x8", "gibbs", alpha=0.1, rhat=1.03), case("grid-8x8", "metropolis", alpha=0.1),
            case("grid-8x8", "prune", alpha=0.9)]
    table, claim = alpha_rows(summary_of(*rows), ["alarm_ev0", "grid-8x8"])
    assert claim.verdict == "reversed"
    assert "Alarm_ev0" in claim.ours and "Grid 8x8" not in claim.ours and "7.0×" in claim.ours
    # paper's alpha (0.43, 0.46, 0.79 and 0.39, 0.40, 0.53) inside none of our intervals
    assert table.verdict == "differs" and "6 cells: 1 marked" in table.ours and "interval in 0" in table.ours
    rows[2] = case("alarm_ev0", "prune", alpha=3.0)
    assert alpha_rows(summary_of(*rows), ["alarm_ev0", "grid-8x8"])[1].verdict == "reproduced"


def test_alpha_table_reproduced_when_every_paper_value_is_inside():
    paper = {"gibbs": 0.43, "metropolis": 0.46, "prune": 0.79}
    rows = [case("alarm_ev0", m, alpha=paper[m], alpha_low=paper[m] - 0.01, alpha_high=paper[m] + 0.01)
            for m in PAPER_SAMPLERS]
    table, claim = alpha_rows(summary_of(*rows), ["alarm_ev0"])
    assert table.verdict == "reproduced" and claim.verdict == "reproduced"


def test_time_claims():
    rows = []
    for b in paper_numbers.SMALL_AND_MEDIUM_BENCHMARKS:
        rows += [case(b, "gibbs", seconds_to_target=1.0), case(b, "metropolis", seconds_to_target=2.0),
                 case(b, "prune", seconds_to_target=0.5, seconds_per_draw=5e-6)]
    for b in paper_numbers.LARGE_BENCHMARKS:
        rows += [case(b, m) for m in ("gibbs", "metropolis")] + [case(b, "prune", seconds_per_draw=50e-6)]
    def runs_of(small, large):  # two prune runs per benchmark, with their mean pruned-set size
        return pd.DataFrame([{"benchmark": b, "sampler": "prune", "init": "forward", "mean_size": size}
                             for group, size in ((paper_numbers.SMALL_AND_MEDIUM_BENCHMARKS, small),
                                                 (paper_numbers.LARGE_BENCHMARKS, large))
                             for b in group for _ in range(2)])

    table, fast, slow = time_rows(summary_of(*rows), runs_of(small=5.0, large=300.0))
    assert table.verdict == "not testable"
    # seconds of other implementations decide no claim: ranks reported, graded like Table 3
    assert fast.verdict == "not testable" and "6 of the 6" in fast.ours and "within 300–300 %" in fast.ours
    # the claim is graded by its stated cause, the size of the listed set S, not by seconds
    assert slow.verdict == "reproduced" and "mean |S| per step 300–300 on the large" in slow.ours
    for r in rows:
        if r["sampler"] == "prune":
            r["seconds_to_target"], r["seconds_per_draw"] = 5.0, 1e-6
    _, fast, slow = time_rows(summary_of(*rows), runs_of(small=50.0, large=20.0))
    assert fast.verdict == "not testable" and "0 of the 6" in fast.ours and slow.verdict == "differs"
    assert time_rows(summary_of(*rows))[2].verdict == "not testable"  # no runs, no sizes


def test_figure6_slope_and_alpha(rng):
    t = np.array([1, 10, 100, 1000, 10000])
    runs = np.arange(100)
    spread = rng.standard_normal(runs.size)
    spread = (spread - spread.mean()) / spread.std()
    curves = pd.DataFrame([{"case": "grid-8x8.metropolis", "run": r, "t": tt,
                            "estimate_1": 0.5 + 0.4 * spread[r] / np.sqrt(tt)} for r in runs for tt in t])
    summary = summary_of(case("grid-8x8", "metropolis", alpha=0.41, alpha_low=0.38, alpha_high=0.44))
    a, bc, d = figure6_rows(summary, curves, exact_sink=0.139)
    assert a.verdict == "not testable" and "0.139" in a.ours
    assert bc.verdict == "reproduced" and "-0.50" in bc.ours
    # (d), like (a), is a number of the paper's own grid: reported, not graded
    assert d.verdict == "not testable" and "α = 0.41" in d.ours and "paper's value inside" in d.ours
    stuck = curves.assign(estimate_1=0.5 + 0.4 * np.repeat(spread, t.size) * 0 + curves["run"] % 2 * 0.3)
    mixed_badly = summary_of(case("grid-8x8", "metropolis", alpha=4.4, alpha_low=4.2, alpha_high=4.5, rhat=1.03))
    _, bc, d = figure6_rows(mixed_badly, stuck, exact_sink=0.139)
    assert bc.verdict == "differs" and "not ergodic" in bc.ours
    assert d.verdict == "not testable" and "not a rate" in d.ours and "paper's value outside" in d.ours


@pytest.fixture(scope="module")
def theory():
    """The theory rows (exact matrices, ~4 s): computed once for the tests that read them (rows are tuples)."""
    return tuple(theory_rows())


def test_theory_and_networks_from_exact_computation(theory):
    rows = list(theory) + network_rows()
    assert [r.key for r in rows] == ["claim_theorem", "claim_q", "claim_trap", "fig1", "fig2", "table1"]
    assert all(r.verdict == "reproduced" for r in rows), rows
    assert "0.75" in rows[1].ours and "2 communicating classes" in rows[2].ours


def test_figure2_transcription_is_what_is_checked(monkeypatch):
    # leave the two Sports entries under l_g standing: l_g states survive, and S grows
    struck = tuple(e for e in paper_numbers.FIGURE_2_STRUCK if e[0] != "Sports")
    monkeypatch.setattr(scorecard, "FIGURE_2_STRUCK", struck)
    fig2 = network_rows()[1]
    assert fig2.verdict == "differs" and "l_g" in fig2.ours


def test_rows_have_known_verdicts_and_unique_keys(theory):
    from prunelab.lab.experiments import PAPER
    from prunelab.lab.experiments import results as experiment_results
    from prunelab.lab.paper_numbers import PAPER_BENCHMARKS as BENCHMARKS

    results = experiment_results(PAPER, "paper")
    summary = results["summary"]
    rows = (network_rows() + list(theory) + example_rows(summary) + accuracy_rows(summary, BENCHMARKS)
            + figure6_rows(summary, results["curves"], exact_sink=0.5) + alpha_rows(summary, BENCHMARKS)
            + time_rows(summary, results["runs"]))
    assert {r.verdict for r in rows} <= set(VERDICTS)
    keys = [r.key for r in rows]
    assert len(keys) == len(set(keys))


def test_by_benchmark_lays_out_the_paper_table():
    summary = summary_of(case("grid-8x8", "gibbs", alpha=4.4), case("asia_ev0", "prune", alpha=0.7))
    table = by_benchmark(summary, "alpha")
    assert list(table.columns) == ["gibbs", "metropolis", "prune"]
    assert table.index[0] == "Asia_ev0" and table.index[-1] == "Grid 8x8" and len(table) == 9
    assert table.loc["Grid 8x8", "gibbs"] == 4.4 and table.loc["Asia_ev0", "prune"] == 0.7
    assert table.isna().sum().sum() == 25


def test_query_estimates_by_run_and_an_unknown_case():
    curves = pd.DataFrame({"case": "c", "run": [0, 0, 1, 1], "t": [1, 2, 1, 2], "estimate_1": [1.0, 0.5, 0.0, 0.5]})
    t, estimates = scorecard.query_estimates(curves, "c", 1)
    assert t.tolist() == [1, 2] and estimates.tolist() == [[1.0, 0.5], [0.0, 0.5]]
    with pytest.raises(KeyError, match="case 'd' is not in these curves"):
        scorecard.query_estimates(curves, "d", 1)
