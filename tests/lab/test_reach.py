"""The reach experiment (samplers where no exact method gives every marginal) on the one framework."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from prunelab import exact_marginals
from prunelab.lab.experiments import EXPERIMENTS, PROVENANCE_KEYS, load_folder, store, sweep
from prunelab.lab.experiments.framework import _check_settings, extends, record_path
from prunelab.lab.experiments.reach import REACH, ReachProfile, ReachRun, reach_case, reach_table, truth_variables

TINY = ReachProfile("tiny", networks=("grid-d90-5x5-s1",), samplers=("prune-count", "gibbs-rb", "pyagrum-lbp"),
                    budgets=(0.3,), n_truth=5, count_seconds=120.0, grace_seconds=120.0, long_samplers=("gibbs-rb",),
                    long_budget=0.6)

OLD_PAPER = {"budgets": [60.0], "chains": 2, "count_seconds": 3600.0, "grace_seconds": 150.0, "max_gib": 6.0,
             "n_truth": 30, "name": "paper",
             "networks": ["mastermind_05_08_03-0000", "mastermind_05_08_03-0014", "blockmap_10_02-0000",
                          "grid-d90-50x50-s1", "grid-d90-50x50-s5"],
             "samplers": ["gibbs-rb", "pyagrum-lbp", "pyagrum-importance", "mc-sat-samplesat", "prune-per-step",
                          "prune-count", "prune-count-rb", "prune-tempered", "mc-sat"]}
"""The ``paper`` profile's settings as the 60 s store (made before the profile had a long stage) holds them."""

BUDGET_COLUMNS = {"id", "network", "sampler", "budget", "n_chains", "variables", "status", "reason", "n_steps", "steps",
                  "seconds", "setup_seconds", "move_rate", "estimates", "trap_judged", "trap_note", "trap_split",
                  "trap_disagreeing", "never_moved", "never_moved_states", "note", "wall_seconds", "load_start"}
TRUTH_COLUMNS = {"id", "network", "n_variables", "n_observed", "variables", "status", "reason", "log_p_evidence",
                 "marginals", "count_seconds", "count_cpu_seconds", "wall_seconds", "load_start"}


def _hellinger(p, q) -> float:
    return math.sqrt(0.5 * sum((math.sqrt(a) - math.sqrt(b)) ** 2 for a, b in zip(p, q)))


def test_plan_counts_first_and_ids_are_unique_and_name_the_run():
    runs = REACH.plan(REACH.profiles["paper"])
    ids = [r.id for r in runs]
    assert len(set(ids)) == len(ids) and {r.kind for r in runs} == set(REACH.tables)
    n_networks = len(REACH.profiles["paper"].networks)
    assert [r.kind for r in runs[:n_networks]] == ["truth"] * n_networks
    paper = REACH.profiles["paper"]
    assert len(runs) == n_networks * (1 + len(paper.samplers) + len(paper.long_samplers))
    assert ReachRun("budget", "grid-d90-50x50-s1", "mc-sat", 60.0).id == "budget.grid-d90-50x50-s1.mc-sat.60s"
    assert EXPERIMENTS["reach"] is REACH


def test_the_paper_profile_extends_the_store_made_before_its_long_stage(tmp_path):
    old = {"profile": OLD_PAPER, "root_seed": "20170901"}
    new = store.plain_json({"profile": REACH.profiles["paper"].to_dict(), "root_seed": "20170901"})
    assert extends(new, old) and not extends(old, new)
    _check_settings(tmp_path, old)  # the store as the sweep began it: its sweep.json, then a record
    truth = ReachRun("truth", "mastermind_05_08_03-0000")
    store.write_json_atomic({"id": truth.id, "network": truth.network, "status": "ok", "settings": old},
                            record_path(tmp_path, truth.id))
    with pytest.raises(store.SweepMismatchError, match="other settings"):
        _check_settings(tmp_path, new)
    _check_settings(tmp_path, new, extend=True)
    assert store.read_json(tmp_path / "sweep.json", "") == new
    old_plan = REACH.plan(ReachProfile(**{k: tuple(v) if isinstance(v, list) else v for k, v in OLD_PAPER.items()}))
    plan = REACH.plan(REACH.profiles["paper"])
    long = [ReachRun("budget", n, s, 600.0) for n in OLD_PAPER["networks"]
            for s in ("gibbs-rb", "pyagrum-lbp", "pyagrum-importance")]
    assert plan == (*old_plan, *long) and len(long) == 15
    todo = [r for r in plan if not record_path(tmp_path, r.id).exists()]
    assert truth not in todo and len(todo) == len(plan) - 1  # the counted truth is not made again


