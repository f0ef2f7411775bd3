"""The scorecard's headline: the per-draw comparison counts only benchmarks where all three samplers mix."""

import pandas as pd
import pytest

from prunelab.lab.headline import all_rows, efficiency_where_all_mix, verdict_counts
from prunelab.lab.scorecard import VERDICTS, Row


def cases(benchmark, alpha, ess, **values):
    """Three forward-start cases of one benchmark, mixing unless ``values`` say otherwise."""
    rows = []
    for k, sampler in enumerate(("gibbs", "metropolis", "prune")):
        row = {"benchmark": benchmark, "sampler": sampler, "init": "forward", "exact_query": 0.3, "rhat": 1.0,
               "constant_chains": 0, "alpha": alpha[k], "ess_bulk": ess[k], "n_draws": 100, "n_runs": 10}
        row.update(values.get(sampler, {}))
        rows.append(row)
    return rows


def test_the_best_sampler_its_margin_and_the_ess_ratio():
    summary = pd.DataFrame(cases("alarm_ev0", (2.0, 2.5, 0.8), (100.0, 80.0, 700.0))
                           + cases("asia_ev25", (0.78, 0.71, 0.73), (800.0, 1200.0, 1000.0)))
    table = efficiency_where_all_mix(summary)
    assert list(table.index) == ["alarm_ev0", "asia_ev25"]  # the paper's order (Figure 5: (b) before (d))
    assert table.loc["alarm_ev0", "best"] == "prune" and table.loc["asia_ev25", "best"] == "metropolis"
    assert table.loc["alarm_ev0", "prune_over_gibbs"] == pytest.approx(7.0)
    assert table.loc["asia_ev25", "alpha_spread"] == pytest.approx(0.78 / 0.71 - 1)
    assert table.loc["asia_ev25", "ess_per_draw_metropolis"] == pytest.approx(1200 / 1000)


def test_a_benchmark_where_one_sampler_does_not_mix_or_the_query_is_fixed_is_left_out():
    trapped = cases("grid-8x8", (4.4, 4.3, 0.5), (2.0, 2.0, 1000.0), gibbs={"rhat": 1.03})
    stuck = cases("win95pts_ev0", (27.0, 26.0, 0.7), (1.0, 1.0, 900.0), metropolis={"constant_chains": 100})
    fixed = cases("asia_ev0", (0.5, 0.5, 0.5), (10.0, 10.0, 10.0))
    for row in fixed:
        row["exact_query"] = 1.0
    partial = cases("alarm_ev25", (2.0, 2.5, 0.8), (100.0, 80.0, 700.0))[:2]
    table = efficiency_where_all_mix(pd.DataFrame(trapped + stuck + fixed + partial))
    assert table.empty


def test_the_rows_of_the_frozen_results_and_their_counts():
    from prunelab.lab.experiments import PAPER, results

    rows = all_rows(results(PAPER, "paper"))
    counts = verdict_counts(rows)
    assert list(counts.index) == list(VERDICTS) and counts.sum() == len(rows)
    assert len({row.key for row in rows}) == len(rows)
    for row in rows:
        if row.key.startswith("fig5"):
            # a Figure 5 note exactly when a reversal comes with a baseline marked as not mixing
            baselines = row.ours.split(", prune")[0]
            assert bool(row.note) == (row.verdict == "reversed" and ("†" in baselines or "‡" in baselines)), row


def test_counts_of_no_rows_are_zero():
    assert verdict_counts([]).tolist() == [0, 0, 0, 0]
    assert verdict_counts([Row("a", "", "", "", "differs")])["differs"] == 1


def test_row_groups_hold_every_row_once_and_keep_the_counts():
    from prunelab.lab.experiments import PAPER, results
    from prunelab.lab.headline import ROW_GROUPS, verdicts_by_group

    rows = all_rows(results(PAPER, "paper"))
    table = verdicts_by_group(rows)
    assert list(table.index) == list(ROW_GROUPS)
    assert table.sum().to_dict() == verdict_counts(rows).to_dict()
    with pytest.raises(ValueError, match="exactly once"):
        verdicts_by_group(rows[:-1])
