"""Tables 2 and 3 with the Rao-Blackwell estimator for prune sampling: the runs record it, the tables use it.

A prune run is computed twice from one seed, plain and with the Rao-Blackwell sums
(:func:`prunelab.lab.experiments.paper.rao_blackwell_mode`): the draws must be the
same, the plain curves those of the plain chain, the Rao-Blackwell curves those of
``sample(..., rb_checkpoints=...)``, and each time goes with its own estimator.
"""

from __future__ import annotations

import base64

import numpy as np
import pandas as pd
import pytest

from prunelab.indicators import hellinger, time_to_sigma
from prunelab.lab.experiments import PAPER, Profile, estimator_table, run_seed_sequence, select_cases, sweep
from prunelab.lab.experiments.paper import simulate_run
from prunelab.lab.experiments.specs import case_exact_marginals
from prunelab.lab.paper_numbers import PAPER_ALPHA, PAPER_BENCHMARKS, PAPER_LABELS, PAPER_SECONDS
from prunelab.sampling import sample

TINY = Profile("tiny", n_runs=3, n_draws=300, n_checkpoints=12)
SEED = 5


def _run(case_id: str, run: int = 0) -> tuple[dict, object]:
    case = select_cases([case_id])[0]
    record = simulate_run(case, run, TINY.n_draws, TINY.checkpoints, SEED)
    return record, case


def test_a_prune_run_records_both_estimators_from_one_seed():
    record, case = _run("asia_ev25.prune", run=1)
    bn, evidence = case.load()
    cps = TINY.checkpoints
    direct = sample(bn, "prune", TINY.n_draws, n_chains=1, evidence=evidence, seed=run_seed_sequence(case.id, SEED, replicate=1),
                    n_jobs=1, progress=False, rb_checkpoints=cps)
    query = case.query_variable
    qi = bn.index(query)
    assert base64.b64decode(record["query_draws"]) == direct.draws[0, :, qi].astype(np.int8).tobytes()  # one chain
    expected_rb = direct.running_marginals(query, cps, estimator="rao_blackwell")[0]
    np.testing.assert_allclose(np.reshape(record["estimate_rb"], expected_rb.shape), expected_rb, rtol=0, atol=1e-15)
    expected_plain = direct.running_marginals(query, cps)[0]
    np.testing.assert_allclose(np.reshape(record["estimate"], expected_plain.shape), expected_plain, rtol=0, atol=0)
    assert not np.allclose(expected_rb, expected_plain)  # two estimators, not one copied
    exact = case_exact_marginals(case)[query]
    np.testing.assert_allclose(record["hellinger_query_rb"], hellinger(expected_rb, exact), rtol=0, atol=1e-15)
    assert record["sample_seconds_rb"] > 0 and record["sample_seconds"] > 0


@pytest.mark.parametrize("case_id,has_rb,same_chain", [
    ("asia_ev25.gibbs", True, True),       # Gibbs always records the sums: one chain, one time
    ("asia_ev25.metropolis", False, False),  # no Rao-Blackwell estimate
])
def test_the_other_samplers_keep_their_one_chain(case_id, has_rb, same_chain):
    record, _ = _run(case_id)
    assert (record.get("estimate_rb") is not None) == has_rb
    if same_chain:
        assert record["sample_seconds_rb"] == record["sample_seconds"]
    else:
        assert record["sample_seconds_rb"] is None


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("rb_tables")
    sweep(PAPER, TINY.only(["grid-3x3.prune", "grid-3x3.metropolis", "asia_ev0.prune"]), out=out, root_seed=SEED,
          command="pytest rb tables")
    return {name: pd.read_parquet(out / f"{name}.parquet") for name in ("runs", "summary")}


def test_the_rao_blackwell_time_uses_the_rao_blackwell_chain_and_alpha(swept):
    runs, summary = swept["runs"], swept["summary"].set_index("case")
    for case in ("grid-3x3.prune", "asia_ev0.prune"):
        row = summary.loc[case]
        mine = runs[runs["case"] == case]
        per_draw_rb = mine["sample_seconds_rb"].mean() / TINY.n_draws
        assert row["seconds_per_draw_rb"] == pytest.approx(per_draw_rb, rel=1e-12)
        cost = time_to_sigma(row["alpha_rb"], per_draw_rb, mine["init_seconds"].mean(), target=TINY.target)
        assert row["seconds_to_target_rb"] == pytest.approx(cost.seconds, rel=1e-12)
        assert row["draws_to_target_rb"] == pytest.approx((row["alpha_rb"] / TINY.target) ** 2, rel=1e-12)
        assert np.isfinite(row["alpha_rb"]) and row["alpha_rb"] != row["alpha"]
    metropolis = summary.loc["grid-3x3.metropolis"]
    assert np.isnan(metropolis["alpha_rb"]) and np.isnan(metropolis["seconds_to_target_rb"])


def test_estimator_table_puts_both_estimators_beside_the_paper(swept):
    summary = swept["summary"]
    for which, plain, rb, printed in (("alpha", "alpha", "alpha_rb", PAPER_ALPHA),
                                      ("seconds", "seconds_to_target", "seconds_to_target_rb", PAPER_SECONDS)):
        table = estimator_table(summary, which)
        assert list(table.columns) == ["plain", "rao_blackwell", "ratio", "paper"]
        assert list(table.index) == [PAPER_LABELS[b] for b in PAPER_BENCHMARKS]
        row = summary.set_index("case").loc["grid-3x3.prune"]
        assert table.loc["Grid 3x3", "plain"] == row[plain] and table.loc["Grid 3x3", "rao_blackwell"] == row[rb]
        assert table.loc["Grid 3x3", "ratio"] == pytest.approx(row[rb] / row[plain], rel=1e-15)
        assert table["paper"].tolist() == [printed[b]["prune"] for b in PAPER_BENCHMARKS]
        assert table.loc["Grid 8x8", ["plain", "rao_blackwell"]].isna().all()  # not run here
        metropolis = estimator_table(summary, which, "metropolis")
        assert metropolis["rao_blackwell"].isna().all() and metropolis.loc["Grid 3x3", "plain"] > 0


def test_estimator_table_refuses_bad_arguments(swept):
    with pytest.raises(ValueError, match="which must be"):
        estimator_table(swept["summary"], "ess")
    with pytest.raises(ValueError, match="paper's"):
        estimator_table(swept["summary"], "alpha", "prune-tempered")


def test_the_tables_text_shows_prune_with_both_estimators(swept):
    from prunelab.lab.experiments import format_paper_tables

    text = format_paper_tables(swept["summary"])
    assert "Table 2, prune sampling: alpha with the plain and the Rao-Blackwell estimator" in text
    row = swept["summary"].set_index("case").loc["grid-3x3.prune"]
    grid_rows = [line for line in text.splitlines() if line.startswith("Grid 3x3")]
    assert f"{row['alpha_rb']:.3g}" in grid_rows[2] and f"{row['seconds_to_target_rb']:.3g}" in grid_rows[3]
