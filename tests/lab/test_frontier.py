"""The frontier experiment (grids past the junction tree) on the framework every frozen result shares."""

from __future__ import annotations

import json

import numpy as np
import pytest

from prunelab import exact_marginals, make_grid
from prunelab.lab.experiments import EXPERIMENTS, FRONTIER, PROVENANCE_KEYS, load_folder, sweep
from prunelab.lab.experiments.framework import run_seed_sequence
from prunelab.lab.experiments.frontier import FrontierProfile, FrontierRun, grid_case

TINY = FrontierProfile("tiny", grids=((90, 5, 2), (50, 4, 1)), budget_grids=((90, 5, 2),), budgets=(0.1,),
                       samplers=("prune", "prune-tempered", "prune-cmsgen", "gibbs"), compile_seconds=60.0,
                       speed_steps=100, per_step_grids=((90, 5, 2),), per_step_chains=2, per_step_steps=3,
                       per_step_cmsgen_steps=4)


def test_grid_case_observes_a_tenth_of_the_nodes_away_from_the_sink_at_a_possible_state():
    bn, evidence = grid_case(90, 6, 3, "scattered")
    assert len(evidence) == round(0.1 * 36) and not {"v_6_6", "v_5_6", "v_6_5"} & set(evidence)
    assert bn.variables == make_grid(6, 0.9, seed=3).variables
    assert grid_case(90, 6, 3, "scattered")[1] == evidence  # the same evidence every time
    exact_marginals(bn, evidence)  # possible evidence: an impossible one raises
    assert grid_case(90, 6, 3, "none")[1] == {}
    with pytest.raises(ValueError, match="unknown evidence kind 'col'"):
        grid_case(90, 6, 3, "col")


def test_run_ids_are_unique_and_seeds_follow_them():
    runs = FRONTIER.plan(FRONTIER.profiles["paper"])
    ids = [r.id for r in runs]
    assert len(set(ids)) == len(ids)
    assert {r.kind for r in runs} == set(FRONTIER.tables)
    a, b = (run_seed_sequence(r.id, 1).generate_state(2).tolist() for r in runs[:2])
    assert a != b
    assert FrontierRun("compile", 75, 22, 1, "none").id == "compile.d75-22x22-s1.none"


def test_sweep_writes_exact_answers_that_agree_resumes_and_has_the_one_provenance_schema(tmp_path):
    report = sweep(FRONTIER, TINY, out=tmp_path, root_seed=3)
    assert tuple(report) == PROVENANCE_KEYS and report["experiment"] == "frontier"
    assert report["regenerate"].startswith("python -m prunelab run frontier --profile tiny")
    assert report["missing"] == [] and report["n_done"] == len(FRONTIER.plan(TINY))
    tables = load_folder(tmp_path)
    compiled = tables["compile"]
    assert (compiled["circuit_status"] == "ok").all() and (compiled["jt_status"] == "ok").all()
    # two independent exact methods, the junction tree and the circuit, give one answer
    np.testing.assert_allclose(compiled["p_sink"], compiled["jt_p_sink"], rtol=0, atol=1e-9)
    for row in compiled.itertuples():  # and the circuit's answer is the exact one of the grid the id names
        bn, evidence = grid_case(row.percent, row.side, row.seed, row.evidence)
        assert abs(exact_marginals(bn, evidence, method="junction_tree")[bn.variables[-1]][1] - row.p_sink) < 1e-9
    budget = tables["budget"].set_index("sampler", append=True)
    assert (tables["budget"]["status"] == "ok").all()
    notes = tables["budget"].groupby("sampler")["note"].agg(set)
    assert notes["prune"] == notes["prune-tempered"] == {"uniform=circuit"} and notes["prune-cmsgen"] == {"uniform=cmsgen"}
    np.testing.assert_allclose(tables["budget"]["exact_p_sink"].to_numpy(),
                               [compiled.set_index(["grid", "evidence"]).loc[(g, e), "p_sink"]
                                for g, e in zip(tables["budget"]["grid"], tables["budget"]["evidence"])])
    assert len(budget) == 8
    per_step = tables["per_step"].iloc[0]
    assert len(per_step["p_sink_estimates"]) == 2 and per_step["steps_per_second"] > 0
    assert all(estimate in (0, 1 / 3, 2 / 3, 1) for estimate in per_step["p_sink_estimates"])  # shares of 3 steps
    assert len(per_step["cmsgen_p_sink_estimates"]) == 2 and per_step["cmsgen_steps_per_second"] > 0
    assert all(4 * estimate in (0, 1, 2, 3, 4) for estimate in per_step["cmsgen_p_sink_estimates"])  # of 4 steps
    assert per_step["cmsgen_note"] == ""
    again = sweep(FRONTIER, TINY, out=tmp_path, root_seed=3)
    assert again["n_done"] == 0 and again["n_skipped"] == report["n_done"]
    assert len(again["previous_sessions"]) == 1
    assert json.loads((tmp_path / "provenance.json").read_text())["out"] == tmp_path.name  # no machine path