def test_cases_and_counted_variables_are_fixed_by_the_network_and_refused_by_name():
    bn, evidence = reach_case("grid-d90-5x5-s1")
    chosen = truth_variables(bn, evidence, "grid-d90-5x5-s1", 5)
    assert len(chosen) == 5 == len(set(chosen)) and chosen == sorted(chosen, key=bn.variables.index)
    assert chosen != truth_variables(bn, evidence, "grid-d90-5x5-s2", 5)  # another network, another choice
    assert len(truth_variables(bn, evidence, "x", 1000)) == 25  # at most every free variable
    bn, evidence = reach_case("mastermind_03_08_03-0001")  # an instance with its evidence file
    assert evidence and not set(truth_variables(bn, evidence, "m", 30)) & set(evidence)
    with pytest.raises(ValueError, match="unknown network 'grid-7'"):
        reach_case("grid-7")


def test_sweep_records_have_the_schema_and_the_counted_truth_is_exact(tmp_path):
    report = sweep(REACH, TINY, out=tmp_path, root_seed=5)
    assert tuple(report) == PROVENANCE_KEYS and report["missing"] == [] and report["n_done"] == 5
    tables = load_folder(tmp_path)
    assert set(tables["truth"].columns) == TRUTH_COLUMNS and set(tables["budget"].columns) == BUDGET_COLUMNS
    truth = tables["truth"].iloc[0]
    bn, evidence = reach_case("grid-d90-5x5-s1")
    assert list(truth["variables"]) == truth_variables(bn, evidence, "grid-d90-5x5-s1", 5)
    exact = exact_marginals(bn, evidence, method="junction_tree")
    for v, m in zip(truth["variables"], truth["marginals"]):  # the counter's answer is the junction tree's
        np.testing.assert_allclose(np.asarray(m, float), exact[v], rtol=0, atol=1e-9)
    assert (tables["budget"]["status"] == "ok").all() and (tables["budget"]["reason"] == "").all()
    table = reach_table(tables)
    assert sorted(zip(table["sampler"], table["budget"])) == [  # the long stage's row beside the short one's
        ("gibbs-rb", 0.3), ("gibbs-rb", 0.6), ("prune-count", 0.3), ("pyagrum-lbp", 0.3)]
    steps = table.set_index(["sampler", "budget"])["n_steps"]
    assert steps[("gibbs-rb", 0.3)] > 0 and steps[("gibbs-rb", 0.6)] > 0
    assert steps[("gibbs-rb", 0.3)] != steps[("gibbs-rb", 0.6)]  # two runs, not one row twice
    budget = tables["budget"][tables["budget"]["budget"] == 0.3].set_index("sampler")
    assert list(budget.loc["prune-count", "steps"]) and budget.loc["prune-count", "n_chains"] == 2
    assert budget.loc["prune-count", "n_steps"] == sum(budget.loc["prune-count", "steps"])
    assert budget.loc["pyagrum-lbp", "n_chains"] == 1 and not budget.loc["pyagrum-lbp", "trap_judged"]
    for sampler in ("prune-count", "gibbs-rb"):  # two chains of hundreds of draws: judged
        assert budget.loc[sampler, "trap_judged"], budget.loc[sampler, "trap_note"]
    table = table[table["budget"] == 0.3].set_index("sampler")
    for sampler, row in budget.iterrows():  # AHD over the counted variables, from the records by hand
        estimates = [np.asarray(e, float) for e in row["estimates"]]
        assert all(abs(e.sum() - 1) < 1e-9 for e in estimates)
        by_hand = np.mean([_hellinger(e, exact[v]) for e, v in zip(estimates, row["variables"])])
        assert table.loc[sampler, "ahd"] == pytest.approx(by_hand, abs=1e-9)
        assert table.loc[sampler, "n_counted"] == 5


def test_refusals_are_records_not_errors(tmp_path):
    # the counts stopped by their guard at once (a cap of 0 s: no time to answer), and prune's counting plan
    # refused by its table caps on a 90 % 50 x 50 grid (a clique of 33 variables): records, not errors
    stopped = ReachProfile("stopped", networks=("grid-d90-5x5-s1",), samplers=("gibbs-rb",), n_truth=3,
                           count_seconds=0.0, grace_seconds=0.0)
    sweep(REACH, stopped, out=tmp_path / "truth", kinds=["truth"], root_seed=1)
    truth = load_folder(tmp_path / "truth")["truth"].iloc[0]
    assert truth["status"] == "timed out" and "cap of 0 s" in truth["reason"] and len(truth["marginals"]) == 0
    refused = ReachProfile("refused", networks=("grid-d90-50x50-s1",), samplers=("prune-count", "mc-sat"),
                           budgets=(1.0,), n_truth=30)
    sweep(REACH, refused, out=tmp_path / "budget", kinds=["budget"], root_seed=1)
    tables = load_folder(tmp_path / "budget")
    budget = tables["budget"]
    assert (budget["status"] == "refused").all() and budget["reason"].str.contains("TablesTooLargeError").all()
    assert (budget["n_steps"] == 0).all() and budget["estimates"].map(len).eq(0).all()
    table = reach_table({"truth": pd.DataFrame(columns=["network"]), "budget": budget})
    assert table["ahd"].isna().all() and (table["n_counted"] == 0).all()
    with pytest.raises(ValueError, match="unknown reach sampler"):
        REACH.run(ReachRun("budget", "grid-d90-5x5-s1", "nope", 1.0), ReachProfile("x", ("grid-d90-5x5-s1",),
                                                                                   samplers=("nope",)), 0)


def _tables(never_moved, exact):
    truth = pd.DataFrame([{"network": "n", "status": "ok", "variables": ["A", "B"], "marginals": exact}])
    budget = pd.DataFrame([{"network": "n", "sampler": "s", "budget": 1.0, "status": "ok", "reason": "",
                            "n_steps": 200, "n_chains": 2, "variables": ["A", "B"],
                            "estimates": [[1.0, 0.0], [0.5, 0.5]], "trap_judged": True, "trap_split": [],
                            "trap_disagreeing": [], "never_moved": never_moved,
                            "never_moved_states": [0] * len(never_moved)}])
    return {"truth": truth, "budget": budget}


def test_ahd_and_the_held_sign_are_judged_against_the_counted_truth():
    row = reach_table(_tables(["A"], [[0.5, 0.5], [0.5, 0.5]])).iloc[0]
    # A estimated (1, 0) against (1/2, 1/2): H^2 = 1 - sqrt(1/2); B exact: H = 0
    assert row["ahd"] == pytest.approx(math.sqrt(1 - math.sqrt(0.5)) / 2, abs=1e-12)
    assert row["worst_hellinger"] == pytest.approx(math.sqrt(1 - math.sqrt(0.5)), abs=1e-12)
    assert row["trapped"] and row["n_trapped_variables"] == 1 and row["trapped_chains"] == 2  # held at A = 0
    row = reach_table(_tables(["A"], [[0.95, 0.05], [0.5, 0.5]])).iloc[0]  # A = 1 has 0.05 < HELD_SHARE
    assert not row["trapped"] and row["trapped_chains"] == 0