def test_unknown_kinds_and_experiments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown kind.* of frontier run: grid; kinds are compile, budget"):
        sweep(FRONTIER, TINY, out=tmp_path, kinds=["grid"])
    with pytest.raises(KeyError, match="unknown frontier profile 'huge'"):
        sweep(FRONTIER, "huge", out=tmp_path)
    assert set(EXPERIMENTS) >= {"large", "frontier"}


def test_mcsat_experiment_runs_tiny_and_its_frozen_tables_match_its_plan(tmp_path):
    from prunelab.catalogue import data_dir
    from prunelab.lab.experiments import MCSAT
    from prunelab.lab.experiments.mcsat import BENCH_CASES, McsatProfile

    tiny = McsatProfile("tiny", bias_steps=300, bias_chains=1, runs=2, draws=200)
    report = sweep(MCSAT, tiny, out=tmp_path, kinds=["benchmark"], root_seed=2)
    assert tuple(report) == PROVENANCE_KEYS and report["rows"] == {"benchmark": 12}
    bench = load_folder(tmp_path)["benchmark"]
    for network, (name, options, evidence, query) in BENCH_CASES.items():
        from prunelab import load_network

        exact = exact_marginals(load_network(name, **options), evidence)[query]
        assert np.allclose(bench.loc[bench["network"] == network, "exact_query_0"], exact[0], rtol=0, atol=1e-12)
    frozen = load_folder(data_dir() / "results" / "mcsat")
    planned = {r.id for r in MCSAT.plan(MCSAT.profiles["paper"])}
    assert planned == set(frozen["bias"]["id"]) | set(frozen["benchmark"]["id"])
    assert set(frozen["provenance"]) == set(PROVENANCE_KEYS)  # written with sorted keys


def test_count_runs_give_the_junction_trees_exact_answers_on_the_smoke_grids(tmp_path):
    from prunelab.exact import log_probability_of_evidence

    report = sweep(FRONTIER, "smoke", out=tmp_path, kinds=["count"], root_seed=3)
    smoke = FRONTIER.profiles["smoke"]
    assert report["rows"] == {"count": len(smoke.grids) * len(smoke.evidence)} and report["missing"] != []
    counted = load_folder(tmp_path)["count"]
    assert (counted["count_status"] == "ok").all() and (counted["count_note"] == "").all()
    assert (counted["count_cap_seconds"] == smoke.count_seconds).all()
    assert (counted["count_seconds"] > 0).all() and (counted["count_cpu_seconds"] > 0).all()
    for row in counted.itertuples():  # two independent exact methods: the counter and the junction tree
        bn, evidence = grid_case(row.percent, row.side, row.seed, row.evidence)
        assert row.n_observed == len(evidence) and row.n_nodes == len(bn.variables)
        jt = exact_marginals(bn, evidence, method="junction_tree")[bn.variables[-1]][1]
        assert abs(row.count_p_sink - jt) < 1e-9, row.id
        log_p = log_probability_of_evidence(bn, evidence, method="junction_tree")
        assert abs(row.count_log_p_evidence - log_p) < 1e-9, row.id
    assert set(counted["evidence"]) == {"none", "scattered"}
    assert (counted.loc[counted["evidence"] == "none", "count_log_p_evidence"].abs() < 1e-12).all()  # P(no evidence) = 1


def test_a_count_past_its_cap_is_a_refusal_record_not_an_answer(tmp_path):
    capped = FrontierProfile("capped", grids=((50, 4, 1),), budget_grids=(), budgets=(), evidence=("none",),
                             count_seconds=0.0)
    report = sweep(FRONTIER, capped, out=tmp_path, kinds=["count"], root_seed=3)
    assert report["rows"] == {"count": 1}
    row = load_folder(tmp_path)["count"].iloc[0]
    assert row["id"] == "count.d50-4x4-s1.none" and row["count_status"] == "refused"
    assert "cap of 0 s" in row["count_note"] and "0 of its 2 weighted counts done" in row["count_note"]
    assert np.isnan(row["count_p_sink"]) and np.isnan(row["count_log_p_evidence"])
    assert row["count_cap_seconds"] == 0.0
